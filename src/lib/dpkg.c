/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dpkg's database of a root: which names of its firmware directory a Debian package owns. */
#include "dpkg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "util.h"

/* A path below the root in one spelling: its components joined by '/',
 * empty and "." ones dropped, and on a merged-/usr root a leading "lib"
 * read as "usr/lib" (the alias dpkg's older packages still name). Written
 * to out; its length, or -1 for ".." (dpkg writes none) or one too long. */
static int norm_path(const char *in, size_t len, bool merged, char *out, size_t cap)
{
	size_t o = 0, i = 0;
	bool first = true;

	while (i < len) {
		size_t s, n;

		while (i < len && in[i] == '/')
			i++;
		s = i;
		while (i < len && in[i] != '/')
			i++;
		n = i - s;
		if (n == 0 || (n == 1 && in[s] == '.'))
			continue;
		if (n == 2 && in[s] == '.' && in[s + 1] == '.')
			return -1;
		if (first && merged && n == 3 && memcmp(in + s, "lib", 3) == 0) {
			if (o + 3 >= cap)
				return -1;
			memcpy(out + o, "usr", 3); /* and "/lib" below */
			o += 3;
		}
		if (o + (o ? 1 : 0) + n >= cap)
			return -1;
		if (o)
			out[o++] = '/';
		memcpy(out + o, in + s, n);
		o += n;
		first = false;
	}
	out[o] = '\0';
	return (int)o;
}

/* Resolve the symlinks of path (normalised, below the root) as the kernel
 * would with the root as "/" (openat2's RESOLVE_IN_ROOT): an absolute link
 * target starts again at the root, and ".." stops there, so nothing outside
 * the root is ever looked at. The walk holds a descriptor of each directory
 * reached, opened with O_NOFOLLOW, and reads links with readlinkat: no
 * symlink is followed by the kernel. The part of the path that does not
 * exist (or is no directory) is kept as written. The result, in out (no
 * leading '/'), names the file the path names now: dpkg's lists spell a
 * file through whatever directory symlinks the system has (a firmware
 * package lists vendor/x.bin, vendor -> beta on disk), and fwdist must see
 * that beta/x.bin is that file. 0, or -ELOOP (more than 40 links),
 * -ENAMETOOLONG, -errno of opening a directory. */
static int resolve_in_root(int rootfd, const char *path, char *out, size_t cap)
{
	char todo[2 * FW_LINE_MAX + 16], tmp[sizeof(todo)];
	size_t o = 0;
	int cur = rootfd, hops = 0, r = 0;

	if (snprintf(todo, sizeof(todo), "%s", path) >= (int)sizeof(todo) || cap == 0)
		return -ENAMETOOLONG;
	out[0] = '\0';
	for (char *p = todo; *p;) {
		char comp[256], link[FW_LINE_MAX];
		size_t n = strcspn(p, "/");
		struct stat st;
		ssize_t ln;
		int next;

		if (n == 0 || (n == 1 && p[0] == '.')) {
			p += n + (p[n] == '/');
			continue;
		}
		if (n >= sizeof(comp)) {
			r = -ENAMETOOLONG;
			break;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n + (p[n] == '/');
		if (strcmp(comp, "..") == 0) {
			/* Up, never above the root: reopened from the root, one
			 * directory at a time, following nothing. */
			char *slash = strrchr(out, '/');

			o = slash ? (size_t)(slash - out) : 0;
			out[o] = '\0';
			if (cur != rootfd)
				close(cur);
			cur = o ? fw_open_beneath(rootfd, out, O_RDONLY | O_DIRECTORY, 0) : rootfd;
			if (cur < 0) {
				r = cur;
				cur = rootfd;
				break;
			}
			continue;
		}
		if (fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !(S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode))) {
			/* Nothing (or no directory) there: the rest names
			 * nothing through a link, and stays as written. */
			if (snprintf(out + o, cap - o, "%s%s%s%s", o ? "/" : "", comp, *p ? "/" : "", p) >=
			    (int)(cap - o))
				r = -ENAMETOOLONG;
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			ln = ++hops > 40 ? -1 : readlinkat(cur, comp, link, sizeof(link) - 1);
			if (ln < 0) {
				r = hops > 40 ? -ELOOP : -errno;
				break;
			}
			link[ln] = '\0';
			if (snprintf(tmp, sizeof(tmp), "%s/%s", link, p) >= (int)sizeof(tmp)) {
				r = -ENAMETOOLONG;
				break;
			}
			memcpy(todo, tmp, strlen(tmp) + 1);
			p = todo;
			if (link[0] == '/') {
				/* Absolute: from the root (the root's, not the host's). */
				o = 0;
				out[0] = '\0';
				if (cur != rootfd)
					close(cur);
				cur = rootfd;
			}
			continue;
		}
		next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			r = -errno;
			break;
		}
		if (cur != rootfd)
			close(cur);
		cur = next;
		if (o + (o ? 1 : 0) + n >= cap) {
			r = -ENAMETOOLONG;
			break;
		}
		o += (size_t)sprintf(out + o, "%s%s", o ? "/" : "", comp);
	}
	if (cur != rootfd)
		close(cur);
	return r;
}

static int cmp_name(const void *a, const void *b)
{
	const struct fw_dpkg_name *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->pkg < y->pkg ? -1 : x->pkg > y->pkg;
}

/* What read_list compares each path with, and its cache. */
struct scan {
	int rootfd;
	const char *fw;   /* the firmware directory, normalised (norm_path) */
	size_t fl;
	char fwc[FW_LINE_MAX + 8]; /* the same, its symlinks resolved */
	size_t fcl;       /* 0: it could not be resolved */
	bool merged;
	/* The last directory resolved and what it resolved to (a list
	 * names the files of one directory one after the other). */
	char dir[FW_LINE_MAX + 8], res[FW_LINE_MAX + 8];
	int res_err;
	bool have_dir;
};

/* Add name (below the firmware directory) as pkg's (*have_pkg: pkg is
 * db->pkgs' last already). */
static int add_name(struct fw_dpkg *db, const char *pkg, bool *have_pkg, const char *name)
{
	struct fw_dpkg_name x;

	if (!*have_pkg) {
		char *s = strdup(pkg);

		if (!s || fw_grow(&db->pkgs, &db->cap_pkgs, db->npkgs, sizeof(*db->pkgs)) < 0) {
			free(s);
			return -ENOMEM;
		}
		db->pkgs[db->npkgs++] = s;
		*have_pkg = true;
	}
	x.name = strdup(name);
	x.pkg = db->npkgs - 1;
	if (!x.name || fw_grow(&db->v, &db->cap, db->n, sizeof(*db->v)) < 0) {
		free(x.name);
		return -ENOMEM;
	}
	db->v[db->n++] = x;
	return 0;
}

static bool below(const char *path, size_t pl, const char *dir, size_t dl)
{
	return dl && pl > dl && memcmp(path, dir, dl) == 0 && path[dl] == '/';
}

/* The name below the firmware directory of the file path (pl bytes)
 * names through the directory symlinks on disk, into out; false when it
 * names none there or no other than path itself. Only the paths Debian's
 * firmware packages use are resolved (below lib/firmware, usr/lib/firmware
 * or the firmware directory): a system's lists have some 150,000 paths in
 * 40,000 directories, and resolving them all would cost each install and
 * uninstall as much again as reading them. */
static bool alias_of(struct scan *sc, const char *path, size_t pl, char *out, size_t cap)
{
	const char *slash = memrchr(path, '/', pl);
	size_t dl = slash ? (size_t)(slash - path) : 0, rl;

	if (!slash || !(below(path, pl, "lib/firmware", 12) || below(path, pl, "usr/lib/firmware", 16) ||
			below(path, pl, sc->fw, sc->fl)))
		return false;
	if (!sc->have_dir || strlen(sc->dir) != dl || memcmp(sc->dir, path, dl) != 0) {
		memcpy(sc->dir, path, dl);
		sc->dir[dl] = '\0';
		sc->res_err = resolve_in_root(sc->rootfd, sc->dir, sc->res, sizeof(sc->res));
		sc->have_dir = true;
	}
	rl = strlen(sc->res);
	if (sc->res_err < 0 || (rl == dl && memcmp(sc->res, path, dl) == 0))
		return false;
	/* The directory it resolves to: the firmware directory, or below. */
	if (rl == sc->fcl && sc->fcl && memcmp(sc->res, sc->fwc, rl) == 0)
		return snprintf(out, cap, "%s", slash + 1) < (int)cap;
	if (below(sc->res, rl, sc->fwc, sc->fcl))
		return snprintf(out, cap, "%s%s", sc->res + sc->fcl + 1, slash) < (int)cap;
	return false;
}

/* Keep the paths of one .list (buf) that are below the firmware directory,
 * in the spelling of the list and in the one its directory symlinks make. */
static int read_list(struct fw_dpkg *db, const char *pkg, const char *buf, size_t len,
		     struct scan *sc)
{
	char path[FW_LINE_MAX + 8], alias[FW_LINE_MAX + 8];
	bool have_pkg = false;
	int r = 0;

	for (const char *p = buf, *e = buf + len; r == 0 && p < e;) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(e - p);
		int pl;

		/* A line longer than any name, or holding a NUL, cannot
		 * be a name fwdist installs: it owns none of them. */
		if (n <= FW_LINE_MAX && !memchr(p, '\0', n) &&
		    (pl = norm_path(p, n, sc->merged, path, sizeof(path))) > 0) {
			if (below(path, (size_t)pl, sc->fw, sc->fl))
				r = add_name(db, pkg, &have_pkg, path + sc->fl + 1);
			/* The same file through a directory symlink: dpkg's
			 * too, whichever spelling fwdist's plan has. */
			if (r == 0 && alias_of(sc, path, (size_t)pl, alias, sizeof(alias)))
				r = add_name(db, pkg, &have_pkg, alias);
		}
		p += n + 1;
	}
	return r;
}

int fw_dpkg_load(int rootfd, const char *fwdir, struct fw_dpkg *db, struct fw_diag *d)
{
	char fw[FW_LINE_MAX + 8], **names = NULL;
	struct scan *sc;
	size_t nn = 0, lists = 0, w = 0;
	bool merged;
	int dfd, r, fl;

	memset(db, 0, sizeof(*db));
	/* dpkg's own directory, below the root: a symlink planted there
	 * (var -> /) would make another system's database decide. */
	dfd = fw_open_beneath(rootfd, FW_DPKG_INFO, O_RDONLY | O_DIRECTORY, 0);
	if (dfd == -ENOENT)
		return 0;
	if (dfd < 0) {
		fw_diag_add(d, "", 0, "%s: cannot read dpkg's database: %s", FW_DPKG_INFO,
			    fw_path_error(dfd));
		return dfd;
	}
	db->present = true;
	merged = fw_root_is_merged(rootfd);
	fl = norm_path(fwdir, strlen(fwdir), merged, fw, sizeof(fw));
	sc = fl < 0 ? NULL : calloc(1, sizeof(*sc));
	if (!sc) {
		close(dfd);
		return fl < 0 ? -EINVAL : -ENOMEM;
	}
	*sc = (struct scan){ .rootfd = rootfd, .fw = fw, .fl = (size_t)fl, .merged = merged };
	/* The firmware directory is compared resolved too (the system's own
	 * may be reached through a link of its layout). */
	if (resolve_in_root(rootfd, fw, sc->fwc, sizeof(sc->fwc)) == 0)
		sc->fcl = strlen(sc->fwc);
	r = fw_read_dir_sorted(dfd, &names, &nn);
	for (size_t i = 0; r == 0 && i < nn; i++) {
		size_t n = strlen(names[i]);
		struct stat st;
		char *buf;
		size_t len;

		if (n <= 5 || strcmp(names[i] + n - 5, ".list") != 0 || names[i][0] == '.')
			continue;
		if (++lists > FW_DPKG_LISTS_MAX) {
			fw_diag_add(d, "", 0, "%s: more than %u package lists: not a database fwdist "
				    "reads", FW_DPKG_INFO, FW_DPKG_LISTS_MAX);
			r = -E2BIG;
			break;
		}
		/* dpkg writes regular files there: a symlink could make a
		 * file outside the root (or none) the list. */
		if (fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			r = -ELOOP;
		else
			r = fw_read_text(dfd, names[i], &buf, &len);
		if (r < 0) {
			fw_diag_add(d, "", 0, "%s/%s: cannot read dpkg's list of the package's files: %s",
				    FW_DPKG_INFO, fw_esc(names[i]),
				    r == -ELOOP ? "a symlink; refusing to follow it" :
				    r == -EINVAL ? "not a regular file" :
				    r == -EFBIG ? "larger than any list fwdist reads" : strerror(-r));
			break;
		}
		names[i][n - 5] = '\0';
		r = read_list(db, names[i], buf, len, sc);
		free(buf);
	}
	fw_free_strv(names, nn);
	free(sc);
	close(dfd);
	if (r < 0) {
		fw_dpkg_free(db);
		return r;
	}
	/* One owner per name: the first package (in name order) that lists
	 * it; a directory many packages list is owned all the same. */
	if (db->n > 1)
		qsort(db->v, db->n, sizeof(*db->v), cmp_name);
	for (size_t i = 0; i < db->n; i++) {
		if (w && strcmp(db->v[w - 1].name, db->v[i].name) == 0) {
			free(db->v[i].name);
			continue;
		}
		db->v[w++] = db->v[i];
	}
	db->n = w;
	return 0;
}

void fw_dpkg_free(struct fw_dpkg *db)
{
	for (size_t i = 0; i < db->n; i++)
		free(db->v[i].name);
	fw_free_strv(db->pkgs, db->npkgs);
	free(db->v);
	memset(db, 0, sizeof(*db));
}

static int cmp_key(const void *k, const void *e)
{
	return strcmp(k, ((const struct fw_dpkg_name *)e)->name);
}

const char *fw_dpkg_owner(const struct fw_dpkg *db, const char *name)
{
	const struct fw_dpkg_name *e;

	if (!db || !db->n)
		return NULL;
	e = bsearch(name, db->v, db->n, sizeof(*db->v), cmp_key);
	return e ? db->pkgs[e->pkg] : NULL;
}

const char *fw_dpkg_owner_any(const struct fw_dpkg *db, const char *name)
{
	static const char *const suf[] = { ".xz", ".zst" };
	const char *o = fw_dpkg_owner(db, name);
	enum fw_compress c = fw_comp_of_name(name);
	size_t n = strlen(name), base = n - strlen(fw_compress_suffix(c));

	/* On the stack: out of memory must not read as "no owner". */
	for (size_t i = 0; !o && i <= FW_ARRAY_SIZE(suf); i++) {
		char v[FW_LINE_MAX + 8];

		if (snprintf(v, sizeof(v), "%.*s%s", (int)base, name, i ? suf[i - 1] : "") <
		    (int)sizeof(v))
			o = fw_dpkg_owner(db, v);
	}
	return o;
}

void fw_dpkg_tally_add(struct fw_dpkg_tally *t, const char *package, const char *name, bool marked)
{
	struct fw_dpkg_owner *o = NULL;

	for (size_t i = 0; i < t->n && !o; i++)
		if (t->v[i].marked == marked && strcmp(t->v[i].package, package) == 0)
			o = &t->v[i];
	if (!o) {
		char *p = strdup(package);

		if (!p || fw_grow(&t->v, &t->cap, t->n, sizeof(*t->v)) < 0) {
			free(p);
			t->nomem = true;
			return;
		}
		o = &t->v[t->n++];
		memset(o, 0, sizeof(*o));
		o->package = p;
		o->marked = marked;
	}
	if (o->count < FW_DPKG_SHOWN && !(o->shown[o->count] = strdup(name)))
		t->nomem = true;
	o->count++;
}

size_t fw_dpkg_tally_report(const struct fw_dpkg_tally *t, struct fw_diag *d)
{
	size_t total = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct fw_dpkg_owner *o = &t->v[i];
		char names[3 * 300] = "";
		size_t at = 0;

		for (size_t j = 0; j < o->count && j < FW_DPKG_SHOWN; j++)
			if (o->shown[j] && at < sizeof(names))
				at += (size_t)snprintf(names + at, sizeof(names) - at, "%s%s",
						       at ? ", " : "", fw_esc(o->shown[j]));
		if (at < sizeof(names) && o->count > FW_DPKG_SHOWN)
			snprintf(names + at, sizeof(names) - at, ", ...");
		if (o->marked)
			fw_diag_add(d, "", 0, "%zu name%s of Debian package %s (its record is marked as "
				    "the package's, and no dpkg database here lists it): left alone; "
				    "--adopt-packaged takes %s over (%s)", o->count,
				    o->count == 1 ? "" : "s", fw_esc(o->package),
				    o->count == 1 ? "it" : "them", names);
		else
			fw_diag_add(d, "", 0, "%zu name%s belong%s to dpkg package %s: left alone; use "
				    "apt to change %s (%s)", o->count, o->count == 1 ? "" : "s",
				    o->count == 1 ? "s" : "", fw_esc(o->package),
				    o->count == 1 ? "it" : "them", names);
		total += o->count;
	}
	if (t->nomem)
		fw_diag_add(d, "", 0, "out of memory: the names left to dpkg are not all counted");
	return total;
}

void fw_dpkg_tally_free(struct fw_dpkg_tally *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].package);
		for (size_t j = 0; j < FW_DPKG_SHOWN; j++)
			free(t->v[i].shown[j]);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}
