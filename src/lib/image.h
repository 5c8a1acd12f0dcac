/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Firmware images for pack, unpack, info and check: sections from raw files, ELF, Intel HEX,
 * binary ihex; output as fwimage, flat binary, binary ihex or Intel HEX; legacy formats. */
#ifndef FWDIST_IMAGE_H
#define FWDIST_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "fwimage.h"
#include "ihex.h"

/* Largest input or output image handled (bounded memory). */
#define FW_IMAGE_MAX (256u << 20)

struct fw_img_sect {
	enum fwimage_type type;
	uint32_t flags;
	uint64_t addr, size, memsz;
	uint8_t *data;      /* size bytes, owned (NULL for bss) */
	char *src;          /* where it came from, for messages */
};

struct fw_img {
	struct fw_img_sect *v;
	size_t n, cap;
	bool has_entry;     /* an input (ELF e_entry, HEX 05/03) gave one */
	uint64_t entry;
	unsigned entries;   /* how many inputs gave one */
};

/* Section sources. Each returns 0 or -errno; a malformed input is -EINVAL
 * with a message in d naming the file and line (text) or byte offset. */
int fw_img_add_raw(struct fw_img *im, enum fwimage_type type, uint64_t addr, const char *path,
		   struct fw_diag *d);
int fw_img_add_bss(struct fw_img *im, uint64_t addr, uint64_t size, const char *what);
int fw_img_add_elf(struct fw_img *im, const char *path, struct fw_diag *d);
/* The same from len bytes in memory (path names them in findings). */
int fw_img_add_elf_mem(struct fw_img *im, const char *path, const uint8_t *buf, size_t len,
		       struct fw_diag *d);
int fw_img_add_hex(struct fw_img *im, const char *path, struct fw_diag *d);
/* An Intel HEX file (validated as fw_img_add_hex does) in the kernel's
 * binary ihex records as its ihex2fw writes them: a record per data
 * record, in the file's order (ihex_bin_records). *out is malloc'd. */
int fw_img_hex_records(const char *path, uint8_t **out, size_t *outlen, struct fw_diag *d);
int fw_img_add_ihexbin(struct fw_img *im, const char *path, struct fw_diag *d);
/* Memory ranges of two sections overlap: -EINVAL, both named in d. */
int fw_img_check(const struct fw_img *im, const char *out, struct fw_diag *d);
void fw_img_free(struct fw_img *im);

enum fw_img_format { FW_FMT_FWIMAGE, FW_FMT_BIN, FW_FMT_IHEXBIN, FW_FMT_HEX };
/* Render the sections (new buffer). fwimage: with the version and entry;
 * bin: bytes from the lowest to the highest address, gaps zero (as objcopy
 * -O binary); ihexbin/hex: records of at most recsize bytes (1..255), hex
 * with 04 records where needed and a 05 record for the entry if nonzero.
 * 0 or -errno; -EINVAL with a message in d. */
int fw_img_render(const struct fw_img *im, enum fw_img_format f, uint32_t version, uint64_t entry,
		  unsigned recsize, uint8_t **out, size_t *outlen, const char *outname,
		  struct fw_diag *d);

/* Write buf to path atomically (a temporary beside it, fsync, rename):
 * the directory part is opened as given, the leaf must be a file name.
 * 0 or -errno; nothing is left behind on failure. */
int fw_image_write_path(const char *path, const void *buf, size_t len);

/* SHA-256 of a then b (libcrypto), for fwimage_parse/fwimage_write. */
int fw_image_sha256(const void *a, size_t alen, const void *b, size_t blen, uint8_t out[32]);

/* Formats a blob may declare (WHENCE "Info: format: NAME") or info detects. */
enum fw_blob_format {
	FW_BF_UNKNOWN,
	FW_BF_FWIMAGE,
	FW_BF_IHEX,      /* Intel HEX text */
	FW_BF_IHEXBIN,   /* the kernel's binary ihex records */
	FW_BF_TG3,       /* tg3 header, also the 57766 fragmented form */
};
const char *fw_blob_format_name(enum fw_blob_format f);
/* Name -> format; -1 if not a known name. */
int fw_blob_format_parse(const char *name, size_t len);
/* The declared format of a WHENCE Info: text ("format: NAME ..."): 1 with
 * *f set, 0 when the text declares none, -1 for an unknown NAME (*name,
 * *namelen say which). */
int fw_info_format(const char *info, enum fw_blob_format *f, const char **name, size_t *namelen);
/* Recognise a format: fwimage magic, HEX text (a first line of hex
 * digits after ':'), a well-formed binary ihex walk, or a tg3 header for a
 * file whose name (last component) starts with "tg3", as the tg3 driver's
 * do; else FW_BF_UNKNOWN. name may be NULL. */
enum fw_blob_format fw_image_detect(const char *name, const uint8_t *buf, size_t len);
/* Validate buf as format f; each problem goes to d under file (and the
 * given WHENCE line, if line, else the byte offset in the text).
 * Returns the number of problems. */
unsigned fw_image_validate(enum fw_blob_format f, const uint8_t *buf, size_t len, const char *file,
			   struct fw_diag *d);

#endif
