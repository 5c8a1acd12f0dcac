/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The install record: what fwdist put in a firmware directory, one file per package. */
#include "record.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "lines.h"
#include "util.h"

static const char *const type_names[] = {
	[FW_REC_FILE] = "file",
	[FW_REC_LINK] = "link",
	[FW_REC_LICENCE] = "licence",
};

const char *fw_rec_type_name(enum fw_rec_type t)
{
	return type_names[t];
}

static void entry_free(struct fw_rec_entry *e)
{
	free(e->name);
	free(e->target);
}

int fw_record_add(struct fw_record *r, const struct fw_rec_entry *e)
{
	struct fw_rec_entry c = *e;

	c.name = strdup(e->name);
	c.target = e->target ? strdup(e->target) : NULL;
	if (!c.name || (e->target && !c.target) || fw_grow(&r->v, &r->cap, r->n, sizeof(*r->v)) < 0) {
		entry_free(&c);
		return -ENOMEM;
	}
	r->v[r->n++] = c;
	return 0;
}

/* Split the next tab-separated field of [*p, e). */
static const char *tab_field(const char **p, const char *e, size_t *len)
{
	const char *s = *p, *t = memchr(s, '\t', (size_t)(e - s));

	*len = t ? (size_t)(t - s) : (size_t)(e - s);
	*p = t ? t + 1 : e;
	return s;
}

static bool licence_name_ok(const char *name, const char *package)
{
	size_t pl = strlen(FW_DEST_LICENSES), kl = strlen(package), n = strlen(name);
	const char *id = name + pl + 1 + kl + 1;

	return n > pl + 1 + kl + 1 + 4 && strncmp(name, FW_DEST_LICENSES, pl) == 0 &&
	       name[pl] == '/' && strncmp(name + pl + 1, package, kl) == 0 && name[pl + 1 + kl] == '/' &&
	       !strchr(id, '/') && strcmp(name + n - 4, ".txt") == 0;
}

/* A package name as Debian allows it (and so as the split may give it). */
static bool package_name_ok(const char *s, size_t n)
{
	if (n < 2 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9')))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '+' ||
		      s[i] == '-' || s[i] == '.'))
			return false;
	return true;
}

static int parse_record(struct fw_record *r, const char *path, const char *buf, size_t len,
			struct fw_diag *d)
{
	struct fw_lines it;
	const char *ls, *le;

	if (len == 0) {
		r->damaged = true;
		fw_diag_add(d, path, 0, "empty: not an install record fwdist wrote");
	}
	fw_lines_init(&it, buf, len);
	while (fw_lines_next(&it, &ls, &le)) {
		struct fw_rec_entry e = { .line = it.line };
		const char *p = ls, *f[6];
		size_t fl[6], nf = 0;
		char comp[8];

		/* A line holds a name and a link target: twice a name's limit. */
		if (!fw_line_start(d, path, it.line, ls, le, FW_RECORD_HEADER, 2 * FW_LINE_MAX)) {
			/* The header line itself passes; anything else here is damage. */
			if (!(it.line == 1 && (size_t)(le - ls) == strlen(FW_RECORD_HEADER) &&
			      memcmp(ls, FW_RECORD_HEADER, (size_t)(le - ls)) == 0))
				r->damaged = true;
			continue;
		}
		if (it.line == 1)
			r->damaged = true; /* no header: not a record fwdist wrote */
		if ((size_t)(le - ls) > strlen(FW_RECORD_RELEASE) &&
		    memcmp(ls, FW_RECORD_RELEASE "\t", strlen(FW_RECORD_RELEASE) + 1) == 0) {
			/* Once, well formed: what refuses a downgrade is not guessed. */
			p = ls + strlen(FW_RECORD_RELEASE) + 1;
			while (p < le && nf < 3)
				f[nf] = tab_field(&p, le, &fl[nf]), nf++;
			if (r->release.set || nf != 2 || p < le ||
			    fw_parse_u64(f[0], fl[0], &r->release.serial) < 0 ||
			    r->release.serial == 0 || fw_sha256_parse(f[1], fl[1], r->release.pins) < 0)
				goto bad;
			r->release.set = true;
			continue;
		}
		if ((size_t)(le - ls) > strlen(FW_RECORD_PACKAGED) &&
		    memcmp(ls, FW_RECORD_PACKAGED "\t", strlen(FW_RECORD_PACKAGED) + 1) == 0) {
			/* Once, a Debian package's name: whose it is is not
			 * guessed either. */
			p = ls + strlen(FW_RECORD_PACKAGED) + 1;
			if (r->packaged || !package_name_ok(p, (size_t)(le - p)))
				goto bad;
			r->packaged = fw_strndup(p, (size_t)(le - p));
			if (!r->packaged)
				return -ENOMEM;
			continue;
		}
		if ((size_t)(le - ls) == strlen(FW_RECORD_INCOMPLETE) &&
		    memcmp(ls, FW_RECORD_INCOMPLETE, (size_t)(le - ls)) == 0) {
			r->incomplete = true;
			continue;
		}
		if (ls == le || *ls == '#')
			continue;
		while (p < le && nf < 6)
			f[nf] = tab_field(&p, le, &fl[nf]), nf++;
		if (nf < 3 || p < le)
			goto bad;
		if (fl[0] == 4 && !memcmp(f[0], "file", 4) && nf == 5)
			e.type = FW_REC_FILE;
		else if (fl[0] == 4 && !memcmp(f[0], "link", 4) && nf == 3)
			e.type = FW_REC_LINK;
		else if (fl[0] == 7 && !memcmp(f[0], "licence", 7) && nf == 4)
			e.type = FW_REC_LICENCE;
		else
			goto bad;
		e.name = fw_strndup(f[1], fl[1]);
		if (!e.name)
			return -ENOMEM;
		/* What fwdist records: request names outside its own namespace,
		 * and licence texts only at LICENSES/<this package>/<id>.txt. */
		if (fw_name_problem(e.name) ||
		    (e.type == FW_REC_LICENCE ? !licence_name_ok(e.name, r->package) :
						fw_name_reserved(e.name) != NULL))
			goto bad_free;
		if (e.type == FW_REC_LINK) {
			e.target = fw_strndup(f[2], fl[2]);
			if (!e.target)
				goto nomem;
		} else {
			if (fw_sha256_parse(f[2], fl[2], e.sha256) < 0 ||
			    fw_parse_u64(f[3], fl[3], &e.size) < 0)
				goto bad_free;
			if (e.type == FW_REC_FILE) {
				if (fl[4] >= sizeof(comp))
					goto bad_free;
				memcpy(comp, f[4], fl[4]);
				comp[fl[4]] = '\0';
				if (fw_compress_parse(comp, &e.comp) < 0)
					goto bad_free;
			}
		}
		if (fw_grow(&r->v, &r->cap, r->n, sizeof(*r->v)) < 0)
			goto nomem;
		r->v[r->n++] = e;
		continue;
nomem:
		entry_free(&e);
		return -ENOMEM;
bad_free:
		entry_free(&e);
bad:
		r->damaged = true;
		fw_diag_add(d, path, it.line, "malformed line (fwdist did not write it; it is never "
			    "acted on)");
	}
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct fw_rec_entry *)a)->name, ((const struct fw_rec_entry *)b)->name);
}

static void foreign(struct fw_records *rs, struct fw_diag *d, const char *name, const char *why)
{
	rs->foreign++;
	fw_diag_add(d, "", 0, "%s/%s: %s", FW_RECORD_DIR, fw_esc(name), why);
}

int fw_records_load(int fwfd, struct fw_records *rs, struct fw_diag *d)
{
	int dfd = openat(fwfd, FW_RECORD_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char **names;
	size_t nn;
	int r = 0;

	memset(rs, 0, sizeof(*rs));
	if (dfd < 0) {
		struct stat st;

		if (errno == ENOENT)
			return 0;
		r = -errno;
		if (fstatat(fwfd, FW_RECORD_DIR, &st, AT_SYMLINK_NOFOLLOW) == 0)
			r = S_ISLNK(st.st_mode) ? -ELOOP : !S_ISDIR(st.st_mode) ? -ENOTDIR : r;
		return r;
	}
	r = fw_read_dir_sorted(dfd, &names, &nn);
	if (r < 0) {
		close(dfd);
		return r;
	}
	for (size_t i = 0; i < nn && r == 0; i++) {
		const char *name = names[i];
		size_t n = strlen(name);
		struct fw_record rec = { 0 };
		struct stat st;
		char *buf, *path;
		size_t len;

		if (fw_is_tmp_name(name))
			continue; /* an atomic write that was cut short */
		if (n <= 5 || strcmp(name + n - 5, ".list") != 0 || !package_name_ok(name, n - 5)) {
			foreign(rs, d, name, "not an install record fwdist writes (PACKAGE.list)");
			continue;
		}
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode)) {
			foreign(rs, d, name, S_ISLNK(st.st_mode) ? "a symlink, not an install record" :
					     "not a regular file, not an install record");
			continue;
		}
		r = fw_read_text(dfd, name, &buf, &len);
		if (r == -ENOMEM)
			break;
		if (r < 0) {
			fw_diag_add(d, "", 0, "%s/%s: cannot read: %s", FW_RECORD_DIR, fw_esc(name),
				    strerror(-r));
			rs->foreign++;
			r = 0;
			continue;
		}
		rec.package = fw_strndup(name, n - 5);
		path = fw_asprintf("%s/%s", FW_RECORD_DIR, name);
		if (!rec.package || !path) {
			free(rec.package);
			free(path);
			free(buf);
			r = -ENOMEM;
			break;
		}
		r = parse_record(&rec, path, buf, len, d);
		free(path);
		free(buf);
		if (r == 0 && fw_grow(&rs->v, &rs->cap, rs->n, sizeof(*rs->v)) < 0)
			r = -ENOMEM;
		if (r < 0) {
			for (size_t j = 0; j < rec.n; j++)
				entry_free(&rec.v[j]);
			free(rec.v);
			free(rec.package);
			free(rec.packaged);
			break;
		}
		if (rec.n > 1)
			qsort(rec.v, rec.n, sizeof(*rec.v), cmp_entry);
		rs->damaged += rec.damaged;
		rs->v[rs->n++] = rec;
	}
	fw_free_strv(names, nn);
	close(dfd);
	return r;
}

void fw_records_free(struct fw_records *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		for (size_t j = 0; j < rs->v[i].n; j++)
			entry_free(&rs->v[i].v[j]);
		free(rs->v[i].v);
		free(rs->v[i].package);
		free(rs->v[i].packaged);
	}
	free(rs->v);
	memset(rs, 0, sizeof(*rs));
}

const struct fw_rec_entry *fw_records_find(const struct fw_records *rs, const char *name,
					   const char **package)
{
	struct fw_rec_entry key = { .name = (char *)name };

	for (size_t i = 0; i < rs->n; i++) {
		const struct fw_rec_entry *e;

		if (!rs->v[i].n)
			continue;
		e = bsearch(&key, rs->v[i].v, rs->v[i].n, sizeof(key), cmp_entry);
		if (e) {
			if (package)
				*package = rs->v[i].package;
			return e;
		}
	}
	return NULL;
}

struct fw_record *fw_records_get(struct fw_records *rs, const char *package)
{
	for (size_t i = 0; i < rs->n; i++)
		if (strcmp(rs->v[i].package, package) == 0)
			return &rs->v[i];
	return NULL;
}

int fw_record_write(int fwfd, struct fw_record *r)
{
	char *buf = NULL, *path;
	size_t len = 0;
	FILE *f;
	int ret;

	if (r->n) /* an empty record (a marked one) has no array: qsort takes none */
		qsort(r->v, r->n, sizeof(*r->v), cmp_entry);
	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "%s\n", FW_RECORD_HEADER);
	if (r->release.set) {
		char hex[FW_SHA256_HEX + 1];

		fw_sha256_hex(r->release.pins, hex);
		fprintf(f, "%s\t%" PRIu64 "\t%s\n", FW_RECORD_RELEASE, r->release.serial, hex);
	}
	if (r->packaged)
		fprintf(f, "%s\t%s\n", FW_RECORD_PACKAGED, r->packaged);
	if (r->incomplete)
		fprintf(f, "%s\n", FW_RECORD_INCOMPLETE);
	for (size_t i = 0; i < r->n; i++) {
		const struct fw_rec_entry *e = &r->v[i];
		char hex[FW_SHA256_HEX + 1];

		if (e->type == FW_REC_LINK) {
			fprintf(f, "link\t%s\t%s\n", e->name, e->target);
			continue;
		}
		fw_sha256_hex(e->sha256, hex);
		if (e->type == FW_REC_FILE)
			fprintf(f, "file\t%s\t%s\t%" PRIu64 "\t%s\n", e->name, hex, e->size,
				fw_compress_name(e->comp));
		else
			fprintf(f, "licence\t%s\t%s\t%" PRIu64 "\n", e->name, hex, e->size);
	}
	if (fw_memstream_close(f, &buf) < 0) {
		free(buf);
		return -ENOMEM;
	}
	/* .fwdist/ is ours: a symlink planted there is refused by O_NOFOLLOW. */
	ret = fw_mkdirat(fwfd, FW_RECORD_DIR, 0755);
	if (ret < 0 && ret != -EEXIST) {
		free(buf);
		return ret;
	}
	path = fw_asprintf("%s/%s.list", FW_RECORD_DIR, r->package);
	if (!path) {
		free(buf);
		return -ENOMEM;
	}
	ret = fw_write_atomic(fwfd, path, buf, len, 0644);
	free(path);
	free(buf);
	return ret;
}

int fw_record_remove(int fwfd, const char *package)
{
	int dfd = openat(fwfd, FW_RECORD_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char *leaf;
	int r = 0;

	if (dfd < 0)
		return errno == ENOENT ? 0 : -errno;
	leaf = fw_asprintf("%s.list", package);
	if (!leaf) {
		close(dfd);
		return -ENOMEM;
	}
	if (unlinkat(dfd, leaf, 0) < 0 && errno != ENOENT)
		r = -errno;
	else
		fsync(dfd);
	free(leaf);
	close(dfd);
	unlinkat(fwfd, FW_RECORD_DIR, AT_REMOVEDIR); /* only if empty */
	return r;
}

enum fw_rec_state fw_rec_entry_state(int fwfd, const struct fw_rec_entry *e)
{
	return fw_rec_entry_state_id(fwfd, e, NULL);
}

enum fw_rec_state fw_rec_entry_state_id(int fwfd, const struct fw_rec_entry *e, struct fw_ident *id)
{
	enum fw_rec_state st = FW_REC_OTHER_TYPE;
	const char *leaf;
	struct stat sb;
	int pfd = fw_open_parent(fwfd, e->name, 0, &leaf);

	if (id)
		memset(id, 0, sizeof(*id));
	if (pfd == -ENOENT)
		return FW_REC_GONE;
	if (pfd < 0)
		return FW_REC_BLOCKED;
	if (fstatat(pfd, leaf, &sb, AT_SYMLINK_NOFOLLOW) < 0) {
		st = errno == ENOENT ? FW_REC_GONE : FW_REC_BLOCKED;
	} else if (e->type == FW_REC_LINK && S_ISLNK(sb.st_mode)) {
		/* The link looked at first, its text read after: a link put
		 * there in between is another inode, which a removal by
		 * this identity keeps. */
		if (id)
			fw_ident_of(id, &sb);
		st = fw_symlink_is(pfd, leaf, e->target) ? FW_REC_SAME : FW_REC_CHANGED;
	} else if (e->type != FW_REC_LINK && S_ISREG(sb.st_mode)) {
		int fd = openat(pfd, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

		/* The identity of the file read, not of the name's. */
		if (fd >= 0 && fstat(fd, &sb) == 0 && id)
			fw_ident_of(id, &sb);
		st = fd >= 0 && fw_fd_holds(fd, e->type == FW_REC_FILE ? e->comp : FW_COMP_NONE,
					    e->sha256, e->size, NULL) ? FW_REC_SAME : FW_REC_CHANGED;
		if (fd >= 0)
			close(fd);
	} else if (id) {
		fw_ident_of(id, &sb);
	}
	if (pfd != fwfd)
		close(pfd);
	return st;
}

const char *fw_rec_state_words(enum fw_rec_state s)
{
	switch (s) {
	case FW_REC_SAME:
		return "as installed";
	case FW_REC_GONE:
		return "gone";
	case FW_REC_CHANGED:
		return "changed since fwdist installed it";
	case FW_REC_OTHER_TYPE:
		return "no longer of the type fwdist installed";
	case FW_REC_BLOCKED:
		return "a symlink or a non-directory is in its path";
	}
	return "?";
}
