/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of fwimage.c: write -> parse round trip, every refusal with its byte offset, the tg3 header. */
#include "fwimage.h"

#include <stdint.h>

#include "image.h"
#include "unit.h"

static const uint8_t text[100] = { 1, 2, 3 }, ro[17] = { 'r', 'o' }, dat[32] = { 0xaa };

/* A valid image: text 0x1000, rodata 0x2000, data 0x3000, bss 0x4000. */
static uint64_t make(uint8_t *buf, uint64_t entry)
{
	struct fwimage_section s[4] = {
		{ .type = FWIMAGE_TEXT, .flags = 5, .addr = 0x1000, .size = 100, .memsz = 100, .data = text },
		{ .type = FWIMAGE_RODATA, .flags = 1, .addr = 0x2000, .size = 17, .memsz = 17, .data = ro },
		{ .type = FWIMAGE_DATA, .flags = 3, .addr = 0x3000, .size = 32, .memsz = 32, .data = dat },
		{ .type = FWIMAGE_BSS, .flags = 3, .addr = 0x4000, .size = 0, .memsz = 4096 },
	};
	uint64_t len = fwimage_layout(s, 4);

	if (fwimage_write(buf, len, 42, entry, s, 4, fw_image_sha256, NULL) != FWIMAGE_OK)
		return 0;
	return len;
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Section i's entry field at off. */
#define SH(i, off) (FWIMAGE_HDR_SIZE + (i) * FWIMAGE_SHDR_SIZE + (off))

static enum fwimage_error parse(const uint8_t *b, size_t len, struct fwimage_err *e)
{
	struct fwimage img;

	return fwimage_parse(&img, b, len, fw_image_sha256, e);
}

TEST(round_trip)
{
	uint8_t b[1024];
	uint64_t len = make(b, 0x1010);
	struct fwimage img;
	struct fwimage_section s;
	struct fwimage_err e;

	CHECK(len > 0);
	CHECK_EQ_INT(len, 80 + 4 * 40 + 112 + 32 + 32);
	CHECK_EQ_INT(fwimage_parse(&img, b, len, fw_image_sha256, &e), FWIMAGE_OK);
	CHECK_EQ_INT(img.nsections, 4);
	CHECK_EQ_INT(img.fw_version, 42);
	CHECK_EQ_INT(img.entry, 0x1010);
	fwimage_section(&img, 1, &s);
	CHECK_EQ_INT(s.type, FWIMAGE_RODATA);
	CHECK_EQ_INT(s.addr, 0x2000);
	CHECK_EQ_INT(s.size, 17);
	CHECK(memcmp(s.data, ro, 17) == 0);
	fwimage_section(&img, 3, &s);
	CHECK_EQ_INT(s.memsz, 4096);
	CHECK(s.data == NULL);
	/* Without a digest function the structure is still checked. */
	CHECK_EQ_INT(fwimage_parse(&img, b, len, NULL, &e), FWIMAGE_OK);
}

/* The writer sets every byte itself (padding, reserved fields, the table)
 * rather than zeroing the whole buffer first: a buffer full of garbage
 * gives the same image as a zeroed one. */
TEST(write_sets_every_byte)
{
	uint8_t a[1024], b[1024];
	struct fwimage img;
	struct fwimage_err e;
	uint64_t la, lb;

	memset(a, 0, sizeof(a));
	memset(b, 0xa5, sizeof(b));
	la = make(a, 0x1010);
	lb = make(b, 0x1010);
	CHECK(la > 0);
	CHECK_EQ_INT(lb, la);
	CHECK(memcmp(a, b, la) == 0);
	CHECK_EQ_INT(fwimage_parse(&img, b, lb, fw_image_sha256, &e), FWIMAGE_OK);
}

TEST(truncated_header)
{
	uint8_t b[1024];
	uint64_t len = make(b, 0);
	struct fwimage_err e;

	CHECK_EQ_INT(parse(b, 79, &e), FWIMAGE_ETRUNC);
	CHECK_EQ_INT(e.offset, 79);
	/* Cut inside the data: image_size (byte 32) says more. */
	CHECK_EQ_INT(parse(b, len - 1, &e), FWIMAGE_ETRUNC);
	CHECK_EQ_INT(e.offset, 32);
	CHECK_EQ_INT(parse(b, 0, &e), FWIMAGE_ETRUNC);
}

TEST(truncated_table)
{
	uint8_t b[1024];
	struct fwimage_err e;

	make(b, 0);
	/* 64 sections declared, 100 bytes given and claimed. */
	b[14] = 64;
	put64(b + 32, 100);
	CHECK_EQ_INT(parse(b, 100, &e), FWIMAGE_ETRUNC);
	CHECK_EQ_INT(e.offset, 100);
}

TEST(bad_magic_version)
{
	uint8_t b[1024];
	uint64_t len = make(b, 0);
	struct fwimage_err e;

	b[1] = 'X';
	CHECK_EQ_INT(parse(b, len, &e), FWIMAGE_EMAGIC);
	CHECK_EQ_INT(e.offset, 0);
	b[1] = 'F';
	b[8] = 2;
	CHECK_EQ_INT(parse(b, len, &e), FWIMAGE_EVERSION);
	CHECK_EQ_INT(e.offset, 8);
}

TEST(bad_header_fields)
{
	uint8_t b[1024];
	uint64_t len = make(b, 0);
	struct fwimage_err e;

	b[10] = 81;
	CHECK_EQ_INT(parse(b, len, &e), FWIMAGE_EHEADER);
	CHECK_EQ_INT(e.offset, 10);
	make(b, 0);
	b[16] = 1; /* flags */
	CHECK_EQ_INT(parse(b, len, &e), FWIMAGE_EHEADER);
	CHECK_EQ_INT(e.offset, 16);
	make(b, 0);
	b[45] = 1; /* reserved */
	CHECK_EQ_INT(parse(b, len, &e), FWIMAGE_EHEADER);
	CHECK_EQ_INT(e.offset, 45);
	make(b, 0);
	b[14] = 0;
	CHECK_EQ_INT(parse(b, len, &e), FWIMAGE_ENSECT);
	b[14] = 65;
	CHECK_EQ_INT(parse(b, len, &e), FWIMAGE_ENSECT);
}

TEST(trailing_garbage)
{
	uint8_t b[1024];
	uint64_t len = make(b, 0);
	struct fwimage_err e;

	/* Longer than image_size. */
	memset(b + len, 0, 16);
	CHECK_EQ_INT(parse(b, len + 16, &e), FWIMAGE_ESIZE);
	CHECK_EQ_INT(e.offset, 32);
	/* Claimed, but not part of any section. */
	put64(b + 32, len + 16);
	CHECK_EQ_INT(parse(b, len + 16, &e), FWIMAGE_ESIZE);
	CHECK_EQ_INT(e.offset, len);
}

TEST(offset_out_of_layout)
{
	uint8_t b[1024];
	uint64_t len = make(b, 0);
	struct fwimage_err e;

	put64(b + SH(1, 16), 256); /* rodata's offset moved onto text's data */
	CHECK_EQ_INT(parse(b, len, &e), FWIMAGE_ELAYOUT);
	CHECK_EQ_INT(e.section, 1);
	CHECK_EQ_INT(e.offset, SH(1, 16));
}

TEST(size_out_of_bounds)
{
	uint8_t b[1024];
	uint64_t len = make(b, 0);
	struct fwimage_err e;

	put64(b + SH(2, 24), 1u << 20);
	put64(b + SH(2, 32), 1u << 20);
	CHECK_EQ_INT(parse(b, len, &e), FWIMAGE_EBOUNDS);
	CHECK_EQ_INT(e.section, 2);
	CHECK_EQ_INT(e.offset, SH(2, 24));
	/* A huge size must not wrap the offset arithmetic. */
	make(b, 0);
	put64(b + SH(2, 24), UINT64_MAX - 8);
	put64(b + SH(2, 32), UINT64_MAX - 8);
	CHECK(parse(b, len, &e) != FWIMAGE_OK);
	/* A memory range that wraps the address space. */
	make(b, 0);
	put64(b + SH(3, 8), UINT64_MAX - 10);
	CHECK_EQ_INT(parse(b, len, &e), FWIMAGE_EBOUNDS);
	CHECK_EQ_INT(e.section, 3);
}

TEST(size_memsz_rules)
{
	uint8_t b[1024];
	uint64_t len = make(b, 0);
	struct fwimage_err e;

	put64(b + SH(0, 32), 200); /* text with memsz != size */
	CHECK_EQ_INT(parse(b, len, &e), FWIMAGE_ELAYOUT);
	CHECK_EQ_INT(e.section, 0);
	make(b, 0);
	put64(b + SH(3, 32), 0); /* empty bss */
	CHECK_EQ_INT(parse(b, len, &e), FWIMAGE_ELAYOUT);
	CHECK_EQ_INT(e.section, 3);
}

TEST(overlapping_sections)
{
	uint8_t b[1024];
	uint64_t len = make(b, 0);
	struct fwimage_err e;

	put64(b + SH(3, 8), 0x3010); /* bss inside data */
	CHECK_EQ_INT(parse(b, len, &e), FWIMAGE_EOVERLAP);
	CHECK_EQ_INT(e.section, 3);
	CHECK_EQ_INT(e.offset, SH(3, 8));
	/* The writer refuses them too. */
	{
		struct fwimage_section s[2] = {
			{ .type = FWIMAGE_TEXT, .addr = 0x100, .size = 100, .memsz = 100, .data = text },
			{ .type = FWIMAGE_DATA, .addr = 0x163, .size = 32, .memsz = 32, .data = dat },
		};
		uint64_t n = fwimage_layout(s, 2);

		CHECK_EQ_INT(fwimage_write(b, n, 0, 0, s, 2, fw_image_sha256, &e), FWIMAGE_EOVERLAP);
		CHECK_EQ_INT(e.section, 1);
	}
}

TEST(unknown_type_or_flag)
{
	uint8_t b[1024];
	uint64_t len = make(b, 0);
	struct fwimage_err e;

	b[SH(1, 0)] = 9;
	CHECK_EQ_INT(parse(b, len, &e), FWIMAGE_ETYPE);
	CHECK_EQ_INT(e.section, 1);
	make(b, 0);
	b[SH(0, 4)] = 0x8;
	CHECK_EQ_INT(parse(b, len, &e), FWIMAGE_ETYPE);
	CHECK_EQ_INT(e.section, 0);
}

TEST(nonzero_padding)
{
	uint8_t b[1024];
	uint64_t len = make(b, 0);
	struct fwimage_err e;

	b[80 + 160 + 100 + 3] = 1; /* after text's 100 bytes, before rodata at 352 */
	CHECK_EQ_INT(parse(b, len, &e), FWIMAGE_EPAD);
	CHECK_EQ_INT(e.offset, 80 + 160 + 100 + 3);
}

TEST(bad_digest)
{
	uint8_t b[1024];
	uint64_t len = make(b, 0);
	struct fwimage img;
	struct fwimage_err e;

	b[240] ^= 1; /* first text byte */
	CHECK_EQ_INT(parse(b, len, &e), FWIMAGE_EDIGEST);
	CHECK_EQ_INT(e.offset, FWIMAGE_DIGEST_OFF);
	/* Metadata is covered too: the firmware version. */
	make(b, 0);
	b[20] ^= 1;
	CHECK_EQ_INT(parse(b, len, &e), FWIMAGE_EDIGEST);
	/* Left to the caller when no function is given. */
	CHECK_EQ_INT(fwimage_parse(&img, b, len, NULL, &e), FWIMAGE_OK);
}

TEST(entry_outside_text)
{
	uint8_t b[1024];
	struct fwimage_err e;
	uint64_t len = make(b, 0x1000);

	CHECK_EQ_INT(parse(b, len, &e), FWIMAGE_OK);
	CHECK_EQ_INT(make(b, 0x2000), 0); /* rodata: refused by the writer */
	make(b, 0x1000);
	put64(b + 24, 0x1064); /* one past text */
	CHECK_EQ_INT(parse(b, len, &e), FWIMAGE_EENTRY);
	CHECK_EQ_INT(e.offset, 24);
}

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

TEST(tg3_header)
{
	uint8_t b[64] = { 0 };
	struct fwimage_tg3 t;

	be32(b, 0x01060000);
	be32(b + 4, 0x08000000);
	be32(b + 8, 60); /* 52 bytes of payload + 8 of bss */
	CHECK_EQ_INT(fwimage_tg3_parse(&t, b, 64), 0);
	CHECK_EQ_INT(t.version, 0x01060000);
	CHECK_EQ_INT(t.start, 0x08000000);
	CHECK_EQ_INT(t.payload, 52);
	CHECK(t.consistent);
	be32(b + 8, 48); /* shorter than the payload: "bogus length" */
	CHECK_EQ_INT(fwimage_tg3_parse(&t, b, 64), 0);
	CHECK(!t.consistent);
	CHECK_EQ_INT(t.bad_offset, 8);
	be32(b + 8, 60);
	CHECK_EQ_INT(fwimage_tg3_parse(&t, b, 63), 0); /* not whole words */
	CHECK(!t.consistent);
	CHECK_EQ_INT(fwimage_tg3_parse(&t, b, 11), -1);
}

TEST(tg3_57766_fragments)
{
	uint8_t b[64] = { 0 };
	struct fwimage_tg3 t;

	be32(b + 8, FWIMAGE_TG3_FRAGMENTED);
	be32(b + 12 + 8, 20); /* fragment 1: header + 8 bytes */
	be32(b + 32 + 8, 32); /* fragment 2: header + 20 bytes, to byte 64 */
	CHECK_EQ_INT(fwimage_tg3_parse(&t, b, 64), 0);
	CHECK(t.consistent);
	CHECK_EQ_INT(t.fragments, 2);
	be32(b + 32 + 8, 36); /* runs past the end */
	CHECK_EQ_INT(fwimage_tg3_parse(&t, b, 64), 0);
	CHECK(!t.consistent);
	CHECK_EQ_INT(t.bad_offset, 40);
	be32(b + 32 + 8, 8); /* shorter than its own header */
	CHECK_EQ_INT(fwimage_tg3_parse(&t, b, 64), 0);
	CHECK(!t.consistent);
}
