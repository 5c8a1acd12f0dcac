/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The .modinfo section of a kernel module (.ko, .ko.xz, .ko.zst): a bounded ELF reader. */
#include "modinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compress.h"
#include "fsutil.h"
#include "util.h"

/* ELF constants (elf.h's values, spelled out so the reader depends on no
 * host header and reads any class and byte order the same way). */
#define EI_NIDENT 16
#define ELFCLASS32 1
#define ELFCLASS64 2
#define ELFDATA2LSB 1
#define ELFDATA2MSB 2
#define SHN_UNDEF 0
#define SHN_LORESERVE 0xff00u
#define SHN_XINDEX 0xffffu
#define SHT_NOBITS 8

struct elf {
	const unsigned char *b;
	size_t len;
	bool is64, msb;
};

static uint64_t get(const struct elf *e, size_t off, unsigned width)
{
	uint64_t v = 0;

	/* Callers check off + width <= len first. */
	for (unsigned i = 0; i < width; i++) {
		unsigned shift = e->msb ? 8 * (width - 1 - i) : 8 * i;

		v |= (uint64_t)e->b[off + i] << shift;
	}
	return v;
}

/* [off, off + size) lies inside the buffer, without overflow. */
static bool in_bounds(const struct elf *e, uint64_t off, uint64_t size)
{
	return off <= e->len && size <= e->len - off;
}

struct shdr {
	uint64_t name, type, offset, size, link;
};

/* Section header i; the caller has checked the table is in bounds. */
static void shdr_at(const struct elf *e, uint64_t shoff, uint64_t shentsize, uint64_t i,
		    struct shdr *s)
{
	size_t o = (size_t)(shoff + i * shentsize);

	s->name = get(e, o, 4);
	s->type = get(e, o + 4, 4);
	if (e->is64) {
		s->offset = get(e, o + 24, 8);
		s->size = get(e, o + 32, 8);
		s->link = get(e, o + 40, 4);
	} else {
		s->offset = get(e, o + 16, 4);
		s->size = get(e, o + 20, 4);
		s->link = get(e, o + 24, 4);
	}
}

static int add_unique(char ***v, size_t *n, size_t *cap, const char *s, size_t len)
{
	char *x;

	for (size_t i = 0; i < *n; i++)
		if (strlen((*v)[i]) == len && memcmp((*v)[i], s, len) == 0)
			return 0;
	if (fw_grow(v, cap, *n, sizeof(**v)) < 0)
		return -ENOMEM;
	x = fw_strndup(s, len);
	if (!x)
		return -ENOMEM;
	(*v)[(*n)++] = x;
	return 0;
}

static int bad(struct fw_diag *d, const char *path, const char *why)
{
	fw_diag_add(d, path, 0, "malformed module: %s", why);
	return -EBADMSG;
}

/* The module name from a file name: its base name without .ko[.xz|.zst],
 * '-' read as '_' as kmod does. */
static char *name_from_path(const char *path)
{
	const char *base = strrchr(path, '/');
	const char *ko;
	char *n;

	base = base ? base + 1 : path;
	ko = strstr(base, ".ko");
	n = fw_strndup(base, ko ? (size_t)(ko - base) : strlen(base));
	for (char *p = n; p && *p; p++)
		if (*p == '-')
			*p = '_';
	return n;
}

int fw_modinfo_parse(struct fw_modinfo *m, const char *path, const unsigned char *buf,
		     size_t len, struct fw_diag *d)
{
	struct elf e = { .b = buf, .len = len };
	uint64_t shoff, shentsize, shnum, shstrndx, need;
	struct shdr s0, str, mi = { 0 };
	bool found = false;
	size_t ehsize;
	const char *p, *end;
	int r;

	memset(m, 0, sizeof(*m));
	m->path = strdup(path);
	if (!m->path)
		return -ENOMEM;
	if (len < EI_NIDENT || memcmp(buf, "\177ELF", 4) != 0)
		return bad(d, path, "not an ELF object");
	if (buf[4] != ELFCLASS32 && buf[4] != ELFCLASS64)
		return bad(d, path, "unknown ELF class");
	if (buf[5] != ELFDATA2LSB && buf[5] != ELFDATA2MSB)
		return bad(d, path, "unknown ELF byte order");
	e.is64 = buf[4] == ELFCLASS64;
	e.msb = buf[5] == ELFDATA2MSB;
	ehsize = e.is64 ? 64 : 52;
	if (len < ehsize)
		return bad(d, path, "truncated ELF header");
	if (e.is64) {
		shoff = get(&e, 40, 8);
		shentsize = get(&e, 58, 2);
		shnum = get(&e, 60, 2);
		shstrndx = get(&e, 62, 2);
	} else {
		shoff = get(&e, 32, 4);
		shentsize = get(&e, 46, 2);
		shnum = get(&e, 48, 2);
		shstrndx = get(&e, 50, 2);
	}
	if (shoff == 0)
		return bad(d, path, "no section header table");
	if (shentsize < (e.is64 ? 64u : 40u))
		return bad(d, path, "section header entries too small");
	/* Section 0 holds the real count and string table index when they do
	 * not fit the ELF header (extended numbering). */
	if (!in_bounds(&e, shoff, shentsize))
		return bad(d, path, "section header table outside the file");
	shdr_at(&e, shoff, shentsize, 0, &s0);
	if (shnum == 0)
		shnum = s0.size;
	if (shstrndx == SHN_XINDEX)
		shstrndx = s0.link;
	if (shnum == 0)
		return bad(d, path, "no sections");
	/* shnum * shentsize cannot overflow: shnum < 2^32 or it is out of
	 * bounds below, shentsize < 2^16. */
	if (shnum > UINT32_MAX)
		return bad(d, path, "section header table outside the file");
	need = shnum * shentsize;
	if (!in_bounds(&e, shoff, need))
		return bad(d, path, "section header table outside the file");
	if (shstrndx == SHN_UNDEF || shstrndx >= shnum ||
	    (shstrndx >= SHN_LORESERVE && shstrndx < SHN_XINDEX && shnum < SHN_LORESERVE))
		return bad(d, path, "no section name string table");
	shdr_at(&e, shoff, shentsize, shstrndx, &str);
	if (str.type == SHT_NOBITS || !in_bounds(&e, str.offset, str.size) || str.size == 0)
		return bad(d, path, "section name string table outside the file");
	for (uint64_t i = 1; i < shnum; i++) {
		struct shdr s;
		const char *nm;

		shdr_at(&e, shoff, shentsize, i, &s);
		if (s.name >= str.size)
			return bad(d, path, "section name outside the string table");
		nm = (const char *)buf + str.offset + s.name;
		if (!memchr(nm, '\0', (size_t)(str.size - s.name)))
			return bad(d, path, "section name not NUL-terminated");
		if (strcmp(nm, ".modinfo") != 0)
			continue;
		if (found)
			return bad(d, path, "two .modinfo sections");
		found = true;
		mi = s;
	}
	if (!found) {
		fw_diag_add(d, path, 0, "no .modinfo section: not a kernel module");
		return -ENOENT;
	}
	if (mi.type == SHT_NOBITS || !in_bounds(&e, mi.offset, mi.size))
		return bad(d, path, ".modinfo section outside the file");
	p = (const char *)buf + mi.offset;
	end = p + mi.size;
	/* Entries are NUL-terminated "key=value" strings; alignment adds
	 * runs of NULs between them. */
	while (p < end) {
		const char *z = memchr(p, '\0', (size_t)(end - p));
		size_t n;

		if (!z)
			return bad(d, path, ".modinfo entry not NUL-terminated");
		n = (size_t)(z - p);
		r = 0;
		if (n > 9 && memcmp(p, "firmware=", 9) == 0)
			r = add_unique(&m->firmware, &m->nfirmware, &m->firmware_cap, p + 9, n - 9);
		else if (n > 6 && memcmp(p, "alias=", 6) == 0)
			r = add_unique(&m->alias, &m->nalias, &m->alias_cap, p + 6, n - 6);
		else if (n > 5 && memcmp(p, "name=", 5) == 0 && !m->name) {
			m->name = fw_strndup(p + 5, n - 5);
			if (!m->name)
				r = -ENOMEM;
		}
		if (r < 0)
			return r;
		p = z + 1;
	}
	if (!m->name) {
		m->name = name_from_path(path);
		if (!m->name)
			return -ENOMEM;
	}
	return 0;
}

int fw_modinfo_is_module(const char *name)
{
	size_t n = strlen(name);

	return (n > 3 && strcmp(name + n - 3, ".ko") == 0) ||
	       (n > 6 && strcmp(name + n - 6, ".ko.xz") == 0) ||
	       (n > 7 && strcmp(name + n - 7, ".ko.zst") == 0);
}

int fw_modinfo_load(struct fw_modinfo *m, int dirfd, const char *path, struct fw_diag *d)
{
	unsigned char *buf = NULL;
	size_t len = 0;
	struct stat st;
	int fd, r;

	memset(m, 0, sizeof(*m));
	fd = openat(dirfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		fw_diag_add(d, path, 0, "cannot open: %s", strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		r = -EINVAL;
		fw_diag_add(d, path, 0, "not a regular file");
		close(fd);
		return r;
	}
	r = fw_decompress_buf(fd, fw_comp_of_name(path), FW_MODINFO_MAX, &buf, &len);
	close(fd);
	if (r == -EBADMSG) {
		fw_diag_add(d, path, 0, "malformed module: corrupt or truncated %s data",
			    fw_compress_name(fw_comp_of_name(path)));
		return r;
	}
	if (r == -EFBIG) {
		fw_diag_add(d, path, 0, "malformed module: larger than %u MiB", FW_MODINFO_MAX >> 20);
		return -EBADMSG;
	}
	if (r < 0) {
		fw_diag_add(d, path, 0, "cannot read: %s", strerror(-r));
		return r;
	}
	r = fw_modinfo_parse(m, path, buf, len, d);
	free(buf);
	return r;
}

void fw_modinfo_free(struct fw_modinfo *m)
{
	free(m->path);
	free(m->name);
	fw_free_strv(m->firmware, m->nfirmware);
	fw_free_strv(m->alias, m->nalias);
	memset(m, 0, sizeof(*m));
}

int fw_modset_add_file(struct fw_modset *s, int dirfd, const char *path, struct fw_diag *d)
{
	struct fw_modinfo m;
	int r = fw_modinfo_load(&m, dirfd, path, d);

	if (r == -ENOMEM) {
		fw_modinfo_free(&m);
		return r;
	}
	if (r < 0) {
		fw_modinfo_free(&m);
		s->bad++;
		return 0;
	}
	if (fw_grow(&s->v, &s->cap, s->n, sizeof(*s->v)) < 0) {
		fw_modinfo_free(&m);
		return -ENOMEM;
	}
	s->v[s->n++] = m;
	return 0;
}

/* Walk dfd (named path, for messages) depth first, in byte order. */
static int walk(struct fw_modset *s, int dfd, const char *path, struct fw_diag *d, unsigned depth)
{
	char **names = NULL;
	size_t n = 0;
	int r;

	if (depth > 64) {
		fw_diag_add(d, path, 0, "directories nested too deep");
		s->bad++;
		return 0;
	}
	r = fw_read_dir_sorted(dfd, &names, &n);
	if (r < 0) {
		fw_diag_add(d, path, 0, "cannot read directory: %s", strerror(-r));
		s->bad++;
		return r == -ENOMEM ? r : 0;
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		char *sub = fw_asprintf("%s/%s", path, names[i]);
		struct stat st;

		if (!sub) {
			r = -ENOMEM;
			break;
		}
		if (fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			fw_diag_add(d, sub, 0, "cannot stat: %s", strerror(errno));
			s->bad++;
		} else if (S_ISDIR(st.st_mode)) {
			int cfd = openat(dfd, names[i],
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (cfd < 0) {
				fw_diag_add(d, sub, 0, "cannot open: %s", strerror(errno));
				s->bad++;
			} else {
				r = walk(s, cfd, sub, d, depth + 1);
				close(cfd);
			}
		} else if (S_ISREG(st.st_mode) && fw_modinfo_is_module(names[i])) {
			struct fw_modinfo m;
			struct fw_diag md = { 0 };

			/* Read it by its name in dfd (nothing above it is looked
			 * up again), report it by its full path. */
			r = fw_modinfo_load(&m, dfd, names[i], &md);
			if (r == 0) {
				free(m.path);
				m.path = sub;
				sub = NULL;
				if (fw_grow(&s->v, &s->cap, s->n, sizeof(*s->v)) < 0) {
					fw_modinfo_free(&m);
					r = -ENOMEM;
				} else {
					s->v[s->n++] = m;
				}
			} else {
				fw_modinfo_free(&m);
				for (size_t k = 0; k < md.n; k++)
					fw_diag_add(d, sub, 0, "%s", md.v[k].text);
				s->bad++;
				r = r == -ENOMEM ? r : 0;
			}
			fw_diag_free(&md);
		}
		free(sub);
	}
	fw_free_strv(names, n);
	return r;
}

int fw_modset_add_dir(struct fw_modset *s, const char *dir, struct fw_diag *d)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r;

	if (dfd < 0) {
		r = -errno;
		fw_diag_add(d, dir, 0, "cannot open directory: %s", strerror(-r));
		return r;
	}
	r = walk(s, dfd, dir, d, 0);
	close(dfd);
	return r;
}

void fw_modset_free(struct fw_modset *s)
{
	for (size_t i = 0; i < s->n; i++)
		fw_modinfo_free(&s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

const char *fw_fw_digits(const char *name, const char **base, const char **dot)
{
	const char *p;

	*base = strrchr(name, '/');
	*base = *base ? *base + 1 : name;
	*dot = strrchr(*base, '.');
	if (!*dot)
		*dot = *base + strlen(*base);
	p = *dot;
	while (p > *base && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return p;
}

char *fw_fw_pattern(const char *name)
{
	const char *base, *dot, *p = fw_fw_digits(name, &base, &dot);

	if (p == dot || p == base || p[-1] != '-')
		return NULL;
	return fw_asprintf("%.*s*%s", (int)(p - name), name, dot);
}

struct pair {
	const char *name;
	size_t mod;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->mod > y->mod) - (x->mod < y->mod);
}

struct gkey {
	char *pattern;
	size_t mod, req;
};

static int cmp_gkey(const void *a, const void *b)
{
	const struct gkey *x = a, *y = b;
	int c = strcmp(x->pattern, y->pattern);

	if (c)
		return c;
	if (x->mod != y->mod)
		return (x->mod > y->mod) - (x->mod < y->mod);
	return (x->req > y->req) - (x->req < y->req);
}

int fw_fwreqs_build(struct fw_fwreqs *r, const struct fw_modset *s)
{
	struct pair *pv = NULL;
	struct gkey *kv = NULL;
	size_t np = 0, nk = 0, cap = 0;
	int ret = -ENOMEM;

	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < s->n; i++)
		np += s->v[i].nfirmware;
	pv = calloc(np ? np : 1, sizeof(*pv));
	kv = calloc(np ? np : 1, sizeof(*kv));
	r->v = calloc(np ? np : 1, sizeof(*r->v));
	if (!pv || !kv || !r->v)
		goto out;
	np = 0;
	for (size_t i = 0; i < s->n; i++)
		for (size_t j = 0; j < s->v[i].nfirmware; j++)
			pv[np++] = (struct pair){ s->v[i].firmware[j], i };
	qsort(pv, np, sizeof(*pv), cmp_pair);
	for (size_t i = 0; i < np;) {
		size_t j = i;
		struct fw_fwreq *q = &r->v[r->n];

		while (j < np && strcmp(pv[j].name, pv[i].name) == 0)
			j++;
		q->name = pv[i].name;
		q->group = -1;
		q->mods = calloc(j - i, sizeof(*q->mods));
		if (!q->mods)
			goto out;
		for (size_t k = i; k < j; k++)
			q->mods[q->nmods++] = pv[k].mod;
		r->n++;
		i = j;
	}
	/* Group keys: one per (pattern, module, request). */
	for (size_t i = 0; i < r->n; i++) {
		char *pat = fw_fw_pattern(r->v[i].name);

		if (!pat)
			continue;
		for (size_t k = 0; k < r->v[i].nmods; k++) {
			char *copy = k ? strdup(pat) : pat;

			if (!copy) {
				if (k == 0)
					free(pat);
				goto out;
			}
			kv[nk++] = (struct gkey){ copy, r->v[i].mods[k], i };
		}
		if (r->v[i].nmods == 0)
			free(pat);
	}
	qsort(kv, nk, sizeof(*kv), cmp_gkey);
	for (size_t i = 0; i < nk;) {
		size_t j = i;
		struct fw_fwgroup *g;

		while (j < nk && kv[j].mod == kv[i].mod && strcmp(kv[j].pattern, kv[i].pattern) == 0)
			j++;
		if (j - i >= 2) {
			if (fw_grow(&r->g, &cap, r->ng, sizeof(*r->g)) < 0)
				goto out;
			g = &r->g[r->ng];
			memset(g, 0, sizeof(*g));
			g->module = kv[i].mod;
			g->members = calloc(j - i, sizeof(*g->members));
			if (!g->members)
				goto out;
			g->pattern = kv[i].pattern;
			kv[i].pattern = NULL;
			r->ng++;
			for (size_t k = i; k < j; k++) {
				g->members[g->nmembers++] = kv[k].req;
				/* A name in two modules' groups keeps the first. */
				if (r->v[kv[k].req].group < 0)
					r->v[kv[k].req].group = (long)(r->ng - 1);
			}
		}
		i = j;
	}
	ret = 0;
out:
	for (size_t i = 0; i < nk; i++)
		free(kv[i].pattern);
	free(kv);
	free(pv);
	if (ret < 0)
		fw_fwreqs_free(r);
	return ret;
}

void fw_fwreqs_free(struct fw_fwreqs *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].mods);
	for (size_t i = 0; i < r->ng; i++) {
		free(r->g[i].pattern);
		free(r->g[i].members);
	}
	free(r->v);
	free(r->g);
	memset(r, 0, sizeof(*r));
}
