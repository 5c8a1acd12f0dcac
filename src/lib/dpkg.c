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

static int cmp_name(const void *a, const void *b)
{
	const struct fw_dpkg_name *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->pkg < y->pkg ? -1 : x->pkg > y->pkg;
}

/* Keep the paths of one .list (buf) that are below fw (fl bytes). */
static int read_list(struct fw_dpkg *db, const char *pkg, const char *buf, size_t len,
		     const char *fw, size_t fl, bool merged)
{
	char path[FW_LINE_MAX + 8];
	bool have_pkg = false;

	for (const char *p = buf, *e = buf + len; p < e;) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(e - p);
		int pl;

		/* A line longer than any name, or holding a NUL, cannot
		 * be a name fwdist installs: it owns none of them. */
		if (n <= FW_LINE_MAX && !memchr(p, '\0', n) &&
		    (pl = norm_path(p, n, merged, path, sizeof(path))) > (int)fl &&
		    memcmp(path, fw, fl) == 0 && path[fl] == '/') {
			struct fw_dpkg_name x;

			if (!have_pkg) {
				char *s = strdup(pkg);

				if (!s || fw_grow(&db->pkgs, &db->cap_pkgs, db->npkgs, sizeof(*db->pkgs)) < 0) {
					free(s);
					return -ENOMEM;
				}
				db->pkgs[db->npkgs++] = s;
				have_pkg = true;
			}
			x.name = strdup(path + fl + 1);
			x.pkg = db->npkgs - 1;
			if (!x.name || fw_grow(&db->v, &db->cap, db->n, sizeof(*db->v)) < 0) {
				free(x.name);
				return -ENOMEM;
			}
			db->v[db->n++] = x;
		}
		p += n + 1;
	}
	return 0;
}

int fw_dpkg_load(int rootfd, const char *fwdir, struct fw_dpkg *db, struct fw_diag *d)
{
	char fw[FW_LINE_MAX + 8], **names = NULL;
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
	if (fl < 0) {
		close(dfd);
		return -EINVAL;
	}
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
		r = read_list(db, names[i], buf, len, fw, (size_t)fl, merged);
		free(buf);
	}
	fw_free_strv(names, nn);
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
