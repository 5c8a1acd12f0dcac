/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fwimage(5): the sectioned firmware image, and the legacy tg3 header.
 *
 * This header and fwimage.c are self-contained on purpose: a driver, a
 * bootloader or another tool may copy the two files. They need <stddef.h>,
 * <stdint.h> and memcpy/memcmp, allocate nothing and keep no state. All
 * fields on disk are little-endian and naturally aligned; see fwimage(5).
 */
#ifndef FWIMAGE_H
#define FWIMAGE_H

#include <stddef.h>
#include <stdint.h>

#define FWIMAGE_MAGIC "\x7f" "FWI\r\n\x1a\n" /* 8 bytes: catches text-mode mangling */
#define FWIMAGE_MAGIC_LEN 8
#define FWIMAGE_VERSION 1
#define FWIMAGE_HDR_SIZE 80
#define FWIMAGE_SHDR_SIZE 40
#define FWIMAGE_ALIGN 16     /* every section's data starts at a multiple of this */
#define FWIMAGE_MAX_SECTIONS 64
#define FWIMAGE_DIGEST_OFF 48 /* the SHA-256 field; the digest covers everything else */
#define FWIMAGE_DIGEST_LEN 32

/* The header as stored (all little-endian). The parser never casts a buffer
 * to it (a driver's buffer may be unaligned); it documents the layout, and
 * the compile-time checks in fwimage.c tie it to the offsets used. */
struct fwimage_hdr {
	uint8_t magic[8];     /*  0 FWIMAGE_MAGIC */
	uint16_t version;     /*  8 FWIMAGE_VERSION */
	uint16_t hdr_size;    /* 10 FWIMAGE_HDR_SIZE */
	uint16_t shdr_size;   /* 12 FWIMAGE_SHDR_SIZE */
	uint16_t nsections;   /* 14 1..FWIMAGE_MAX_SECTIONS */
	uint32_t flags;       /* 16 0: no flag is defined yet */
	uint32_t fw_version;  /* 20 the firmware's own version */
	uint64_t entry;       /* 24 entry point (a load address) */
	uint64_t image_size;  /* 32 the whole file, in bytes */
	uint8_t reserved[8];  /* 40 zero */
	uint8_t sha256[32];   /* 48 SHA-256 of bytes [0,48) then [80,image_size) */
};

struct fwimage_shdr {
	uint32_t type;        /*  0 enum fwimage_type */
	uint32_t flags;       /*  4 FWIMAGE_F_* */
	uint64_t addr;        /*  8 load address */
	uint64_t offset;      /* 16 file offset of the data */
	uint64_t size;        /* 24 bytes in the file (0 for bss) */
	uint64_t memsz;       /* 32 bytes in memory: == size, or for bss > 0 */
};

enum fwimage_type {
	FWIMAGE_TEXT = 1,
	FWIMAGE_RODATA = 2,
	FWIMAGE_DATA = 3,
	FWIMAGE_BSS = 4,
};

#define FWIMAGE_F_R 0x1u
#define FWIMAGE_F_W 0x2u
#define FWIMAGE_F_X 0x4u
#define FWIMAGE_F_ALL 0x7u

/* Why a buffer is not an image. Each comes with err->offset, the byte the
 * problem was found at, and err->section (-1 for the header). */
enum fwimage_error {
	FWIMAGE_OK = 0,
	FWIMAGE_ETRUNC,     /* shorter than its header, table or declared size */
	FWIMAGE_EMAGIC,
	FWIMAGE_EVERSION,
	FWIMAGE_EHEADER,    /* header or entry size, flags, reserved bytes */
	FWIMAGE_ENSECT,     /* no section, or more than FWIMAGE_MAX_SECTIONS */
	FWIMAGE_ESIZE,      /* image_size differs from the buffer's length */
	FWIMAGE_ETYPE,      /* unknown section type or flag */
	FWIMAGE_ELAYOUT,    /* an offset or size is not where the layout puts it */
	FWIMAGE_EBOUNDS,    /* data past the end, or an address range that wraps */
	FWIMAGE_EOVERLAP,   /* two sections' memory ranges overlap */
	FWIMAGE_EPAD,       /* a padding byte is not zero */
	FWIMAGE_EDIGEST,    /* the SHA-256 does not match */
	FWIMAGE_EENTRY,     /* entry point outside every text section */
};

struct fwimage_err {
	enum fwimage_error code;
	uint64_t offset;
	int section;
};

struct fwimage {
	const uint8_t *buf; /* the caller's buffer; sections point into it */
	size_t len;
	uint16_t version, nsections;
	uint32_t fw_version;
	uint64_t entry;
	uint8_t sha256[FWIMAGE_DIGEST_LEN];
};

struct fwimage_section {
	enum fwimage_type type;
	uint32_t flags;
	uint64_t addr, offset, size, memsz;
	const uint8_t *data; /* size bytes inside the image, NULL for bss */
};

/* SHA-256 of a (alen bytes) followed by b (blen bytes), into out. Supplied
 * by the caller, since this file carries no hash; returns 0 on success. */
typedef int (*fwimage_sha256_fn)(const void *a, size_t alen, const void *b, size_t blen,
				 uint8_t out[FWIMAGE_DIGEST_LEN]);

/* Validate buf as an image: every field, offset and size bounds-checked,
 * the canonical layout (see fwimage(5)), no overlapping memory ranges, zero
 * padding, and with sha256 non-NULL the digest. With sha256 NULL the digest
 * is NOT checked: the caller must then check img->sha256 itself before
 * trusting the data. Returns FWIMAGE_OK or an error, err filled. */
enum fwimage_error fwimage_parse(struct fwimage *img, const void *buf, size_t len,
				 fwimage_sha256_fn sha256, struct fwimage_err *err);
/* Section i (< img->nsections) of an image fwimage_parse accepted. */
void fwimage_section(const struct fwimage *img, unsigned i, struct fwimage_section *s);

/* Writing: the size of an image of these sections (their type, size and
 * memsz used), or 0 if they cannot form one (count, sizes, overflow). */
uint64_t fwimage_layout(struct fwimage_section *s, unsigned n);
/* Write the image into out (fwimage_layout bytes, which also set each
 * s->offset): header, table, data, zero padding, then the digest via
 * sha256. Checks what fwimage_parse checks. Returns FWIMAGE_OK or an error. */
enum fwimage_error fwimage_write(uint8_t *out, uint64_t len, uint32_t fw_version, uint64_t entry,
				 const struct fwimage_section *s, unsigned n,
				 fwimage_sha256_fn sha256, struct fwimage_err *err);

const char *fwimage_strerror(enum fwimage_error e);
const char *fwimage_type_name(enum fwimage_type t); /* "text" ..., NULL if unknown */

/*
 * The legacy tg3 header (drivers/net/ethernet/broadcom/tg3.c): three
 * big-endian u32 (version, start address, length), payload at byte 12. The
 * length counts text, data and bss, so it is at least the payload's size.
 * Length 0xffffffff marks the 57766 format: after the main header, fragments
 * each with their own 12-byte header whose length counts that header.
 */
#define FWIMAGE_TG3_HDR 12
#define FWIMAGE_TG3_FRAGMENTED 0xffffffffu
struct fwimage_tg3 {
	uint32_t version, start, len;
	uint64_t payload;     /* bytes after the main header */
	unsigned fragments;   /* 57766 format: how many; else 0 */
	int consistent;       /* lengths agree with the file size (1) or not (0) */
	uint64_t bad_offset;  /* !consistent: where the walk failed */
};
/* Read buf as a tg3 image. Returns 0 when it is at least 12 bytes long
 * (consistency in t), -1 when it is shorter. */
int fwimage_tg3_parse(struct fwimage_tg3 *t, const void *buf, size_t len);

#endif
