/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist manifest: regenerate manifests/checksums from the blobs WHENCE lists. */
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
#include "util.h"

static void help(void)
{
	printf("Usage: fwdist [-C DIR] manifest [--check]\n"
	       "\n"
	       "Hash every blob WHENCE lists (File: and RawFile:, not undistributable ones)\n"
	       "and rewrite manifests/checksums, sorted by name in byte order, atomically.\n"
	       "Refuses, writing nothing, when a blob is missing or WHENCE does not parse.\n"
	       "\n"
	       "  --check   write nothing; exit 1 if the file is out of date\n");
}

static int cmp_sum(const void *a, const void *b)
{
	return strcmp(((const struct fw_sum *)a)->name, ((const struct fw_sum *)b)->name);
}

static int hash_blobs(const struct fw_tree *t, struct fw_sum *v, size_t *nv, struct fw_diag *d)
{
	int fwfd = openat(t->rootfd, FW_TREE_FIRMWARE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	size_t n = 0;

	if (fwfd < 0) {
		fw_diag_add(d, FW_TREE_FIRMWARE "/", 0, "cannot open: %s", strerror(errno));
		return 0;
	}
	for (size_t i = 0; i < t->nblobs; i++) {
		const struct fw_blob *b = &t->blobs[i];
		struct stat st;
		int fd, r;

		if (b->duplicate || fw_name_problem(b->e->name) || b->cat == FW_CAT_UNDISTRIBUTABLE)
			continue;
		fd = fw_open_beneath(fwfd, b->e->name, O_RDONLY | O_NONBLOCK, 0);
		if (fd < 0) {
			fw_diag_add(d, t->whence.path, b->e->line, "%s: %s: %s",
				    fw_entry_kind_name(b->e->kind), fw_esc(b->e->name),
				    fd == -ENOENT ? "no such file in firmware/" :
				    fd == -ELOOP ? "is a symlink (links are Link: lines)" : strerror(-fd));
			continue;
		}
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			fw_diag_add(d, t->whence.path, b->e->line, "%s: %s: not a regular file",
				    fw_entry_kind_name(b->e->kind), fw_esc(b->e->name));
			close(fd);
			continue;
		}
		r = fw_sha256_fd(fd, v[n].sha256, &v[n].size);
		close(fd);
		if (r < 0) {
			fw_diag_add(d, t->whence.path, b->e->line, "%s: %s: cannot read: %s",
				    fw_entry_kind_name(b->e->kind), fw_esc(b->e->name), strerror(-r));
			continue;
		}
		v[n].name = b->e->name;
		v[n].line = b->e->line;
		n++;
	}
	close(fwfd);
	*nv = n;
	return 0;
}

int cmd_manifest(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "check", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fw_diag d = { 0 };
	struct fw_tree t;
	struct fw_sum *v = NULL;
	char *old = NULL, *buf = NULL;
	size_t n = 0, oldlen = 0, len = 0;
	int c, r, ret = EXIT_FINDING;
	int check_only = 0;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			check_only = 1;
			break;
		case 'h':
			help();
			return EXIT_OK;
		default:
			return fw_usage("manifest", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return fw_usage("manifest", "unexpected argument '%s'", argv[optind]);
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
	v = calloc(t.nblobs + 1, sizeof(*v));
	if (!v) {
		fw_err("out of memory");
		goto out;
	}
	hash_blobs(&t, v, &n, &d);
	if (d.n) {
		fw_print_diag(&d);
		fw_err("manifest: %zu blob%s unreadable; %s not written", d.n, d.n == 1 ? "" : "s",
		       FW_TREE_SUMS);
		goto out;
	}
	qsort(v, n, sizeof(*v), cmp_sum);
	r = fw_sums_format(v, n, &buf, &len);
	if (r < 0) {
		fw_err("out of memory");
		goto out;
	}
	r = fw_read_text(t.rootfd, FW_TREE_SUMS, &old, &oldlen);
	if (r == 0 && oldlen == len && memcmp(old, buf, len) == 0) {
		printf("%s: up to date (%zu blobs)\n", FW_TREE_SUMS, n);
		ret = EXIT_OK;
		goto out;
	}
	if (check_only) {
		fw_err("%s: out of date (run fwdist manifest)", FW_TREE_SUMS);
		goto out;
	}
	if (mkdirat(t.rootfd, "manifests", 0755) < 0 && errno != EEXIST) {
		fw_err("manifests/: %s", strerror(errno));
		goto out;
	}
	r = fw_write_atomic(t.rootfd, FW_TREE_SUMS, buf, len, 0644);
	if (r < 0) {
		fw_err("%s: cannot write: %s", FW_TREE_SUMS, strerror(-r));
		goto out;
	}
	printf("%s: written (%zu blobs)\n", FW_TREE_SUMS, n);
	ret = EXIT_OK;
out:
	free(old);
	free(buf);
	free(v);
	fw_diag_free(&d);
	fw_tree_free(&t);
	return ret;
}
