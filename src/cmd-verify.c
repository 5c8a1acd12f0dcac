/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist verify: check an installed firmware directory against the manifest. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fwdist.h"
#include "install.h"
#include "json.h"
#include "util.h"
#include "verify.h"

static void help(void)
{
	printf("Usage: fwdist [-C DIR] verify [OPTIONS]\n"
	       "\n"
	       "Check an installed firmware directory against the tree: every blob\n"
	       "(plain, .xz or .zst, decompressed and hashed; symlinks inside the\n"
	       "directory are followed), every link, the licence texts install puts in\n"
	       "LICENSES/<package>/, and entries nothing explains (.fwdist/ is install's).\n"
	       "Works on any root, e.g. files unpacked from packages. Prints one line\n"
	       "per problem (missing, modified, wrong type, unexpected, kernel) and\n"
	       "exits 1 if there is any.\n"
	       "\n"
	       "  --destdir DIR         staging root (default: $DESTDIR, else none)\n"
	       "  --firmware-dir DIR    firmware directory below it (default /lib/firmware)\n"
	       "  --package NAME        only this package's names (repeatable)\n"
	       "  --select FILE         only these names or globs (as for install)\n"
	       "  --no-licenses         do not expect the licence texts in LICENSES/<package>/\n"
	       "  --ignore-extra        do not report unexpected entries (a shared /lib/firmware)\n"
	       "  --json                machine-readable output\n");
}

int cmd_verify(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "destdir", required_argument, NULL, 'd' },
		{ "firmware-dir", required_argument, NULL, 'f' },
		{ "package", required_argument, NULL, 'p' },
		{ "select", required_argument, NULL, 's' },
		{ "no-licenses", no_argument, NULL, 'L' },
		{ "ignore-extra", no_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fw_cli_dest dest = FW_CLI_DEST_INIT;
	struct fw_verify_opts o = { 0 };
	struct fw_verify_result res = { 0 };
	struct fw_diag d = { 0 };
	struct fw_tree t;
	char *root = NULL;
	struct fw_cli_select cs = { 0 };
	int c, r, rootfd = -1, ret = EXIT_FINDING;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		int k = fw_cli_dest_opt(c, optarg, &dest, &cs);

		if (k < 0) {
			fw_cli_select_free(&cs);
			return EXIT_FINDING;
		}
		if (k > 0)
			continue;
		switch (c) {
		case 's':
			cs.file = optarg;
			break;
		case 'L':
			o.no_licences = true;
			break;
		case 'x':
			o.ignore_extra = true;
			break;
		case 'j':
			fw_json = true;
			break;
		case 'h':
			fw_cli_select_free(&cs);
			help();
			return EXIT_OK;
		default:
			fw_cli_select_free(&cs);
			return fw_usage("verify", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc) {
		fw_cli_select_free(&cs);
		return fw_usage("verify", "unexpected argument '%s'", argv[optind]);
	}
	ret = fw_cli_prepare(&t, &d, &cs, "verify", "fix it first");
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_FINDING;
	o.sel = cs.sel;
	/* verify writes nothing: open the root as it is, never create it. */
	rootfd = fw_cli_dest_open(&dest, &root);
	if (rootfd < 0) {
		if (root)
			fw_err("verify: %s: %s", root, strerror(-rootfd));
		else
			fw_err("out of memory");
		goto out;
	}
	r = fw_verify(&t, rootfd, &o, &res);
	if (r < 0) {
		fw_err("verify: %s", strerror(-r));
		goto out;
	}
	if (fw_json) {
		printf("{\"ok\":%s,\"root\":", res.n ? "false" : "true");
		fw_json_str(stdout, root);
		printf(",\"checked\":%zu,\"problems\":[", res.checked);
		for (size_t i = 0; i < res.n; i++) {
			printf("%s{\"kind\":\"%s\",\"name\":", i ? "," : "", res.v[i].kind);
			fw_json_str(stdout, res.v[i].name);
			printf(",\"detail\":");
			if (res.v[i].detail)
				fw_json_str(stdout, res.v[i].detail);
			else
				printf("null");
			printf("}");
		}
		printf("]}\n");
	} else {
		for (size_t i = 0; i < res.n; i++)
			printf("%s: %s%s%s\n", res.v[i].kind, fw_esc(res.v[i].name),
			       res.v[i].detail ? ": " : "", res.v[i].detail ? res.v[i].detail : "");
		if (res.n)
			printf("verify: %zu problem%s in %zu names\n", res.n, res.n == 1 ? "" : "s",
			       res.checked);
		else
			printf("verify: OK: %zu name%s\n", res.checked, res.checked == 1 ? "" : "s");
	}
	ret = res.n ? EXIT_FINDING : EXIT_OK;
out:
	if (rootfd >= 0)
		close(rootfd);
	fw_verify_result_free(&res);
	free(root);
	fw_cli_select_free(&cs);
	fw_diag_free(&d);
	fw_tree_free(&t);
	return ret;
}
