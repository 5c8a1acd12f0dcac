/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist install: verify and install the tree (or part of it) into a firmware directory. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dpkg.h"
#include "fwdist.h"
#include "hwselect.h"
#include "json.h"
#include "install.h"
#include "plan.h"
#include "progress.h"
#include "util.h"

static const struct fw_cli_opt opts[] = {
	{ "destdir", FW_OPT_DESTDIR, false, "DIR",
	  "staging root (default: $DESTDIR, else none)", NULL },
	{ "firmware-dir", FW_OPT_FWDIR, false, "DIR",
	  "firmware directory below it (default: the root's,\n"
	  "/usr/lib/firmware on a merged-/usr root, where\n"
	  "lib -> usr/lib, else /lib/firmware)", NULL },
	{ "compress", 'c', false, "=none|xz|zstd|auto",
	  "xz uses the CRC32 check the kernel requires; zstd\n"
	  "frames carry their size. RawFile: is never compressed;\n"
	  "links point at the compressed name. auto: what the\n"
	  "target kernel's config loads (zstd, else xz, else none)", NULL },
	{ "kernel-config", 'K', false, "FILE",
	  "the target kernel's config (default for auto:\n"
	  "/boot/config-$(uname -r)); xz or zstd it cannot load\n"
	  "is refused", NULL },
	{ "kernel-release", 'R', false, "R",
	  "use /boot/config-R; with --hardware, resolve against\n"
	  "ROOT/lib/modules/R only", NULL },
	{ "dedup", 'D', false, NULL,
	  "identical blobs of one package become relative\n"
	  "symlinks to one copy (from the manifest's digests)", NULL },
	{ "package", FW_OPT_PACKAGE, false, "NAME",
	  "only this package of manifests/packages (repeatable)", NULL },
	{ "select", FW_OPT_SELECT, false, "FILE",
	  "only these request names or shell globs, one a line\n"
	  "(# comments); a link brings its target", NULL },
	{ "hardware", 'H', false, NULL,
	  "only the firmware the hardware present needs: each\n"
	  "modalias under /sys/devices resolved to its modules\n"
	  "and their dependencies (libkmod, as fwdist missing),\n"
	  "the names their modinfo lists and the kernel log's,\n"
	  "with the links they go through. Against every kernel\n"
	  "under ROOT/lib/modules (the union), unless\n"
	  "--kernel-release or --modules-dir names one. A name\n"
	  "needed that the tree does not install is named, and\n"
	  "the rest installed (--require-all); nothing needed\n"
	  "installs nothing, exit 0", NULL },
	{ "newest", 'N', false, NULL,
	  "with --hardware: of each group of alternatives (names\n"
	  "of a module differing only in a version), only the\n"
	  "newest the tree has: the kernels resolved (named in\n"
	  "the output) try it first and load no other", NULL },
	{ "require-all", 'b', false, NULL,
	  "with --hardware: a needed name the tree does not\n"
	  "install fails the install (exit 1), nothing written", NULL },
	{ "sysfs", 's', false, "DIR",
	  "with --hardware: a saved copy of /sys (or of\n"
	  "/sys/devices) instead of /sys/devices; the kernel log\n"
	  "is then read only from --kernel-log", NULL },
	{ "modules-dir", 'm', false, "DIR",
	  "with --hardware: resolve against the modules\n"
	  "directory DIR only (depmod's modules.alias.bin in it)", NULL },
	{ "kernel-log", 'k', false, "FILE",
	  "with --hardware: names that failed to load, from FILE\n"
	  "(dmesg's text) instead of /dev/kmsg", NULL },
	{ "no-kernel-log", 'n', false, NULL,
	  "with --hardware: read no kernel log", NULL },
	{ "no-licenses", 'L', false, NULL,
	  "do not install the licence texts", NULL },
	{ "force", 'F', false, NULL,
	  "replace files and directories fwdist did not install,\n"
	  "and compress as asked whatever the kernel config says", NULL },
	{ "jobs", FW_OPT_JOBS, true, "N",
	  "worker threads (default: one per CPU); they take the\n"
	  "largest blobs first", NULL },
	{ "memory-limit", FW_OPT_MEMORY, false, "SIZE",
	  "memory the xz/zstd encoders and decoders may hold\n"
	  "together (bytes, or with a K, M or G suffix;\n"
	  "default a quarter of RAM, at most 512M): a worker\n"
	  "whose codec does not fit waits for one to finish\n"
	  "(an xz encoder needs up to 93M a blob, zstd 53M,\n"
	  "less for small blobs; a decoder what the file's\n"
	  "header declares). Below one codec's need, one runs\n"
	  "at a time. Plain copies need no codec", NULL },
	{ "quiet", FW_OPT_QUIET, true, NULL,
	  "no progress line and no summary (the progress line\n"
	  "is drawn on standard error while the blobs are\n"
	  "copied, when it is a terminal, and cleared)", NULL },
	{ "json", FW_OPT_JSON, false, NULL,
	  "print what was installed as one JSON object instead\n"
	  "of the summary: counts, the names of each kind in\n"
	  "place, the problems, the exit", NULL },
	{ "adopt-packaged", 'a', false, NULL,
	  "take over a record marked as a Debian package's\n"
	  "(#packaged) that no dpkg database here lists (the\n"
	  "package's files copied by hand): install rewrites it\n"
	  "as fwdist's. One dpkg lists stays the package's", NULL },
	{ "packaged", 'p', false, NULL,
	  "mark each record written as the Debian package's of\n"
	  "the same name (debian/rules builds the packages so):\n"
	  "once the .deb is installed, fwdist leaves it to apt.\n"
	  "No syncfs: a package's build tree needs none (dpkg\n"
	  "makes the files durable when it unpacks them)", NULL },
	{ "require-signature", 'S', false, NULL,
	  "first check manifests/pins.p7s against CERT (--cert)\n"
	  "and the tree against the signed pins (see fwdist\n"
	  "sign); nothing is installed unless both hold. The\n"
	  "record keeps the newest release serial installed: an\n"
	  "older one, or the same serial with other pins, is\n"
	  "refused", NULL },
	{ "cert", 'Y', false, "CERT",
	  "with --require-signature: the signer's PEM certificate", NULL },
	{ "allow-downgrade", 'A', false, NULL,
	  "with --require-signature: install an older signed\n"
	  "release (or another one of the same serial)", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist [-C DIR] install [OPTIONS]\n"
		"\n"
		"Install the tree's blobs and links into DESTDIR/FIRMWAREDIR. Each blob is\n"
		"hashed while it is copied into a temporary file beside its final name and\n"
		"renamed into place only if it matches manifests/checksums; a mismatch\n"
		"leaves the old file untouched, names the blob and exits 1. Nothing is\n"
		"followed or written outside the destination. Undistributable blobs are\n"
		"never installed. The tree must pass the model checks of `fwdist check`.\n"
		"The licence texts the installed blobs need go to LICENSES/<package>/, and\n"
		"a record of what was installed to .fwdist/<package>.list: upgrades remove\n"
		"what the record has and the tree no longer does, switch files, links and\n"
		"directories atomically, and never replace what fwdist did not install.\n"
		"A blob the record lists with its content, whose installed bytes still\n"
		"hash to it, is not rewritten. Copies reach the disk (syncfs of the\n"
		"destination's filesystem, per batch) before they are renamed into place,\n"
		"and the record only once everything it names is on disk: a crash leaves\n"
		"each name old or new, and running again completes the install.\n"
		"On a root with a dpkg database (var/lib/dpkg), a name a dpkg package\n"
		"owns (in any of its storages, /lib/firmware or /usr/lib/firmware on a\n"
		"merged-/usr root) is left alone: not written, replaced or removed, and\n"
		"neither is any name of a package whose record a Debian package ships.\n"
		"Each such package is named once on standard error, with a count and a\n"
		"few names; they are no failure (exit 0 when all else is installed).\n"
		"There (var/lib/dpkg/status) install first takes dpkg's locks, as apt\n"
		"does, and stops if another process holds one. A file another writer\n"
		"puts at a name after it was checked is never replaced: kept, named.\n"
		"With --hardware only the firmware of the hardware present is selected\n"
		"(one line per kernel says what: devices, modules, names, alternatives);\n"
		"the records keep the rest, so a later full install or uninstall handles\n"
		"it. A later --hardware install adds; it removes nothing.\n"
		"\n",
	.opts = opts,
};

/* The names of one kind in place, as a JSON array. */
static void json_names(const struct fw_plan *p, const bool *in_place, enum fw_plan_kind kind,
		       int dedup)
{
	bool first = true;

	putchar('[');
	for (size_t i = 0; i < p->n; i++) {
		const struct fw_plan_entry *e = &p->v[i];

		if (!in_place[i] || e->kind != kind || (dedup >= 0 && (e->link == NULL) != dedup))
			continue;
		if (!first)
			putchar(',');
		fw_json_str(stdout, e->final);
		first = false;
	}
	putchar(']');
}

struct hwrun;
static void hw_json(const struct hwrun *hr);

static void json_result(const char *where, enum fw_compress comp, const struct fw_plan *p,
			const bool *in_place, const struct fw_install_result *res,
			const struct fw_diag *d, int ret, const struct hwrun *hr)
{
	fw_cli_json_begin();
	printf("{");
	if (hr)
		hw_json(hr);
	printf("\"destination\":");
	fw_json_str(stdout, where);
	printf(",\"compress\":\"%s\",\"blobs\":%zu,\"links\":%zu,\"dedup_links\":%zu,"
	       "\"licences\":%zu,\"unchanged\":%zu,\"removed\":%zu,\"kept\":%zu,\"failed\":%zu,"
	       "\"dpkg\":%zu,\"installed\":{\"blobs\":",
	       fw_compress_name(comp), res->blobs, res->links, res->dedup_links, res->licences,
	       res->unchanged, res->removed, res->kept, res->failed, res->dpkg);
	json_names(p, in_place, FW_PLAN_FILE, -1);
	printf(",\"links\":");
	json_names(p, in_place, FW_PLAN_LINK, 0);
	printf(",\"dedup_links\":");
	json_names(p, in_place, FW_PLAN_LINK, 1);
	printf(",\"licences\":");
	json_names(p, in_place, FW_PLAN_LICENCE, -1);
	printf("},\"problems\":");
	fw_cli_json_diag(stdout, d);
	printf(",\"exit\":%d}\n", ret);
}

struct opts {
	struct fw_plan_opts plan;
	struct fw_install_opts inst;
	const char *kconfig, *krelease, *cert;
	bool autosel, require_signature;
	bool hardware, newest, require_all, hw_opt;
	struct fw_hw_opts hw;
	struct fw_rec_release release;
};

static int option(void *ctx, int c, const char *arg)
{
	struct opts *o = ctx;

	switch (c) {
	case 'c':
		o->autosel = strcmp(arg, "auto") == 0;
		if (!o->autosel && fw_compress_parse(arg, &o->plan.comp) < 0)
			return fw_usage("install", "--compress takes none, xz, zstd or auto, not '%s'", arg);
		return EXIT_OK;
	case 'K':
		o->kconfig = arg;
		return EXIT_OK;
	case 'R':
		o->krelease = arg;
		return fw_cli_hw_option(&o->hw, "install", 'r', arg);
	case 'H':
		o->hardware = true;
		return EXIT_OK;
	case 'N':
		o->newest = true;
		o->hw_opt = true;
		return EXIT_OK;
	case 'b':
		o->require_all = true;
		o->hw_opt = true;
		return EXIT_OK;
	case 's':
	case 'm':
	case 'k':
	case 'n':
		o->hw_opt = true;
		return fw_cli_hw_option(&o->hw, "install", c, arg);
	case 'D':
		o->plan.dedup = true;
		return EXIT_OK;
	case 'L':
		o->plan.no_licences = true;
		return EXIT_OK;
	case 'F':
		o->inst.force = true;
		return EXIT_OK;
	case 'S':
		o->require_signature = true;
		return EXIT_OK;
	case 'Y':
		o->cert = arg;
		return EXIT_OK;
	case 'A':
		o->inst.allow_downgrade = true;
		return EXIT_OK;
	case 'a':
		o->inst.adopt_packaged = true;
		return EXIT_OK;
	case 'p':
		o->inst.packaged = true;
		return EXIT_OK;
	}
	return EXIT_USAGE;
}

/* What --hardware resolved: the kernels, their counts, the union. */
struct hwrun {
	struct fw_hwsel s;
};

static const char *kernel_name(const char *moddir)
{
	const char *b = strrchr(moddir, '/');

	return b && b[1] ? b + 1 : moddir;
}

/* Resolve the hardware against each kernel (fw_hwsel_resolve) and say
 * what each said. -1 to go on with the selection in hr->s, else the exit
 * code (the reason said). */
static int hw_select(const struct opts *o, const struct fw_cli *cli, const struct fw_tree *t,
		     struct hwrun *hr)
{
	const char *root = cli->destdir && *cli->destdir ? cli->destdir : "";
	char *top = NULL;
	int r, ret = -1;

	hr->s.newest = o->newest;
	r = fw_hwsel_resolve(&hr->s, root, &o->hw, t, &top);
	for (size_t k = 0; k < hr->s.nk; k++) {
		const struct fw_hwsel_kernel *x = &hr->s.k[k];

		fw_cli_hw_said("install", x->moddir, x->no_modules, x->log_error, &x->d);
		if (x->partial) {
			fw_err("install: --hardware: the hardware could not be resolved in full against "
			       "%s (see above); nothing installed", fw_esc(x->moddir));
			ret = EXIT_FINDING;
		}
	}
	if (r < 0 && !top) {
		fw_err("install: out of memory");
		ret = EXIT_FINDING;
	} else if (r < 0) {
		fw_err("install: --hardware: %s: %s (--kernel-release R or --modules-dir DIR); "
		       "nothing installed", fw_esc(top), strerror(-r));
		ret = EXIT_FINDING;
	} else if (!hr->s.nk) {
		fw_err("install: --hardware: no kernel under %s (--kernel-release R or "
		       "--modules-dir DIR); nothing installed", fw_esc(top));
		ret = EXIT_FINDING;
	}
	free(top);
	return ret;
}

static void hw_print(const struct hwrun *hr)
{
	for (size_t k = 0; k < hr->s.nk; k++) {
		const struct fw_hwsel_counts *c = &hr->s.k[k].c;

		printf("hardware: %s: %zu device%s (%zu bound), %zu module%s, %zu firmware name%s; "
		       "selected %zu", fw_esc(kernel_name(hr->s.k[k].moddir)), c->devices,
		       c->devices == 1 ? "" : "s", c->bound, c->modules, c->modules == 1 ? "" : "s",
		       c->names, c->names == 1 ? "" : "s", c->selected);
		if (c->older)
			printf(", left out %zu older alternative%s", c->older, c->older == 1 ? "" : "s");
		if (c->alt_absent)
			printf(", %zu alternative%s not in the tree", c->alt_absent,
			       c->alt_absent == 1 ? "" : "s");
		if (c->absent)
			printf(", %zu absent", c->absent);
		printf("\n");
	}
	if (hr->s.newest) {
		printf("hardware: --newest: the newest alternative of each group, the one kernel%s",
		       hr->s.nk == 1 ? "" : "s");
		for (size_t k = 0; k < hr->s.nk; k++)
			printf("%s %s", k ? (k + 1 == hr->s.nk ? " and" : ",") : "",
			       fw_esc(kernel_name(hr->s.k[k].moddir)));
		printf(" load%s first\n", hr->s.nk == 1 ? "s" : "");
	}
}

static void hw_json(const struct hwrun *hr)
{
	printf("\"hardware\":{\"newest\":%s,\"kernels\":[", hr->s.newest ? "true" : "false");
	for (size_t k = 0; k < hr->s.nk; k++) {
		const struct fw_hwsel_counts *c = &hr->s.k[k].c;

		printf("%s{\"modules_dir\":", k ? "," : "");
		fw_json_str(stdout, hr->s.k[k].moddir);
		printf(",\"devices\":%zu,\"bound\":%zu,\"modules\":%zu,\"names\":%zu,\"selected\":%zu,"
		       "\"older\":%zu,\"alternatives_absent\":%zu,\"absent\":%zu}",
		       c->devices, c->bound, c->modules, c->names, c->selected, c->older,
		       c->alt_absent, c->absent);
	}
	printf("],\"selected\":[");
	for (size_t i = 0; i < hr->s.nselected; i++) {
		printf("%s", i ? "," : "");
		fw_json_str(stdout, hr->s.selected[i]);
	}
	printf("],\"absent\":[");
	for (size_t i = 0; i < hr->s.nabsent; i++) {
		printf("%s", i ? "," : "");
		fw_json_str(stdout, hr->s.absent[i]);
	}
	printf("]},");
}

static void hw_free(struct hwrun *hr)
{
	fw_hwsel_free(&hr->s);
}

/* The options that exclude or need each other: an exit (usage), or -1. */
static int usage_conflicts(const struct opts *o, const struct fw_cli *cli)
{
	if (o->hw_opt && !o->hardware)
		return fw_usage("install", "--newest, --require-all, --sysfs, --modules-dir, --kernel-log "
				"and --no-kernel-log go with --hardware");
	if (o->hardware && cli->select_file)
		return fw_usage("install", "--hardware and --select exclude each other");
	if (o->hw.moddir && o->hw.release)
		return fw_usage("install", "give --kernel-release R or --modules-dir DIR, not both");
	if (o->hw.log && o->hw.no_log)
		return fw_usage("install", "give --kernel-log FILE or --no-kernel-log, not both");
	if (o->kconfig && o->krelease)
		return fw_usage("install", "--kernel-config and --kernel-release exclude each other");
	if (o->require_signature != (o->cert != NULL))
		return fw_usage("install", "--require-signature and --cert CERT go together");
	if (o->inst.allow_downgrade && !o->require_signature)
		return fw_usage("install", "--allow-downgrade goes with --require-signature");
	return -1;
}

/* --hardware: the names the hardware present needs, as the plan's
 * selection (-1), or the exit: nothing to install (0), a failure. */
static int hw_apply(struct opts *o, struct fw_cli *cli, struct fw_tree *t, struct hwrun *hr)
{
	int ret = hw_select(o, cli, t, hr);

	if (ret >= 0)
		return ret;
	if (!fw_json && !cli->quiet)
		hw_print(hr);
	for (size_t i = 0; i < hr->s.nabsent; i++)
		fw_err("install: --hardware: %s: the tree does not install it", fw_esc(hr->s.absent[i]));
	if (hr->s.nabsent && o->require_all) {
		fw_err("install: --hardware: the tree does not install %zu name%s the hardware "
		       "needs; nothing installed (--require-all)", hr->s.nabsent,
		       hr->s.nabsent == 1 ? "" : "s");
		return EXIT_FINDING;
	}
	if (!hr->s.nselected) {
		if (fw_json) {
			fw_cli_json_begin();
			printf("{");
			hw_json(hr);
			printf("\"destination\":null,\"exit\":0}\n");
		} else if (!cli->quiet) {
			size_t names = 0;

			for (size_t k = 0; k < hr->s.nk; k++)
				names += hr->s.k[k].c.names;
			printf("install: %s; nothing installed\n",
			       names ? "none of the firmware the hardware present needs is in the tree"
				     : "the hardware present needs no firmware");
		}
		return EXIT_OK;
	}
	o->plan.sel.blob = hr->s.blob;
	o->plan.sel.link = hr->s.link;
	return -1;
}

/* The line install prints when it is done. */
static void print_summary(const char *where, enum fw_compress comp, const struct fw_install_result *res)
{
	printf("install: %s: %zu blob%s (%s), %zu link%s, %zu dedup link%s, %zu licence%s",
	       fw_esc(where), res->blobs, res->blobs == 1 ? "" : "s", fw_compress_name(comp), res->links,
	       res->links == 1 ? "" : "s", res->dedup_links, res->dedup_links == 1 ? "" : "s",
	       res->licences, res->licences == 1 ? "" : "s");
	if (res->unchanged)
		printf("; %zu unchanged", res->unchanged);
	if (res->removed)
		printf("; removed %zu old name%s", res->removed, res->removed == 1 ? "" : "s");
	if (res->kept)
		printf("; kept %zu changed old name%s", res->kept, res->kept == 1 ? "" : "s");
	if (res->dpkg)
		printf("; left %zu to dpkg", res->dpkg);
	printf("%s\n", res->failed ? "; failed: see above" : "");
}

int cmd_install(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("install");
	struct opts o = { .plan.comp = FW_COMP_NONE };
	struct fw_install_result res;
	struct fw_progress counts = { 0 };
	struct fw_plan plan = { 0 };
	struct fw_diag d = { 0 };
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	struct fw_dpkg db = { 0 };
	struct hwrun hr = { 0 };
	char *where = NULL, *kpath = NULL;
	bool *in_place = NULL;
	int r, fd = -1, ret;

	ret = fw_cli_parse(&cli, argc, argv, &help, option, &o);
	if (ret >= 0)
		goto out;
	ret = EXIT_FINDING;
	o.inst.jobs = cli.jobs;
	ret = usage_conflicts(&o, &cli);
	if (ret >= 0)
		goto out;
	ret = EXIT_FINDING;
	/* --hardware's release names the modules; its config matters only
	 * for a compression to check or choose. */
	r = fw_plan_kernel_compress(o.kconfig,
				    o.hardware && !o.autosel && o.plan.comp == FW_COMP_NONE ? NULL
											: o.krelease,
				    o.autosel, o.inst.force, &o.plan.comp,
				    &kpath, &d);
	if (r == -EPERM) {
		fw_print_diag(&d);
		fw_err("install: --compress=%s refused for this kernel (--force overrides)",
		       fw_compress_name(o.plan.comp));
		goto out;
	}
	if (r < 0) {
		fw_err("install: %s: cannot read the kernel config: %s", kpath ? kpath : "uname",
		       strerror(-r));
		goto out;
	}
	fw_diag_free(&d);
	/* The signature first, before anything of the tree is read. */
	if (o.require_signature &&
	    fw_cli_require_signature("install", o.cert, &t, &d, &o.release) != EXIT_OK) {
		fw_err("install: nothing installed");
		goto out;
	}
	o.inst.release = o.require_signature ? &o.release : NULL;
	ret = fw_cli_prepare(&cli, &t, &d, "nothing installed");
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_FINDING;
	o.plan.sel = cli.sel;
	fw_diag_free(&d);
	if (o.hardware) {
		ret = hw_apply(&o, &cli, &t, &hr);
		if (ret >= 0)
			goto out;
		ret = EXIT_FINDING;
	}
	r = fw_plan_build(&plan, &t, &o.plan, &d);
	if (r < 0) {
		fw_err("install: %s", strerror(-r));
		goto out;
	}
	/* What dpkg owns, before the destination is made: a refusal leaves
	 * nothing behind. */
	/* dpkg's locks first: dpkg and apt keep off the root while this
	 * runs, and the database read is the one that stays true. */
	if (fw_cli_dpkg_lock(&cli, "nothing installed") != EXIT_OK ||
	    fw_cli_dpkg_load(&cli, &db, "nothing installed") != EXIT_OK)
		goto out;
	o.inst.dpkg = &db;
	fd = fw_cli_open_dest(&cli, true, &where);
	if (fd < 0)
		goto out;
	if (fw_json) {
		in_place = calloc(plan.n + 1, sizeof(*in_place));
		if (!in_place) {
			fw_err("install: out of memory");
			goto out;
		}
		o.inst.in_place = in_place;
	}
	o.inst.progress = fw_cli_progress_start(&cli, &counts);
	r = fw_install(&plan, fd, &o.inst, &res, &d);
	fw_cli_progress_stop();
	fw_print_diag(&d);
	if (r < 0) {
		fw_err("install: %s", strerror(-r));
		goto out;
	}
	if (fw_json)
		json_result(where, o.plan.comp, &plan, in_place, &res, &d, res.failed ? EXIT_FINDING : EXIT_OK,
			    o.hardware ? &hr : NULL);
	else if (!cli.quiet)
		print_summary(where, o.plan.comp, &res);
	if (res.failed) {
		if (res.failed > res.kept)
			fw_err("install: %zu not installed", res.failed - res.kept);
		if (res.kept)
			fw_err("install: %zu old name%s kept", res.kept, res.kept == 1 ? "" : "s");
		goto out;
	}
	ret = EXIT_OK;
out:
	if (fd >= 0)
		close(fd);
	free(where);
	free(kpath);
	free(in_place);
	hw_free(&hr);
	fw_dpkg_free(&db);
	fw_plan_free(&plan);
	fw_cli_free(&cli);
	fw_diag_free(&d);
	fw_tree_free(&t);
	return ret;
}
