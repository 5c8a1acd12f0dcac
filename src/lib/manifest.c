/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The checksums manifest computed from the blobs of a tree (a tree writer, with import). */
#include "manifest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "util.h"

static int cmp_sum(const void *a, const void *b)
{
	return strcmp(((const struct fw_sum *)a)->name, ((const struct fw_sum *)b)->name);
}

static void hash_blobs(const struct fw_tree *t, struct fw_sum *v, size_t *nv, struct fw_diag *d)
{
	int fwfd = t->fwfd;
	size_t n = 0;

	if (fwfd < 0) {
		fw_diag_add(d, FW_TREE_FIRMWARE "/", 0, "cannot open: %s", strerror(-t->fw_err));
		*nv = 0;
		return;
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
	*nv = n;
}

int fw_manifest_text_sums(int rootfd, struct fw_sum **vp, size_t *np)
{
	int dfd = openat(rootfd, FW_TREE_LICENSES, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct fw_sum *v = NULL;
	char **names = NULL;
	size_t n = 0, nn = 0;
	int r;

	*vp = NULL;
	*np = 0;
	if (dfd < 0)
		return errno == ENOENT ? 0 : -errno;
	r = fw_read_dir_sorted(dfd, &names, &nn);
	if (r == 0 && !(v = calloc(nn + 1, sizeof(*v))))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < nn; i++) {
		size_t len = strlen(names[i]);
		int fd;

		if (len <= 4 || strcmp(names[i] + len - 4, ".txt") != 0)
			continue;
		fd = openat(dfd, names[i], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			r = -errno;
			break;
		}
		r = fw_sha256_fd(fd, v[n].sha256, &v[n].size);
		close(fd);
		if (r == 0 && !(v[n].name = strdup(names[i])))
			r = -ENOMEM;
		if (r == 0)
			n++;
	}
	fw_free_strv(names, nn);
	close(dfd);
	if (r < 0) {
		fw_manifest_text_sums_free(v, n);
		return r;
	}
	*vp = v;
	*np = n;
	return 0;
}

void fw_manifest_text_sums_free(struct fw_sum *v, size_t n)
{
	for (size_t i = 0; i < n && v; i++)
		free(v[i].name);
	free(v);
}

int fw_manifest_sums(const struct fw_tree *t, char **buf, size_t *len, size_t *n,
		     struct fw_diag *d)
{
	struct fw_sum *v = calloc(t->nblobs + 1, sizeof(*v));
	size_t before = d->n;
	int r;

	*buf = NULL;
	*len = *n = 0;
	if (!v)
		return -ENOMEM;
	hash_blobs(t, v, n, d);
	if (d->n != before || d->nomem) {
		free(v);
		return -EIO;
	}
	if (*n > 1)
		qsort(v, *n, sizeof(*v), cmp_sum);
	r = fw_sums_format(v, *n, buf, len);
	free(v);
	return r;
}

int fw_manifest_texts(const struct fw_tree *t, char **buf, size_t *len, size_t *n)
{
	struct fw_sum *v = calloc(t->policy.n + 1, sizeof(*v));
	int r = 0;

	*buf = NULL;
	*len = *n = 0;
	if (!v)
		return -ENOMEM;
	/* The policy is sorted by id, so "<id>.txt" is too, except where an
	 * id is a prefix of another: sort the names themselves. */
	for (size_t i = 0; i < t->policy.n && r == 0; i++) {
		const struct fw_text *x = &t->texts[i];

		if (!fw_text_hashed(x))
			continue;
		v[*n].name = fw_asprintf("%s.txt", x->pol->id);
		if (!v[*n].name) {
			r = -ENOMEM;
			break;
		}
		memcpy(v[*n].sha256, x->sha256, FW_SHA256_LEN);
		v[*n].size = x->size;
		(*n)++;
	}
	if (r == 0) {
		if (*n > 1)
			qsort(v, *n, sizeof(*v), cmp_sum);
		r = fw_sums_format_texts(v, *n, buf, len);
	}
	for (size_t i = 0; i < *n; i++)
		free(v[i].name);
	free(v);
	return r;
}
