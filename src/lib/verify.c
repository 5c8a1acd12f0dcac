/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Verify an installed firmware directory against the tree's manifest. */
#include "verify.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compress.h"
#include "fsutil.h"
#include "record.h"
#include "util.h"

static const enum fw_compress variants[] = { FW_COMP_NONE, FW_COMP_XZ, FW_COMP_ZSTD };

static int add(struct fw_verify_result *res, const char *kind, const char *name, char *detail)
{
	struct fw_verify_problem p = { .kind = kind, .name = strdup(name), .detail = detail };

	if (!p.name || fw_grow(&res->v, &res->cap, res->n, sizeof(*res->v)) < 0) {
		free(p.name);
		free(detail);
		return -ENOMEM;
	}
	res->v[res->n++] = p;
	return 0;
}

/* Hash what name (following links inside the root) decompresses to. */
static int hash_installed(int rootfd, const char *name, enum fw_compress comp,
			  uint8_t dig[FW_SHA256_LEN], uint64_t *size, unsigned *flags, bool *isdir)
{
	struct stat st;
	int fd = fw_open_resolve(rootfd, name, O_RDONLY | O_NONBLOCK), r;

	*isdir = false;
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		*isdir = S_ISDIR(st.st_mode);
		close(fd);
		return -EINVAL;
	}
	r = fw_digest_decompress(fd, comp, dig, size, flags);
	close(fd);
	return r;
}

/* Which of NAME, NAME.xz, NAME.zst exist (lstat, in the parent directory). */
static int find_variants(int rootfd, const char *name, struct stat st[3], bool have[3])
{
	const char *leaf;
	int pfd = fw_open_parent(rootfd, name, 0, &leaf);

	for (size_t i = 0; i < 3; i++)
		have[i] = false;
	if (pfd < 0)
		return pfd == -ENOENT ? 0 : pfd;
	for (size_t i = 0; i < 3; i++) {
		char buf[512];

		snprintf(buf, sizeof(buf), "%s%s", leaf, fw_compress_suffix(variants[i]));
		have[i] = fstatat(pfd, buf, &st[i], AT_SYMLINK_NOFOLLOW) == 0;
	}
	if (pfd != rootfd)
		close(pfd);
	return 0;
}

static const char *kernel_flag_problem(unsigned flags)
{
	if (flags & FW_DECOMP_XZ_BAD_CHECK)
		return "xz check is not CRC32: the kernel refuses it";
	if (flags & FW_DECOMP_ZSTD_NO_SIZE)
		return "zstd frame without its content size: the kernel refuses it";
	if (flags & FW_DECOMP_TRAILING)
		return "data after the first xz stream or zstd frame";
	return NULL;
}

/* Check one expected name whose content must be the blob b. is_link: it is
 * a Link: entry, so it must be a symlink. allow_comp: RawFile: is plain. */
static int verify_name(int rootfd, const char *name, const struct fw_plan_entry *pe,
		       bool is_link, struct fw_verify_result *res)
{
	struct stat st[3];
	bool have[3], isdir;
	size_t found = 0, which = 0;
	char *vname;
	uint8_t dig[FW_SHA256_LEN];
	uint64_t size;
	unsigned flags = 0;
	int r;

	r = find_variants(rootfd, name, st, have);
	if (r < 0)
		return add(res, "wrong type", name,
			   fw_asprintf("%s in its path", r == -ELOOP ? "a symlink" : strerror(-r)));
	for (size_t i = 0; i < 3; i++)
		if (have[i]) {
			if (!found)
				which = i;
			found++;
		}
	if (!found)
		return add(res, "missing", name, NULL);
	vname = fw_asprintf("%s%s", name, fw_compress_suffix(variants[which]));
	if (!vname)
		return -ENOMEM;
	if (found > 1) {
		/* The kernel takes NAME before NAME.xz: an old copy would win. */
		r = add(res, "wrong type", name,
			fw_asprintf("%zu variants present (plain, .xz, .zst): keep one", found));
		goto out;
	}
	if (is_link && !S_ISLNK(st[which].st_mode)) {
		r = add(res, "wrong type", vname, strdup("expected a symlink"));
		goto out;
	}
	if (pe->blob->e->kind == FW_E_RAWFILE && variants[which] != FW_COMP_NONE) {
		r = add(res, "wrong type", vname, strdup("RawFile: installed compressed"));
		goto out;
	}
	r = hash_installed(rootfd, vname, variants[which], dig, &size, &flags, &isdir);
	if (r == -EINVAL) {
		r = add(res, "wrong type", vname,
			strdup(isdir ? "a directory, expected a file" : "not a regular file"));
	} else if (r == -ENOENT || r == -EXDEV || r == -ELOOP) {
		r = add(res, "wrong type", vname,
			strdup(r == -ENOENT ? "dangling symlink" :
			       r == -EXDEV ? "symlink leading outside the root" :
					     "symlink loop or symlink in its path"));
	} else if (r == -EBADMSG) {
		r = add(res, "modified", vname, strdup("corrupt compressed data"));
	} else if (r < 0) {
		r = add(res, "modified", vname, fw_asprintf("cannot read: %s", strerror(-r)));
	} else if (size != pe->size || memcmp(dig, pe->sha256, sizeof(dig)) != 0) {
		char want[FW_SHA256_HEX + 1], got[FW_SHA256_HEX + 1];

		fw_sha256_hex(pe->sha256, want);
		fw_sha256_hex(dig, got);
		r = add(res, "modified", vname,
			fw_asprintf("SHA-256 %s (%llu bytes), manifest %s (%llu bytes)", got,
				    (unsigned long long)size, want, (unsigned long long)pe->size));
	} else if (kernel_flag_problem(flags)) {
		r = add(res, "kernel", vname, strdup(kernel_flag_problem(flags)));
	}
out:
	free(vname);
	return r;
}

static int verify_dir_link(int rootfd, const struct fw_plan_entry *pe, struct fw_verify_result *res)
{
	struct stat st;
	const char *leaf;
	int pfd = fw_open_parent(rootfd, pe->name, 0, &leaf), fd, r = 0;

	if (pfd < 0)
		return add(res, pfd == -ENOENT ? "missing" : "wrong type", pe->name,
			   pfd == -ENOENT ? NULL : fw_asprintf("%s in its path", pfd == -ELOOP ?
							       "a symlink" : strerror(-pfd)));
	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0)
		r = add(res, "missing", pe->name, NULL);
	else if (!S_ISLNK(st.st_mode))
		r = add(res, "wrong type", pe->name, strdup("expected a symlink"));
	else if ((fd = fw_open_resolve(rootfd, pe->name, O_RDONLY | O_DIRECTORY)) < 0)
		r = add(res, "wrong type", pe->name,
			fw_asprintf("does not lead to the directory %s", pe->dir_target));
	else
		close(fd);
	if (pfd != rootfd)
		close(pfd);
	return r;
}

/* ---- unexpected entries ---- */

struct expect {
	char **names; /* sorted */
	size_t n;
};

static bool expected(const struct expect *x, const char *rel)
{
	size_t len = strlen(rel);
	char buf[4096];

	if (bsearch(&rel, x->names, x->n, sizeof(*x->names), fw_strcmp_ptr))
		return true;
	for (size_t i = 1; i < 3; i++) {
		const char *suf = fw_compress_suffix(variants[i]);
		size_t sl = strlen(suf);
		const char *key = buf;

		if (len > sl && len - sl < sizeof(buf) && strcmp(rel + len - sl, suf) == 0) {
			memcpy(buf, rel, len - sl);
			buf[len - sl] = '\0';
			if (bsearch(&key, x->names, x->n, sizeof(*x->names), fw_strcmp_ptr))
				return true;
		}
	}
	return false;
}

/* A licence text install put in LICENSES/<package>/: same bytes as the tree's. */
static int verify_licence(int rootfd, const struct fw_plan_entry *pe, struct fw_verify_result *res)
{
	uint8_t got[FW_SHA256_LEN];
	uint64_t gsize;
	unsigned flags;
	bool isdir;
	int r;

	if (pe->text->err)
		return add(res, "missing", pe->src, strdup(fw_text_problem(pe->text)));
	r = hash_installed(rootfd, pe->final, FW_COMP_NONE, got, &gsize, &flags, &isdir);
	if (r == -ENOENT)
		return add(res, "missing", pe->final, NULL);
	if (r == -ELOOP || r == -ENOTDIR || r == -EXDEV)
		return add(res, "wrong type", pe->final, strdup("a symlink or a non-directory in its "
								 "path, or a symlink"));
	if (r < 0)
		return add(res, "wrong type", pe->final, strdup(isdir ? "a directory, expected a file" :
							       "not a readable regular file"));
	if (gsize != pe->size || memcmp(pe->sha256, got, sizeof(got)) != 0)
		return add(res, "modified", pe->final, fw_asprintf("differs from the tree's %s", pe->src));
	return 0;
}

static int walk_extra(const struct fw_plan *p, int dfd, const char *prefix,
		      const struct expect *x, struct fw_verify_result *res, int depth)
{
	char **names;
	size_t n;
	int r = fw_read_dir_sorted(dfd, &names, &n);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n && r == 0; i++) {
		char *rel;
		struct stat st;

		/* install's record: not firmware, not checked here. */
		if (!*prefix && !strcmp(names[i], FW_RECORD_DIR))
			continue;
		rel = *prefix ? fw_asprintf("%s/%s", prefix, names[i]) : strdup(names[i]);
		if (!rel) {
			r = -ENOMEM;
			break;
		}
		if (fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = add(res, "unexpected", rel, fw_asprintf("%s", strerror(errno)));
		} else if (S_ISDIR(st.st_mode)) {
			int sub = depth < 64 ? openat(dfd, names[i],
						      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;

			if (sub < 0) {
				r = add(res, "unexpected", rel, strdup("unreadable directory"));
			} else {
				char **in;
				size_t nin = 0;

				/* An empty directory no planned name explains is
				 * left over too (a failed install, a hand-made one). */
				if (fw_read_dir_sorted(sub, &in, &nin) == 0) {
					fw_free_strv(in, nin);
					if (nin == 0 && !fw_plan_find(p, rel))
						r = add(res, "unexpected", rel, strdup("empty directory"));
				}
				if (r == 0)
					r = walk_extra(p, sub, rel, x, res, depth + 1);
				close(sub);
			}
		} else if (!expected(x, rel)) {
			r = add(res, "unexpected", rel, NULL);
		}
		free(rel);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return r;
}

/* fwdist's own directory: a symlink or a file there is a plant. */
static int verify_record_dir(int rootfd, struct fw_verify_result *res)
{
	struct stat st;

	if (fstatat(rootfd, FW_RECORD_DIR, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISDIR(st.st_mode))
		return 0;
	return add(res, "wrong type", FW_RECORD_DIR,
		   strdup(S_ISLNK(st.st_mode) ? "a symlink, expected install's record directory" :
						"not a directory, expected install's record directory"));
}

int fw_verify(const struct fw_plan *p, int rootfd, const struct fw_verify_opts *o,
	      struct fw_verify_result *res)
{
	struct expect x = { 0 };
	int r;

	memset(res, 0, sizeof(*res));
	x.names = calloc(p->n + 1, sizeof(*x.names));
	if (!x.names)
		return -ENOMEM;
	r = verify_record_dir(rootfd, res);
	/* Blobs, links, then licence texts: the order of the report. */
	for (size_t k = 0; k < 3 * p->n && r == 0; k++) {
		const struct fw_plan_entry *pe = &p->v[k % p->n];
		int pass = pe->kind == FW_PLAN_FILE ? 0 : pe->kind == FW_PLAN_LINK ? 1 : 2;

		if (pe->kind == FW_PLAN_DIR || (size_t)pass != k / p->n)
			continue;
		x.names[x.n++] = (char *)pe->name;
		res->checked++;
		if (pe->kind == FW_PLAN_LICENCE)
			r = verify_licence(rootfd, pe, res);
		else if (pe->blob)
			r = verify_name(rootfd, pe->name, pe, pe->kind == FW_PLAN_LINK && pe->link, res);
		else
			r = verify_dir_link(rootfd, pe, res);
	}
	if (r == 0 && !o->ignore_extra) {
		if (x.n > 1)
			qsort(x.names, x.n, sizeof(*x.names), fw_strcmp_ptr);
		r = walk_extra(p, rootfd, "", &x, res, 0);
	}
	free(x.names);
	return r;
}

void fw_verify_result_free(struct fw_verify_result *res)
{
	for (size_t i = 0; i < res->n; i++) {
		free(res->v[i].name);
		free(res->v[i].detail);
	}
	free(res->v);
	memset(res, 0, sizeof(*res));
}
