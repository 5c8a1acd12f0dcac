/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Intel HEX (text) and the kernel's binary ihex records
 * (include/linux/ihex.h). Like fwimage.h, self-contained and copyable:
 * <stddef.h>, <stdint.h>, memcpy/memcmp, no allocation, no state.
 *
 * Unlike the kernel's old ihex2fw, which read a bad hex digit as 0, this
 * reader rejects: every character, length, checksum and record type is
 * checked, and each error names its line.
 */
#ifndef IHEX_H
#define IHEX_H

#include <stddef.h>
#include <stdint.h>

enum ihex_error {
	IHEX_OK = 0,
	IHEX_ENOCOLON,   /* a line does not start with ':' (blank lines too) */
	IHEX_ENONHEX,    /* a character that is not a hex digit */
	IHEX_ESHORT,     /* fewer digits than the record's length says */
	IHEX_ELONG,      /* characters after the checksum */
	IHEX_ECHECKSUM,
	IHEX_ETYPE,      /* unknown record type (not 00-05) */
	IHEX_EFORM,      /* wrong length or address for the record's type */
	IHEX_EWRAP,      /* a data record crosses a 64 KiB boundary */
	IHEX_EOVERLAP,   /* data written twice to one address */
	IHEX_EMIXED,     /* segment (02) and linear (04) bases both in force */
	IHEX_EAFTER,     /* anything after the end-of-file record */
	IHEX_ENOEOF,     /* no end-of-file record */
	IHEX_ERUNS,      /* more separate runs of data than the caller's table holds */
	IHEX_EBIN,       /* binary ihex: a record runs past the end, or no end record */
	IHEX_EBINZERO,   /* binary ihex: a zero-length record before the end */
};

struct ihex_err {
	enum ihex_error code;
	unsigned line;   /* text: 1-based line; binary: 0 */
	uint64_t offset; /* binary: byte offset of the bad record; text: of the line */
	unsigned type;   /* IHEX_ETYPE: the type read */
};

/* A run of contiguous data: [addr, addr + len). */
struct ihex_run {
	uint32_t addr;
	uint32_t len;
};

struct ihex_info {
	size_t nruns;        /* runs written, sorted by address, adjacent ones merged */
	unsigned records;    /* data records */
	unsigned lines;
	int has_start;       /* 05: start linear address */
	uint32_t start;
	int has_cs_ip;       /* 03: start segment address (CS << 16 | IP) */
	uint32_t cs_ip;
};

/* Pass one: validate text (len bytes) completely and describe its data as
 * runs (at most max_runs). Returns IHEX_OK or an error, err filled. */
enum ihex_error ihex_scan(const char *text, size_t len, struct ihex_run *runs, size_t max_runs,
			  struct ihex_info *info, struct ihex_err *err);
/* Pass two, on text ihex_scan accepted: copy each data byte at address a
 * with base <= a < base + outlen to out[a - base]; other bytes are skipped
 * and out's other bytes are left as they are. */
void ihex_fill(const char *text, size_t len, uint8_t *out, uint32_t base, uint64_t outlen);

/* One text record ":LLAAAATT<data>CC\n" for n <= 255 bytes, into out (at
 * least IHEX_LINE_MAX bytes). Returns the characters written. */
#define IHEX_LINE_MAX (1 + 2 * (5 + 255) + 1)
size_t ihex_put_record(char *out, unsigned type, uint16_t addr, const uint8_t *data, size_t n);

/* The kernel's binary form: records {__be32 addr; __be16 len; u8 data[len]},
 * each padded to a multiple of 4 bytes, ending with a zero-length record
 * whose 6 bytes end the file (what ihex_validate_fw() accepts). */
#define IHEX_BIN_HDR 6
struct ihex_binrec {
	uint32_t addr;
	uint16_t len;
	const uint8_t *data;
	uint64_t offset;    /* of the record in the file */
};
/* Next record at *off: returns 1 with rec filled (and *off advanced), 0 at
 * the end record (which must end the buffer), or -1 with err filled. Only
 * the last record may be empty. Padding bytes are not checked (the kernel
 * ignores them and ihex2fw wrote whatever its buffer held). */
int ihex_bin_next(const uint8_t *buf, size_t len, size_t *off, struct ihex_binrec *rec,
		  struct ihex_err *err);
/* Append one record (n bytes, n > 0) at out; returns the bytes written
 * (padding zeroed). n == 0 writes the 6-byte end record. */
size_t ihex_bin_put(uint8_t *out, uint32_t addr, const uint8_t *data, uint16_t n);
/* Pass two, on text ihex_scan accepted: the binary form as the kernel's
 * ihex2fw (without -s) writes it: one record per non-empty data record,
 * in the text's order, at its full address, then the end record. Writes
 * into out when it is not NULL; returns the bytes (call once with NULL
 * for the size). */
size_t ihex_bin_records(const char *text, size_t len, uint8_t *out);
/* Bytes ihex_bin_put writes for n data bytes. */
static inline size_t ihex_bin_size(uint16_t n)
{
	return n ? ((size_t)n + IHEX_BIN_HDR + 3) & ~(size_t)3 : IHEX_BIN_HDR;
}

const char *ihex_strerror(enum ihex_error e);

/* The value of a hex digit, either case, or -1 for any other character
 * (never 0, as ihex2fw read one): fwdist's one reader of hex digits, for
 * digests too. */
int ihex_hexval(char c);

#endif
