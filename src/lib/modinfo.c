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
