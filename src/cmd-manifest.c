/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist manifest: regenerate manifests/checksums from the blobs WHENCE lists,
 * and manifests/licence-checksums from the licence texts. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "fwdist.h"
#include "manifest.h"
#include "util.h"

static const struct fw_cli_opt opts[] = {
	{ "check", 'c', false, NULL,
	  "write nothing; exit 1 if either file is out of date", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist [-C DIR] manifest [--check]\n"
		"\n"
		"Hash every blob WHENCE lists (File: and RawFile:, not undistributable ones)\n"
		"and rewrite manifests/checksums, and every licence text manifests/licenses\n"
		"names and rewrite manifests/licence-checksums; each sorted by name in byte\n"
		"order and written atomically. Refuses, writing nothing, when a blob is\n"
		"missing or WHENCE does not parse.\n"
		"\n",
	.opts = opts,
};

static int option(void *ctx, int c, const char *arg)
{
	(void)arg;
	if (c != 'c')
		return EXIT_USAGE;
	*(bool *)ctx = true;
	return EXIT_OK;
}

/* Write buf to path unless it holds it already; say which. */
static int update(const struct fw_tree *t, const char *path, const char *buf, size_t len,
		  bool check_only, const char *count)
{
	char *old = NULL;
	size_t oldlen = 0;
	int r = fw_read_text(t->rootfd, path, &old, &oldlen);
	bool same = r == 0 && oldlen == len && memcmp(old, buf, len) == 0;

	free(old);
	if (same) {
		printf("%s: up to date (%s)\n", path, count);
		return EXIT_OK;
	}
	if (check_only) {
		fw_err("%s: out of date (run fwdist manifest)", path);
		return EXIT_FINDING;
	}
	r = fw_mkdirat(t->rootfd, "manifests", 0755);
	if (r < 0 && r != -EEXIST) {
		fw_err("manifests/: %s", strerror(-r));
		return EXIT_FINDING;
	}
	r = fw_write_atomic(t->rootfd, path, buf, len, 0644);
	if (r < 0) {
		fw_err("%s: cannot write: %s", path, strerror(-r));
		return EXIT_FINDING;
	}
	printf("%s: written (%s)\n", path, count);
	return EXIT_OK;
}

int cmd_manifest(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("manifest");
	struct fw_diag d = { 0 };
	struct fw_tree t;
	char *buf = NULL, *tbuf = NULL, count[64];
	size_t n = 0, nt = 0, len = 0, tlen = 0;
	int r, ret = EXIT_FINDING;
	bool check_only = false;

	r = fw_cli_parse(&cli, argc, argv, &help, option, &check_only);
	fw_cli_free(&cli);
	if (r >= 0)
		return r;
	if (fw_load_tree(&t, &d) != EXIT_OK) {
		fw_diag_free(&d);
		return EXIT_FINDING;
	}
	/* Only WHENCE matters here: the old checksums are what we replace,
	 * and their own syntax errors must not block regenerating them. */
	if (t.whence.errors) {
		fw_print_diag(&d);
		fw_err("manifest: WHENCE has errors; nothing written");
		goto out;
	}
	fw_diag_free(&d);
	r = fw_manifest_sums(&t, &buf, &len, &n, &d);
	if (r == -EIO) {
		fw_print_diag(&d);
		fw_err("manifest: %zu blob%s unreadable; %s not written", d.n, d.n == 1 ? "" : "s",
		       FW_TREE_SUMS);
		goto out;
	}
	if (r == 0)
		r = fw_manifest_texts(&t, &tbuf, &tlen, &nt);
	if (r < 0) {
		fw_err("out of memory");
		goto out;
	}
	snprintf(count, sizeof(count), "%zu blob%s", n, n == 1 ? "" : "s");
	ret = update(&t, FW_TREE_SUMS, buf, len, check_only, count);
	snprintf(count, sizeof(count), "%zu licence text%s", nt, nt == 1 ? "" : "s");
	if (update(&t, FW_TREE_TEXT_SUMS, tbuf, tlen, check_only, count) != EXIT_OK)
		ret = EXIT_FINDING;
out:
	free(buf);
	free(tbuf);
	fw_diag_free(&d);
	fw_tree_free(&t);
	return ret;
}
