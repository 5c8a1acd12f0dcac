/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of ihex.c: Intel HEX records 00-05, every refusal with its line; binary ihex records. */
#include "ihex.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "image.h"
#include "unit.h"

static struct ihex_run runs[16];
static struct ihex_info info;

static enum ihex_error scan(const char *t, struct ihex_err *e)
{
	return ihex_scan(t, strlen(t), runs, 16, &info, e);
}

#define EOF_REC ":00000001FF\n"

TEST(records_00_to_05)
{
	/* 02 segment 0x1000 -> base 0x10000; 04 -> 0x00020000; 03 and 05 starts. */
	const char *u = ":0400000001020304F2\n"
			":020000021000EC\n"
			":020010000506E3\n"
			":020000020000FC\n"
			":020000040002F8\n"
			":0100000007F8\n"
			":0400000312345678E5\n"
			":0400000500000100F6\n" EOF_REC;
	struct ihex_err e;
	uint8_t out[4] = { 0 };

	CHECK_EQ_INT(scan(u, &e), IHEX_OK);
	CHECK_EQ_INT(info.nruns, 3);
	CHECK_EQ_INT(runs[0].addr, 0);
	CHECK_EQ_INT(runs[0].len, 4);
	CHECK_EQ_INT(runs[1].addr, 0x10010);
	CHECK_EQ_INT(runs[1].len, 2);
	CHECK_EQ_INT(runs[2].addr, 0x20000);
	CHECK(info.has_cs_ip);
	CHECK_EQ_INT(info.cs_ip, 0x12345678);
	CHECK(info.has_start);
	CHECK_EQ_INT(info.start, 0x100);
	ihex_fill(u, strlen(u), out, 0, 4);
	CHECK(out[0] == 1 && out[3] == 4);
	ihex_fill(u, strlen(u), out, 0x10010, 2);
	CHECK(out[0] == 5 && out[1] == 6);
}

TEST(crlf_and_lowercase)
{
	struct ihex_err e;

	CHECK_EQ_INT(scan(":0400000001020304f2\r\n:00000001ff", &e), IHEX_OK);
	CHECK_EQ_INT(info.records, 1);
}

TEST(adjacent_records_merge)
{
	struct ihex_err e;

	/* Out of order but contiguous: one run after sorting. */
	CHECK_EQ_INT(scan(":02000200AABB97\n:020000001122CB\n" EOF_REC, &e), IHEX_OK);
	CHECK_EQ_INT(info.nruns, 1);
	CHECK_EQ_INT(runs[0].len, 4);
}

#define BAD(text, code, ln)                                                   \
	do {                                                                  \
		struct ihex_err e_;                                           \
		CHECK_EQ_INT(scan(text, &e_), code);                          \
		CHECK_EQ_INT(e_.line, ln);                                    \
	} while (0)

TEST(bad_checksum)
{
	BAD(":0400000001020304F2\n:0400040001020304F3\n" EOF_REC, IHEX_ECHECKSUM, 2);
}

TEST(non_hex)
{
	/* ihex2fw read 'G' as 0; this is an error on its line. */
	BAD(":0400000001020304F2\n:04000400010G0304EE\n" EOF_REC, IHEX_ENONHEX, 2);
	BAD(":04000000 1020304F2\n" EOF_REC, IHEX_ENONHEX, 1);
	BAD(":0400000001020304F2 \n" EOF_REC, IHEX_ENONHEX, 1);
}

TEST(short_and_long_records)
{
	BAD(":0400000001020304\n" EOF_REC, IHEX_ESHORT, 1);
	BAD(":0000\n" EOF_REC, IHEX_ESHORT, 1);
	BAD(":0400000001020304F200\n" EOF_REC, IHEX_ELONG, 1);
}

TEST(missing_colon_and_blank_lines)
{
	BAD("0400000001020304F2\n" EOF_REC, IHEX_ENOCOLON, 1);
	BAD(":0400000001020304F2\n\n" EOF_REC, IHEX_ENOCOLON, 2);
}

TEST(overlap)
{
	BAD(":0400000001020304F2\n:0100020009F4\n" EOF_REC, IHEX_EOVERLAP, 2);
	/* The same address through a segment base: 0x0010:0000 = 0x100. */
	BAD(":0100000009F6\n:020000020010EC\n:0100000009F6\n:020000020000FC\n:0101000009F5\n" EOF_REC,
	    IHEX_EOVERLAP, 5);
}

TEST(unknown_record_type)
{
	struct ihex_err e;

	CHECK_EQ_INT(scan(":0400000001020304F2\n:00000006FA\n" EOF_REC, &e), IHEX_ETYPE);
	CHECK_EQ_INT(e.line, 2);
	CHECK_EQ_INT(e.type, 6);
}

TEST(record_forms)
{
	BAD(":0100000400FB\n" EOF_REC, IHEX_EFORM, 1);          /* 04 with 1 byte */
	BAD(":020001040000F9\n" EOF_REC, IHEX_EFORM, 1);        /* 04 with an address */
	BAD(":0100000100FE\n", IHEX_EFORM, 1);                   /* 01 with data */
	BAD(":03000005000100F7\n" EOF_REC, IHEX_EFORM, 1);      /* 05 with 3 bytes */
	BAD(":02FFFF000102FD\n" EOF_REC, IHEX_EWRAP, 1);        /* across 64 KiB */
	BAD(":020000021000EC\n:020000040001F9\n" EOF_REC, IHEX_EMIXED, 2);
}

TEST(eof_rules)
{
	BAD(":0400000001020304F2\n", IHEX_ENOEOF, 2);
	BAD(EOF_REC ":0400000001020304F2\n", IHEX_EAFTER, 2);
	BAD(EOF_REC "\n", IHEX_EAFTER, 2);
}

TEST(put_record)
{
	char line[IHEX_LINE_MAX];
	uint8_t d[4] = { 1, 2, 3, 4 };
	size_t n = ihex_put_record(line, 0, 0, d, 4);

	CHECK_EQ_INT(n, 20);
	line[n] = '\0';
	CHECK_EQ_STR(line, ":0400000001020304F2\n");
	n = ihex_put_record(line, 1, 0, NULL, 0);
	line[n] = '\0';
	CHECK_EQ_STR(line, EOF_REC);
}

TEST(binary_records)
{
	uint8_t b[64];
	uint8_t d[5] = { 9, 8, 7, 6, 5 };
	struct ihex_binrec r;
	struct ihex_err e;
	size_t k = 0, off = 0;

	k += ihex_bin_put(b + k, 0x1234, d, 5); /* 6 + 5 -> 12 */
	k += ihex_bin_put(b + k, 0x2000, d, 2); /* 6 + 2 -> 8 */
	k += ihex_bin_put(b + k, 0, NULL, 0);   /* 6 */
	CHECK_EQ_INT(k, 26);
	CHECK_EQ_INT(b[11], 0); /* padding zeroed */
	CHECK_EQ_INT(ihex_bin_next(b, k, &off, &r, &e), 1);
	CHECK_EQ_INT(r.addr, 0x1234);
	CHECK_EQ_INT(r.len, 5);
	CHECK(r.data[4] == 5);
	CHECK_EQ_INT(ihex_bin_next(b, k, &off, &r, &e), 1);
	CHECK_EQ_INT(off, 20);
	CHECK_EQ_INT(ihex_bin_next(b, k, &off, &r, &e), 0);
	CHECK_EQ_INT(off, k);
}

/* Padding and the end record are zeroed by ihex_bin_put itself, whatever
 * the buffer held. */
TEST(binary_put_over_garbage)
{
	uint8_t b[32];
	uint8_t d[5] = { 9, 8, 7, 6, 5 };
	size_t k;

	memset(b, 0xff, sizeof(b));
	k = ihex_bin_put(b, 0x1234, d, 5); /* 6 + 5 -> 12 */
	CHECK_EQ_INT(k, 12);
	CHECK_EQ_INT(b[11], 0);
	CHECK_EQ_INT(b[12], 0xff); /* nothing past the record */
	k += ihex_bin_put(b + k, 0, NULL, 0);
	CHECK_EQ_INT(k, 18);
	for (size_t i = 12; i < 18; i++)
		CHECK_EQ_INT(b[i], 0);
	CHECK_EQ_INT(b[18], 0xff);
}

TEST(binary_bad)
{
	uint8_t b[64];
	uint8_t d[5] = { 9, 8, 7, 6, 5 };
	struct ihex_binrec r;
	struct ihex_err e;
	size_t k = 0, off;

	k += ihex_bin_put(b + k, 0x1234, d, 5);
	k += ihex_bin_put(b + k, 0, NULL, 0);
	/* No end record. */
	off = 0;
	CHECK_EQ_INT(ihex_bin_next(b, 12, &off, &r, &e), 1);
	CHECK_EQ_INT(ihex_bin_next(b, 12, &off, &r, &e), -1);
	CHECK_EQ_INT(e.code, IHEX_EBIN);
	CHECK_EQ_INT(e.offset, 12);
	/* A record longer than the file. */
	b[5] = 200;
	off = 0;
	CHECK_EQ_INT(ihex_bin_next(b, k, &off, &r, &e), -1);
	CHECK_EQ_INT(e.code, IHEX_EBIN);
	CHECK_EQ_INT(e.offset, 0);
	/* A zero-length record before the end; bytes after the end record. */
	b[5] = 0;
	off = 0;
	CHECK_EQ_INT(ihex_bin_next(b, k, &off, &r, &e), -1);
	CHECK_EQ_INT(e.code, IHEX_EBINZERO);
}

/* Through the tool's reader: the message names the file and the line. */
TEST(diag_names_file_and_line)
{
	char path[] = "/tmp/fwdist-ihex-XXXXXX";
	int fd = mkstemp(path);
	const char *t = ":0400000001020304F2\n:0400040001020304F3\n" EOF_REC;
	struct fw_img im = { 0 };
	struct fw_diag d = { 0 };

	CHECK(fd >= 0);
	CHECK(write(fd, t, strlen(t)) == (ssize_t)strlen(t));
	close(fd);
	CHECK_EQ_INT(fw_img_add_hex(&im, path, &d), -EINVAL);
	unlink(path);
	CHECK_EQ_INT(d.n, 1);
	CHECK_DIAG_IN(&d, 0, path, 2, "bad checksum");
	fw_diag_free(&d);
	fw_img_free(&im);
}
