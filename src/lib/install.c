/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Install the tree into a firmware directory: verified, atomic, compressed, deduplicated. */
#include "install.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "util.h"

enum item_kind { IT_COPY, IT_LINK };

struct item {
	enum item_kind kind;
	const char *name;        /* request name, for messages */
	const struct fw_blob *b; /* copy: the blob */
	enum fw_compress comp;   /* copy: how it is stored; link: of its target */
	char *dest;              /* name in the destination, with suffix */
	char *target;            /* link: symlink text */
	long needs;              /* link: copy item that must have succeeded, or -1 */
	int ok;
	bool keep_old;           /* a link to it failed: keep its old variants */
	char *err;               /* why it failed */
	uint64_t in, out;
};

struct ctx {
	const struct fw_tree *t;
	const struct fw_install_opts *o;
	int destfd, fwfd;
	struct item *items;
	size_t ncopies;
	atomic_size_t next;
	pthread_mutex_t lock;
	size_t done;
	uint64_t bytes;
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

static void do_copy(struct ctx *c, struct item *it)
{
	const struct fw_blob *b = it->b;
	const char *leaf;
	char tmp[320], want[FW_SHA256_HEX + 1], got[FW_SHA256_HEX + 1];
	uint8_t dig[FW_SHA256_LEN];
	struct stat st;
	int src, pfd, fd, r;

	src = fw_open_beneath(c->fwfd, b->e->name, O_RDONLY | O_NONBLOCK, 0);
	if (src < 0) {
		fail(it, "firmware/%s: %s; not installed", fw_esc(it->name),
		     src == -ELOOP ? "is a symlink" : strerror(-src));
		return;
	}
	if (fstat(src, &st) < 0 || !S_ISREG(st.st_mode)) {
		fail(it, "firmware/%s: not a regular file; not installed", fw_esc(it->name));
		close(src);
		return;
	}
	pfd = fw_open_parent(c->destfd, it->dest, 1, &leaf);
	if (pfd < 0) {
		fail(it, "%s: %s", fw_esc(it->dest), parent_error(pfd));
		close(src);
		return;
	}
	fd = fw_tmp_create(pfd, leaf, tmp, sizeof(tmp));
	if (fd < 0) {
		fail(it, "%s: cannot create a temporary file: %s", fw_esc(it->dest), strerror(-fd));
		goto out;
	}
	r = fw_copy_compress(src, fd, it->comp, b->sum->size, dig, &it->in);
	if (r == -ESTALE) {
		fail(it, "firmware/%s: size differs from the manifest's %llu bytes; not installed",
		     fw_esc(it->name), (unsigned long long)b->sum->size);
	} else if (r < 0) {
		fail(it, "%s: %s; not installed", fw_esc(it->dest), strerror(-r));
	} else if (memcmp(dig, b->sum->sha256, sizeof(dig)) != 0) {
		fw_sha256_hex(b->sum->sha256, want);
		fw_sha256_hex(dig, got);
		fail(it, "firmware/%s: SHA-256 mismatch: manifest %s, file %s; not installed",
		     fw_esc(it->name), want, got);
	}
	if (it->err) {
		/* Verify before replace: a bad copy never reaches the final name. */
		unlinkat(pfd, tmp, 0);
		close(fd);
		goto out;
	}
	if (fstat(fd, &st) == 0)
		it->out = (uint64_t)st.st_size;
	r = fw_tmp_commit(pfd, fd, tmp, leaf, 0644);
	close(fd);
	if (r < 0) {
		fail(it, "%s: %s; not installed", fw_esc(it->dest),
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
		fail(it, "%s: not linked: its target %s was not installed", fw_esc(it->dest),
		     fw_esc(c->items[it->needs].name));
		return;
	}
	pfd = fw_open_parent(c->destfd, it->dest, 1, &leaf);
	if (pfd < 0) {
		fail(it, "%s: %s", fw_esc(it->dest), parent_error(pfd));
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
		if (r == 0 && renameat(pfd, tmp, pfd, leaf) < 0) {
			r = -errno;
			unlinkat(pfd, tmp, 0);
		}
		if (r == 0 && fsync(pfd) < 0)
			r = -errno;
	}
	if (r < 0) {
		fail(it, "%s: %s; not linked", fw_esc(it->dest),
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

	if (x->b->pkg != y->b->pkg)
		return x->b->pkg < y->b->pkg ? -1 : 1;
	if (x->comp != y->comp)
		return x->comp < y->comp ? -1 : 1;
	if (x->b->sum->size != y->b->sum->size)
		return x->b->sum->size < y->b->sum->size ? -1 : 1;
	r = memcmp(x->b->sum->sha256, y->b->sum->sha256, FW_SHA256_LEN);
	return r ? r : strcmp(x->name, y->name);
}

static bool same_content(const struct item *x, const struct item *y)
{
	return x->b->pkg == y->b->pkg && x->comp == y->comp && x->b->sum->size == y->b->sum->size &&
	       memcmp(x->b->sum->sha256, y->b->sum->sha256, FW_SHA256_LEN) == 0;
}

static char *with_suffix(const char *s, enum fw_compress c)
{
	return fw_asprintf("%s%s", s, fw_compress_suffix(c));
}

/* ".LEAF.fwdist-XXXXXX": the temporary files fw_tmp_create and
 * fw_tmp_symlink make. One left behind is from an install that was killed;
 * nothing else uses this pattern. */
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
	int fd = dup(pfd);
	DIR *dir;
	struct dirent *de;

	if (fd < 0)
		return;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return;
	}
	while ((de = readdir(dir)))
		if (is_stale_tmp(de->d_name))
			unlinkat(pfd, de->d_name, 0);
	closedir(dir);
}

/* Remove stale temporary files from each directory the plan writes to. */
static void clean_stale(int destfd, struct item *items, size_t n)
{
	char **dirs = calloc(n + 1, sizeof(*dirs));
	size_t nd = 0;

	if (!dirs)
		return;
	for (size_t i = 0; i < n; i++) {
		const char *slash = strrchr(items[i].dest, '/');

		dirs[nd] = slash ? fw_strndup(items[i].dest, (size_t)(slash - items[i].dest)) : strdup(".");
		if (dirs[nd])
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
	for (size_t i = 0; i < nd; i++)
		free(dirs[i]);
	free(dirs);
}

int fw_install(const struct fw_tree *t, int destfd, const struct fw_install_opts *o,
	       struct fw_install_result *res, struct fw_diag *d)
{
	struct ctx c = { .t = t, .o = o, .destfd = destfd, .fwfd = -1 };
	size_t nitems = 0, cap = t->nblobs + t->nlinks + 1;
	size_t *order = NULL, ncopy = 0;
	long *copy_of_blob = NULL;
	pthread_t threads[64];
	unsigned jobs = o->jobs;
	int r = 0;

	memset(res, 0, sizeof(*res));
	c.items = calloc(cap, sizeof(*c.items));
	copy_of_blob = malloc((t->nblobs + 1) * sizeof(*copy_of_blob));
	order = malloc(cap * sizeof(*order));
	if (!c.items || !copy_of_blob || !order) {
		r = -ENOMEM;
		goto out;
	}
	c.fwfd = openat(t->rootfd, FW_TREE_FIRMWARE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c.fwfd < 0) {
		r = -errno;
		goto out;
	}
	/* Plan: one copy per selected blob. */
	for (size_t i = 0; i < t->nblobs; i++) {
		const struct fw_blob *b = &t->blobs[i];
		struct item *it = &c.items[nitems];

		copy_of_blob[i] = -1;
		if (!fw_blob_installable(b, o->pkg_selected))
			continue;
		if (!b->sum) {
			fw_diag_add(d, t->whence.path, b->e->line,
				    "%s: %s: no checksum in %s; not installed",
				    fw_entry_kind_name(b->e->kind), fw_esc(b->e->name), FW_TREE_SUMS);
			res->failed++;
			continue;
		}
		it->kind = IT_COPY;
		it->name = b->e->name;
		it->b = b;
		it->comp = blob_comp(b, o);
		it->needs = -1;
		it->dest = with_suffix(b->e->name, it->comp);
		if (!it->dest) {
			r = -ENOMEM;
			goto out;
		}
		copy_of_blob[i] = (long)nitems;
		order[ncopy++] = nitems++;
	}
	/* Dedup: within one package only, so that a package installed alone
	 * is complete; the first name of each group keeps the bytes. */
	if (o->dedup && ncopy > 1) {
		qsort_r(order, ncopy, sizeof(*order), cmp_dedup, c.items);
		for (size_t i = 1; i < ncopy; i++) {
			struct item *prim, *dup = &c.items[order[i]];
			size_t p = i;
			char *rel;

			while (p > 0 && same_content(&c.items[order[p - 1]], dup))
				p--;
			if (p == i)
				continue;
			prim = &c.items[order[p]];
			rel = fw_relpath(dup->name, prim->name);
			if (!rel) {
				r = -ENOMEM;
				goto out;
			}
			dup->kind = IT_LINK;
			dup->target = with_suffix(rel, dup->comp);
			dup->needs = (long)order[p];
			free(rel);
			if (!dup->target) {
				r = -ENOMEM;
				goto out;
			}
		}
	}
	/* Copies first (the workers take them in order), then links. */
	{
		size_t w = 0;

		for (size_t i = 0; i < nitems; i++)
			if (c.items[i].kind == IT_COPY)
				order[w++] = i;
		c.ncopies = w;
		for (size_t i = 0; i < nitems; i++)
			if (c.items[i].kind == IT_LINK)
				order[w++] = i;
	}
	/* Links of WHENCE. */
	for (size_t i = 0; i < t->nlinks; i++) {
		const struct fw_link *l = &t->links[i];
		struct item *it = &c.items[nitems];

		if (!fw_link_installable(t, l, o->pkg_selected))
			continue;
		if (l->blob >= 0) {
			if (copy_of_blob[l->blob] < 0)
				continue; /* its target had no checksum: reported above */
			it->comp = blob_comp(&t->blobs[l->blob], o);
			it->needs = copy_of_blob[l->blob];
		} else {
			it->comp = FW_COMP_NONE;
			it->needs = -1;
		}
		it->kind = IT_LINK;
		it->name = l->e->name;
		it->dest = with_suffix(l->e->name, it->comp);
		it->target = with_suffix(l->e->target, it->comp);
		if (!it->dest || !it->target) {
			r = -ENOMEM;
			goto out;
		}
		order[nitems] = nitems;
		nitems++;
	}
	/* The workers index items directly: put the copies first. */
	{
		struct item *sorted = calloc(cap, sizeof(*sorted));
		long *newpos = malloc(cap * sizeof(*newpos));

		if (!sorted || !newpos) {
			free(sorted);
			free(newpos);
			r = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < nitems; i++) {
			sorted[i] = c.items[order[i]];
			newpos[order[i]] = (long)i;
		}
		for (size_t i = 0; i < nitems; i++)
			if (sorted[i].needs >= 0)
				sorted[i].needs = newpos[sorted[i].needs];
		free(c.items);
		free(newpos);
		c.items = sorted;
	}

	if (jobs == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		jobs = n > 0 ? (unsigned)n : 1;
	}
	if (jobs > FW_ARRAY_SIZE(threads))
		jobs = FW_ARRAY_SIZE(threads);
	if (jobs > c.ncopies)
		jobs = c.ncopies ? (unsigned)c.ncopies : 1;
	/* One install at a time per destination: a second one would take
	 * the first one's temporary files for stale ones. */
	if (flock(destfd, LOCK_EX) < 0) {
		r = -errno;
		goto out;
	}
	clean_stale(destfd, c.items, nitems);
	for (size_t i = 0; i < nitems; i++)
		materialize(destfd, &c.items[i]);
	pthread_mutex_init(&c.lock, NULL);
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
	pthread_mutex_destroy(&c.lock);
	for (size_t i = c.ncopies; i < nitems; i++)
		do_link(&c, &c.items[i]);
	/* Only now the old variants go (NAME once NAME.xz is in place): a
	 * link of the old install (NAME -> blob) points at the old blob until
	 * its new link (NAME.xz -> blob.xz) has replaced it, and a link may
	 * point at a dedup link. Removing them right after each copy left
	 * every such link dangling for the rest of the install, and for good
	 * if it was killed. */
	for (size_t i = 0; i < nitems; i++) {
		struct item *it = &c.items[i];
		const char *leaf;
		int pfd;

		if (!it->ok || it->keep_old)
			continue;
		pfd = fw_open_parent(destfd, it->dest, 0, &leaf);
		r = pfd < 0 ? pfd :
		    remove_variants(pfd, leaf, strlen(leaf) - strlen(fw_compress_suffix(it->comp)),
				    it->comp);
		if (pfd >= 0 && pfd != destfd)
			close(pfd);
		if (r < 0) {
			fail(it, "%s: cannot remove the old variants: %s", fw_esc(it->dest),
			     strerror(-r));
			it->ok = 0;
		}
		r = 0;
	}

	for (size_t i = 0; i < nitems; i++) {
		struct item *it = &c.items[i];

		if (it->err) {
			fw_diag_add(d, "", 0, "%s", it->err);
			res->failed++;
			continue;
		}
		if (it->kind == IT_COPY) {
			res->blobs++;
			res->bytes_in += it->in;
			res->bytes_out += it->out;
		} else if (it->b) {
			res->dedup_links++;
		} else {
			res->links++;
		}
	}
out:
	if (c.items)
		for (size_t i = 0; i < cap; i++) {
			free(c.items[i].dest);
			free(c.items[i].target);
			free(c.items[i].err);
		}
	free(c.items);
	free(order);
	free(copy_of_blob);
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
	fd = fw_open_parent(dfd, inner, 1, &leaf);
	free(inner);
	if (fd == dfd) {
		/* unreachable: p is non-empty, so at least one component */
		return fd;
	}
	close(dfd);
	if (fd < 0)
		*failed_at = firmware_dir;
	return fd;
}

int fw_uninstall(const struct fw_tree *t, int destfd, const bool *pkg_selected,
		 struct fw_install_result *res, struct fw_diag *d)
{
	static const enum fw_compress comps[] = { FW_COMP_NONE, FW_COMP_XZ, FW_COMP_ZSTD };
	const char **names = calloc(t->nblobs + t->nlinks + 1, sizeof(*names));
	size_t n = 0, nb;

	memset(res, 0, sizeof(*res));
	if (!names)
		return -ENOMEM;
	if (flock(destfd, LOCK_EX) < 0) {
		free(names);
		return -errno;
	}
	for (size_t i = 0; i < t->nblobs; i++)
		if (fw_blob_installable(&t->blobs[i], pkg_selected))
			names[n++] = t->blobs[i].e->name;
	nb = n;
	for (size_t i = 0; i < t->nlinks; i++)
		if (fw_link_installable(t, &t->links[i], pkg_selected))
			names[n++] = t->links[i].e->name;
	for (size_t i = 0; i < n; i++) {
		const char *leaf;
		int pfd = fw_open_parent(destfd, names[i], 0, &leaf);
		bool removed = false;

		if (pfd == -ENOENT)
			continue;
		if (pfd < 0) {
			fw_diag_add(d, "", 0, "%s: %s", fw_esc(names[i]), parent_error(pfd));
			res->failed++;
			continue;
		}
		clean_tmp_in(pfd);
		for (size_t v = 0; v < FW_ARRAY_SIZE(comps); v++) {
			char buf[512];
			struct stat st;

			snprintf(buf, sizeof(buf), "%s%s", leaf, fw_compress_suffix(comps[v]));
			if (fstatat(pfd, buf, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			    (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)))
				continue;
			if (unlinkat(pfd, buf, 0) < 0) {
				fw_diag_add(d, "", 0, "%s: cannot remove: %s", fw_esc(buf), strerror(errno));
				res->failed++;
				continue;
			}
			removed = true;
		}
		if (removed) {
			if (i < nb)
				res->blobs++;
			else
				res->links++;
			fsync(pfd);
		}
		if (pfd != destfd)
			close(pfd);
	}
	/* Directories the names imply (of blobs and of links: t->dirs has
	 * only those holding a blob, so a directory holding nothing but a
	 * Link, such as compat/, would stay behind), deepest first: in
	 * descending order every directory comes before its parents. Only
	 * empty ones go. */
	{
		char **dirs = NULL;
		size_t nd = 0, cap = 0;

		for (size_t j = 0; j < n; j++)
			for (const char *s = strchr(names[j], '/'); s; s = strchr(s + 1, '/')) {
				if (fw_grow(&dirs, &cap, nd, sizeof(*dirs)) < 0 ||
				    !(dirs[nd] = fw_strndup(names[j], (size_t)(s - names[j]))))
					goto dirs_done; /* out of memory: leave directories be */
				nd++;
			}
		if (nd > 1)
			qsort(dirs, nd, sizeof(*dirs), fw_strcmp_ptr);
		for (size_t i = nd; i-- > 0;) {
			const char *leaf;
			int pfd;

			if (i + 1 < nd && strcmp(dirs[i], dirs[i + 1]) == 0)
				continue;
			/* Through the parent's fd: never through a planted
			 * symlink; AT_REMOVEDIR refuses a symlink leaf. */
			pfd = fw_open_parent(destfd, dirs[i], 0, &leaf);
			if (pfd < 0)
				continue;
			unlinkat(pfd, leaf, AT_REMOVEDIR);
			if (pfd != destfd)
				close(pfd);
		}
dirs_done:
		for (size_t i = 0; i < nd; i++)
			free(dirs[i]);
		free(dirs);
	}
	free(names);
	return 0;
}
