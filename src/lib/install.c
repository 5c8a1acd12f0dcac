/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Install the tree into a firmware directory: verified, atomic, compressed, deduplicated, recorded. */
#include "install.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "record.h"
#include "util.h"

enum item_kind { IT_COPY, IT_LINK };

struct item {
	enum item_kind kind;
	const char *name;        /* request name or licence path, for messages */
	const struct fw_blob *b; /* the blob copied, or a dedup link's blob */
	int pkg;                 /* package it belongs to */
	bool licence;            /* copy of LICENSES/<id>.txt from the tree root */
	char *src;               /* copy: path below firmware/ or the tree root */
	uint8_t sha256[FW_SHA256_LEN]; /* copy: the content it must have */
	uint64_t size;
	enum fw_compress comp;   /* copy: how it is stored; link: of its target */
	char *final;             /* its name in the destination, with suffix */
	char *dest;              /* where it is written: final, or below a staged directory */
	char *target;            /* link: symlink text */
	long needs;              /* link: copy item that must have succeeded, or -1 */
	bool exchange;           /* a directory of the old install is at final: swap it out */
	bool recorded_same;      /* the record has final with this content and storage */
	bool unchanged;          /* found in place with the right content: not rewritten */
	int ok;
	bool keep_old;           /* a link to it failed: keep its old variants */
	char *err;               /* why it failed */
	uint64_t in, out;
};

/* A directory of the new tree where the old install has a file or a link:
 * built under a temporary name, then swapped in whole. */
struct stage {
	char *final; /* the directory's name */
	char *tmp;   /* its temporary name, in the same parent */
	bool failed;
};

struct ctx {
	const struct fw_tree *t;
	const struct fw_install_opts *o;
	int destfd, fwfd;
	struct item *items;
	size_t nitems, ncopies;
	struct stage *stages;
	size_t nstages, cap_stages;
	struct fw_records rec;
	atomic_size_t next;
	pthread_mutex_t lock;
	size_t done;
	uint64_t bytes;
	struct fw_diag *d;
};

static const enum fw_compress all_comp[] = { FW_COMP_NONE, FW_COMP_XZ, FW_COMP_ZSTD };

static void fail(struct item *it, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct item *it, const char *fmt, ...)
{
	va_list ap;

	if (it->err)
		return;
	va_start(ap, fmt);
	if (vasprintf(&it->err, fmt, ap) < 0)
		it->err = NULL;
	va_end(ap);
	if (!it->err)
		it->err = strdup("out of memory");
}

/* Why a destination path could not be opened, in words. */
static const char *parent_error(int r)
{
	if (r == -ELOOP)
		return "a symlink is in its path in the destination; refusing to follow it";
	if (r == -ENOTDIR)
		return "a non-directory is in its path in the destination";
	return strerror(-r);
}

static enum fw_compress comp_of_name(const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 1; i < FW_ARRAY_SIZE(all_comp); i++) {
		const char *suf = fw_compress_suffix(all_comp[i]);
		size_t sl = strlen(suf);

		if (n > sl && strcmp(name + n - sl, suf) == 0)
			return all_comp[i];
	}
	return FW_COMP_NONE;
}

/* Remove a directory tree without following any symlink in it. */
static int rm_rf_at(int at, const char *name)
{
	struct stat st;
	char **names;
	size_t n;
	int fd, r;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(at, name, 0) < 0 ? -errno : 0;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = fw_read_dir_sorted(fd, &names, &n);
	if (r == 0) {
		for (size_t i = 0; r == 0 && i < n; i++)
			r = rm_rf_at(fd, names[i]);
		fw_free_strv(names, n);
	}
	close(fd);
	if (r == 0 && unlinkat(at, name, AT_REMOVEDIR) < 0)
		r = -errno;
	return r;
}

/* ".LEAF.fwdist-XXXXXX": the temporary files, symlinks and staged
 * directories install makes. One left behind is from an install that was
 * killed; nothing else uses this pattern. */
static bool is_stale_tmp(const char *n)
{
	size_t len = strlen(n);

	if (n[0] != '.' || len < 1 + 1 + 8 + 6 || memcmp(n + len - 14, ".fwdist-", 8) != 0)
		return false;
	for (size_t i = len - 6; i < len; i++)
		if (!((n[i] >= 'a' && n[i] <= 'z') || (n[i] >= '0' && n[i] <= '9')))
			return false;
	return true;
}

static void clean_tmp_in(int pfd)
{
	char **names;
	size_t n;

	if (fw_read_dir_sorted(pfd, &names, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (is_stale_tmp(names[i]))
			rm_rf_at(pfd, names[i]);
	fw_free_strv(names, n);
}

/* Remove stale temporary files from each directory the plan writes to and
 * their ancestors (a staged directory lives beside the one it replaces). */
static void clean_stale(int destfd, struct item *items, size_t n)
{
	char **dirs = NULL;
	size_t nd = 0, cap = 0;

	/* The root, and the record's directory (its atomic writes). */
	for (int k = 0; k < 2; k++) {
		if (fw_grow(&dirs, &cap, nd, sizeof(*dirs)) < 0 ||
		    !(dirs[nd] = strdup(k ? FW_RECORD_DIR : ".")))
			goto out;
		nd++;
	}
	for (size_t i = 0; i < n; i++)
		for (const char *s = strchr(items[i].final, '/'); s; s = strchr(s + 1, '/')) {
			if (fw_grow(&dirs, &cap, nd, sizeof(*dirs)) < 0 ||
			    !(dirs[nd] = fw_strndup(items[i].final, (size_t)(s - items[i].final))))
				goto out;
			nd++;
		}
	qsort(dirs, nd, sizeof(*dirs), fw_strcmp_ptr);
	for (size_t i = 0; i < nd; i++) {
		int dfd;

		if (i > 0 && strcmp(dirs[i], dirs[i - 1]) == 0)
			continue;
		dfd = strcmp(dirs[i], ".") == 0 ? dup(destfd) :
		      fw_open_beneath(destfd, dirs[i], O_RDONLY | O_DIRECTORY, 0);
		if (dfd >= 0) {
			clean_tmp_in(dfd);
			close(dfd);
		}
	}
out:
	fw_free_strv(dirs, nd);
}

/* Remove name (a file or symlink) and then its parent directories while
 * they are empty. Never follows a symlink. */
static int remove_and_prune(int destfd, const char *name)
{
	char *path = strdup(name);
	int r = 0;

	if (!path)
		return -ENOMEM;
	for (bool first = true;; first = false) {
		const char *leaf;
		int pfd = fw_open_parent(destfd, path, 0, &leaf);
		char *slash;

		if (pfd < 0)
			break;
		if (first) {
			if (unlinkat(pfd, leaf, 0) < 0 && errno != ENOENT)
				r = -errno;
		} else if (unlinkat(pfd, leaf, AT_REMOVEDIR) < 0) {
			if (pfd != destfd)
				close(pfd);
			break; /* not empty (or not ours to remove): stop */
		}
		fsync(pfd);
		if (pfd != destfd)
			close(pfd);
		slash = strrchr(path, '/');
		if (!slash || r < 0)
			break;
		*slash = '\0';
	}
	free(path);
	return r;
}

/* After NAME.xz is in place, NAME and NAME.zst (from an install with
 * another compression) go: the kernel would serve NAME first. Only files
 * and symlinks are removed, never a directory. */
static int remove_variants(int pfd, const char *leaf, size_t baselen, enum fw_compress keep)
{
	char buf[512];
	bool removed = false;

	for (size_t i = 0; i < FW_ARRAY_SIZE(all_comp); i++) {
		struct stat st;

		if (all_comp[i] == keep)
			continue;
		if (snprintf(buf, sizeof(buf), "%.*s%s", (int)baselen, leaf,
			     fw_compress_suffix(all_comp[i])) >= (int)sizeof(buf))
			continue;
		if (fstatat(pfd, buf, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
			continue;
		if (unlinkat(pfd, buf, 0) < 0)
			return -errno;
		removed = true;
	}
	if (removed && fsync(pfd) < 0)
		return -errno;
	return 0;
}

/* Put tmp in place of leaf. Where an old directory stands at leaf, swap
 * the two atomically (RENAME_EXCHANGE: readers see the old tree or the new
 * name, never nothing) and remove the old tree; where the filesystem cannot
 * swap, move the directory aside first and say so. */
static int replace(int pfd, const char *tmp, const char *leaf, bool exchange, struct fw_diag *d,
		   pthread_mutex_t *lock, const char *final)
{
	if (!exchange)
		return renameat(pfd, tmp, pfd, leaf) < 0 ? -errno : 0;
	if (renameat2(pfd, tmp, pfd, leaf, RENAME_EXCHANGE) == 0)
		return rm_rf_at(pfd, tmp);
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	{
		char aside[320];
		int r;

		snprintf(aside, sizeof(aside), "%s.old", tmp);
		if (renameat(pfd, leaf, pfd, aside) < 0)
			return -errno;
		r = renameat(pfd, tmp, pfd, leaf) < 0 ? -errno : 0;
		if (r < 0) {
			renameat(pfd, aside, pfd, leaf);
			return r;
		}
		rm_rf_at(pfd, aside);
		if (lock)
			pthread_mutex_lock(lock);
		fw_diag_add(d, "", 0,
			    "%s: the filesystem cannot swap a directory atomically "
			    "(RENAME_EXCHANGE); replaced in two steps", fw_esc(final));
		if (lock)
			pthread_mutex_unlock(lock);
		return 0;
	}
}

static void do_copy(struct ctx *c, struct item *it)
{
	const char *leaf;
	char tmp[320], want[FW_SHA256_HEX + 1], got[FW_SHA256_HEX + 1];
	uint8_t dig[FW_SHA256_LEN];
	struct stat st;
	int src, pfd, fd, r;

	/* Unchanged since the last install (the record says so and the bytes
	 * in place hash to it): nothing to write. Reading back is cheaper than
	 * compressing again, and a modified file is still repaired. */
	if (it->recorded_same && !it->exchange && strcmp(it->dest, it->final) == 0) {
		uint64_t size;
		unsigned flags;

		pfd = fw_open_parent(c->destfd, it->final, 0, &leaf);
		fd = pfd < 0 ? -1 : openat(pfd, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		r = fd < 0 ? -1 : fw_digest_decompress(fd, it->comp, dig, &size, &flags);
		if (fd >= 0)
			close(fd);
		if (pfd >= 0 && pfd != c->destfd)
			close(pfd);
		/* The tree's copy must still have the manifest's size: a blob
		 * truncated or grown since is refused below, not skipped. */
		src = fw_open_beneath(it->licence ? c->t->rootfd : c->fwfd, it->src,
				      O_RDONLY | O_NONBLOCK, 0);
		if (src < 0 || fstat(src, &st) < 0 || (uint64_t)st.st_size != it->size)
			r = -1;
		if (src >= 0)
			close(src);
		if (r == 0 && flags == 0 && size == it->size &&
		    memcmp(dig, it->sha256, sizeof(dig)) == 0) {
			it->ok = 1;
			it->unchanged = true;
			return;
		}
	}
	src = fw_open_beneath(it->licence ? c->t->rootfd : c->fwfd, it->src, O_RDONLY | O_NONBLOCK, 0);
	if (src < 0) {
		fail(it, "%s%s: %s; not installed", it->licence ? "" : "firmware/", fw_esc(it->src),
		     src == -ELOOP ? "is a symlink" : strerror(-src));
		return;
	}
	if (fstat(src, &st) < 0 || !S_ISREG(st.st_mode)) {
		fail(it, "%s%s: not a regular file; not installed", it->licence ? "" : "firmware/",
		     fw_esc(it->src));
		close(src);
		return;
	}
	pfd = fw_open_parent(c->destfd, it->dest, 1, &leaf);
	if (pfd < 0) {
		fail(it, "%s: %s", fw_esc(it->final), parent_error(pfd));
		close(src);
		return;
	}
	fd = fw_tmp_create(pfd, leaf, tmp, sizeof(tmp));
	if (fd < 0) {
		fail(it, "%s: cannot create a temporary file: %s", fw_esc(it->final), strerror(-fd));
		goto out;
	}
	r = fw_copy_compress(src, fd, it->comp, it->size, dig, &it->in);
	if (r == -ESTALE) {
		fail(it, "%s%s: size differs from the manifest's %llu bytes; not installed",
		     it->licence ? "" : "firmware/", fw_esc(it->src), (unsigned long long)it->size);
	} else if (r < 0) {
		fail(it, "%s: %s; not installed", fw_esc(it->final), strerror(-r));
	} else if (memcmp(dig, it->sha256, sizeof(dig)) != 0) {
		fw_sha256_hex(it->sha256, want);
		fw_sha256_hex(dig, got);
		fail(it, "%s%s: SHA-256 mismatch: manifest %s, file %s; not installed",
		     it->licence ? "" : "firmware/", fw_esc(it->src), want, got);
	}
	if (it->err) {
		/* Verify before replace: a bad copy never reaches the final name. */
		unlinkat(pfd, tmp, 0);
		close(fd);
		goto out;
	}
	if (fstat(fd, &st) == 0)
		it->out = (uint64_t)st.st_size;
	/* Durable before visible: data, then the rename, then the directory. */
	r = fchmod(fd, 0644) < 0 || fsync(fd) < 0 ? -errno : 0;
	close(fd);
	if (r == 0)
		r = replace(pfd, tmp, leaf, it->exchange, c->d, &c->lock, it->final);
	if (r == 0 && fsync(pfd) < 0)
		r = -errno;
	if (r < 0) {
		unlinkat(pfd, tmp, 0);
		fail(it, "%s: %s; not installed", fw_esc(it->final),
		     r == -EISDIR ? "a directory is in the way in the destination" : strerror(-r));
		goto out;
	}
	/* The old variants (NAME when NAME.xz was installed) go only after
	 * the links: an old link may still point at them (see fw_install). */
	it->ok = 1;
out:
	if (pfd != c->destfd)
		close(pfd);
	close(src);
}

static void do_link(struct ctx *c, struct item *it)
{
	const char *leaf;
	char tmp[320], cur[4096];
	ssize_t n;
	int pfd, r;

	if (it->needs >= 0 && !c->items[it->needs].ok) {
		fail(it, "%s: not linked: its target %s was not installed", fw_esc(it->final),
		     fw_esc(c->items[it->needs].name));
		return;
	}
	pfd = fw_open_parent(c->destfd, it->dest, 1, &leaf);
	if (pfd < 0) {
		fail(it, "%s: %s", fw_esc(it->final), parent_error(pfd));
		if (it->needs >= 0)
			c->items[it->needs].keep_old = true; /* the old link may use them */
		return;
	}
	n = readlinkat(pfd, leaf, cur, sizeof(cur) - 1);
	if (n >= 0 && (size_t)n == strlen(it->target) && memcmp(cur, it->target, (size_t)n) == 0) {
		r = 0; /* already right: leave it, and its mtime, alone */
	} else {
		/* A new symlink under a temporary name renamed over the old
		 * entry: readers see the old or the new link, never none. */
		r = fw_tmp_symlink(pfd, leaf, it->target, tmp, sizeof(tmp));
		if (r == 0) {
			r = replace(pfd, tmp, leaf, it->exchange, c->d, NULL, it->final);
			if (r < 0)
				unlinkat(pfd, tmp, 0);
		}
		if (r == 0 && fsync(pfd) < 0)
			r = -errno;
	}
	if (r < 0) {
		fail(it, "%s: %s; not linked", fw_esc(it->final),
		     r == -EISDIR ? "a directory is in the way in the destination" : strerror(-r));
		if (it->needs >= 0)
			c->items[it->needs].keep_old = true; /* the old link may use them */
	} else {
		it->ok = 1; /* its old variants go at the end, as a blob's do */
	}
	if (pfd != c->destfd)
		close(pfd);
}

/* If dest is a symlink (a dedup link of an earlier install) that this
 * install will replace by something else, replace it first by a copy of
 * the bytes it leads to now. Otherwise it would serve another blob's new
 * content as soon as that blob is replaced, and keep serving it if its own
 * copy fails or the install is killed: neither its old nor its new
 * content. Best effort: a symlink that leads nowhere valid is left be. */
static void materialize(int destfd, const struct item *it)
{
	const char *leaf;
	char tmp[320], cur[4096];
	uint8_t dig[FW_SHA256_LEN];
	struct stat st;
	ssize_t n;
	int pfd, src = -1, fd;

	pfd = fw_open_parent(destfd, it->dest, 0, &leaf);
	if (pfd < 0)
		return;
	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode))
		goto out;
	if (it->kind == IT_LINK) {
		n = readlinkat(pfd, leaf, cur, sizeof(cur) - 1);
		if (n >= 0 && (size_t)n == strlen(it->target) &&
		    memcmp(cur, it->target, (size_t)n) == 0)
			goto out; /* stays as it is */
	}
	src = fw_open_resolve(destfd, it->dest, O_RDONLY | O_NONBLOCK);
	if (src < 0 || fstat(src, &st) < 0 || !S_ISREG(st.st_mode))
		goto out;
	fd = fw_tmp_create(pfd, leaf, tmp, sizeof(tmp));
	if (fd < 0)
		goto out;
	if (fw_copy_compress(src, fd, FW_COMP_NONE, (uint64_t)st.st_size, dig, NULL) < 0)
		unlinkat(pfd, tmp, 0);
	else
		fw_tmp_commit(pfd, fd, tmp, leaf, 0644);
	close(fd);
out:
	if (src >= 0)
		close(src);
	if (pfd != destfd)
		close(pfd);
}

static void *worker(void *arg)
{
	struct ctx *c = arg;

	for (;;) {
		size_t i = atomic_fetch_add(&c->next, 1);

		if (i >= c->ncopies)
			break;
		if (!c->items[i].err)
			do_copy(c, &c->items[i]);
		if (c->o->progress) {
			pthread_mutex_lock(&c->lock);
			c->done++;
			c->bytes += c->items[i].in;
			c->o->progress(c->o->progress_ctx, c->done, c->ncopies, c->bytes);
			pthread_mutex_unlock(&c->lock);
		}
	}
	return NULL;
}

static enum fw_compress blob_comp(const struct fw_blob *b, const struct fw_install_opts *o)
{
	return b->e->kind == FW_E_RAWFILE ? FW_COMP_NONE : o->comp;
}

/* Dedup groups: same package, same content, same storage. */
static int cmp_dedup(const void *a, const void *b, void *arg)
{
	const struct item *items = arg;
	const struct item *x = &items[*(const size_t *)a], *y = &items[*(const size_t *)b];
	int r;

	if (x->pkg != y->pkg)
		return x->pkg < y->pkg ? -1 : 1;
	if (x->comp != y->comp)
		return x->comp < y->comp ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	r = memcmp(x->sha256, y->sha256, FW_SHA256_LEN);
	return r ? r : strcmp(x->name, y->name);
}

static bool same_content(const struct item *x, const struct item *y)
{
	return x->pkg == y->pkg && x->comp == y->comp && x->size == y->size &&
	       memcmp(x->sha256, y->sha256, FW_SHA256_LEN) == 0;
}

static char *with_suffix(const char *s, enum fw_compress c)
{
	return fw_asprintf("%s%s", s, fw_compress_suffix(c));
}

static struct item *new_item(struct ctx *c, size_t *cap)
{
	if (fw_grow(&c->items, cap, c->nitems, sizeof(*c->items)) < 0)
		return NULL;
	memset(&c->items[c->nitems], 0, sizeof(*c->items));
	c->items[c->nitems].needs = -1;
	return &c->items[c->nitems++];
}

/* ---- plan ---- */

static int plan_licences(struct ctx *c, size_t *cap)
{
	const struct fw_tree *t = c->t;

	for (size_t p = 0; p < t->split.npkgs; p++) {
		char **ids;
		size_t n;
		int r = fw_tree_licence_closure(t, &c->o->sel, (int)p, &ids, &n);

		if (r < 0)
			return r;
		for (size_t i = 0; i < n && r == 0; i++) {
			struct item *it = new_item(c, cap);
			int fd;

			if (!it) {
				r = -ENOMEM;
				break;
			}
			it->kind = IT_COPY;
			it->licence = true;
			it->pkg = (int)p;
			it->src = fw_asprintf("%s/%s.txt", FW_TREE_LICENSES, ids[i]);
			it->final = fw_asprintf("LICENSES/%s/%s.txt", t->split.pkgs[p].name, ids[i]);
			it->dest = it->final ? strdup(it->final) : NULL;
			if (!it->src || !it->final || !it->dest) {
				r = -ENOMEM;
				break;
			}
			it->name = it->src;
			/* The text has no manifest digest: take it now, and the
			 * copy must match it as a blob must match the manifest. */
			fd = fw_open_beneath(t->rootfd, it->src, O_RDONLY | O_NONBLOCK, 0);
			if (fd < 0 || fw_sha256_fd(fd, it->sha256, &it->size) < 0)
				fail(it, "%s: %s; not installed", fw_esc(it->src),
				     fd < 0 ? strerror(-fd) : "cannot read");
			if (fd >= 0)
				close(fd);
		}
		fw_free_strv(ids, n);
		if (r < 0)
			return r;
	}
	return 0;
}

static int plan(struct ctx *c, long *copy_of_blob, struct fw_install_result *res)
{
	const struct fw_tree *t = c->t;
	const struct fw_install_opts *o = c->o;
	size_t cap = 0, ncopy = 0, *order = NULL;
	struct item *sorted;
	long *newpos;
	int r = 0;

	for (size_t i = 0; i < t->nblobs; i++) {
		const struct fw_blob *b = &t->blobs[i];
		struct item *it;

		copy_of_blob[i] = -1;
		if (!fw_blob_installable(t, b, &o->sel))
			continue;
		if (!b->sum) {
			fw_diag_add(c->d, t->whence.path, b->e->line,
				    "%s: %s: no checksum in %s; not installed",
				    fw_entry_kind_name(b->e->kind), fw_esc(b->e->name), FW_TREE_SUMS);
			res->failed++;
			continue;
		}
		it = new_item(c, &cap);
		if (!it)
			return -ENOMEM;
		it->kind = IT_COPY;
		it->name = b->e->name;
		it->b = b;
		it->pkg = b->pkg;
		it->src = strdup(b->e->name);
		memcpy(it->sha256, b->sum->sha256, FW_SHA256_LEN);
		it->size = b->sum->size;
		it->comp = blob_comp(b, o);
		it->final = with_suffix(b->e->name, it->comp);
		it->dest = it->final ? strdup(it->final) : NULL;
		if (!it->src || !it->final || !it->dest)
			return -ENOMEM;
		copy_of_blob[i] = (long)(c->nitems - 1);
	}
	ncopy = c->nitems;
	/* Dedup: within one package only, so that a package installed alone
	 * is complete; the first name of each group keeps the bytes. */
	if (o->dedup && ncopy > 1) {
		order = malloc(ncopy * sizeof(*order));
		if (!order)
			return -ENOMEM;
		for (size_t i = 0; i < ncopy; i++)
			order[i] = i;
		qsort_r(order, ncopy, sizeof(*order), cmp_dedup, c->items);
		for (size_t i = 1; i < ncopy; i++) {
			struct item *dup = &c->items[order[i]];
			size_t p = i;
			char *rel;

			while (p > 0 && same_content(&c->items[order[p - 1]], dup))
				p--;
			if (p == i)
				continue;
			rel = fw_relpath(dup->name, c->items[order[p]].name);
			if (!rel) {
				free(order);
				return -ENOMEM;
			}
			dup->kind = IT_LINK;
			dup->target = with_suffix(rel, dup->comp);
			dup->needs = (long)order[p];
			free(rel);
			if (!dup->target) {
				free(order);
				return -ENOMEM;
			}
		}
		free(order);
	}
	if (!o->no_licences) {
		r = plan_licences(c, &cap);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < t->nlinks; i++) {
		const struct fw_link *l = &t->links[i];
		struct item *it;

		if (!fw_link_installable(t, l, &o->sel))
			continue;
		if (l->blob >= 0 && copy_of_blob[l->blob] < 0)
			continue; /* its target had no checksum: reported above */
		it = new_item(c, &cap);
		if (!it)
			return -ENOMEM;
		it->kind = IT_LINK;
		it->name = l->e->name;
		it->pkg = fw_link_package(t, l, &o->sel);
		if (l->blob >= 0) {
			it->comp = blob_comp(&t->blobs[l->blob], o);
			it->needs = copy_of_blob[l->blob];
		}
		it->final = with_suffix(l->e->name, it->comp);
		it->dest = it->final ? strdup(it->final) : NULL;
		it->target = with_suffix(l->e->target, it->comp);
		if (!it->final || !it->dest || !it->target)
			return -ENOMEM;
	}
	/* The workers take the copies from the front: copies first, then the
	 * links in their planned order (dedup links before Link: entries). */
	sorted = calloc(c->nitems + 1, sizeof(*sorted));
	newpos = malloc((c->nitems + 1) * sizeof(*newpos));
	if (!sorted || !newpos) {
		free(sorted);
		free(newpos);
		return -ENOMEM;
	}
	{
		size_t w = 0;

		for (int pass = 0; pass < 2; pass++)
			for (size_t i = 0; i < c->nitems; i++)
				if ((c->items[i].kind == IT_COPY) == (pass == 0)) {
					newpos[i] = (long)w;
					sorted[w++] = c->items[i];
				}
	}
	c->ncopies = 0;
	for (size_t i = 0; i < c->nitems; i++) {
		if (sorted[i].needs >= 0)
			sorted[i].needs = newpos[sorted[i].needs];
		c->ncopies += sorted[i].kind == IT_COPY;
	}
	for (size_t i = 0; i < t->nblobs; i++)
		if (copy_of_blob[i] >= 0)
			copy_of_blob[i] = newpos[copy_of_blob[i]];
	free(c->items);
	free(newpos);
	c->items = sorted;
	return 0;
}

/* ---- preflight: what stands at each name now ---- */

static bool recorded(const struct ctx *c, const char *name)
{
	return fw_records_find(&c->rec, name, NULL) != NULL;
}

/* Does the directory at path hold only what a record names (or stale
 * temporary files), and at least one such entry? Then it is ours to
 * replace; an empty directory fwdist never wrote into is not. */
static bool tree_recorded(const struct ctx *c, int dfd, const char *path, int depth,
			  size_t *nrecorded)
{
	int fd = dup(dfd);
	DIR *dir;
	struct dirent *de;
	bool ok = true;

	if (fd < 0 || depth > 64)
		return false;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return false;
	}
	while (ok && (de = readdir(dir))) {
		struct stat st;
		char *rel;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || is_stale_tmp(de->d_name))
			continue;
		rel = fw_asprintf("%s/%s", path, de->d_name);
		if (!rel || fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			ok = false;
		} else if (S_ISDIR(st.st_mode)) {
			int sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			ok = sub >= 0 && tree_recorded(c, sub, rel, depth + 1, nrecorded);
			if (sub >= 0)
				close(sub);
		} else {
			ok = recorded(c, rel);
			*nrecorded += ok;
		}
		free(rel);
	}
	closedir(dir);
	return ok;
}

/* A regular file fwdist did not record, with the content it is about to
 * install, is adopted; with other content it is someone else's. */
static bool same_as_planned(int pfd, const char *leaf, const struct item *it)
{
	uint8_t dig[FW_SHA256_LEN];
	uint64_t size;
	unsigned flags;
	int fd, r;

	if (it->kind != IT_COPY)
		return false;
	fd = openat(pfd, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	r = fw_digest_decompress(fd, comp_of_name(leaf), dig, &size, &flags);
	close(fd);
	return r == 0 && size == it->size && memcmp(dig, it->sha256, FW_SHA256_LEN) == 0;
}

static int add_stage(struct ctx *c, const char *final)
{
	for (size_t i = 0; i < c->nstages; i++)
		if (strcmp(c->stages[i].final, final) == 0)
			return 0;
	if (fw_grow(&c->stages, &c->cap_stages, c->nstages, sizeof(*c->stages)) < 0)
		return -ENOMEM;
	c->stages[c->nstages] = (struct stage){ .final = strdup(final) };
	if (!c->stages[c->nstages].final)
		return -ENOMEM;
	c->nstages++;
	return 0;
}

/* A component of the name's path that is a file or a symlink: a planted
 * symlink is refused; one the record says we installed (the old tree had a
 * link or a file where the new one has a directory) is switched. */
static int check_parents(struct ctx *c, struct item *it)
{
	const char *p = it->final, *slash;
	int cur = c->destfd, r = 0;

	while ((slash = strchr(p, '/'))) {
		char comp[256];
		size_t n = (size_t)(slash - p);
		struct stat st;
		int next;

		if (n >= sizeof(comp))
			break;
		memcpy(comp, p, n);
		comp[n] = '\0';
		next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next >= 0) {
			if (cur != c->destfd)
				close(cur);
			cur = next;
			p = slash + 1;
			continue;
		}
		if (errno == ENOENT)
			break;
		if (fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode)) {
			char *prefix = fw_strndup(it->final, (size_t)(slash - it->final));

			if (!prefix) {
				r = -ENOMEM;
				break;
			}
			if (recorded(c, prefix) || c->o->force)
				r = add_stage(c, prefix);
			else
				fail(it, "%s: %s", fw_esc(it->final),
				     parent_error(S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR));
			free(prefix);
		} else {
			fail(it, "%s: %s", fw_esc(it->final), strerror(errno));
		}
		break;
	}
	if (cur != c->destfd)
		close(cur);
	return r;
}

static void check_final(struct ctx *c, struct item *it)
{
	const char *leaf;
	struct stat st;
	int pfd = fw_open_parent(c->destfd, it->final, 0, &leaf);
	const struct fw_rec_entry *e = fw_records_find(&c->rec, it->final, NULL);
	size_t baselen;

	if (e && it->kind == IT_COPY && e->type != FW_REC_LINK && e->size == it->size &&
	    e->comp == it->comp && memcmp(e->sha256, it->sha256, FW_SHA256_LEN) == 0)
		it->recorded_same = true;

	if (pfd < 0)
		return; /* nothing there yet, or a parent that check_parents handles */
	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(st.st_mode)) {
			int sub = openat(pfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			size_t nrec = 0;

			if (c->o->force ||
			    (sub >= 0 && tree_recorded(c, sub, it->final, 0, &nrec) && nrec > 0))
				it->exchange = true;
			else
				fail(it, "%s: a directory fwdist did not install is in the way "
				     "(--force replaces it)", fw_esc(it->final));
			if (sub >= 0)
				close(sub);
		} else if (S_ISREG(st.st_mode) && !c->o->force && !recorded(c, it->final) &&
			   !same_as_planned(pfd, leaf, it)) {
			fail(it, "%s: a file fwdist did not install is in the way (--force replaces it)",
			     fw_esc(it->final));
		}
	}
	/* The other variants of the name are removed at the end: the same
	 * rule applies to them. */
	baselen = strlen(leaf) - strlen(fw_compress_suffix(it->comp));
	for (size_t i = 0; i < FW_ARRAY_SIZE(all_comp) && !it->err && !it->licence; i++) {
		char buf[512];

		if (all_comp[i] == it->comp)
			continue;
		snprintf(buf, sizeof(buf), "%.*s%s", (int)baselen, leaf, fw_compress_suffix(all_comp[i]));
		if (fstatat(pfd, buf, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
		    !c->o->force) {
			char *vname = fw_asprintf("%.*s%s", (int)(strlen(it->final) - strlen(leaf) + baselen),
						  it->final, fw_compress_suffix(all_comp[i]));

			if (vname && !recorded(c, vname) && !same_as_planned(pfd, buf, it))
				fail(it, "%s: a file fwdist did not install is in the way "
				     "(--force replaces it)", fw_esc(vname));
			free(vname);
		}
	}
	if (pfd != c->destfd)
		close(pfd);
}

static bool under(const char *name, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(name, dir, n) == 0 && name[n] == '/';
}

/* Create each stage's directory and write the names below it there. */
static int prepare_stages(struct ctx *c)
{
	for (size_t s = 0; s < c->nstages; s++) {
		struct stage *st = &c->stages[s];
		char tmp[320];
		const char *leaf;
		int pfd, r;
		bool nested = false;

		for (size_t o = 0; o < c->nstages && !nested; o++)
			nested = o != s && under(st->final, c->stages[o].final);
		if (nested) {
			st->failed = true; /* written inside the outer stage instead */
			continue;
		}
		pfd = fw_open_parent(c->destfd, st->final, 1, &leaf);
		if (pfd < 0)
			return pfd;
		r = fw_tmp_mkdir(pfd, leaf, tmp, sizeof(tmp));
		if (pfd != c->destfd)
			close(pfd);
		if (r < 0)
			return r;
		{
			const char *slash = strrchr(st->final, '/');

			st->tmp = slash ? fw_asprintf("%.*s/%s", (int)(slash - st->final), st->final, tmp) :
					  strdup(tmp);
		}
		if (!st->tmp)
			return -ENOMEM;
		for (size_t i = 0; i < c->nitems; i++) {
			struct item *it = &c->items[i];
			char *nd;

			if (!under(it->final, st->final))
				continue;
			nd = fw_asprintf("%s%s", st->tmp, it->final + strlen(st->final));
			if (!nd)
				return -ENOMEM;
			free(it->dest);
			it->dest = nd;
		}
	}
	return 0;
}

/* Swap each staged directory in for the file or link the old tree had. */
static void finish_stages(struct ctx *c)
{
	for (size_t s = 0; s < c->nstages; s++) {
		struct stage *st = &c->stages[s];
		const char *leaf, *tleaf;
		bool bad = false;
		int pfd;

		if (!st->tmp)
			continue;
		for (size_t i = 0; i < c->nitems && !bad; i++)
			bad = under(c->items[i].final, st->final) && !c->items[i].ok;
		pfd = fw_open_parent(c->destfd, st->final, 0, &leaf);
		if (pfd < 0) {
			bad = true;
		} else {
			tleaf = strrchr(st->tmp, '/');
			tleaf = tleaf ? tleaf + 1 : st->tmp;
			if (bad) {
				/* Keep the old entry: half a new directory is worse. */
				rm_rf_at(pfd, tleaf);
			} else {
				int r = replace(pfd, tleaf, leaf, true, c->d, NULL, st->final);

				if (r < 0)
					bad = true;
				fsync(pfd);
			}
			if (pfd != c->destfd)
				close(pfd);
		}
		if (!bad)
			continue;
		for (size_t i = 0; i < c->nitems; i++)
			if (under(c->items[i].final, st->final) && c->items[i].ok) {
				c->items[i].ok = 0;
				fail(&c->items[i], "%s: not installed: %s could not be switched to a directory",
				     fw_esc(c->items[i].final), fw_esc(st->final));
			}
	}
}

/* ---- after the copies: old names and the record ---- */

static int cmp_final(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool entry_is(int destfd, const struct fw_rec_entry *e)
{
	const char *leaf;
	struct stat st;
	int pfd = fw_open_parent(destfd, e->name, 0, &leaf);
	bool ok;

	if (pfd < 0)
		return false;
	ok = fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	     (e->type == FW_REC_LINK ? S_ISLNK(st.st_mode) : S_ISREG(st.st_mode));
	if (pfd != destfd)
		close(pfd);
	return ok;
}

static int record_item(struct fw_record *r, const struct item *it)
{
	struct fw_rec_entry e = { .name = it->final, .size = it->size, .comp = it->comp };

	if (it->kind == IT_LINK) {
		e.type = FW_REC_LINK;
		e.target = it->target;
	} else {
		e.type = it->licence ? FW_REC_LICENCE : FW_REC_FILE;
		memcpy(e.sha256, it->sha256, FW_SHA256_LEN);
	}
	return fw_record_add(r, &e);
}

/* Remove what the old record of each installed package has and the new
 * install does not; take over entries other packages' records held; write
 * the records, last. */
static int finish_records(struct ctx *c, struct fw_install_result *res)
{
	const struct fw_tree *t = c->t;
	const struct fw_selection *sel = &c->o->sel;
	char **finals = calloc(c->nitems + 1, sizeof(*finals));
	bool *inst = calloc(t->split.npkgs + 1, sizeof(*inst));
	bool whole = !sel->pkg && !sel->blob;
	int r = 0;

	if (!finals || !inst) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < c->nitems; i++) {
		finals[i] = c->items[i].final;
		if (c->items[i].pkg >= 0)
			inst[c->items[i].pkg] = true;
	}
	for (size_t p = 0; p < t->split.npkgs; p++)
		if (whole || (sel->pkg && sel->pkg[p]))
			inst[p] = true;
	qsort(finals, c->nitems, sizeof(*finals), cmp_final);
	for (size_t i = 0; i < c->rec.n; i++) {
		struct fw_record *rec = &c->rec.v[i];
		int p = fw_split_find(&t->split, rec->package);
		bool mine = p >= 0 ? inst[p] : whole; /* a package the split dropped */
		size_t w = 0;

		for (size_t j = 0; j < rec->n; j++) {
			struct fw_rec_entry *e = &rec->v[j];
			bool kept = bsearch(&e->name, finals, c->nitems, sizeof(*finals), cmp_final);

			if (mine && !kept && entry_is(c->destfd, e)) {
				/* Only what the record says fwdist installed goes. */
				if (remove_and_prune(c->destfd, e->name) == 0)
					res->removed++;
			}
			if (!mine && !kept) {
				rec->v[w++] = *e;
				continue;
			}
			free(e->name);
			free(e->target);
		}
		if (!mine && w != rec->n) {
			/* Taken over by an installed package: one path, one package. */
			rec->n = w;
			r = w ? fw_record_write(c->destfd, rec) : fw_record_remove(c->destfd, rec->package);
			if (r < 0)
				goto out;
		} else if (mine) {
			rec->n = 0;
			if (p < 0 && (r = fw_record_remove(c->destfd, rec->package)) < 0)
				goto out;
		}
	}
	for (size_t p = 0; p < t->split.npkgs; p++) {
		struct fw_record nr = { .package = t->split.pkgs[p].name };

		if (!inst[p])
			continue;
		for (size_t i = 0; i < c->nitems && r == 0; i++)
			if (c->items[i].pkg == (int)p && c->items[i].ok)
				r = record_item(&nr, &c->items[i]);
		if (r == 0)
			r = nr.n ? fw_record_write(c->destfd, &nr) : fw_record_remove(c->destfd, nr.package);
		for (size_t i = 0; i < nr.n; i++) {
			free(nr.v[i].name);
			free(nr.v[i].target);
		}
		free(nr.v);
		if (r < 0)
			goto out;
	}
out:
	free(finals);
	free(inst);
	return r;
}

int fw_install(const struct fw_tree *t, int destfd, const struct fw_install_opts *o,
	       struct fw_install_result *res, struct fw_diag *d)
{
	struct ctx c = { .t = t, .o = o, .destfd = destfd, .fwfd = -1, .d = d };
	long *copy_of_blob = NULL;
	pthread_t threads[64];
	unsigned jobs = o->jobs;
	int r = 0;

	memset(res, 0, sizeof(*res));
	pthread_mutex_init(&c.lock, NULL);
	copy_of_blob = malloc((t->nblobs + 1) * sizeof(*copy_of_blob));
	if (!copy_of_blob) {
		r = -ENOMEM;
		goto out;
	}
	c.fwfd = openat(t->rootfd, FW_TREE_FIRMWARE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c.fwfd < 0) {
		r = -errno;
		goto out;
	}
	r = plan(&c, copy_of_blob, res);
	if (r < 0)
		goto out;
	/* One install at a time per destination: a second one would take
	 * the first one's temporary files for stale ones. */
	if (flock(destfd, LOCK_EX) < 0) {
		r = -errno;
		goto out;
	}
	r = fw_records_load(destfd, &c.rec, d);
	if (r < 0)
		goto out;
	clean_stale(destfd, c.items, c.nitems);
	for (size_t i = 0; i < c.nitems && r == 0; i++)
		if (!c.items[i].err)
			r = check_parents(&c, &c.items[i]);
	for (size_t i = 0; i < c.nitems && r == 0; i++)
		if (!c.items[i].err)
			check_final(&c, &c.items[i]);
	/* A link that cannot be replaced keeps the old link, and so the old
	 * variants of its target that the old link may point at. */
	for (size_t i = c.ncopies; i < c.nitems; i++)
		if (c.items[i].err && c.items[i].needs >= 0)
			c.items[c.items[i].needs].keep_old = true;
	if (r == 0)
		r = prepare_stages(&c);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < c.nitems; i++)
		if (!c.items[i].err && strcmp(c.items[i].dest, c.items[i].final) == 0)
			materialize(destfd, &c.items[i]);

	if (jobs == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		jobs = n > 0 ? (unsigned)n : 1;
	}
	if (jobs > FW_ARRAY_SIZE(threads))
		jobs = FW_ARRAY_SIZE(threads);
	if (jobs > c.ncopies)
		jobs = c.ncopies ? (unsigned)c.ncopies : 1;
	{
		unsigned started = 0;

		for (; started < jobs; started++)
			if (pthread_create(&threads[started], NULL, worker, &c) != 0)
				break;
		if (started == 0)
			worker(&c); /* no thread could start: do the work here */
		for (unsigned i = 0; i < started; i++)
			pthread_join(threads[i], NULL);
	}
	for (size_t i = c.ncopies; i < c.nitems; i++)
		if (!c.items[i].err)
			do_link(&c, &c.items[i]);
	finish_stages(&c);
	/* Only now the old variants go (NAME once NAME.xz is in place): a
	 * link of the old install (NAME -> blob) points at the old blob until
	 * its new link (NAME.xz -> blob.xz) has replaced it, and a link may
	 * point at a dedup link. Removing them right after each copy left
	 * every such link dangling for the rest of the install, and for good
	 * if it was killed. Links go first (the items end with them), so that
	 * an old link never outlives the old blob it points at. */
	for (size_t i = c.nitems; i-- > 0;) {
		struct item *it = &c.items[i];
		const char *leaf;
		int pfd, rv;

		if (!it->ok || it->keep_old || it->licence)
			continue;
		pfd = fw_open_parent(destfd, it->final, 0, &leaf);
		rv = pfd < 0 ? pfd :
		     remove_variants(pfd, leaf, strlen(leaf) - strlen(fw_compress_suffix(it->comp)),
				     it->comp);
		if (pfd >= 0 && pfd != destfd)
			close(pfd);
		if (rv < 0) {
			fail(it, "%s: cannot remove the old variants: %s", fw_esc(it->final),
			     strerror(-rv));
			it->ok = 0;
		}
	}

	for (size_t i = 0; i < c.nitems; i++) {
		struct item *it = &c.items[i];

		if (it->err) {
			fw_diag_add(d, "", 0, "%s", it->err);
			res->failed++;
			continue;
		}
		if (it->unchanged)
			res->unchanged++;
		if (it->kind == IT_COPY && it->licence) {
			res->licences++;
		} else if (it->kind == IT_COPY) {
			res->blobs++;
			res->bytes_in += it->in;
			res->bytes_out += it->out;
		} else if (it->b) {
			res->dedup_links++;
		} else {
			res->links++;
		}
	}
	/* The record changes only after a complete install: a failed one
	 * keeps the old record, and the next run adopts what this one wrote
	 * (its content matches) and finishes the job. */
	if (res->failed == 0) {
		r = finish_records(&c, res);
		if (r < 0) {
			fw_diag_add(d, FW_RECORD_DIR, 0, "cannot write the install record: %s",
				    strerror(-r));
			res->failed++;
			r = 0;
		}
	}
out:
	for (size_t i = 0; i < c.nitems; i++) {
		free(c.items[i].src);
		free(c.items[i].final);
		free(c.items[i].dest);
		free(c.items[i].target);
		free(c.items[i].err);
	}
	for (size_t i = 0; i < c.nstages; i++) {
		free(c.stages[i].final);
		free(c.stages[i].tmp);
	}
	free(c.stages);
	free(c.items);
	free(copy_of_blob);
	fw_records_free(&c.rec);
	pthread_mutex_destroy(&c.lock);
	if (c.fwfd >= 0)
		close(c.fwfd);
	return r;
}
int fw_install_open_dest(const char *destdir, const char *firmware_dir, const char **failed_at)
{
	char *inner;
	const char *leaf, *p = firmware_dir;
	int dfd, fd;

	*failed_at = NULL;
	if (!destdir || !*destdir) {
		*failed_at = firmware_dir;
		return fw_mkdir_p_open(firmware_dir);
	}
	dfd = fw_mkdir_p_open(destdir);
	if (dfd < 0) {
		*failed_at = destdir;
		return dfd;
	}
	while (*p == '/')
		p++;
	if (!*p)
		return dfd;
	if (fw_name_problem(p)) {
		close(dfd);
		*failed_at = firmware_dir;
		return -EINVAL;
	}
	/* Below DESTDIR nothing is followed: a planted DESTDIR/lib -> /etc
	 * must not turn a package build into a write to the host. */
	inner = fw_asprintf("%s/x", p);
	if (!inner) {
		close(dfd);
		return -ENOMEM;
	}
	/* p is not empty, so inner has a directory part: fd is never dfd. */
	fd = fw_open_parent(dfd, inner, 1, &leaf);
	free(inner);
	close(dfd);
	if (fd < 0)
		*failed_at = firmware_dir;
	return fd;
}

/* What install would put in place for package p, from the tree: used when
 * no record says what was installed (an install by an older fwdist, or a
 * tree unpacked from packages). */
static int tree_names(const struct fw_tree *t, const struct fw_selection *sel, int p,
		      char ***namesp, size_t *np)
{
	char **names = NULL, **ids = NULL;
	size_t n = 0, cap = 0, nids = 0;
	int r = fw_tree_licence_closure(t, sel, p, &ids, &nids);

	for (size_t i = 0; r == 0 && i < t->nblobs + t->nlinks + nids; i++) {
		char *name = NULL;

		if (i < t->nblobs) {
			if (fw_blob_installable(t, &t->blobs[i], sel) && t->blobs[i].pkg == p)
				name = strdup(t->blobs[i].e->name);
			else
				continue;
		} else if (i < t->nblobs + t->nlinks) {
			const struct fw_link *l = &t->links[i - t->nblobs];

			if (fw_link_installable(t, l, sel) && fw_link_package(t, l, sel) == p)
				name = strdup(l->e->name);
			else
				continue;
		} else {
			name = fw_asprintf("LICENSES/%s/%s.txt", t->split.pkgs[p].name,
					   ids[i - t->nblobs - t->nlinks]);
		}
		if (!name || fw_grow(&names, &cap, n, sizeof(*names)) < 0) {
			free(name);
			r = -ENOMEM;
			break;
		}
		names[n++] = name;
	}
	fw_free_strv(ids, nids);
	if (r < 0) {
		fw_free_strv(names, n);
		return r;
	}
	*namesp = names;
	*np = n;
	return 0;
}

enum removed_kind { RM_BLOB, RM_LINK, RM_LICENCE };

static void uninstall_name(int destfd, const char *name, bool variants, enum removed_kind kind,
			   struct fw_install_result *res, struct fw_diag *d)
{
	const char *leaf;
	int pfd = fw_open_parent(destfd, name, 0, &leaf);
	bool removed = false;

	if (pfd == -ENOENT)
		return;
	if (pfd < 0) {
		fw_diag_add(d, "", 0, "%s: %s", fw_esc(name), parent_error(pfd));
		res->failed++;
		return;
	}
	clean_tmp_in(pfd);
	for (size_t v = 0; v < (variants ? FW_ARRAY_SIZE(all_comp) : 1); v++) {
		char buf[512], *full;
		struct stat st;

		snprintf(buf, sizeof(buf), "%s%s", leaf, variants ? fw_compress_suffix(all_comp[v]) : "");
		if (fstatat(pfd, buf, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)))
			continue;
		full = fw_asprintf("%s%s", name, variants ? fw_compress_suffix(all_comp[v]) : "");
		if (!full || remove_and_prune(destfd, full) < 0) {
			fw_diag_add(d, "", 0, "%s: cannot remove: %s", fw_esc(full ? full : name),
				    strerror(errno));
			res->failed++;
		} else {
			removed = true;
		}
		free(full);
	}
	if (removed)
		*(kind == RM_LINK ? &res->links : kind == RM_LICENCE ? &res->licences : &res->blobs) += 1;
	if (pfd != destfd)
		close(pfd);
}

int fw_uninstall(const struct fw_tree *t, int destfd, const struct fw_selection *sel,
		 struct fw_install_result *res, struct fw_diag *d)
{
	struct fw_records rec;
	int r;

	memset(res, 0, sizeof(*res));
	if (flock(destfd, LOCK_EX) < 0)
		return -errno;
	r = fw_records_load(destfd, &rec, d);
	if (r < 0)
		return r;
	for (size_t p = 0; p < t->split.npkgs && r == 0; p++) {
		struct fw_record *pr = fw_records_get(&rec, t->split.pkgs[p].name);

		if (sel && sel->pkg && !sel->pkg[p])
			continue;
		if (pr) {
			/* Exactly what the record says, each if it is still of
			 * the type installed: nothing else. */
			size_t failed = res->failed;

			for (size_t i = 0; i < pr->n; i++) {
				const struct fw_rec_entry *e = &pr->v[i];
				const char *leaf;
				int pfd = fw_open_parent(destfd, e->name, 0, &leaf);

				if (pfd < 0 && pfd != -ENOENT) {
					fw_diag_add(d, "", 0, "%s: %s", fw_esc(e->name), parent_error(pfd));
					res->failed++;
					continue;
				}
				if (pfd >= 0 && pfd != destfd)
					close(pfd);
				if (!entry_is(destfd, e))
					continue;
				uninstall_name(destfd, e->name, false,
					       e->type == FW_REC_LINK ? RM_LINK :
					       e->type == FW_REC_LICENCE ? RM_LICENCE : RM_BLOB, res, d);
			}
			/* What could not be removed stays recorded. */
			if (res->failed == failed)
				r = fw_record_remove(destfd, pr->package);
		} else {
			char **names;
			size_t n;

			r = tree_names(t, sel, (int)p, &names, &n);
			for (size_t i = 0; r == 0 && i < n; i++) {
				const struct fw_name *x = fw_tree_find(t, names[i]);

				uninstall_name(destfd, names[i], strncmp(names[i], "LICENSES/", 9) != 0,
					       !x ? RM_LICENCE : x->link >= 0 ? RM_LINK : RM_BLOB, res, d);
			}
			if (r == 0)
				fw_free_strv(names, n);
		}
	}
	fw_records_free(&rec);
	return r;
}
