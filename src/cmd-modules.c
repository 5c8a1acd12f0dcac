/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist modules: the firmware kernel modules request, and where each name is in the tree. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "fwdist.h"
#include "fwsearch.h"
#include "hwreport.h"
#include "json.h"
#include "modinfo.h"
#include "modmap.h"
#include "plan.h"
#include "util.h"

static const struct fw_cli_opt opts[] = {
	{ "kernel-release", 'r', false, "R",
	  "the modules of /lib/modules/R", NULL },
	{ "modules-dir", 'm', false, "DIR",
	  "every module below DIR", NULL },
	{ "compress", 'c', false, "=C",
	  "the install to describe: none (default), xz or zstd", NULL },
	{ "installed", 'i', false, NULL,
	  "read no tree: print each installed file that serves a\n"
	  "requested name, one root-relative path per line, where\n"
	  "the kernel's loader finds it (what an initramfs needs)", NULL },
	{ "newest", 'n', false, NULL,
	  "with --installed: of each group of alternatives, only\n"
	  "the newest installed (the one the kernel loads)", NULL },
	{ "destdir", FW_OPT_DESTDIR, false, "DIR",
	  "with --installed: the root the firmware is installed\n"
	  "under (default: $DESTDIR, else /)", NULL },
	{ "firmware-dir", FW_OPT_FWDIR, false, "DIR",
	  "with --installed: the firmware directory below it\n"
	  "(default: the root's; on a split root /lib/firmware,\n"
	  "then /usr/lib/firmware)", NULL },
	{ "write-map", 'w', false, NULL,
	  "write manifests/modules: for each name WHENCE lists,\n"
	  "the modules requesting it and their modaliases (one\n"
	  "that names no bus or matches every device of its bus\n"
	  "is left out, and said so)", NULL },
	{ "memory-limit", FW_OPT_MEMORY, false, "SIZE memory the decoders of .ko.xz/.ko.zst may hold",
	  "(as for install)", NULL },
	{ "json", FW_OPT_JSON, false, NULL,
	  "machine-readable output", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist [-C DIR] modules [--kernel-release R | --modules-dir DIR | FILE.ko...]\n"
		"                      [--compress=none|xz|zstd] [--write-map] [--json]\n"
		"       fwdist modules --installed [--newest] [--kernel-release R | --modules-dir DIR |\n"
		"                      FILE.ko...] [--destdir DIR] [--firmware-dir DIR] [--json]\n"
		"\n"
		"Read the .modinfo section of kernel modules (.ko, .ko.xz, .ko.zst) and say,\n"
		"for each firmware name they request, where an install of the tree puts it\n"
		"(package, stored name, the link it goes through) or that it is missing.\n"
		"Names of one module that differ only in the number before the extension\n"
		"(iwlwifi-cc-a0-72.ucode, -71.ucode, ...) are alternatives: their group is\n"
		"satisfied when one member is in the tree.\n"
		"With --installed the names are looked up where they are installed instead,\n"
		"as the kernel's loader looks: in each firmware directory updates/RELEASE,\n"
		"updates, RELEASE (the release of --kernel-release, or the last component\n"
		"of --modules-dir), then the directory, each as NAME, NAME.xz and NAME.zst;\n"
		"the first directory holding a form serves the name, with every form it\n"
		"holds. The initramfs-tools hook copies what this prints for the modules\n"
		"in the image.\n"
		"\n",
	.opts = opts,
	.foot = "\n"
		"Exit status 1 when a module cannot be read, a name a driver needs is\n"
		"missing, or no member of an alternative group is in the tree; with\n"
		"--installed only when a module or the firmware directory cannot be read\n"
		"(a name not installed is counted, not a failure: a module requests\n"
		"firmware for devices that may not be there).\n",
};

struct opts {
	const char *release, *dir;
	enum fw_compress comp;
	bool write_map, installed, newest, comp_set;
};

static int option(void *ctx, int c, const char *arg)
{
	struct opts *o = ctx;

	switch (c) {
	case 'r':
		o->release = arg;
		return EXIT_OK;
	case 'm':
		o->dir = arg;
		return EXIT_OK;
	case 'c':
		if (fw_compress_parse(arg, &o->comp) < 0)
			return fw_usage("modules", "--compress takes none, xz or zstd, not '%s'", arg);
		o->comp_set = true;
		return EXIT_OK;
	case 'i':
		o->installed = true;
		return EXIT_OK;
	case 'n':
		o->newest = true;
		return EXIT_OK;
	case 'w':
		o->write_map = true;
		return EXIT_OK;
	}
	return EXIT_USAGE;
}

/* What the tree does with one name. */
enum status { ST_FOUND, ST_MISSING, ST_ALT_MISSING, ST_NOT_INSTALLED };
static const char *const status_name[] = { "found", "missing", "alternative-missing",
					   "not-installable" };

static void json_mods(const struct fw_modset *s, const struct fw_fwreq *q)
{
	printf("[");
	for (size_t k = 0; k < q->nmods; k++) {
		printf("%s", k ? "," : "");
		fw_json_str(stdout, s->v[q->mods[k]].name);
	}
	printf("]");
}

static void text_mods(const struct fw_modset *s, const struct fw_fwreq *q)
{
	printf("  (");
	for (size_t k = 0; k < q->nmods; k++)
		printf("%s%s", k ? " " : "", fw_esc(s->v[q->mods[k]].name));
	printf(")\n");
}

static int write_map(const struct fw_tree *t, const struct fw_modset *s)
{
	struct fw_modmap m = { 0 };
	char *buf = NULL;
	size_t len = 0;
	int r = 0;

	for (size_t i = 0; i < s->n && r == 0; i++) {
		char **keep = NULL;
		size_t nkeep = 0;
		bool sifted = false;

		for (size_t j = 0; j < s->v[i].nfirmware && r == 0; j++) {
			if (!fw_tree_find(t, s->v[i].firmware[j]))
				continue;
			/* An alias matching every device (of its bus) is left out,
			 * and said so, once per module: the packages' metainfo
			 * would offer them to every machine, and check refuses
			 * such a map, which is not edited by hand. */
			if (!sifted) {
				sifted = true;
				keep = malloc((s->v[i].nalias ? s->v[i].nalias : 1) * sizeof(*keep));
				if (!keep) {
					r = -ENOMEM;
					break;
				}
				for (size_t k = 0; k < s->v[i].nalias; k++) {
					const char *why = fw_modalias_broad(s->v[i].alias[k]);

					if (why)
						fw_err("modules: %s: modalias '%s' left out of %s: %s",
						       fw_esc(s->v[i].name), fw_esc(s->v[i].alias[k]), FW_TREE_MODMAP,
						       why);
					else
						keep[nkeep++] = s->v[i].alias[k];
				}
			}
			r = fw_modmap_add(&m, s->v[i].firmware[j], s->v[i].name, keep, nkeep);
		}
		free(keep);
	}
	if (r == 0)
		r = fw_modmap_format(&m, &buf, &len);
	if (r == 0)
		r = fw_write_atomic(t->rootfd, FW_TREE_MODMAP, buf, len, 0644);
	if (r < 0)
		fw_err("modules: cannot write %s: %s", FW_TREE_MODMAP,
		       r == -E2BIG ? "a modalias longer than one of its lines can hold" : strerror(-r));
	free(buf);
	fw_modmap_free(&m);
	return r;
}

struct counts {
	size_t found, missing, alt, sat, needed_missing;
};

/* Each requested name's status in the plan, alternatives of a satisfied
 * group marked as such, and the counts of the summary. */
static void classify(const struct fw_fwreqs *q, const struct fw_plan *p, const struct fw_tree *t,
		     enum status *st, struct counts *n)
{
	for (size_t i = 0; i < q->n; i++) {
		const struct fw_plan_entry *e = fw_plan_find_name(p, q->v[i].name);

		if (e && (e->blob || e->kind == FW_PLAN_FILE))
			st[i] = ST_FOUND, n->found++;
		else if (fw_tree_find(t, q->v[i].name))
			st[i] = ST_NOT_INSTALLED, n->missing++;
		else
			st[i] = ST_MISSING, n->missing++;
	}
	for (size_t g = 0; g < q->ng; g++) {
		bool sat = false;

		for (size_t k = 0; k < q->g[g].nmembers; k++)
			sat |= st[q->g[g].members[k]] == ST_FOUND;
		n->sat += sat;
		if (sat)
			for (size_t k = 0; k < q->g[g].nmembers; k++)
				if (st[q->g[g].members[k]] != ST_FOUND)
					st[q->g[g].members[k]] = ST_ALT_MISSING;
	}
	for (size_t i = 0; i < q->n; i++) {
		n->alt += st[i] == ST_ALT_MISSING;
		n->needed_missing += st[i] == ST_MISSING || st[i] == ST_NOT_INSTALLED;
	}
}

/* One line (or JSON object) per requested firmware name. */
static void print_names(const struct fw_modset *s, const struct fw_fwreqs *q,
			const struct fw_plan *p, const enum status *st)
{
	for (size_t i = 0; i < q->n; i++) {
		const struct fw_fwreq *x = &q->v[i];
		const struct fw_plan_entry *e = fw_plan_find_name(p, x->name);

		if (fw_json) {
			printf("%s{\"name\":", i ? "," : "");
			fw_json_str(stdout, x->name);
			printf(",\"status\":\"%s\"", status_name[st[i]]);
			if (st[i] == ST_FOUND) {
				printf(",\"package\":");
				fw_json_str(stdout, fw_plan_package(p, e));
				printf(",\"installed\":");
				fw_json_str(stdout, e->final);
				printf(",\"compress\":\"%s\",\"link\":", fw_compress_name(e->comp));
				if (e->kind == FW_PLAN_LINK)
					fw_json_str(stdout, e->target);
				else
					printf("null");
			}
			printf(",\"group\":");
			if (x->group >= 0)
				fw_json_str(stdout, q->g[x->group].pattern);
			else
				printf("null");
			printf(",\"modules\":");
			json_mods(s, x);
			printf("}");
			continue;
		}
		printf("%-8s %s", st[i] == ST_FOUND ? "found" : st[i] == ST_ALT_MISSING ? "alt" :
				  st[i] == ST_NOT_INSTALLED ? "refused" : "missing",
		       fw_esc(x->name));
		if (st[i] == ST_FOUND) {
			printf(": %s, %s %s", fw_plan_package(p, e),
			       e->kind == FW_PLAN_LINK ? "link" : "file", fw_esc(e->final));
			if (e->kind == FW_PLAN_LINK)
				printf(" -> %s", fw_esc(e->target));
		} else if (st[i] == ST_NOT_INSTALLED) {
			printf(": in WHENCE, not installable");
		}
		text_mods(s, x);
	}
}

/* One line (or JSON object) per group of alternatives: which member, if
 * any, satisfies it (the last member found). */
static void print_groups(const struct fw_modset *s, const struct fw_fwreqs *q,
			 const enum status *st)
{
	for (size_t g = 0; g < q->ng; g++) {
		const struct fw_fwgroup *x = &q->g[g];
		long by = -1;

		for (size_t k = x->nmembers; k-- > 0;)
			if (st[x->members[k]] == ST_FOUND && by < 0)
				by = (long)x->members[k];
		if (fw_json) {
			printf("%s{\"module\":", g ? "," : "");
			fw_json_str(stdout, s->v[x->module].name);
			printf(",\"pattern\":");
			fw_json_str(stdout, x->pattern);
			printf(",\"members\":%zu,\"satisfied\":%s,\"by\":", x->nmembers,
			       by >= 0 ? "true" : "false");
			if (by >= 0)
				fw_json_str(stdout, q->v[by].name);
			else
				printf("null");
			printf("}");
		} else if (by >= 0) {
			/* A module's name= is the module's to choose: escaped. */
			printf("group    %s: %s: satisfied by %s (%zu alternatives)\n",
			       fw_esc(s->v[x->module].name), fw_esc(x->pattern), fw_esc(q->v[by].name),
			       x->nmembers);
		} else {
			printf("group    %s: %s: none of %zu alternatives in the tree\n",
			       fw_esc(s->v[x->module].name), fw_esc(x->pattern), x->nmembers);
		}
	}
}

/* The modules named by --kernel-release, --modules-dir or the arguments,
 * their read errors into md. 0 or -errno. */
static int read_modules(struct fw_modset *s, const struct opts *o, const struct fw_cli *cli,
			const char *dir, struct fw_diag *md)
{
	int r = 0;

	if (o->release || o->dir)
		return fw_modset_add_dir(s, dir ? dir : o->dir, md);
	for (size_t i = 0; i < cli->nargs && r == 0; i++)
		r = fw_modset_add_file(s, AT_FDCWD, cli->args[i], md);
	return r;
}

/* The release whose updates/RELEASE and RELEASE directories the loader
 * searches: --kernel-release's, or the last component of --modules-dir
 * (/lib/modules/RELEASE); none for module files. A new string, or NULL
 * (none, or out of memory: *nomem). */
static char *search_release(const struct opts *o, bool *nomem)
{
	char *r;

	*nomem = false;
	if (!o->release && !o->dir)
		return NULL;
	r = o->release ? strdup(o->release) : fw_dir_basename(o->dir);
	*nomem = !r;
	return r;
}

/* --installed: each requested name looked up where the loader finds it;
 * with newest, of a group only its newest installed member. Prints the
 * files (text) or one object per name (JSON). EXIT_OK, or EXIT_FINDING. */
static int print_installed(const struct fw_cli *cli, const struct opts *o,
			   const struct fw_modset *s, const struct fw_fwreqs *q)
{
	struct fw_search fs;
	struct fw_installed in = { 0 };
	size_t shown = 0, names = 0;
	bool nomem;
	char *release = search_release(o, &nomem);
	int r, ret = EXIT_FINDING;

	if (nomem)
		fw_err("modules: out of memory");
	r = nomem ? -ENOMEM : fw_cli_search_open(cli, release, &fs);
	free(release);
	if (r < 0)
		return EXIT_FINDING;
	r = fw_installed_find(&in, q, &fs, o->newest);
	for (size_t i = 0; in.unsafe && i < q->n; i++)
		if (in.unsafe[i])
			fw_err("modules: %s: %s; not looked up", fw_esc(q->v[i].name),
			       fw_name_problem(q->v[i].name));
	if (r < 0)
		goto nomem;
	if (fw_json) {
		fw_cli_json_begin();
		printf("{\"modules\":%zu,\"unreadable\":%zu,\"firmware\":[", s->n, s->bad);
	}
	for (size_t i = 0; i < q->n; i++) {
		bool inst = in.nfiles[i] && !in.older[i];

		names += inst;
		if (fw_json) {
			printf("%s{\"name\":", i ? "," : "");
			fw_json_str(stdout, q->v[i].name);
			printf(",\"status\":\"%s\",\"files\":[",
			       inst ? "installed" : in.older[i] ? "older" : "missing");
			for (size_t k = 0; inst && k < in.nfiles[i]; k++) {
				printf("%s", k ? "," : "");
				fw_json_str(stdout, in.files[i][k]);
			}
			printf("],\"group\":");
			if (q->v[i].group >= 0)
				fw_json_str(stdout, q->g[q->v[i].group].pattern);
			else
				printf("null");
			printf(",\"modules\":");
			json_mods(s, &q->v[i]);
			printf("}");
		} else {
			for (size_t k = 0; inst && k < in.nfiles[i]; k++)
				printf("%s\n", in.files[i][k]);
		}
		shown += inst ? in.nfiles[i] : 0;
	}
	if (fw_json)
		printf("],\"summary\":{\"names\":%zu,\"installed\":%zu,\"older\":%zu,\"files\":%zu}}\n",
		       q->n, names, in.older_n, shown);
	ret = s->bad ? EXIT_FINDING : EXIT_OK;
	goto out;
nomem:
	fw_err("modules: out of memory");
out:
	fw_installed_free(&in, q->n);
	fw_search_close(&fs);
	return ret;
}

int cmd_modules(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("modules");
	struct opts o = { .comp = FW_COMP_NONE };
	struct fw_diag d = { 0 }, md = { 0 };
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	struct fw_modset s = { 0 };
	struct fw_fwreqs q = { 0 };
	struct fw_plan p = { 0 };
	bool have_plan = false;
	enum status *st = NULL;
	struct counts n = { 0 };
	char *dir = NULL;
	int ret, r;

	cli.max_args = (size_t)-1;
	ret = fw_cli_parse(&cli, argc, argv, &help, option, &o);
	if (ret >= 0)
		goto out;
	if (!!o.release + !!o.dir + !!cli.nargs != 1) {
		ret = fw_usage("modules", "give one of --kernel-release R, --modules-dir DIR or FILE.ko...");
		goto out;
	}
	if (o.installed && (o.write_map || o.comp_set || cli.npkgs || cli.select_file)) {
		ret = fw_usage("modules", "--installed reads no tree: no --write-map, --compress, --package or --select");
		goto out;
	}
	if (!o.installed && (o.newest || cli.destdir || cli.fwdir)) {
		ret = fw_usage("modules", "--newest, --destdir and --firmware-dir go with --installed");
		goto out;
	}
	if (!o.installed) {
		ret = fw_cli_prepare(&cli, &t, &d, NULL);
		if (ret != EXIT_OK)
			goto out;
	}
	if (o.release) {
		if (strchr(o.release, '/') || !strcmp(o.release, "..") || !*o.release) {
			ret = fw_usage("modules", "--kernel-release takes a release, not a path");
			goto out;
		}
		dir = fw_asprintf("/lib/modules/%s", o.release);
	}
	r = read_modules(&s, &o, &cli, dir, &md);
	fw_print_diag(&md);
	if (r == -ENOMEM)
		goto nomem;
	if (r < 0) {
		ret = EXIT_FINDING;
		goto out;
	}
	if (o.installed) {
		if (fw_fwreqs_build(&q, &s) < 0)
			goto nomem;
		ret = print_installed(&cli, &o, &s, &q);
		goto out;
	}
	struct fw_plan_opts po = { .sel = cli.sel, .comp = o.comp, .no_licences = true };
	if (fw_fwreqs_build(&q, &s) < 0 || fw_plan_build(&p, &t, &po, NULL) < 0)
		goto nomem;
	have_plan = true;
	st = calloc(q.n ? q.n : 1, sizeof(*st));
	if (!st)
		goto nomem;
	classify(&q, &p, &t, st, &n);

	if (fw_json) {
		fw_cli_json_begin();
		printf("{\"modules\":%zu,\"unreadable\":%zu,\"firmware\":[", s.n, s.bad);
	}
	print_names(&s, &q, &p, st);
	if (fw_json)
		printf("],\"groups\":[");
	print_groups(&s, &q, st);
	if (fw_json)
		printf("],\"summary\":{\"names\":%zu,\"found\":%zu,\"missing\":%zu,"
		       "\"alternatives_missing\":%zu,\"groups\":%zu,\"satisfied\":%zu}}\n",
		       q.n, n.found, n.missing, n.alt, q.ng, n.sat);
	else
		printf("%zu modules (%zu unreadable), %zu firmware names: %zu found, %zu missing "
		       "(%zu of them alternatives); %zu alternative groups, %zu satisfied\n",
		       s.n + s.bad, s.bad, q.n, n.found, n.missing, n.alt, q.ng, n.sat);
	ret = s.bad || n.needed_missing || d.n ? EXIT_FINDING : EXIT_OK;
	if (o.write_map && write_map(&t, &s) < 0)
		ret = EXIT_FINDING;
	goto out;
nomem:
	fw_err("modules: out of memory");
	ret = EXIT_FINDING;
out:
	free(st);
	free(dir);
	if (have_plan)
		fw_plan_free(&p);
	fw_fwreqs_free(&q);
	fw_modset_free(&s);
	fw_cli_free(&cli);
	fw_tree_free(&t);
	fw_diag_free(&d);
	fw_diag_free(&md);
	return ret;
}
