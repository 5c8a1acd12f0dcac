/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist uninstall: remove what install puts in place, and nothing else. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dpkg.h"
#include "fwdist.h"
#include "json.h"
#include "plan.h"
#include "uninstall.h"
#include "util.h"

static const struct fw_cli_opt opts[] = {
	{ "destdir", FW_OPT_DESTDIR, false, "DIR",
	  "staging root (default: $DESTDIR, else none)", NULL },
	{ "firmware-dir", FW_OPT_FWDIR, false, "DIR",
	  "firmware directory below it (default: the root's,\n"
	  "/usr/lib/firmware on a merged-/usr root, where\n"
	  "lib -> usr/lib, else /lib/firmware)", NULL },
	{ "package", FW_OPT_PACKAGE, false, "NAME",
	  "only this package (repeatable)", NULL },
	{ "select", FW_OPT_SELECT, false, "FILE",
	  "only these names or globs (as for install); the\n"
	  "record keeps the rest", NULL },
	{ "force", 'F', false, NULL,
	  "also remove recorded files changed since install", NULL },
	{ "adopt-packaged", 'a', false, NULL,
	  "remove a record marked as a Debian package's\n"
	  "(#packaged) that no dpkg database here lists (the\n"
	  "package's files copied by hand) as fwdist's. One\n"
	  "dpkg lists is still refused", NULL },
	{ "memory-limit", FW_OPT_MEMORY, false, "SIZE",
	  "memory the xz/zstd decoders may hold (as for install)", NULL },
	{ "quiet", FW_OPT_QUIET, true, NULL,
	  "no summary", NULL },
	{ "json", FW_OPT_JSON, false, NULL,
	  "print what was removed as one JSON object instead of\n"
	  "the summary: counts, the paths of each kind, the\n"
	  "problems, the exit", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist [-C DIR] uninstall [OPTIONS]\n"
		"\n"
		"Remove from DESTDIR/FIRMWAREDIR what `fwdist install` put there: exactly\n"
		"what .fwdist/<package>.list records (each entry only if it is still of\n"
		"the type installed), then the record. Without a record, every variant\n"
		"(NAME, NAME.xz, NAME.zst) of the tree's blobs and links and its licence\n"
		"texts. Also temporary files of an interrupted install and the directories\n"
		"this leaves empty. Other files are never touched; nothing is followed.\n"
		"On a root with a dpkg database (var/lib/dpkg), a file a dpkg package\n"
		"owns is never removed (named once per package on standard error, no\n"
		"failure). A record a Debian package ships (.fwdist/<package>.list in\n"
		"its .deb, or marked #packaged) is the package's: uninstall then removes\n"
		"nothing, names the package and exits 1; apt remove or apt purge does.\n"
		"There (var/lib/dpkg/status) uninstall first takes dpkg's locks, as apt\n"
		"does, and stops if another process holds one. A file another writer\n"
		"puts at a name after it was checked is never removed: kept, named.\n"
		"\n",
	.opts = opts,
};

/* The paths of one type removed, as a JSON array. */
static void json_names(const struct fw_uninstall_result *res, enum fw_rec_type type)
{
	bool first = true;

	putchar('[');
	for (size_t i = 0; i < res->n; i++) {
		if (res->v[i].type != type)
			continue;
		if (!first)
			putchar(',');
		fw_json_str(stdout, res->v[i].name);
		first = false;
	}
	putchar(']');
}

static void json_result(const char *root, const struct fw_uninstall_result *res,
			const struct fw_diag *d, int ret)
{
	fw_cli_json_begin();
	printf("{\"destination\":");
	fw_json_str(stdout, root);
	printf(",\"exists\":%s,\"blobs\":%zu,\"links\":%zu,\"licences\":%zu,\"kept\":%zu,"
	       "\"failed\":%zu,\"dpkg\":%zu,\"removed\":{\"blobs\":", res ? "true" : "false",
	       res ? res->blobs : 0, res ? res->links : 0, res ? res->licences : 0,
	       res ? res->kept : 0, res ? res->failed : 0, res ? res->dpkg : 0);
	if (res) {
		json_names(res, FW_REC_FILE);
		printf(",\"links\":");
		json_names(res, FW_REC_LINK);
		printf(",\"licences\":");
		json_names(res, FW_REC_LICENCE);
	} else {
		printf("[],\"links\":[],\"licences\":[]");
	}
	printf("},\"problems\":");
	fw_cli_json_diag(stdout, d);
	printf(",\"exit\":%d}\n", ret);
}

struct opts {
	struct fw_uninstall_opts un;
};

static int option(void *ctx, int c, const char *arg)
{
	struct opts *o = ctx;

	(void)arg;
	switch (c) {
	case 'F':
		o->un.force = true;
		return EXIT_OK;
	case 'a':
		o->un.adopt_packaged = true;
		return EXIT_OK;
	}
	return EXIT_USAGE;
}

int cmd_uninstall(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("uninstall");
	struct fw_plan_opts po = { .comp = FW_COMP_NONE };
	struct opts o = { 0 };
	struct fw_uninstall_result res = { 0 };
	struct fw_plan plan = { 0 };
	struct fw_diag d = { 0 };
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	struct fw_dpkg db = { 0 };
	char *root = NULL;
	int r, fd = -1, ret;

	ret = fw_cli_parse(&cli, argc, argv, &help, option, &o);
	if (ret >= 0)
		goto out;
	ret = fw_cli_prepare(&cli, &t, &d, "nothing removed");
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_FINDING;
	po.sel = cli.sel;
	r = fw_plan_build(&plan, &t, &po, NULL);
	if (r < 0) {
		fw_err("uninstall: %s", strerror(-r));
		goto out;
	}
	fd = fw_cli_open_dest(&cli, false, &root);
	if (fd == -ENOENT) {
		ret = EXIT_OK; /* nothing installed: nothing to do */
		if (fw_json)
			json_result(root ? root : "?", NULL, &d, ret);
		else if (!cli.quiet)
			printf("uninstall: %s: does not exist; nothing to remove\n",
			       root ? fw_esc(root) : "?");
		goto out;
	}
	if (fd < 0)
		goto out;
	/* dpkg's locks first: dpkg and apt keep off the root while this
	 * runs, and the database read is the one that stays true. */
	if (fw_cli_dpkg_lock(&cli, "nothing removed") != EXIT_OK ||
	    fw_cli_dpkg_load(&cli, &db, "nothing removed") != EXIT_OK)
		goto out;
	o.un.dpkg = &db;
	r = fw_uninstall(&plan, fd, &o.un, &res, &d);
	fw_print_diag(&d);
	if (r < 0) {
		fw_err("uninstall: %s", strerror(-r));
		goto out;
	}
	ret = res.failed || res.kept ? EXIT_FINDING : EXIT_OK;
	if (res.lost && fw_json) {
		fw_err("uninstall: out of memory: the list of what was removed is incomplete");
		ret = EXIT_FINDING;
	}
	if (fw_json) {
		json_result(root, &res, &d, ret);
	} else if (!cli.quiet) {
		printf("uninstall: %s: removed %zu blob%s, %zu link%s, %zu licence%s", fw_esc(root), res.blobs,
		       res.blobs == 1 ? "" : "s", res.links, res.links == 1 ? "" : "s", res.licences,
		       res.licences == 1 ? "" : "s");
		if (res.kept)
			printf("; kept %zu", res.kept);
		if (res.dpkg)
			printf("; left %zu to dpkg", res.dpkg);
		printf("\n");
	}
out:
	if (fd >= 0)
		close(fd);
	free(root);
	fw_dpkg_free(&db);
	fw_uninstall_result_free(&res);
	fw_plan_free(&plan);
	fw_cli_free(&cli);
	fw_diag_free(&d);
	fw_tree_free(&t);
	return ret;
}
