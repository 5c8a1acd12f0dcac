/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist verify: check an installed firmware directory against the manifest. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dpkg.h"
#include "fwdist.h"
#include "plan.h"
#include "record.h"
#include "progress.h"
#include "json.h"
#include "util.h"
#include "verify.h"

static const struct fw_cli_opt opts[] = {
	{ "destdir", FW_OPT_DESTDIR, false, "DIR",
	  "staging root (default: $DESTDIR, else none)", NULL },
	{ "firmware-dir", FW_OPT_FWDIR, false, "DIR",
	  "firmware directory below it (default: the root's,\n"
	  "/usr/lib/firmware on a merged-/usr root, where\n"
	  "lib -> usr/lib, else /lib/firmware)", NULL },
	{ "package", FW_OPT_PACKAGE, false, "NAME",
	  "only this package's names (repeatable)", NULL },
	{ "select", FW_OPT_SELECT, false, "FILE",
	  "only these names or globs (as for install)", NULL },
	{ "from-records", 'R', false, NULL,
	  "check what the install records say was installed,\n"
	  "with no tree (the default where there is no tree:\n"
	  "no -C and no WHENCE here)", NULL },
	{ "no-licenses", 'L', false, NULL,
	  "do not expect the licence texts in LICENSES/<package>/", NULL },
	{ "ignore-extra", 'x', false, NULL,
	  "do not report unexpected entries (a shared /lib/firmware)", NULL },
	{ "jobs", FW_OPT_JOBS, true, "N",
	  "threads hashing (default: one per CPU); the report\n"
	  "and its order are the same whatever N", NULL },
	{ "memory-limit", FW_OPT_MEMORY, false, "SIZE",
	  "memory the xz/zstd decoders may hold together\n"
	  "(as for install; default a quarter of RAM, at\n"
	  "most 512M)", NULL },
	{ "quiet", FW_OPT_QUIET, true, NULL,
	  "no progress line (one is drawn on standard error\n"
	  "while the names are checked, when it is a\n"
	  "terminal, and cleared)", NULL },
	{ "json", FW_OPT_JSON, false, NULL,
	  "machine-readable output (and no progress line)", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist [-C DIR] verify [OPTIONS]\n"
		"\n"
		"Check an installed firmware directory against the tree: every blob\n"
		"(plain, .xz or .zst, decompressed and hashed; symlinks inside the\n"
		"directory are followed), every link, the licence texts install puts in\n"
		"LICENSES/<package>/, and entries nothing explains (.fwdist/ is install's).\n"
		"Works on any root, e.g. files unpacked from packages. Prints one line\n"
		"per problem (missing, modified, wrong type, unexpected, kernel) and\n"
		"exits 1 if there is any.\n"
		"\n"
		"With a tree, the install records tell a name left out (install\n"
		"--hardware, --select, --package) from a problem: such names are\n"
		"counted on one line, and are none.\n"
		"\n"
		"With no tree (no -C and no WHENCE here, or --from-records), checks what\n"
		"the destination's install records (.fwdist/PACKAGE.list, fwdist's and\n"
		"those its packages ship) say was installed: each file's digest, each\n"
		"link's target, the licence texts, and entries no record names and dpkg\n"
		"does not own.\n"
		"\n",
	.opts = opts,
};

static bool from_records;

static int option(void *ctx, int c, const char *arg)
{
	struct fw_plan_opts *po = ((void **)ctx)[0];
	struct fw_verify_opts *vo = ((void **)ctx)[1];

	(void)arg;
	switch (c) {
	case 'R':
		from_records = true;
		return EXIT_OK;
	case 'L':
		po->no_licences = true;
		vo->no_licences = true;
		return EXIT_OK;
	case 'x':
		vo->ignore_extra = true;
		return EXIT_OK;
	}
	return EXIT_USAGE;
}

/* Is there a tree to verify against? -C names one; else the working
 * directory is one if it has a WHENCE (anything there: a tree that cannot
 * be read is reported as such, not silently skipped). */
static bool have_tree(void)
{
	struct stat st;

	if (strcmp(fw_tree_root, ".") != 0)
		return true;
	return fstatat(AT_FDCWD, FW_TREE_WHENCE, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT;
}

static void print_result(const char *root, const struct fw_verify_result *res)
{
	if (fw_json) {
		fw_cli_json_begin();
		printf("{\"ok\":%s,\"root\":", res->n ? "false" : "true");
		fw_json_str(stdout, root);
		printf(",\"checked\":%zu,\"problems\":[", res->checked);
		for (size_t i = 0; i < res->n; i++) {
			printf("%s{\"kind\":\"%s\",\"name\":", i ? "," : "", res->v[i].kind);
			fw_json_str(stdout, res->v[i].name);
			printf(",\"detail\":");
			if (res->v[i].detail)
				fw_json_str(stdout, res->v[i].detail);
			else
				printf("null");
			printf("}");
		}
		printf("]");
	} else {
		for (size_t i = 0; i < res->n; i++)
			printf("%s: %s%s%s\n", res->v[i].kind, fw_esc(res->v[i].name),
			       res->v[i].detail ? ": " : "", res->v[i].detail ? res->v[i].detail : "");
	}
}

/* verify with no tree: the destination's records are the truth. */
static int verify_records(struct fw_cli *cli, struct fw_verify_opts *o)
{
	struct fw_progress counts = { 0 };
	struct fw_verify_result res = { 0 };
	struct fw_records rs = { 0 };
	struct fw_dpkg db = { 0 };
	struct fw_diag d = { 0 };
	bool *only = NULL;
	char *root = NULL;
	int r, fwfd, ret = EXIT_FINDING;

	if (cli->select_file)
		return fw_usage("verify", "--select needs a tree (-C DIR): the records hold no "
			       "request names to match");
	fwfd = fw_cli_open_dest(cli, false, &root);
	if (fwfd < 0) {
		if (fwfd == -ENOENT)
			fw_err("verify: %s: %s; nothing installed to verify", root ? fw_esc(root) : "?",
			       strerror(ENOENT));
		goto out;
	}
	r = fw_records_load(fwfd, &rs, &d);
	fw_print_diag(&d);
	if (r < 0) {
		fw_err("verify: %s/%s: cannot read the install records: %s", fw_esc(root),
		       FW_RECORD_DIR, r == -ELOOP ? "a symlink" : strerror(-r));
		goto out;
	}
	if (!rs.n) {
		fw_err("verify: %s: no install records (%s/PACKAGE.list): nothing fwdist installed "
		       "here to verify; give -C DIR to verify against a tree", fw_esc(root),
		       FW_RECORD_DIR);
		goto out;
	}
	if (cli->npkgs) {
		only = calloc(rs.n, sizeof(*only));
		if (!only) {
			fw_err("verify: out of memory");
			goto out;
		}
		for (size_t k = 0; k < cli->npkgs; k++) {
			size_t i = 0;

			while (i < rs.n && strcmp(rs.v[i].package, cli->pkgs[k]) != 0)
				i++;
			if (i == rs.n) {
				fw_err("verify: %s: no install record of package %s (%s/%s.list)",
				       fw_esc(root), fw_esc(cli->pkgs[k]), FW_RECORD_DIR,
				       fw_esc(cli->pkgs[k]));
				goto out;
			}
			only[i] = true;
		}
	}
	if (fw_cli_dpkg_load(cli, &db, "nothing verified") != EXIT_OK)
		goto out;
	o->progress = fw_cli_progress_start(cli, &counts);
	r = fw_verify_records(&rs, fwfd, &db, only, o, &res);
	fw_cli_progress_stop();
	if (r < 0) {
		fw_err("verify: %s", strerror(-r));
		goto out;
	}
	print_result(root, &res);
	if (fw_json) {
		printf(",\"records\":%zu,\"damaged\":%zu}\n", rs.n, rs.damaged + rs.foreign);
	} else if (res.n || rs.damaged || rs.foreign) {
		printf("verify: %s: %zu problem%s in %zu recorded names", fw_esc(root), res.n,
		       res.n == 1 ? "" : "s", res.checked);
		if (rs.damaged || rs.foreign)
			printf("; %zu damaged or foreign entr%s of %s/ (see above)",
			       rs.damaged + rs.foreign, rs.damaged + rs.foreign == 1 ? "y" : "ies",
			       FW_RECORD_DIR);
		printf("\n");
	} else {
		printf("verify: %s: OK: %zu recorded name%s (%zu install record%s, no tree)\n",
		       fw_esc(root), res.checked, res.checked == 1 ? "" : "s", rs.n,
		       rs.n == 1 ? "" : "s");
	}
	ret = res.n || rs.damaged || rs.foreign ? EXIT_FINDING : EXIT_OK;
out:
	if (fwfd >= 0)
		close(fwfd);
	free(only);
	free(root);
	fw_verify_result_free(&res);
	fw_records_free(&rs);
	fw_dpkg_free(&db);
	fw_diag_free(&d);
	return ret;
}

int cmd_verify(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("verify");
	struct fw_progress counts = { 0 };
	struct fw_plan_opts po = { .comp = FW_COMP_NONE };
	struct fw_verify_opts o = { 0 };
	void *ctx[2] = { &po, &o };
	struct fw_verify_result res = { 0 };
	struct fw_verify_subset a = { 0 };
	struct fw_plan plan = { 0 };
	struct fw_diag d = { 0 };
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	char *root = NULL;
	int r, rootfd = -1, ret;

	ret = fw_cli_parse(&cli, argc, argv, &help, option, ctx);
	if (ret >= 0)
		goto out;
	o.jobs = cli.jobs;
	if (from_records || !have_tree()) {
		ret = verify_records(&cli, &o);
		goto out;
	}
	ret = fw_cli_prepare(&cli, &t, &d, "fix it first");
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_FINDING;
	po.sel = cli.sel;
	/* The plan of an uncompressed install: verify accepts any variant. */
	r = fw_plan_build(&plan, &t, &po, NULL);
	if (r < 0) {
		fw_err("verify: %s", strerror(-r));
		goto out;
	}
	/* verify writes nothing: open the root as it is, never create it. */
	rootfd = fw_cli_open_dest(&cli, false, &root);
	if (rootfd < 0) {
		if (rootfd == -ENOENT)
			fw_err("verify: %s: %s", root ? root : "?", strerror(ENOENT));
		goto out;
	}
	o.progress = fw_cli_progress_start(&cli, &counts);
	r = fw_verify(&plan, rootfd, &o, &res);
	fw_cli_progress_stop();
	/* Asked for all of the tree: the records say what was chosen. */
	if (r == 0 && !cli.npkgs && !cli.select_file)
		r = fw_verify_against_records(&plan, rootfd, &res, &a);
	if (r < 0) {
		fw_err("verify: %s", strerror(-r));
		goto out;
	}
	print_result(root, &res);
	if (fw_json) {
		if (a.subset)
			printf(",\"not_installed\":%zu", a.subset);
		printf("}\n");
	} else {
		if (a.subset) {
			printf("verify: %zu name%s of the tree not installed: a subset (", a.subset,
			       a.subset == 1 ? "" : "s");
			if (a.subset_pkg)
				printf("%zu in packages not installed: --package%s", a.subset_pkg,
				       a.subset_pkg < a.subset ? "; " : "");
			if (a.subset_pkg < a.subset)
				printf("%zu left out of installed packages: --hardware or --select",
				       a.subset - a.subset_pkg);
			printf(")\n");
		}
		if (res.n)
			printf("verify: %s: %zu problem%s in %zu names\n", fw_esc(root), res.n,
			       res.n == 1 ? "" : "s", res.checked);
		else
			printf("verify: %s: OK: %zu name%s\n", fw_esc(root), res.checked,
			       res.checked == 1 ? "" : "s");
	}
	ret = res.n ? EXIT_FINDING : EXIT_OK;
out:
	if (rootfd >= 0)
		close(rootfd);
	fw_verify_result_free(&res);
	free(root);
	fw_plan_free(&plan);
	fw_cli_free(&cli);
	fw_diag_free(&d);
	fw_tree_free(&t);
	return ret;
}
