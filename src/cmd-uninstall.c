/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist uninstall: remove what install puts in place, and nothing else. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fwdist.h"
#include "install.h"
#include "util.h"

static void help(void)
{
	printf("Usage: fwdist [-C DIR] uninstall [OPTIONS]\n"
	       "\n"
	       "Remove from DESTDIR/FIRMWAREDIR what `fwdist install` put there: exactly\n"
	       "what .fwdist/<package>.list records (each entry only if it is still of\n"
	       "the type installed), then the record. Without a record, every variant\n"
	       "(NAME, NAME.xz, NAME.zst) of the tree's blobs and links and its licence\n"
	       "texts. Also temporary files of an interrupted install and the directories\n"
	       "this leaves empty. Other files are never touched; nothing is followed.\n"
	       "\n"
	       "  --destdir DIR         staging root (default: $DESTDIR, else none)\n"
	       "  --firmware-dir DIR    firmware directory below it (default /lib/firmware)\n"
	       "  --package NAME        only this package (repeatable)\n"
	       "  -q, --quiet           no summary\n");
}

int cmd_uninstall(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "destdir", required_argument, NULL, 'd' },
		{ "firmware-dir", required_argument, NULL, 'f' },
		{ "package", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fw_cli_dest dest = FW_CLI_DEST_INIT;
	struct fw_install_result res;
	struct fw_diag d = { 0 };
	struct fw_tree t;
	struct fw_cli_select cs = { 0 };
	bool quiet = false;
	char *root = NULL;
	int c, r, fd = -1, ret = EXIT_FINDING;

	while ((c = getopt_long(argc, argv, "+hq", opts, NULL)) != -1) {
		int k = fw_cli_dest_opt(c, optarg, &dest, &cs);

		if (k < 0) {
			fw_cli_select_free(&cs);
			return EXIT_FINDING;
		}
		if (k > 0)
			continue;
		switch (c) {
		case 'q':
			quiet = true;
			break;
		case 'h':
			fw_cli_select_free(&cs);
			help();
			return EXIT_OK;
		default:
			fw_cli_select_free(&cs);
			return fw_usage("uninstall", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc) {
		fw_cli_select_free(&cs);
		return fw_usage("uninstall", "unexpected argument '%s'", argv[optind]);
	}
	ret = fw_cli_prepare(&t, &d, &cs, "uninstall", "nothing removed");
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_FINDING;
	fd = fw_cli_dest_open(&dest, &root);
	if (fd < 0) {
		if (!root) {
			fw_err("out of memory");
		} else if (fd == -ENOENT) {
			ret = EXIT_OK; /* nothing installed: nothing to do */
			if (!quiet)
				printf("uninstall: %s does not exist; nothing to remove\n", root);
		} else {
			fw_err("uninstall: %s: %s", root, strerror(-fd));
		}
		goto out;
	}
	r = fw_uninstall(&t, fd, &cs.sel, &res, &d);
	fw_print_diag(&d);
	if (r < 0) {
		fw_err("uninstall: %s", strerror(-r));
		goto out;
	}
	if (!quiet)
		printf("uninstall: removed %zu blob%s, %zu link%s, %zu licence%s\n", res.blobs,
		       res.blobs == 1 ? "" : "s", res.links, res.links == 1 ? "" : "s", res.licences,
		       res.licences == 1 ? "" : "s");
	ret = res.failed ? EXIT_FINDING : EXIT_OK;
out:
	if (fd >= 0)
		close(fd);
	free(root);
	fw_cli_select_free(&cs);
	fw_diag_free(&d);
	fw_tree_free(&t);
	return ret;
}
