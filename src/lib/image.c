/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Firmware images: section sources (raw, ELF, Intel HEX, binary ihex), renderers, legacy formats. */
#include "image.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digest.h"
#include "fsutil.h"
#include "util.h"

static int read_input(const char *path, uint8_t **buf, size_t *len, struct fw_diag *d)
{
	int r = fw_read_file(path, FW_IMAGE_MAX, buf, len);

	if (r == -EINVAL)
		fw_diag_add(d, path, 0, "not a regular file");
	else if (r == -EFBIG)
		fw_diag_add(d, path, 0, "larger than %u MiB", FW_IMAGE_MAX >> 20);
	else if (r < 0)
		fw_diag_add(d, path, 0, "cannot read: %s", strerror(-r));
	return r < 0 ? -EINVAL : 0;
}

static uint32_t default_flags(enum fwimage_type t)
{
	switch (t) {
	case FWIMAGE_TEXT: return FWIMAGE_F_R | FWIMAGE_F_X;
	case FWIMAGE_RODATA: return FWIMAGE_F_R;
	default: return FWIMAGE_F_R | FWIMAGE_F_W;
	}
}

static int push(struct fw_img *im, enum fwimage_type type, uint32_t flags, uint64_t addr,
		uint64_t size, uint64_t memsz, const uint8_t *data, const char *src)
{
	struct fw_img_sect *s;

	if (im->n >= FWIMAGE_MAX_SECTIONS)
		return -E2BIG;
	if (fw_grow(&im->v, &im->cap, im->n, sizeof(*im->v)) < 0)
		return -ENOMEM;
	s = &im->v[im->n];
	*s = (struct fw_img_sect){ .type = type, .flags = flags, .addr = addr, .size = size,
				   .memsz = memsz };
	s->src = strdup(src);
	if (size) {
		s->data = malloc(size);
		if (s->data)
			memcpy(s->data, data, size);
	}
	if (!s->src || (size && !s->data)) {
		free(s->src);
		free(s->data);
		return -ENOMEM;
	}
	im->n++;
	return 0;
}

static int too_many(int r, const char *path, struct fw_diag *d)
{
	if (r == -E2BIG) {
		fw_diag_add(d, path, 0, "more than %d sections", FWIMAGE_MAX_SECTIONS);
		return -EINVAL;
	}
	return r;
}

int fw_img_add_raw(struct fw_img *im, enum fwimage_type type, uint64_t addr, const char *path,
		   struct fw_diag *d)
{
	uint8_t *buf;
	size_t len;
	int r = read_input(path, &buf, &len, d);

	if (r < 0)
		return r;
	if (len == 0) {
		fw_diag_add(d, path, 0, "empty file: a section holds at least one byte");
		r = -EINVAL;
	} else if (addr + len - 1 < addr) {
		fw_diag_add(d, path, 0, "section at 0x%llx wraps past the end of the address space",
			    (unsigned long long)addr);
		r = -EINVAL;
	} else {
		r = too_many(push(im, type, default_flags(type), addr, len, len, buf, path), path, d);
	}
	free(buf);
	return r;
}

int fw_img_add_bss(struct fw_img *im, uint64_t addr, uint64_t size, const char *what)
{
	return push(im, FWIMAGE_BSS, FWIMAGE_F_R | FWIMAGE_F_W, addr, 0, size, NULL, what);
}

/* ---- ELF ---- */

struct elf {
	const uint8_t *b;
	bool be, is64;
};

static uint64_t eget(const struct elf *e, size_t off, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)e->b[off + (e->be ? n - 1 - i : i)] << (8 * i);
	return v;
}

int fw_img_add_elf(struct fw_img *im, const char *path, struct fw_diag *d)
{
	uint8_t *buf;
	size_t len;
	int r = read_input(path, &buf, &len, d);

	if (r < 0)
		return r;
	r = fw_img_add_elf_mem(im, path, buf, len, d);
	free(buf);
	return r;
}

int fw_img_add_elf_mem(struct fw_img *im, const char *path, const uint8_t *buf, size_t len,
		       struct fw_diag *d)
{
	struct elf e;
	uint64_t phoff, entry;
	unsigned phentsize, phnum, nload = 0;
	int r = -EINVAL;

	e.b = buf;
	if (len < 52 || memcmp(buf, "\x7f" "ELF", 4) != 0) {
		fw_diag_add(d, path, 0, "not an ELF file");
		goto out;
	}
	if ((buf[4] != 1 && buf[4] != 2) || (buf[5] != 1 && buf[5] != 2) || buf[6] != 1) {
		fw_diag_add(d, path, 0, "bad ELF class, data encoding or version");
		goto out;
	}
	e.is64 = buf[4] == 2;
	e.be = buf[5] == 2;
	if (e.is64 && len < 64) {
		fw_diag_add(d, path, 0, "truncated ELF header");
		goto out;
	}
	if (eget(&e, 16, 2) != 2) {
		fw_diag_add(d, path, 0, "not an ELF executable (e_type %llu, expected ET_EXEC)",
			    (unsigned long long)eget(&e, 16, 2));
		goto out;
	}
	entry = e.is64 ? eget(&e, 24, 8) : eget(&e, 24, 4);
	phoff = e.is64 ? eget(&e, 32, 8) : eget(&e, 28, 4);
	phentsize = (unsigned)eget(&e, e.is64 ? 54 : 42, 2);
	phnum = (unsigned)eget(&e, e.is64 ? 56 : 44, 2);
	if (phentsize != (e.is64 ? 56u : 32u) || phnum == 0 || phnum == 0xffff) {
		fw_diag_add(d, path, 0, "bad program header table (entry size %u, %u entries)",
			    phentsize, phnum);
		goto out;
	}
	if (phoff > len || (uint64_t)phnum * phentsize > len - phoff) {
		fw_diag_add(d, path, 0, "program header table out of bounds (offset %llu)",
			    (unsigned long long)phoff);
		goto out;
	}
	for (unsigned i = 0; i < phnum; i++) {
		size_t p = (size_t)(phoff + (uint64_t)i * phentsize);
		uint64_t type = eget(&e, p, 4), flags, off, paddr, filesz, memsz;
		enum fwimage_type st;
		uint32_t f = 0;
		char src[64];

		if (type != 1) /* PT_LOAD */
			continue;
		if (e.is64) {
			flags = eget(&e, p + 4, 4);
			off = eget(&e, p + 8, 8);
			paddr = eget(&e, p + 24, 8);
			filesz = eget(&e, p + 32, 8);
			memsz = eget(&e, p + 40, 8);
		} else {
			off = eget(&e, p + 4, 4);
			paddr = eget(&e, p + 12, 4);
			filesz = eget(&e, p + 16, 4);
			memsz = eget(&e, p + 20, 4);
			flags = eget(&e, p + 24, 4);
		}
		/* An empty PT_LOAD loads nothing (GNU ld makes one for a PHDRS
		 * entry no section falls in); objcopy and the kernel's remoteproc
		 * ELF loader skip it. */
		if (filesz == 0 && memsz == 0)
			continue;
		if (off > len || filesz > len - off) {
			fw_diag_add(d, path, 0, "program header %u: segment out of bounds (offset %llu, size %llu)",
				    i, (unsigned long long)off, (unsigned long long)filesz);
			goto out;
		}
		if (memsz < filesz || paddr + memsz - 1 < paddr) {
			fw_diag_add(d, path, 0, "program header %u: bad memory size %llu", i,
				    (unsigned long long)memsz);
			goto out;
		}
		if (flags & 4)
			f |= FWIMAGE_F_R;
		if (flags & 2)
			f |= FWIMAGE_F_W;
		if (flags & 1)
			f |= FWIMAGE_F_X;
		st = (f & FWIMAGE_F_X) ? FWIMAGE_TEXT : (f & FWIMAGE_F_W) ? FWIMAGE_DATA : FWIMAGE_RODATA;
		snprintf(src, sizeof(src), "program header %u", i);
		/* The load (physical) address: where a loader puts the bytes,
		 * as objcopy -O binary places them. */
		if (filesz) {
			r = push(im, st, f, paddr, filesz, filesz, buf + off, path);
			if (r < 0)
				goto out_r;
		}
		if (memsz > filesz) {
			r = push(im, FWIMAGE_BSS, f & ~FWIMAGE_F_X, paddr + filesz, 0, memsz - filesz, NULL,
				 path);
			if (r < 0)
				goto out_r;
		}
		nload++;
		r = -EINVAL;
	}
	if (!nload) {
		fw_diag_add(d, path, 0, "no loadable segment");
		goto out;
	}
	im->entries++;
	im->has_entry = true;
	im->entry = entry;
	r = 0;
	goto out;
out_r:
	r = too_many(r, path, d);
out:
	return r;
}

/* ---- Intel HEX ---- */

#define FW_HEX_MAX_RUNS 4096

static void hex_diag(struct fw_diag *d, const char *path, const struct ihex_err *err)
{
	if (err->code == IHEX_ETYPE)
		fw_diag_add(d, path, err->line, "%s %02X", ihex_strerror(err->code), err->type);
	else if (err->line)
		fw_diag_add(d, path, err->line, "%s", ihex_strerror(err->code));
	else
		fw_diag_add(d, path, 0, "byte %llu: %s", (unsigned long long)err->offset,
			    ihex_strerror(err->code));
}

/* An Intel HEX file read whole (*buf, malloc'd) and accepted by
 * ihex_scan, with at least one data record: its runs into runs. 0,
 * -EINVAL (said in d) or -errno. */
static int load_hex(const char *path, uint8_t **buf, size_t *len, struct ihex_run *runs,
		    struct ihex_info *info, struct fw_diag *d)
{
	struct ihex_err err;
	int r = read_input(path, buf, len, d);

	if (r < 0)
		return r;
	if (ihex_scan((const char *)*buf, *len, runs, FW_HEX_MAX_RUNS, info, &err) != IHEX_OK) {
		hex_diag(d, path, &err);
		return -EINVAL;
	}
	if (!info->nruns) {
		fw_diag_add(d, path, 0, "no data records");
		return -EINVAL;
	}
	return 0;
}

int fw_img_add_hex(struct fw_img *im, const char *path, struct fw_diag *d)
{
	struct ihex_run *runs = calloc(FW_HEX_MAX_RUNS, sizeof(*runs));
	struct ihex_info info;
	uint8_t *buf = NULL, *bytes = NULL;
	size_t len;
	int r;

	if (!runs)
		return -ENOMEM;
	r = load_hex(path, &buf, &len, runs, &info, d);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < info.nruns; i++) {
		free(bytes);
		bytes = malloc(runs[i].len);
		if (!bytes) {
			r = -ENOMEM;
			goto out;
		}
		ihex_fill((const char *)buf, len, bytes, runs[i].addr, runs[i].len);
		r = push(im, FWIMAGE_TEXT, default_flags(FWIMAGE_TEXT), runs[i].addr, runs[i].len,
			 runs[i].len, bytes, path);
		if (r < 0) {
			r = too_many(r, path, d);
			goto out;
		}
	}
	if (info.has_start || info.has_cs_ip) {
		im->entries++;
		im->has_entry = true;
		im->entry = info.has_start ? info.start
					   : ((info.cs_ip >> 16) << 4) + (info.cs_ip & 0xffff);
	}
	r = 0;
out:
	free(bytes);
	free(buf);
	free(runs);
	return r;
}

int fw_img_hex_records(const char *path, uint8_t **out, size_t *outlen, struct fw_diag *d)
{
	struct ihex_run *runs = calloc(FW_HEX_MAX_RUNS, sizeof(*runs));
	struct ihex_info info;
	uint8_t *buf = NULL;
	size_t len;
	int r;

	*out = NULL;
	if (!runs)
		return -ENOMEM;
	r = load_hex(path, &buf, &len, runs, &info, d);
	if (r < 0)
		goto out;
	*outlen = ihex_bin_records((const char *)buf, len, NULL);
	*out = malloc(*outlen);
	if (!*out) {
		r = -ENOMEM;
		goto out;
	}
	ihex_bin_records((const char *)buf, len, *out);
	r = 0;
out:
	free(buf);
	free(runs);
	return r;
}

int fw_img_add_ihexbin(struct fw_img *im, const char *path, struct fw_diag *d)
{
	struct ihex_binrec rec;
	struct ihex_err err;
	uint8_t *buf, *run = NULL;
	size_t len, off = 0, rlen = 0, rcap = 0;
	uint64_t raddr = 0;
	int r = read_input(path, &buf, &len, d), k;

	if (r < 0)
		return r;
	/* Consecutive records at consecutive addresses form one section;
	 * sections of a file must not overlap (fw_img_check). */
	while ((k = ihex_bin_next(buf, len, &off, &rec, &err)) == 1) {
		if (rlen && raddr + rlen == rec.addr) {
			/* extend */
		} else {
			if (rlen && (r = push(im, FWIMAGE_TEXT, default_flags(FWIMAGE_TEXT), raddr, rlen,
					      rlen, run, path)) < 0)
				goto fail;
			raddr = rec.addr;
			rlen = 0;
		}
		/* Room for the record's bytes (1 to 255), whose last is at
		 * rlen + rec.len - 1. */
		if (rec.len && fw_grow(&run, &rcap, rlen + rec.len - 1, 1) < 0) {
			r = -ENOMEM;
			goto fail;
		}
		memcpy(run + rlen, rec.data, rec.len);
		rlen += rec.len;
	}
	if (k < 0) {
		hex_diag(d, path, &err);
		r = -EINVAL;
		goto fail;
	}
	if (!rlen) {
		fw_diag_add(d, path, 0, "no data records");
		r = -EINVAL;
		goto fail;
	}
	r = push(im, FWIMAGE_TEXT, default_flags(FWIMAGE_TEXT), raddr, rlen, rlen, run, path);
fail:
	r = too_many(r, path, d);
	free(run);
	free(buf);
	return r;
}

int fw_img_check(const struct fw_img *im, const char *out, struct fw_diag *d)
{
	int r = 0;

	if (im->n == 0) {
		fw_diag_add(d, out, 0, "no section given");
		return -EINVAL;
	}
	for (size_t i = 0; i < im->n; i++)
		for (size_t j = 0; j < i; j++) {
			const struct fw_img_sect *a = &im->v[i], *b = &im->v[j];

			if (a->addr <= b->addr + b->memsz - 1 && b->addr <= a->addr + a->memsz - 1) {
				fw_diag_add(d, a->src, 0,
					    "%s at 0x%llx-0x%llx overlaps %s at 0x%llx-0x%llx (from %s)",
					    fwimage_type_name(a->type), (unsigned long long)a->addr,
					    (unsigned long long)(a->addr + a->memsz - 1),
					    fwimage_type_name(b->type), (unsigned long long)b->addr,
					    (unsigned long long)(b->addr + b->memsz - 1), b->src);
				r = -EINVAL;
			}
		}
	return r;
}

void fw_img_free(struct fw_img *im)
{
	for (size_t i = 0; i < im->n; i++) {
		free(im->v[i].data);
		free(im->v[i].src);
	}
	free(im->v);
	*im = (struct fw_img){ 0 };
}

/* ---- output ---- */

int fw_image_sha256(const void *a, size_t alen, const void *b, size_t blen, uint8_t out[32])
{
	struct fw_sha256 h;
	int r = fw_sha256_init(&h);

	if (r == 0)
		r = fw_sha256_update(&h, a, alen);
	if (r == 0)
		r = fw_sha256_update(&h, b, blen);
	if (r == 0)
		r = fw_sha256_final(&h, out);
	fw_sha256_free(&h);
	return r;
}

static int by_addr(const void *x, const void *y)
{
	const struct fw_img_sect *a = *(const struct fw_img_sect *const *)x;
	const struct fw_img_sect *b = *(const struct fw_img_sect *const *)y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* fwimage(5): the sections as they are, bss included, with header and digest. */
static int render_fwimage(const struct fw_img *im, uint32_t version, uint64_t entry, uint8_t **out,
			  size_t *outlen, const char *outname, struct fw_diag *d)
{
	struct fwimage_section sec[FWIMAGE_MAX_SECTIONS];
	struct fwimage_err err;
	uint64_t sz;
	uint8_t *o;

	for (size_t i = 0; i < im->n; i++)
		sec[i] = (struct fwimage_section){ .type = im->v[i].type, .flags = im->v[i].flags,
						   .addr = im->v[i].addr, .size = im->v[i].size,
						   .memsz = im->v[i].memsz, .data = im->v[i].data };
	sz = fwimage_layout(sec, (unsigned)im->n);
	if (!sz || sz > FW_IMAGE_MAX) {
		fw_diag_add(d, outname, 0, "image too large");
		return -EINVAL;
	}
	o = malloc(sz);
	if (!o)
		return -ENOMEM;
	if (fwimage_write(o, sz, version, entry, sec, (unsigned)im->n, fw_image_sha256, &err) !=
	    FWIMAGE_OK) {
		if (err.section >= 0)
			fw_diag_add(d, outname, 0, "section %d (from %s): %s", err.section,
				    im->v[err.section].src, fwimage_strerror(err.code));
		else
			fw_diag_add(d, outname, 0, "%s (entry 0x%llx)", fwimage_strerror(err.code),
				    (unsigned long long)entry);
		free(o);
		return -EINVAL;
	}
	*out = o;
	*outlen = sz;
	return 0;
}

/* The sections that hold bytes, by address, for the flat formats. */
struct placed {
	const struct fw_img_sect **s;
	size_t n;
	uint64_t lo, hi, total; /* lowest address, end of the highest, bytes */
};

static int place_sections(const struct fw_img *im, enum fw_img_format f, struct placed *pl,
			  const char *outname, struct fw_diag *d)
{
	*pl = (struct placed){ .lo = UINT64_MAX };
	pl->s = calloc(im->n + 1, sizeof(*pl->s));
	if (!pl->s)
		return -ENOMEM;
	for (size_t i = 0; i < im->n; i++) {
		const struct fw_img_sect *x = &im->v[i];

		if (x->type == FWIMAGE_BSS)
			continue; /* no bytes: nothing to place */
		if (f != FW_FMT_BIN && x->addr + x->size - 1 > UINT32_MAX) {
			fw_diag_add(d, outname, 0, "section at 0x%llx is above 4 GiB: HEX cannot address it",
				    (unsigned long long)x->addr);
			return -EINVAL;
		}
		pl->s[pl->n++] = x;
		if (x->addr < pl->lo)
			pl->lo = x->addr;
		if (x->addr + x->size > pl->hi)
			pl->hi = x->addr + x->size;
		pl->total += x->size;
	}
	if (!pl->n) {
		fw_diag_add(d, outname, 0, "no section holds bytes");
		return -EINVAL;
	}
	qsort(pl->s, pl->n, sizeof(*pl->s), by_addr);
	return 0;
}

/* A flat binary from the lowest address to the end of the highest, gaps zeroed. */
static int render_bin(const struct placed *pl, uint8_t **out, size_t *outlen, const char *outname,
		      struct fw_diag *d)
{
	uint8_t *o;

	if (pl->hi - pl->lo > FW_IMAGE_MAX) {
		fw_diag_add(d, outname, 0, "sections span %llu bytes: too large for a flat binary",
			    (unsigned long long)(pl->hi - pl->lo));
		return -EINVAL;
	}
	o = calloc(1, pl->hi - pl->lo);
	if (!o)
		return -ENOMEM;
	for (size_t i = 0; i < pl->n; i++)
		memcpy(o + (pl->s[i]->addr - pl->lo), pl->s[i]->data, pl->s[i]->size);
	*out = o;
	*outlen = pl->hi - pl->lo;
	return 0;
}

/* The kernel's binary ihex: records of at most recsize bytes, an end record. */
static int render_ihexbin(const struct placed *pl, unsigned recsize, uint8_t **out, size_t *outlen,
			  const char *outname, struct fw_diag *d)
{
	uint64_t sz = IHEX_BIN_HDR;
	size_t k = 0;
	uint8_t *o;

	for (size_t i = 0; i < pl->n; i++)
		sz += (pl->s[i]->size / recsize) * ihex_bin_size((uint16_t)recsize) +
		      (pl->s[i]->size % recsize ? ihex_bin_size((uint16_t)(pl->s[i]->size % recsize)) : 0);
	if (sz > FW_IMAGE_MAX) {
		fw_diag_add(d, outname, 0, "output too large");
		return -EINVAL;
	}
	o = malloc(sz);
	if (!o)
		return -ENOMEM;
	for (size_t i = 0; i < pl->n; i++)
		for (uint64_t p = 0; p < pl->s[i]->size; p += recsize) {
			uint64_t c = pl->s[i]->size - p < recsize ? pl->s[i]->size - p : recsize;

			k += ihex_bin_put(o + k, (uint32_t)(pl->s[i]->addr + p), pl->s[i]->data + p,
					  (uint16_t)c);
		}
	k += ihex_bin_put(o + k, 0, NULL, 0);
	*out = o;
	*outlen = k;
	return 0;
}

/* Intel HEX text. Each record: at most recsize bytes, never across 64 KiB;
 * an 04 record whenever the upper half of the address changes; a 05
 * record for a non-zero entry; the 01 end record. */
static int render_hex(const struct placed *pl, unsigned recsize, uint64_t entry, uint8_t **out,
		      size_t *outlen, const char *outname, struct fw_diag *d)
{
	uint64_t sz = (pl->total / recsize + 2 * pl->n + pl->total / 65536 + 4) * IHEX_LINE_MAX;
	size_t k = 0;
	int64_t upper = 0; /* the reader starts at 0 */
	uint8_t *o;

	if (sz > FW_IMAGE_MAX * 3ull) {
		fw_diag_add(d, outname, 0, "output too large");
		return -EINVAL;
	}
	o = malloc(sz);
	if (!o)
		return -ENOMEM;
	for (size_t i = 0; i < pl->n; i++) {
		const struct fw_img_sect *x = pl->s[i];
		uint64_t p = 0;

		while (p < x->size) {
			uint32_t a = (uint32_t)(x->addr + p);
			uint64_t c = x->size - p < recsize ? x->size - p : recsize;

			if (c > 0x10000u - (a & 0xffff))
				c = 0x10000u - (a & 0xffff);
			if ((int64_t)(a >> 16) != upper) {
				uint8_t u[2] = { (uint8_t)(a >> 24), (uint8_t)(a >> 16) };

				upper = a >> 16;
				k += ihex_put_record((char *)o + k, 4, 0, u, 2);
			}
			k += ihex_put_record((char *)o + k, 0, (uint16_t)a, x->data + p, (size_t)c);
			p += c;
		}
	}
	if (entry) {
		uint8_t e[4] = { (uint8_t)(entry >> 24), (uint8_t)(entry >> 16), (uint8_t)(entry >> 8),
				 (uint8_t)entry };

		k += ihex_put_record((char *)o + k, 5, 0, e, 4);
	}
	k += ihex_put_record((char *)o + k, 1, 0, NULL, 0);
	*out = o;
	*outlen = k;
	return 0;
}

int fw_img_render(const struct fw_img *im, enum fw_img_format f, uint32_t version, uint64_t entry,
		  unsigned recsize, uint8_t **out, size_t *outlen, const char *outname,
		  struct fw_diag *d)
{
	struct placed pl;
	int r;

	*out = NULL;
	*outlen = 0;
	if (f == FW_FMT_FWIMAGE)
		return render_fwimage(im, version, entry, out, outlen, outname, d);
	r = place_sections(im, f, &pl, outname, d);
	if (r == 0 && f == FW_FMT_BIN)
		r = render_bin(&pl, out, outlen, outname, d);
	else if (r == 0 && f == FW_FMT_IHEXBIN)
		r = render_ihexbin(&pl, recsize, out, outlen, outname, d);
	else if (r == 0)
		r = render_hex(&pl, recsize, entry, out, outlen, outname, d);
	free(pl.s);
	return r;
}

/* ---- formats of blobs ---- */

static const char *const format_names[] = {
	[FW_BF_UNKNOWN] = "unknown",
	[FW_BF_FWIMAGE] = "fwimage",
	[FW_BF_IHEX] = "ihex",
	[FW_BF_IHEXBIN] = "ihex-bin",
	[FW_BF_TG3] = "tg3",
};

const char *fw_blob_format_name(enum fw_blob_format f)
{
	return format_names[f];
}

int fw_blob_format_parse(const char *name, size_t len)
{
	for (size_t i = 1; i < FW_ARRAY_SIZE(format_names); i++)
		if (strlen(format_names[i]) == len && memcmp(format_names[i], name, len) == 0)
			return (int)i;
	return -1;
}

int fw_info_format(const char *info, enum fw_blob_format *f, const char **name, size_t *namelen)
{
	static const char key[] = "format:";
	const char *p, *e;
	int k;

	if (!info || strncmp(info, key, sizeof(key) - 1) != 0)
		return 0;
	p = info + sizeof(key) - 1;
	while (*p == ' ' || *p == '\t')
		p++;
	for (e = p; *e && *e != ' ' && *e != '\t' && *e != ',' && *e != ';'; e++)
		;
	*name = p;
	*namelen = (size_t)(e - p);
	k = fw_blob_format_parse(p, (size_t)(e - p));
	if (k < 0)
		return -1;
	*f = (enum fw_blob_format)k;
	return 1;
}

static bool ihexbin_ok(const uint8_t *buf, size_t len, unsigned *nrec)
{
	struct ihex_binrec rec;
	size_t off = 0;
	int k;

	*nrec = 0;
	while ((k = ihex_bin_next(buf, len, &off, &rec, NULL)) == 1)
		(*nrec)++;
	return k == 0 && *nrec > 0;
}

enum fw_blob_format fw_image_detect(const char *name, const uint8_t *buf, size_t len)
{
	const char *base = name ? strrchr(name, '/') : NULL;
	unsigned nrec;
	size_t i;

	base = base ? base + 1 : name;
	if (len >= FWIMAGE_MAGIC_LEN && memcmp(buf, FWIMAGE_MAGIC, FWIMAGE_MAGIC_LEN) == 0)
		return FW_BF_FWIMAGE;
	/* HEX text: a ':' and a first line of hex digits only (some binary
	 * blobs start with ':' too; a bad later line is then a finding). */
	if (len > 11 && buf[0] == ':') {
		for (i = 1; i < len && i < 600 && isxdigit(buf[i]); i++)
			;
		if (i >= 11 && i < len && (buf[i] == '\n' || buf[i] == '\r'))
			return FW_BF_IHEX;
	}
	if (ihexbin_ok(buf, len, &nrec))
		return FW_BF_IHEXBIN;
	/* tg3's header has no magic, and many unrelated blobs (libertas,
	 * mwl8k, radeon SMC) start with three big-endian words that would
	 * pass: so only the names the tg3 driver requests are read as tg3
	 * without --format or a declared format. */
	if (base && strncmp(base, "tg3", 3) == 0 && len >= FWIMAGE_TG3_HDR)
		return FW_BF_TG3;
	return FW_BF_UNKNOWN;
}

unsigned fw_image_validate(enum fw_blob_format f, const uint8_t *buf, size_t len, const char *file,
			   struct fw_diag *d)
{
	switch (f) {
	case FW_BF_FWIMAGE: {
		struct fwimage img;
		struct fwimage_err err;

		if (fwimage_parse(&img, buf, len, fw_image_sha256, &err) == FWIMAGE_OK)
			return 0;
		if (err.section >= 0)
			fw_diag_add(d, file, 0, "fwimage: section %d (byte %llu): %s", err.section,
				    (unsigned long long)err.offset, fwimage_strerror(err.code));
		else
			fw_diag_add(d, file, 0, "fwimage: byte %llu: %s", (unsigned long long)err.offset,
				    fwimage_strerror(err.code));
		return 1;
	}
	case FW_BF_IHEX: {
		struct ihex_run *runs = calloc(FW_HEX_MAX_RUNS, sizeof(*runs));
		struct ihex_info info;
		struct ihex_err err;
		unsigned bad = 0;

		if (!runs) {
			fw_diag_add(d, file, 0, "out of memory");
			return 1;
		}
		if (ihex_scan((const char *)buf, len, runs, FW_HEX_MAX_RUNS, &info, &err) != IHEX_OK) {
			hex_diag(d, file, &err);
			bad = 1;
		}
		free(runs);
		return bad;
	}
	case FW_BF_IHEXBIN: {
		struct ihex_binrec rec;
		struct ihex_err err;
		size_t off = 0;
		int k;

		while ((k = ihex_bin_next(buf, len, &off, &rec, &err)) == 1)
			;
		if (k == 0)
			return 0;
		fw_diag_add(d, file, 0, "ihex-bin: record at byte %llu: %s", (unsigned long long)err.offset,
			    ihex_strerror(err.code));
		return 1;
	}
	case FW_BF_TG3: {
		struct fwimage_tg3 t;

		if (fwimage_tg3_parse(&t, buf, len) < 0) {
			fw_diag_add(d, file, 0, "tg3: %zu bytes, shorter than the 12-byte header", len);
			return 1;
		}
		if (t.consistent)
			return 0;
		if (t.len == FWIMAGE_TG3_FRAGMENTED)
			fw_diag_add(d, file, 0, "tg3 (57766): fragment header at byte %llu does not fit the file",
				    (unsigned long long)t.bad_offset);
		else
			fw_diag_add(d, file, 0,
				    "tg3: header length %u, but the file holds %llu bytes after the header%s",
				    t.len, (unsigned long long)t.payload,
				    t.len >= t.payload ? " (not whole 32-bit words)" : "");
		return 1;
	}
	case FW_BF_UNKNOWN:
		break;
	}
	fw_diag_add(d, file, 0, "unknown format");
	return 1;
}

int fw_image_write_path(const char *path, const void *buf, size_t len)
{
	const char *slash = strrchr(path, '/'), *leaf = slash ? slash + 1 : path;
	char *dir = slash ? fw_strndup(path, slash == path ? 1 : (size_t)(slash - path)) : NULL;
	int dfd, r;

	if (slash && !dir)
		return -ENOMEM;
	if (!*leaf || strcmp(leaf, ".") == 0 || strcmp(leaf, "..") == 0) {
		free(dir);
		return -EISDIR;
	}
	/* The directory is the caller's choice and is opened as given; the
	 * file itself is a temporary beside it, renamed over the leaf. */
	dfd = open(dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (dfd < 0)
		return -errno;
	r = fw_write_atomic(dfd, leaf, buf, len, 0644);
	close(dfd);
	return r;
}
