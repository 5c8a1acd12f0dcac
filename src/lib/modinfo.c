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

/* Where the object's bytes come from: a buffer, a plain file (pread: only
 * the headers and the sections read are read), or a decoder read forward,
 * restarted from the file's start when a part behind it is asked for. */
struct src {
	const unsigned char *buf;   /* a buffer, or NULL */
	uint64_t size;              /* of the buffer or plain file; UINT64_MAX: not known */
	int fd;                     /* the file, or -1 */
	enum fw_compress c;         /* FW_COMP_NONE: pread */
	struct fw_decoder *dec;
	uint64_t pos;               /* content decoded so far */
	unsigned char *keep;        /* content [0, nkeep) kept, at most keep_max */
	size_t nkeep, keep_cap, keep_max;
	unsigned char *scratch;     /* SCRATCH bytes, for what is decoded and not kept */
};

#define SCRATCH (64u * 1024u)

/* Keep [0, content) of a decoded object in memory, to read its parts
 * from in one pass, when content (where its section header table ends,
 * which it claims before anything is decoded) is at most this; a larger
 * object costs a pass per part instead, and never more memory. Real
 * modules are far smaller, a decompression bomb is not. */
#define KEEP_MAX (64u << 20)

/* The most of one part read whole (the section header table, their names,
 * .modinfo): 65535 64-byte headers are 4 MiB, a .modinfo of 20000
 * firmware names under 1 MiB. */
#define PART_MAX (16u << 20)

static int src_restart(struct src *s)
{
	fw_decoder_close(s->dec);
	s->dec = NULL;
	s->pos = 0;
	if (lseek(s->fd, 0, SEEK_SET) < 0)
		return -errno;
	return fw_decoder_open(&s->dec, s->fd, s->c);
}

/* [off, off + len) of a decoded object into out. */
static int src_decode(struct src *s, uint64_t off, size_t len, unsigned char *out)
{
	uint64_t end = off + len;
	int r;

	/* A bound on the work as well as on memory: past FW_MODINFO_MAX of
	 * content no module is read, whatever the headers claim. */
	if (off > FW_MODINFO_MAX || len > FW_MODINFO_MAX - off)
		return -EFBIG;
	/* What lies behind the decoder must have been kept, else decode
	 * again from the start. */
	if (off < s->pos && (end < s->pos ? end : s->pos) > s->nkeep) {
		r = src_restart(s);
		if (r < 0)
			return r;
	}
	if (off < s->pos) {
		size_t k = (size_t)((end < s->pos ? end : s->pos) - off);

		memcpy(out, s->keep + off, k);
		out += k;
		len -= k;
		off += k;
	}
	while (s->pos < end) {
		size_t want = end - s->pos < SCRATCH ? (size_t)(end - s->pos) : SCRATCH;
		unsigned char *at = s->scratch;
		ssize_t n;

		/* Decoded straight into what is kept, while it is kept. */
		if (s->nkeep == s->pos && s->nkeep < s->keep_max) {
			if (want > s->keep_max - s->nkeep)
				want = s->keep_max - s->nkeep;
			if (fw_grow(&s->keep, &s->keep_cap, s->nkeep + want - 1, 1) < 0)
				return -ENOMEM;
			at = s->keep + s->nkeep;
		}
		n = fw_decoder_read(s->dec, at, want);
		if (n < 0)
			return (int)n;
		if (n == 0)
			return -ERANGE;
		if (at != s->scratch)
			s->nkeep += (size_t)n;
		if (s->pos + (size_t)n > off) {
			uint64_t from = off > s->pos ? off - s->pos : 0;
			size_t k = (size_t)((uint64_t)n - from);

			if (k > len)
				k = len;
			memcpy(out, at + from, k);
			out += k;
			len -= k;
			off += k;
		}
		s->pos += (size_t)n;
	}
	return 0;
}

/* Copy [off, off + len) of the object into out: 0, -ERANGE when not all
 * of it is in the object ("outside the file"), -EFBIG past FW_MODINFO_MAX
 * of a compressed one, -EBADMSG for corrupt compressed data, -ENOMEM or
 * -errno. */
static int src_fetch(struct src *s, uint64_t off, uint64_t len, unsigned char *out)
{
	if (s->buf || s->c == FW_COMP_NONE) {
		if (off > s->size || len > s->size - off)
			return -ERANGE;
		if (s->buf) {
			memcpy(out, s->buf + off, (size_t)len);
			return 0;
		}
		while (len > 0) {
			ssize_t n = pread(s->fd, out, (size_t)len, (off_t)off);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return -errno;
			if (n == 0)
				return -ERANGE; /* shorter than when it was opened */
			out += n;
			off += (uint64_t)n;
			len -= (uint64_t)n;
		}
		return 0;
	}
	return src_decode(s, off, (size_t)len, out);
}

/* A decoded object's parts lie below content: keep them all from the
 * first pass when that is small enough. */
static void src_expect(struct src *s, uint64_t content)
{
	if (s->dec && content <= KEEP_MAX && content > s->keep_max)
		s->keep_max = (size_t)content;
}

struct elf {
	const unsigned char *b;
	bool is64, msb;
};

static uint64_t get(const struct elf *e, size_t off, unsigned width)
{
	uint64_t v = 0;

	/* Callers read within what they fetched. */
	for (unsigned i = 0; i < width; i++) {
		unsigned shift = e->msb ? 8 * (width - 1 - i) : 8 * i;

		v |= (uint64_t)e->b[off + i] << shift;
	}
	return v;
}

struct shdr {
	uint64_t name, type, offset, size, link;
};

/* Section header i of the table in e->b. */
static void shdr_at(const struct elf *e, uint64_t shentsize, uint64_t i, struct shdr *s)
{
	size_t o = (size_t)(i * shentsize);

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

static int bad(struct fw_diag *d, const char *path, const char *why)
{
	fw_diag_add(d, path, 0, "malformed module: %s", why);
	return -EBADMSG;
}

/* The finding for r, a src_fetch failure reading what. r, or -EBADMSG. */
static int fetch_failed(const struct src *s, const char *path, const char *what, int r,
			struct fw_diag *d)
{
	switch (r) {
	case -ERANGE:
		fw_diag_add(d, path, 0, "malformed module: %s outside the file", what);
		return -EBADMSG;
	case -EFBIG:
		/* A claim no module makes: refused before it is decoded. */
		fw_diag_add(d, path, 0, "malformed module: %s past the first %u MiB of its content",
			    what, FW_MODINFO_MAX >> 20);
		return -EBADMSG;
	case -EBADMSG:
		fw_diag_add(d, path, 0, "malformed module: corrupt or truncated %s data",
			    fw_compress_name(s->c));
		return r;
	case -ENOMEM:
		return r;
	default:
		fw_diag_add(d, path, 0, "cannot read: %s", strerror(-r));
		return r;
	}
}

/* A part of the object, what, read whole into a new buffer (*out); the
 * reasons it cannot be, in d. */
static int part(struct src *s, const char *path, const char *what, uint64_t off, uint64_t len,
		unsigned char **out, struct fw_diag *d)
{
	int r;

	*out = NULL;
	/* Outside an object of known size first: what it is, whatever its
	 * size claims. */
	if (s->size != UINT64_MAX && (off > s->size || len > s->size - off))
		return fetch_failed(s, path, what, -ERANGE, d);
	if (len > PART_MAX) {
		fw_diag_add(d, path, 0, "malformed module: %s larger than %u MiB", what, PART_MAX >> 20);
		return -EBADMSG;
	}
	*out = malloc(len ? (size_t)len : 1);
	if (!*out)
		return -ENOMEM;
	r = src_fetch(s, off, len, *out);
	if (r == 0)
		return 0;
	free(*out);
	*out = NULL;
	return fetch_failed(s, path, what, r, d);
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

/* Append one "key=value" value to a list; repeats are dropped once the
 * whole section is read (fw_strv_uniq). */
static int push(char ***v, size_t *n, size_t *cap, const char *s, size_t len)
{
	char *x;

	if (fw_grow(v, cap, *n, sizeof(**v)) < 0)
		return -ENOMEM;
	x = fw_strndup(s, len);
	if (!x)
		return -ENOMEM;
	(*v)[(*n)++] = x;
	return 0;
}

/* The entries of .modinfo (NUL-terminated "key=value" strings; alignment
 * adds runs of NULs between them). */
static int entries(struct fw_modinfo *m, const char *path, const char *p, const char *end,
		   struct fw_diag *d)
{
	int r;

	while (p < end) {
		const char *z = memchr(p, '\0', (size_t)(end - p));
		size_t n;

		if (!z)
			return bad(d, path, ".modinfo entry not NUL-terminated");
		n = (size_t)(z - p);
		r = 0;
		if (n > 9 && memcmp(p, "firmware=", 9) == 0)
			r = push(&m->firmware, &m->nfirmware, &m->firmware_cap, p + 9, n - 9);
		else if (n > 6 && memcmp(p, "alias=", 6) == 0)
			r = push(&m->alias, &m->nalias, &m->alias_cap, p + 6, n - 6);
		else if (n > 5 && memcmp(p, "name=", 5) == 0 && !m->name) {
			m->name = fw_strndup(p + 5, n - 5);
			if (!m->name)
				r = -ENOMEM;
		}
		if (r < 0)
			return r;
		p = z + 1;
	}
	if (fw_strv_uniq(m->firmware, &m->nfirmware) < 0 || fw_strv_uniq(m->alias, &m->nalias) < 0)
		return -ENOMEM;
	return 0;
}

static int parse(struct fw_modinfo *m, const char *path, struct src *s, struct fw_diag *d)
{
	unsigned char hdr[64], *sht = NULL, *str = NULL, *mi = NULL;
	struct elf e = { .b = hdr };
	uint64_t shoff, shentsize, shnum, shstrndx, need;
	struct shdr s0, st, sm = { 0 };
	bool found = false;
	size_t ehsize;
	int r;

	memset(m, 0, sizeof(*m));
	m->path = strdup(path);
	if (!m->path)
		return -ENOMEM;
	r = src_fetch(s, 0, EI_NIDENT, hdr);
	if (r == -ERANGE || (r == 0 && memcmp(hdr, "\177ELF", 4) != 0))
		return bad(d, path, "not an ELF object");
	if (r < 0)
		return fetch_failed(s, path, "ELF header", r, d);
	if (hdr[4] != ELFCLASS32 && hdr[4] != ELFCLASS64)
		return bad(d, path, "unknown ELF class");
	if (hdr[5] != ELFDATA2LSB && hdr[5] != ELFDATA2MSB)
		return bad(d, path, "unknown ELF byte order");
	e.is64 = hdr[4] == ELFCLASS64;
	e.msb = hdr[5] == ELFDATA2MSB;
	ehsize = e.is64 ? 64 : 52;
	r = src_fetch(s, EI_NIDENT, ehsize - EI_NIDENT, hdr + EI_NIDENT);
	if (r == -ERANGE)
		return bad(d, path, "truncated ELF header");
	if (r < 0)
		return fetch_failed(s, path, "ELF header", r, d);
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
	/* Where the table ends, as far as the header says: a decoded object
	 * is read that far in one pass when that is little. */
	if (shoff <= UINT64_MAX - shentsize * 65536)
		src_expect(s, shoff + shentsize * (shnum ? shnum : 1));
	/* Section 0 holds the real count and string table index when they do
	 * not fit the ELF header (extended numbering). */
	r = part(s, path, "section header table", shoff, shentsize, &sht, d);
	if (r < 0)
		return r;
	e.b = sht;
	shdr_at(&e, shentsize, 0, &s0);
	free(sht);
	sht = NULL;
	if (shnum == 0)
		shnum = s0.size;
	if (shstrndx == SHN_XINDEX)
		shstrndx = s0.link;
	if (shnum == 0)
		return bad(d, path, "no sections");
	/* shnum * shentsize cannot overflow: shnum < 2^32 or it is refused
	 * here, shentsize < 2^16. */
	if (shnum > UINT32_MAX || shoff > UINT64_MAX - shnum * shentsize)
		return bad(d, path, "section header table outside the file");
	need = shnum * shentsize;
	src_expect(s, shoff + need);
	r = part(s, path, "section header table", shoff, need, &sht, d);
	if (r < 0)
		return r;
	e.b = sht;
	if (shstrndx == SHN_UNDEF || shstrndx >= shnum ||
	    (shstrndx >= SHN_LORESERVE && shstrndx < SHN_XINDEX && shnum < SHN_LORESERVE)) {
		r = bad(d, path, "no section name string table");
		goto out;
	}
	shdr_at(&e, shentsize, shstrndx, &st);
	if (st.type == SHT_NOBITS || st.size == 0) {
		r = bad(d, path, "section name string table outside the file");
		goto out;
	}
	r = part(s, path, "section name string table", st.offset, st.size, &str, d);
	if (r < 0)
		goto out;
	for (uint64_t i = 1; i < shnum; i++) {
		struct shdr x;
		const char *nm;

		shdr_at(&e, shentsize, i, &x);
		if (x.name >= st.size) {
			r = bad(d, path, "section name outside the string table");
			goto out;
		}
		nm = (const char *)str + x.name;
		if (!memchr(nm, '\0', (size_t)(st.size - x.name))) {
			r = bad(d, path, "section name not NUL-terminated");
			goto out;
		}
		if (strcmp(nm, ".modinfo") != 0)
			continue;
		if (found) {
			r = bad(d, path, "two .modinfo sections");
			goto out;
		}
		found = true;
		sm = x;
	}
	if (!found) {
		fw_diag_add(d, path, 0, "no .modinfo section: not a kernel module");
		r = -ENOENT;
		goto out;
	}
	if (sm.type == SHT_NOBITS) {
		r = bad(d, path, ".modinfo section outside the file");
		goto out;
	}
	r = part(s, path, ".modinfo section", sm.offset, sm.size, &mi, d);
	if (r < 0)
		goto out;
	r = entries(m, path, (const char *)mi, (const char *)mi + sm.size, d);
	if (r == 0 && !m->name) {
		m->name = name_from_path(path);
		if (!m->name)
			r = -ENOMEM;
	}
out:
	free(sht);
	free(str);
	free(mi);
	return r;
}

int fw_modinfo_parse(struct fw_modinfo *m, const char *path, const unsigned char *buf,
		     size_t len, struct fw_diag *d)
{
	struct src s = { .buf = buf, .size = len, .fd = -1 };

	return parse(m, path, &s, d);
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
	struct src s = { .fd = -1, .c = fw_comp_of_name(path) };
	struct stat st;
	int r;

	memset(m, 0, sizeof(*m));
	s.fd = openat(dirfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (s.fd < 0) {
		r = -errno;
		fw_diag_add(d, path, 0, "cannot open: %s", strerror(-r));
		return r;
	}
	if (fstat(s.fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		fw_diag_add(d, path, 0, "not a regular file");
		close(s.fd);
		return -EINVAL;
	}
	s.size = (uint64_t)st.st_size;
	/* A plain object is read where its parts are (pread); a compressed
	 * one decoded only as far as its parts lie, and the decoder's pieces
	 * not kept past KEEP_MAX. */
	r = 0;
	if (s.c != FW_COMP_NONE) {
		s.size = UINT64_MAX;
		s.keep_max = 64;
		s.scratch = malloc(SCRATCH);
		r = s.scratch ? fw_decoder_open(&s.dec, s.fd, s.c) : -ENOMEM;
	}
	if (r == 0)
		r = parse(m, path, &s, d);
	fw_decoder_close(s.dec);
	free(s.scratch);
	free(s.keep);
	close(s.fd);
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
