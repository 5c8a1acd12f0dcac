/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwimage(5) parser and writer, and the tg3 header: pure, no allocation, memcpy/memcmp only. */
#include "fwimage.h"

#include <string.h>

/* The documented struct and the offsets the code uses must agree; a
 * compiler that pads them differently fails here, not at run time. */
#define FWIMAGE_ASSERT(c, m) _Static_assert(c, m)
FWIMAGE_ASSERT(sizeof(struct fwimage_hdr) == FWIMAGE_HDR_SIZE, "fwimage header is 80 bytes");
FWIMAGE_ASSERT(sizeof(struct fwimage_shdr) == FWIMAGE_SHDR_SIZE, "section entry is 40 bytes");
FWIMAGE_ASSERT(offsetof(struct fwimage_hdr, sha256) == FWIMAGE_DIGEST_OFF, "digest at 48");
FWIMAGE_ASSERT(offsetof(struct fwimage_hdr, image_size) == 32, "image_size at 32");
FWIMAGE_ASSERT(offsetof(struct fwimage_shdr, memsz) == 32, "memsz at 32");
FWIMAGE_ASSERT(sizeof(FWIMAGE_MAGIC) - 1 == FWIMAGE_MAGIC_LEN, "magic is 8 bytes");
FWIMAGE_ASSERT(FWIMAGE_HDR_SIZE % FWIMAGE_ALIGN == 0, "table starts aligned");

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* Zero n bytes (padding and reserved fields, a few at a time). Not with
 * memset, which this file promises not to need: nor with a plain loop, a
 * copy from a zeroed constant or "= { 0 }" of a struct, which gcc and clang
 * turn into a call to memset. A volatile store stays a store
 * (tests/images/run checks the object with nm at every -O level). */
static void zero(uint8_t *p, uint64_t n)
{
	volatile uint8_t *v = p;

	while (n--)
		*v++ = 0;
}

static uint64_t align_up(uint64_t v)
{
	return (v + FWIMAGE_ALIGN - 1) & ~(uint64_t)(FWIMAGE_ALIGN - 1);
}

static enum fwimage_error fail(struct fwimage_err *err, enum fwimage_error code, uint64_t off,
			       int section)
{
	if (err) {
		err->code = code;
		err->offset = off;
		err->section = section;
	}
	return code;
}

const char *fwimage_strerror(enum fwimage_error e)
{
	switch (e) {
	case FWIMAGE_OK: return "no error";
	case FWIMAGE_ETRUNC: return "truncated";
	case FWIMAGE_EMAGIC: return "bad magic (not a fwimage)";
	case FWIMAGE_EVERSION: return "unsupported format version";
	case FWIMAGE_EHEADER: return "bad header field";
	case FWIMAGE_ENSECT: return "bad number of sections";
	case FWIMAGE_ESIZE: return "image size differs from the file size";
	case FWIMAGE_ETYPE: return "unknown section type or flag";
	case FWIMAGE_ELAYOUT: return "section offset or size not where the layout puts it";
	case FWIMAGE_EBOUNDS: return "section out of bounds";
	case FWIMAGE_EOVERLAP: return "sections overlap in memory";
	case FWIMAGE_EPAD: return "non-zero padding byte";
	case FWIMAGE_EDIGEST: return "SHA-256 mismatch";
	case FWIMAGE_EENTRY: return "entry point outside every text section";
	}
	return "unknown error";
}

const char *fwimage_type_name(enum fwimage_type t)
{
	switch (t) {
	case FWIMAGE_TEXT: return "text";
	case FWIMAGE_RODATA: return "rodata";
	case FWIMAGE_DATA: return "data";
	case FWIMAGE_BSS: return "bss";
	}
	return NULL;
}

/* One section's own rules: a known type, known flags, bss holds no bytes,
 * every other type holds exactly its memory size, nothing empty, and the
 * memory range [addr, addr + memsz) does not wrap. */
static enum fwimage_error check_section(const struct fwimage_section *s)
{
	if (!fwimage_type_name(s->type) || (s->flags & ~FWIMAGE_F_ALL))
		return FWIMAGE_ETYPE;
	if (s->memsz == 0 || (s->type == FWIMAGE_BSS ? s->size != 0 : s->size != s->memsz))
		return FWIMAGE_ELAYOUT;
	if (s->addr + s->memsz - 1 < s->addr)
		return FWIMAGE_EBOUNDS;
	return FWIMAGE_OK;
}

static int overlap(const struct fwimage_section *a, const struct fwimage_section *b)
{
	/* Inclusive ends: check_section guarantees they do not wrap. */
	return a->addr <= b->addr + b->memsz - 1 && b->addr <= a->addr + a->memsz - 1;
}

static int entry_ok(uint64_t entry, const struct fwimage_section *s, unsigned n)
{
	/* 0 means "no entry point" (a data-only image). */
	if (entry == 0)
		return 1;
	for (unsigned i = 0; i < n; i++)
		if (s[i].type == FWIMAGE_TEXT && entry >= s[i].addr && entry - s[i].addr < s[i].memsz)
			return 1;
	return 0;
}

static void read_shdr(const uint8_t *p, struct fwimage_section *s)
{
	s->type = (enum fwimage_type)le32(p);
	s->flags = le32(p + 4);
	s->addr = le64(p + 8);
	s->offset = le64(p + 16);
	s->size = le64(p + 24);
	s->memsz = le64(p + 32);
	s->data = NULL;
}

void fwimage_section(const struct fwimage *img, unsigned i, struct fwimage_section *s)
{
	read_shdr(img->buf + FWIMAGE_HDR_SIZE + (size_t)i * FWIMAGE_SHDR_SIZE, s);
	s->data = s->size ? img->buf + s->offset : NULL;
}

enum fwimage_error fwimage_parse(struct fwimage *img, const void *vbuf, size_t len,
				 fwimage_sha256_fn sha256, struct fwimage_err *err)
{
	const uint8_t *buf = vbuf;
	uint64_t pos, table_end;
	unsigned n;

	/* Field by field: a compound literal becomes a memset (see zero()). */
	img->buf = NULL;
	img->len = 0;
	img->version = img->nsections = 0;
	img->fw_version = 0;
	img->entry = 0;
	zero(img->sha256, sizeof(img->sha256));
	if (len < FWIMAGE_HDR_SIZE)
		return fail(err, FWIMAGE_ETRUNC, len, -1);
	if (memcmp(buf, FWIMAGE_MAGIC, FWIMAGE_MAGIC_LEN) != 0)
		return fail(err, FWIMAGE_EMAGIC, 0, -1);
	img->buf = buf;
	img->len = len;
	img->version = le16(buf + 8);
	if (img->version != FWIMAGE_VERSION)
		return fail(err, FWIMAGE_EVERSION, 8, -1);
	if (le16(buf + 10) != FWIMAGE_HDR_SIZE)
		return fail(err, FWIMAGE_EHEADER, 10, -1);
	if (le16(buf + 12) != FWIMAGE_SHDR_SIZE)
		return fail(err, FWIMAGE_EHEADER, 12, -1);
	n = img->nsections = le16(buf + 14);
	if (n == 0 || n > FWIMAGE_MAX_SECTIONS)
		return fail(err, FWIMAGE_ENSECT, 14, -1);
	if (le32(buf + 16) != 0)
		return fail(err, FWIMAGE_EHEADER, 16, -1);
	img->fw_version = le32(buf + 20);
	img->entry = le64(buf + 24);
	if (le64(buf + 32) != len)
		return fail(err, len < le64(buf + 32) ? FWIMAGE_ETRUNC : FWIMAGE_ESIZE, 32, -1);
	for (unsigned i = 40; i < 48; i++)
		if (buf[i])
			return fail(err, FWIMAGE_EHEADER, i, -1);
	memcpy(img->sha256, buf + FWIMAGE_DIGEST_OFF, FWIMAGE_DIGEST_LEN);
	table_end = FWIMAGE_HDR_SIZE + (uint64_t)n * FWIMAGE_SHDR_SIZE;
	if (table_end > len)
		return fail(err, FWIMAGE_ETRUNC, len, -1);
	/* The canonical layout: data in table order, each at the next aligned
	 * offset, zero bytes between, the file ending at the last aligned end.
	 * One layout means no hidden bytes and no aliasing of two sections. */
	pos = align_up(table_end);
	for (unsigned i = 0; i < n; i++) {
		struct fwimage_section s;
		uint64_t at = FWIMAGE_HDR_SIZE + (uint64_t)i * FWIMAGE_SHDR_SIZE;
		enum fwimage_error e;

		read_shdr(buf + at, &s);
		e = check_section(&s);
		if (e != FWIMAGE_OK)
			return fail(err, e, at, (int)i);
		if (s.offset != pos)
			return fail(err, FWIMAGE_ELAYOUT, at + 16, (int)i);
		if (s.size > len - pos)
			return fail(err, FWIMAGE_EBOUNDS, at + 24, (int)i);
		pos = align_up(pos + s.size);
		if (pos > len)
			return fail(err, FWIMAGE_EBOUNDS, at + 24, (int)i);
		for (unsigned j = 0; j < i; j++) {
			struct fwimage_section o;

			read_shdr(buf + FWIMAGE_HDR_SIZE + (uint64_t)j * FWIMAGE_SHDR_SIZE, &o);
			if (overlap(&s, &o))
				return fail(err, FWIMAGE_EOVERLAP, at + 8, (int)i);
		}
	}
	if (pos != len)
		return fail(err, FWIMAGE_ESIZE, pos, -1);
	/* Padding: between the table and the first data, and after each section. */
	pos = table_end;
	for (unsigned i = 0; i <= n; i++) {
		uint64_t end;

		if (i < n) {
			struct fwimage_section s;

			read_shdr(buf + FWIMAGE_HDR_SIZE + (uint64_t)i * FWIMAGE_SHDR_SIZE, &s);
			end = s.offset;
			for (uint64_t k = pos; k < end; k++)
				if (buf[k])
					return fail(err, FWIMAGE_EPAD, k, (int)i);
			pos = s.offset + s.size;
		} else {
			for (uint64_t k = pos; k < len; k++)
				if (buf[k])
					return fail(err, FWIMAGE_EPAD, k, -1);
		}
	}
	{
		struct fwimage_section s[FWIMAGE_MAX_SECTIONS];

		for (unsigned i = 0; i < n; i++)
			fwimage_section(img, i, &s[i]);
		if (!entry_ok(img->entry, s, n))
			return fail(err, FWIMAGE_EENTRY, 24, -1);
	}
	if (sha256) {
		uint8_t d[FWIMAGE_DIGEST_LEN];

		if (sha256(buf, FWIMAGE_DIGEST_OFF, buf + FWIMAGE_HDR_SIZE, len - FWIMAGE_HDR_SIZE, d) != 0 ||
		    memcmp(d, img->sha256, sizeof(d)) != 0)
			return fail(err, FWIMAGE_EDIGEST, FWIMAGE_DIGEST_OFF, -1);
	}
	return fail(err, FWIMAGE_OK, 0, -1);
}

uint64_t fwimage_layout(struct fwimage_section *s, unsigned n)
{
	uint64_t pos;

	if (n == 0 || n > FWIMAGE_MAX_SECTIONS)
		return 0;
	pos = align_up(FWIMAGE_HDR_SIZE + (uint64_t)n * FWIMAGE_SHDR_SIZE);
	for (unsigned i = 0; i < n; i++) {
		/* Keep every offset and the total far from wrapping. */
		if (s[i].size > (UINT64_C(1) << 48))
			return 0;
		s[i].offset = pos;
		pos = align_up(pos + s[i].size);
	}
	return pos;
}

enum fwimage_error fwimage_write(uint8_t *out, uint64_t len, uint32_t fw_version, uint64_t entry,
				 const struct fwimage_section *s, unsigned n,
				 fwimage_sha256_fn sha256, struct fwimage_err *err)
{
	uint64_t pos;

	if (n == 0 || n > FWIMAGE_MAX_SECTIONS)
		return fail(err, FWIMAGE_ENSECT, 14, -1);
	pos = align_up(FWIMAGE_HDR_SIZE + (uint64_t)n * FWIMAGE_SHDR_SIZE);
	for (unsigned i = 0; i < n; i++) {
		enum fwimage_error e = check_section(&s[i]);

		if (e == FWIMAGE_OK && s[i].offset != pos)
			e = FWIMAGE_ELAYOUT;
		if (e != FWIMAGE_OK)
			return fail(err, e, 0, (int)i);
		for (unsigned j = 0; j < i; j++)
			if (overlap(&s[i], &s[j]))
				return fail(err, FWIMAGE_EOVERLAP, 0, (int)i);
		pos = align_up(pos + s[i].size);
	}
	if (pos != len)
		return fail(err, FWIMAGE_ESIZE, 0, -1);
	if (!entry_ok(entry, s, n))
		return fail(err, FWIMAGE_EENTRY, 0, -1);
	/* Every byte is written once: fields, table, data, and zero padding
	 * from the end of the table to each section's aligned offset and after
	 * the last one. The digest field is not hashed; sha256 fills it. */
	memcpy(out, FWIMAGE_MAGIC, FWIMAGE_MAGIC_LEN);
	put16(out + 8, FWIMAGE_VERSION);
	put16(out + 10, FWIMAGE_HDR_SIZE);
	put16(out + 12, FWIMAGE_SHDR_SIZE);
	put16(out + 14, (uint16_t)n);
	put32(out + 16, 0);
	put32(out + 20, fw_version);
	put64(out + 24, entry);
	put64(out + 32, len);
	put64(out + 40, 0);
	pos = FWIMAGE_HDR_SIZE + (uint64_t)n * FWIMAGE_SHDR_SIZE;
	for (unsigned i = 0; i < n; i++) {
		uint8_t *p = out + FWIMAGE_HDR_SIZE + (size_t)i * FWIMAGE_SHDR_SIZE;

		put32(p, (uint32_t)s[i].type);
		put32(p + 4, s[i].flags);
		put64(p + 8, s[i].addr);
		put64(p + 16, s[i].offset);
		put64(p + 24, s[i].size);
		put64(p + 32, s[i].memsz);
		zero(out + pos, s[i].offset - pos);
		if (s[i].size)
			memcpy(out + s[i].offset, s[i].data, s[i].size);
		pos = s[i].offset + s[i].size;
	}
	zero(out + pos, len - pos);
	if (sha256(out, FWIMAGE_DIGEST_OFF, out + FWIMAGE_HDR_SIZE, len - FWIMAGE_HDR_SIZE,
		   out + FWIMAGE_DIGEST_OFF) != 0)
		return fail(err, FWIMAGE_EDIGEST, FWIMAGE_DIGEST_OFF, -1);
	return fail(err, FWIMAGE_OK, 0, -1);
}

int fwimage_tg3_parse(struct fwimage_tg3 *t, const void *vbuf, size_t len)
{
	const uint8_t *buf = vbuf;
	uint64_t pos, left;

	t->version = t->start = t->len = 0;
	t->payload = 0;
	t->fragments = 0;
	t->consistent = 0;
	t->bad_offset = 0;
	if (len < FWIMAGE_TG3_HDR)
		return -1;
	t->version = be32(buf);
	t->start = be32(buf + 4);
	t->len = be32(buf + 8);
	t->payload = len - FWIMAGE_TG3_HDR;
	if (t->len != FWIMAGE_TG3_FRAGMENTED) {
		/* tg3_request_firmware(): "bogus length" unless len >= size - 12;
		 * the excess is bss. The driver copies whole u32 words. */
		t->consistent = t->len >= t->payload && t->payload % 4 == 0;
		t->bad_offset = t->consistent ? 0 : 8;
		return 0;
	}
	/* 57766: fragments follow, each len bytes including its own header,
	 * a whole number of u32 words, until exactly the end of the file. */
	pos = FWIMAGE_TG3_HDR;
	left = t->payload;
	t->consistent = left > 0;
	t->bad_offset = t->consistent ? 0 : pos;
	while (left > 0) {
		uint32_t flen;

		if (left < FWIMAGE_TG3_HDR) {
			t->consistent = 0;
			t->bad_offset = pos;
			break;
		}
		flen = be32(buf + pos + 8);
		if (flen < FWIMAGE_TG3_HDR || flen > left || flen % 4 != 0) {
			t->consistent = 0;
			t->bad_offset = pos + 8;
			break;
		}
		t->fragments++;
		pos += flen;
		left -= flen;
	}
	return 0;
}
