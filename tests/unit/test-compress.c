/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of compress.c: round trips, kernel-compatible headers, size and corruption checks. */
#include "compress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include <lzma.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_estimateDStreamSize_fromFrame */
#include <zstd.h>

#include "unit.h"

#define MIB (1024u * 1024u)

static const enum fw_compress all_comp[] = { FW_COMP_NONE, FW_COMP_XZ, FW_COMP_ZSTD };

/* Sizes around the 128 KiB buffer and a few MiB not a multiple of it. */
static const size_t round_trip_sizes[] = {
	0, 1, 2, 4095, 4096, 128 * 1024 - 1, 128 * 1024, 128 * 1024 + 1, 3 * MIB + 12345,
};

/* Deterministic data: pseudo-random runs mixed with compressible text, so
 * both the literal and the match paths of the encoders are exercised. */
static unsigned char *make_data(size_t len, uint32_t seed)
{
	static const char text[] = "firmware blob: request_firmware(\"tigon/tg3.bin\") ";
	unsigned char *p = malloc(len ? len : 1);
	uint32_t x = seed * 2654435761u + 1;

	if (!p)
		return NULL;
	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		/* 64 KiB random, 64 KiB text, alternating. */
		p[i] = (i >> 16) & 1 ? (unsigned char)text[i % (sizeof(text) - 1)] :
				       (unsigned char)x;
	}
	return p;
}

static int mem_fd(const void *data, size_t len)
{
	int fd = memfd_create("test-compress", MFD_CLOEXEC);
	const char *p = data;

	if (fd < 0)
		return -1;
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	if (lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Whole contents of fd (rewound first, and again after). */
static unsigned char *slurp(int fd, size_t *len)
{
	off_t end = lseek(fd, 0, SEEK_END);
	unsigned char *p;

	if (end < 0 || lseek(fd, 0, SEEK_SET) != 0)
		return NULL;
	p = malloc((size_t)end + 1);
	if (!p)
		return NULL;
	if (pread(fd, p, (size_t)end, 0) != (ssize_t)end) {
		free(p);
		return NULL;
	}
	*len = (size_t)end;
	return p;
}

/* Compress data with c into a new memfd, rewound; -1 on any failure. */
static int compress_to_fd(const void *data, size_t len, enum fw_compress c)
{
	uint8_t d[FW_SHA256_LEN];
	uint64_t n;
	int src = mem_fd(data, len), dst = memfd_create("out", MFD_CLOEXEC);
	int r = -1;

	if (src >= 0 && dst >= 0 &&
	    fw_copy_compress(src, dst, c, len, d, &n) == 0 && n == len &&
	    lseek(dst, 0, SEEK_SET) == 0)
		r = dst;
	if (src >= 0)
		close(src);
	if (r < 0 && dst >= 0)
		close(dst);
	return r;
}

/* One round trip; returns a line number on failure, 0 on success. */
static int round_trip(size_t len, enum fw_compress c)
{
	unsigned char *data = make_data(len, (uint32_t)len);
	uint8_t want[FW_SHA256_LEN], got[FW_SHA256_LEN], dec[FW_SHA256_LEN];
	uint64_t n = 0, dsize = 0;
	unsigned flags = 99;
	unsigned char *z = NULL, *plain = NULL;
	size_t zlen = 0;
	int src = -1, dst = -1, fail = 0;

#define RT_CHECK(cond) do { if (!(cond)) { fail = __LINE__; goto out; } } while (0)
	RT_CHECK(data);
	RT_CHECK(fw_sha256_buf(data, len, want) == 0);
	src = mem_fd(data, len);
	dst = memfd_create("out", MFD_CLOEXEC);
	RT_CHECK(src >= 0 && dst >= 0);
	RT_CHECK(fw_copy_compress(src, dst, c, len, got, &n) == 0);
	RT_CHECK(n == len);
	RT_CHECK(memcmp(got, want, FW_SHA256_LEN) == 0);

	RT_CHECK(lseek(dst, 0, SEEK_SET) == 0);
	RT_CHECK(fw_digest_decompress(dst, c, dec, &dsize, &flags) == 0);
	RT_CHECK(dsize == len);
	RT_CHECK(flags == 0);
	RT_CHECK(memcmp(dec, want, FW_SHA256_LEN) == 0);

	/* Independent one-shot decode, as the kernel does it. */
	z = slurp(dst, &zlen);
	RT_CHECK(z);
	plain = malloc(len ? len : 1);
	RT_CHECK(plain);
	if (c == FW_COMP_NONE) {
		RT_CHECK(zlen == len && memcmp(z, data, len) == 0);
	} else if (c == FW_COMP_XZ) {
		uint64_t memlimit = UINT64_MAX;
		size_t in_pos = 0, out_pos = 0;

		/* Stream flags: byte 6 is 0, byte 7 the check ID, 1 = CRC32. */
		RT_CHECK(zlen >= 12 && memcmp(z, "\3757zXZ\0", 6) == 0);
		RT_CHECK(z[6] == 0x00 && z[7] == LZMA_CHECK_CRC32);
		RT_CHECK(lzma_stream_buffer_decode(&memlimit, 0, NULL, z, &in_pos, zlen,
						   plain, &out_pos, len) == LZMA_OK);
		RT_CHECK(in_pos == zlen && out_pos == len);
		RT_CHECK(memcmp(plain, data, len) == 0);
	} else {
		RT_CHECK(ZSTD_getFrameContentSize(z, zlen) == len);
		RT_CHECK(ZSTD_findFrameCompressedSize(z, zlen) == zlen);
		RT_CHECK(ZSTD_decompress(plain, len, z, zlen) == len);
		RT_CHECK(memcmp(plain, data, len) == 0);
	}
#undef RT_CHECK
out:
	if (fail)
		fprintf(stderr, "round trip %s, %zu bytes: failed at line %d\n",
			fw_compress_name(c), len, fail);
	free(plain);
	free(z);
	free(data);
	if (src >= 0)
		close(src);
	if (dst >= 0)
		close(dst);
	return fail;
}

TEST(round_trip_none)
{
	for (size_t i = 0; i < sizeof(round_trip_sizes) / sizeof(round_trip_sizes[0]); i++)
		CHECK_EQ_INT(round_trip(round_trip_sizes[i], FW_COMP_NONE), 0);
}

TEST(round_trip_xz)
{
	for (size_t i = 0; i < sizeof(round_trip_sizes) / sizeof(round_trip_sizes[0]); i++)
		CHECK_EQ_INT(round_trip(round_trip_sizes[i], FW_COMP_XZ), 0);
}

TEST(round_trip_zstd)
{
	for (size_t i = 0; i < sizeof(round_trip_sizes) / sizeof(round_trip_sizes[0]); i++)
		CHECK_EQ_INT(round_trip(round_trip_sizes[i], FW_COMP_ZSTD), 0);
}

/* Known answer: the digest is of the uncompressed bytes, not the file. */
TEST(digest_known_answer)
{
	static const uint8_t abc[FW_SHA256_LEN] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40,
		0xde, 0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17,
		0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
	};

	for (size_t i = 0; i < 3; i++) {
		uint8_t d[FW_SHA256_LEN];
		uint64_t n;
		int src = mem_fd("abc", 3), dst = memfd_create("out", MFD_CLOEXEC);

		CHECK(src >= 0 && dst >= 0);
		CHECK_EQ_INT(fw_copy_compress(src, dst, all_comp[i], 3, d, &n), 0);
		CHECK(memcmp(d, abc, sizeof(abc)) == 0);
		CHECK(lseek(dst, 0, SEEK_SET) == 0);
		memset(d, 0, sizeof(d));
		CHECK_EQ_INT(fw_digest_decompress(dst, all_comp[i], d, &n, NULL), 0);
		CHECK(memcmp(d, abc, sizeof(abc)) == 0);
		CHECK_EQ_INT(n, 3);
		close(src);
		close(dst);
	}
}

/* Same input, same bytes out: packages must be reproducible. */
TEST(output_is_deterministic)
{
	size_t len = MIB + 7;
	unsigned char *data = make_data(len, 42);

	CHECK(data);
	for (size_t i = 0; i < 3; i++) {
		int a = compress_to_fd(data, len, all_comp[i]);
		int b = compress_to_fd(data, len, all_comp[i]);
		unsigned char *pa, *pb;
		size_t la = 0, lb = 0;

		CHECK(a >= 0 && b >= 0);
		pa = slurp(a, &la);
		pb = slurp(b, &lb);
		CHECK(pa && pb);
		CHECK_EQ_INT(la, lb);
		CHECK(memcmp(pa, pb, la) == 0);
		/* The compressible half must actually shrink. */
		if (all_comp[i] != FW_COMP_NONE)
			CHECK(la < len * 3 / 4);
		free(pa);
		free(pb);
		close(a);
		close(b);
	}
	free(data);
}

/* A blob smaller than preset 6's 8 MiB dictionary gets a smaller one,
 * so neither the encoder nor the kernel's xz_dec pays for 8 MiB. */
TEST(xz_dictionary_fits_blob)
{
	size_t len = 100000;
	unsigned char *data = make_data(len, 7), *z;
	size_t zlen = 0;
	lzma_stream strm = LZMA_STREAM_INIT;
	unsigned char out[4096];
	int fd;

	CHECK(data);
	fd = compress_to_fd(data, len, FW_COMP_XZ);
	CHECK(fd >= 0);
	z = slurp(fd, &zlen);
	CHECK(z);
	/* Decoder memory usage reflects the dictionary size of the block. */
	CHECK(lzma_stream_decoder(&strm, UINT64_MAX, 0) == LZMA_OK);
	strm.next_in = z;
	strm.avail_in = zlen;
	strm.next_out = out;
	strm.avail_out = sizeof(out);
	CHECK(lzma_code(&strm, LZMA_RUN) == LZMA_OK);
	CHECK(lzma_memusage(&strm) < 1 * MIB);
	lzma_end(&strm);
	free(z);
	free(data);
	close(fd);
}

/* The manifest's size is wrong (file grew or shrank): -ESTALE, digest
 * untouched, for every format; also for an empty file said to be non-empty. */
TEST(expected_size_mismatch)
{
	size_t len = 300000;
	unsigned char *data = make_data(len, 3);
	const uint64_t wrong[] = { len - 1, len + 1, 0, len + 128 * 1024, 1 };

	CHECK(data);
	for (size_t i = 0; i < 3; i++) {
		for (size_t j = 0; j < sizeof(wrong) / sizeof(wrong[0]); j++) {
			uint8_t d[FW_SHA256_LEN];
			uint64_t n = 0;
			int src = mem_fd(data, len), dst = memfd_create("out", MFD_CLOEXEC);

			CHECK(src >= 0 && dst >= 0);
			memset(d, 0xaa, sizeof(d));
			CHECK_EQ_INT(fw_copy_compress(src, dst, all_comp[i], wrong[j], d, &n),
				     -ESTALE);
			for (size_t k = 0; k < sizeof(d); k++)
				CHECK_EQ_INT(d[k], 0xaa);
			/* The count says how far it got past the promise, and
			 * a grown file is not read to its end. */
			if (wrong[j] < len)
				CHECK(n > wrong[j]);
			else
				CHECK_EQ_INT(n, len);
			if (wrong[j] + 128 * 1024 < len)
				CHECK(n < len);
			close(src);
			close(dst);
		}
		{
			uint8_t d[FW_SHA256_LEN];
			int src = mem_fd("", 0), dst = memfd_create("out", MFD_CLOEXEC);

			CHECK(src >= 0 && dst >= 0);
			CHECK_EQ_INT(fw_copy_compress(src, dst, all_comp[i], 1, d, NULL), -ESTALE);
			close(src);
			close(dst);
		}
	}
	free(data);
}

/* Decompress a modified copy of a good compressed file. */
static int decompress_buf(const void *z, size_t zlen, enum fw_compress c,
			  uint8_t d[FW_SHA256_LEN], uint64_t *size, unsigned *flags)
{
	int fd = mem_fd(z, zlen), r;

	if (fd < 0)
		return -999;
	r = fw_digest_decompress(fd, c, d, size, flags);
	close(fd);
	return r;
}

TEST(corrupt_and_truncated_give_ebadmsg)
{
	size_t len = 400000;
	unsigned char *data = make_data(len, 9);

	CHECK(data);
	for (size_t i = 1; i < 3; i++) {
		enum fw_compress c = all_comp[i];
		int fd = compress_to_fd(data, len, c);
		unsigned char *z;
		size_t zlen = 0;
		uint8_t d[FW_SHA256_LEN];
		uint64_t n;
		unsigned flags;

		CHECK(fd >= 0);
		z = slurp(fd, &zlen);
		CHECK(z);
		close(fd);

		/* Truncations, including inside the header and the trailer. */
		{
			const size_t cuts[] = { 0, 1, 4, 10, zlen / 2, zlen - 5, zlen - 1 };

			for (size_t j = 0; j < sizeof(cuts) / sizeof(cuts[0]); j++)
				CHECK_EQ_INT(decompress_buf(z, cuts[j], c, d, &n, &flags), -EBADMSG);
		}
		/* A flipped bit in the header, the middle and the last byte
		 * (the check / checksum). */
		{
			const size_t pos[] = { 0, 5, zlen / 2, zlen - 1 };

			for (size_t j = 0; j < sizeof(pos) / sizeof(pos[0]); j++) {
				z[pos[j]] ^= 0x10;
				CHECK_EQ_INT(decompress_buf(z, zlen, c, d, &n, &flags), -EBADMSG);
				z[pos[j]] ^= 0x10;
			}
		}
		/* Sanity: the unmodified file still decodes. */
		CHECK_EQ_INT(decompress_buf(z, zlen, c, d, &n, &flags), 0);
		CHECK_EQ_INT(n, len);
		/* Not this format at all. */
		CHECK_EQ_INT(decompress_buf(data, 1000, c, d, &n, &flags), -EBADMSG);
		free(z);
	}
	free(data);
}

/* xz with another check than CRC32 decodes (and is verified), but is flagged:
 * the kernel's xz_dec would refuse it. */
static int xz_with_check(lzma_check check, const void *data, size_t len,
			 uint8_t d[FW_SHA256_LEN], uint64_t *n, unsigned *flags)
{
	size_t cap = lzma_stream_buffer_bound(len), zlen = 0;
	unsigned char *z = malloc(cap);
	int r = -999;

	if (z && lzma_easy_buffer_encode(6, check, NULL, data, len, z, &zlen, cap) == LZMA_OK) {
		/* Make sure the header says what we asked for. */
		if (z[7] == (unsigned char)check)
			r = decompress_buf(z, zlen, FW_COMP_XZ, d, n, flags);
	}
	free(z);
	return r;
}

TEST(xz_check_flags)
{
	size_t len = 200000;
	unsigned char *data = make_data(len, 11);
	uint8_t want[FW_SHA256_LEN], d[FW_SHA256_LEN];
	uint64_t n;
	unsigned flags;

	CHECK(data);
	CHECK(fw_sha256_buf(data, len, want) == 0);

	flags = 0;
	CHECK_EQ_INT(xz_with_check(LZMA_CHECK_CRC64, data, len, d, &n, &flags), 0);
	CHECK_EQ_INT(flags, FW_DECOMP_XZ_BAD_CHECK);
	CHECK_EQ_INT(n, len);
	CHECK(memcmp(d, want, sizeof(d)) == 0);

	flags = 0;
	CHECK_EQ_INT(xz_with_check(LZMA_CHECK_SHA256, data, len, d, &n, &flags), 0);
	CHECK_EQ_INT(flags, FW_DECOMP_XZ_BAD_CHECK);
	CHECK(memcmp(d, want, sizeof(d)) == 0);

	flags = 99;
	CHECK_EQ_INT(xz_with_check(LZMA_CHECK_NONE, data, len, d, &n, &flags), 0);
	CHECK_EQ_INT(flags, 0);
	CHECK(memcmp(d, want, sizeof(d)) == 0);

	flags = 99;
	CHECK_EQ_INT(xz_with_check(LZMA_CHECK_CRC32, data, len, d, &n, &flags), 0);
	CHECK_EQ_INT(flags, 0);
	CHECK(memcmp(d, want, sizeof(d)) == 0);

	/* Flagged on an empty stream too: the header alone says it. */
	flags = 0;
	CHECK_EQ_INT(xz_with_check(LZMA_CHECK_CRC64, "", 0, d, &n, &flags), 0);
	CHECK_EQ_INT(flags, FW_DECOMP_XZ_BAD_CHECK);
	CHECK_EQ_INT(n, 0);
	free(data);
}

/* A zstd frame whose header has no content size: streamed with
 * e_continue first, so libzstd cannot know the size when writing it. */
TEST(zstd_no_content_size)
{
	size_t len = 300000, cap = ZSTD_compressBound(len) + 1024;
	unsigned char *data = make_data(len, 13), *z = malloc(cap);
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	ZSTD_inBuffer in = { data, len, 0 };
	ZSTD_outBuffer out = { z, cap, 0 };
	uint8_t want[FW_SHA256_LEN], d[FW_SHA256_LEN];
	uint64_t n;
	unsigned flags = 0;
	size_t rem;

	CHECK(data && z && cctx);
	CHECK(fw_sha256_buf(data, len, want) == 0);
	while (in.pos < in.size)
		CHECK(!ZSTD_isError(ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_continue)));
	do {
		rem = ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_end);
		CHECK(!ZSTD_isError(rem));
	} while (rem != 0);
	CHECK(ZSTD_getFrameContentSize(z, out.pos) == ZSTD_CONTENTSIZE_UNKNOWN);

	CHECK_EQ_INT(decompress_buf(z, out.pos, FW_COMP_ZSTD, d, &n, &flags), 0);
	CHECK_EQ_INT(flags, FW_DECOMP_ZSTD_NO_SIZE);
	CHECK_EQ_INT(n, len);
	CHECK(memcmp(d, want, sizeof(d)) == 0);
	ZSTD_freeCCtx(cctx);
	free(z);
	free(data);
}

/* Build first + second into one buffer and decode it. */
static int decode_concat(enum fw_compress c, const unsigned char *a, size_t alen,
			 const void *b, size_t blen, uint8_t d[FW_SHA256_LEN],
			 uint64_t *n, unsigned *flags)
{
	unsigned char *cat = malloc(alen + blen + 1);
	int r;

	if (!cat)
		return -999;
	memcpy(cat, a, alen);
	memcpy(cat + alen, b, blen);
	r = decompress_buf(cat, alen + blen, c, d, n, flags);
	free(cat);
	return r;
}

/* Two frames/streams, padding or garbage after the first: flagged, and
 * only the first one (what the kernel loads) is in the digest and size. */
TEST(trailing_data)
{
	size_t alen = 250000, blen = 70000;
	unsigned char *a = make_data(alen, 21), *b = make_data(blen, 22);
	uint8_t want[FW_SHA256_LEN];

	CHECK(a && b);
	CHECK(fw_sha256_buf(a, alen, want) == 0);
	for (size_t i = 1; i < 3; i++) {
		enum fw_compress c = all_comp[i];
		int fa = compress_to_fd(a, alen, c), fb = compress_to_fd(b, blen, c);
		unsigned char *za, *zb;
		size_t zalen = 0, zblen = 0;
		uint8_t d[FW_SHA256_LEN];
		uint64_t n = 0;
		unsigned flags = 0;
		/* xz stream padding is NUL bytes in multiples of four. */
		static const unsigned char pad[4] = { 0 };

		CHECK(fa >= 0 && fb >= 0);
		za = slurp(fa, &zalen);
		zb = slurp(fb, &zblen);
		CHECK(za && zb);

		CHECK_EQ_INT(decode_concat(c, za, zalen, zb, zblen, d, &n, &flags), 0);
		CHECK_EQ_INT(flags, FW_DECOMP_TRAILING);
		CHECK_EQ_INT(n, alen);
		CHECK(memcmp(d, want, sizeof(d)) == 0);

		flags = 0;
		CHECK_EQ_INT(decode_concat(c, za, zalen, "garbage", 7, d, &n, &flags), 0);
		CHECK_EQ_INT(flags, FW_DECOMP_TRAILING);
		CHECK(memcmp(d, want, sizeof(d)) == 0);

		flags = 0;
		CHECK_EQ_INT(decode_concat(c, za, zalen, pad, sizeof(pad), d, &n, &flags), 0);
		CHECK_EQ_INT(flags, FW_DECOMP_TRAILING);

		/* A single trailing byte is enough. */
		flags = 0;
		CHECK_EQ_INT(decode_concat(c, za, zalen, "x", 1, d, &n, &flags), 0);
		CHECK_EQ_INT(flags, FW_DECOMP_TRAILING);

		free(za);
		free(zb);
		close(fa);
		close(fb);
	}
	free(a);
	free(b);
}

/*
 * Skippable frames: one after the first frame is trailing data (the kernel
 * ignores it, so must the digest); one before it leaves the kernel without
 * a content size.
 */
TEST(zstd_skippable_frames)
{
	const size_t chunk = 128 * 1024;
	unsigned char *z = malloc(chunk + 1);
	unsigned char *data = make_data(1000, 31);
	uint8_t want[FW_SHA256_LEN], d[FW_SHA256_LEN];
	uint64_t n;
	unsigned flags = 0;
	size_t first, skip;

	CHECK(z && data);
	CHECK(fw_sha256_buf(data, 1000, want) == 0);
	first = ZSTD_compress(z, chunk, data, 1000, 3);
	CHECK(!ZSTD_isError(first));
	/* Skippable frame: 4-byte magic, 4-byte little-endian length. */
	skip = chunk - first - 8;
	z[first] = 0x50;
	z[first + 1] = 0x2a;
	z[first + 2] = 0x4d;
	z[first + 3] = 0x18;
	z[first + 4] = (unsigned char)skip;
	z[first + 5] = (unsigned char)(skip >> 8);
	z[first + 6] = (unsigned char)(skip >> 16);
	z[first + 7] = 0;
	memset(z + first + 8, 0, skip);
	z[chunk] = 'x';

	/* Frame + skippable frame exactly filling the first read. */
	CHECK_EQ_INT(decompress_buf(z, chunk, FW_COMP_ZSTD, d, &n, &flags), 0);
	CHECK_EQ_INT(flags, FW_DECOMP_TRAILING);
	CHECK_EQ_INT(n, 1000);
	CHECK(memcmp(d, want, sizeof(d)) == 0);
	/* Frame alone, then one byte: all in the first read. */
	memmove(z + chunk - first, z, first);
	flags = 0;
	CHECK_EQ_INT(decompress_buf(z + chunk - first, first + 1, FW_COMP_ZSTD, d, &n, &flags), 0);
	CHECK_EQ_INT(flags, FW_DECOMP_TRAILING);
	CHECK(memcmp(d, want, sizeof(d)) == 0);
	/* Skippable frame first, real frame after it. */
	memcpy(z, "\x50\x2a\x4d\x18\x00\x00\x00\x00", 8);
	memmove(z + 8, z + chunk - first, first);
	flags = 0;
	CHECK_EQ_INT(decompress_buf(z, 8 + first, FW_COMP_ZSTD, d, &n, &flags), 0);
	CHECK(flags & FW_DECOMP_ZSTD_NO_SIZE);
	free(data);
	free(z);
}

/*
 * A stream/frame whose compressed size is exactly one 128 KiB read, then one
 * more byte: only a read past the buffer can see it. Incompressible data
 * makes the compressed size grow one for one with the input, so the input
 * length is adjusted until the output lands on the boundary.
 */
TEST(trailing_after_read_boundary)
{
	const size_t chunk = 128 * 1024;
	unsigned char *data = malloc(chunk);
	uint32_t x = 12345;

	CHECK(data);
	for (size_t i = 0; i < chunk; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		data[i] = (unsigned char)x;
	}
	for (size_t i = 1; i < 3; i++) {
		size_t len = chunk - 256, zlen = 0;
		unsigned char *z = NULL;
		uint8_t want[FW_SHA256_LEN], d[FW_SHA256_LEN];
		uint64_t n;
		unsigned flags = 0;

		for (int tries = 0; tries < 16; tries++) {
			int fd = compress_to_fd(data, len, all_comp[i]);

			CHECK(fd >= 0);
			free(z);
			z = slurp(fd, &zlen);
			close(fd);
			CHECK(z);
			if (zlen == chunk)
				break;
			len = len + chunk - zlen;
		}
		CHECK_EQ_INT(zlen, chunk);
		CHECK(fw_sha256_buf(data, len, want) == 0);

		CHECK_EQ_INT(decompress_buf(z, zlen, all_comp[i], d, &n, &flags), 0);
		CHECK_EQ_INT(flags, 0);
		CHECK_EQ_INT(n, len);
		CHECK(memcmp(d, want, sizeof(d)) == 0);

		CHECK_EQ_INT(decode_concat(all_comp[i], z, zlen, "x", 1, d, &n, &flags), 0);
		CHECK_EQ_INT(flags, FW_DECOMP_TRAILING);
		CHECK_EQ_INT(n, len);
		CHECK(memcmp(d, want, sizeof(d)) == 0);
		free(z);
	}
	free(data);
}

/* Writes into a full filesystem: -ENOSPC, and nothing leaks (ASan). */
TEST(write_error_enospc)
{
	size_t len = 600000;
	unsigned char *data = make_data(len, 17);
	int full = open("/dev/full", O_WRONLY | O_CLOEXEC);

	CHECK(data);
	CHECK(full >= 0);
	for (size_t i = 0; i < 3; i++) {
		uint8_t d[FW_SHA256_LEN];
		int src = mem_fd(data, len);

		CHECK(src >= 0);
		CHECK_EQ_INT(fw_copy_compress(src, full, all_comp[i], len, d, NULL), -ENOSPC);
		close(src);
		/* Even an empty input writes a header (xz, zstd) at the end. */
		if (all_comp[i] != FW_COMP_NONE) {
			src = mem_fd("", 0);
			CHECK(src >= 0);
			CHECK_EQ_INT(fw_copy_compress(src, full, all_comp[i], 0, d, NULL), -ENOSPC);
			close(src);
		}
	}
	close(full);
	free(data);
}

/* A read error is returned as -errno, for both directions. */
TEST(read_error_is_errno)
{
	int wronly = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int dst = memfd_create("out", MFD_CLOEXEC);

	CHECK(wronly >= 0 && dst >= 0);
	for (size_t i = 0; i < 3; i++) {
		uint8_t d[FW_SHA256_LEN];
		uint64_t n;
		unsigned flags;

		CHECK_EQ_INT(fw_copy_compress(wronly, dst, all_comp[i], 10, d, &n), -EBADF);
		CHECK_EQ_INT(fw_digest_decompress(wronly, all_comp[i], d, &n, &flags), -EBADF);
	}
	close(wronly);
	close(dst);
}

TEST(bad_enum_is_einval)
{
	uint8_t d[FW_SHA256_LEN];
	uint64_t n;
	unsigned flags;

	CHECK_EQ_INT(fw_copy_compress(0, 1, (enum fw_compress)7, 0, d, &n), -EINVAL);
	CHECK_EQ_INT(fw_digest_decompress(0, (enum fw_compress)7, d, &n, &flags), -EINVAL);
	CHECK(fw_compress_suffix((enum fw_compress)7) == NULL);
	CHECK(fw_compress_name((enum fw_compress)7) == NULL);
}

/* The memory install budgets per encoder: none for a plain copy; more for
 * a larger blob, up to the full xz -6 dictionary (93 MiB of encoder) and
 * zstd -12's largest window; bounded by FW_COMPRESS_MEM_MAX. */
TEST(memusage)
{
	uint64_t xs = fw_compress_memusage(FW_COMP_XZ, 1000);
	uint64_t xl = fw_compress_memusage(FW_COMP_XZ, 64u << 20);
	uint64_t zs = fw_compress_memusage(FW_COMP_ZSTD, 1000);
	uint64_t zl = fw_compress_memusage(FW_COMP_ZSTD, 64u << 20);

	CHECK_EQ_INT(fw_compress_memusage(FW_COMP_NONE, 64u << 20), 0);
	CHECK(xs > 0 && xs < xl);
	CHECK(zs > 0 && zs < zl);
	CHECK(xl >= (90ull << 20) && xl <= FW_COMPRESS_MEM_MAX);
	CHECK(zl >= (32ull << 20) && zl <= FW_COMPRESS_MEM_MAX);
	/* The dictionary stops growing at 8 MiB: so does the need. */
	CHECK_EQ_INT(fw_compress_memusage(FW_COMP_XZ, 8u << 20), xl);
}

/* Empty compressed files are not valid xz or zstd; empty plain is. */
TEST(empty_files)
{
	uint8_t d[FW_SHA256_LEN], e[FW_SHA256_LEN];
	uint64_t n = 1;
	unsigned flags = 1;

	CHECK_EQ_INT(decompress_buf("", 0, FW_COMP_XZ, d, &n, &flags), -EBADMSG);
	CHECK_EQ_INT(decompress_buf("", 0, FW_COMP_ZSTD, d, &n, &flags), -EBADMSG);
	CHECK_EQ_INT(decompress_buf("", 0, FW_COMP_NONE, d, &n, &flags), 0);
	CHECK_EQ_INT(n, 0);
	CHECK_EQ_INT(flags, 0);
	CHECK(fw_sha256_buf("", 0, e) == 0);
	CHECK(memcmp(d, e, sizeof(d)) == 0);
}

TEST(names_suffixes_parse)
{
	enum fw_compress c = FW_COMP_ZSTD;

	CHECK_EQ_STR(fw_compress_suffix(FW_COMP_NONE), "");
	CHECK_EQ_STR(fw_compress_suffix(FW_COMP_XZ), ".xz");
	CHECK_EQ_STR(fw_compress_suffix(FW_COMP_ZSTD), ".zst");
	CHECK_EQ_STR(fw_compress_name(FW_COMP_NONE), "none");
	CHECK_EQ_STR(fw_compress_name(FW_COMP_XZ), "xz");
	CHECK_EQ_STR(fw_compress_name(FW_COMP_ZSTD), "zstd");

	CHECK_EQ_INT(fw_compress_parse("none", &c), 0);
	CHECK_EQ_INT(c, FW_COMP_NONE);
	CHECK_EQ_INT(fw_compress_parse("xz", &c), 0);
	CHECK_EQ_INT(c, FW_COMP_XZ);
	CHECK_EQ_INT(fw_compress_parse("zstd", &c), 0);
	CHECK_EQ_INT(c, FW_COMP_ZSTD);

	/* Strict: no case folding, no suffix spellings, no whitespace. */
	{
		const char *bad[] = { "", "XZ", "Zstd", "zst", ".xz", "xz ", " xz", "gzip",
				      "nonee", "zstd\n" };

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			c = FW_COMP_ZSTD;
			CHECK_EQ_INT(fw_compress_parse(bad[i], &c), -EINVAL);
			CHECK_EQ_INT(c, FW_COMP_ZSTD); /* untouched on error */
		}
		CHECK_EQ_INT(fw_compress_parse(NULL, &c), -EINVAL);
	}
	/* Each name parses back to itself. */
	for (size_t i = 0; i < 3; i++) {
		CHECK_EQ_INT(fw_compress_parse(fw_compress_name(all_comp[i]), &c), 0);
		CHECK_EQ_INT(c, all_comp[i]);
	}
}

/* Encode data with liblzma's own encoder and a given dictionary, into a memfd. */
static int xz_with_dict(const unsigned char *data, size_t len, uint32_t dict)
{
	lzma_options_lzma opt;
	lzma_filter filters[] = {
		{ .id = LZMA_FILTER_LZMA2, .options = &opt },
		{ .id = LZMA_VLI_UNKNOWN, .options = NULL },
	};
	size_t cap = len + len / 2 + 4096, pos = 0;
	unsigned char *out = malloc(cap);
	int fd = -1;

	if (!out || lzma_lzma_preset(&opt, 1))
		goto out;
	opt.dict_size = dict;
	if (lzma_stream_buffer_encode(filters, LZMA_CHECK_CRC32, NULL, data, len, out, &pos, cap) ==
	    LZMA_OK)
		fd = mem_fd(out, pos);
out:
	free(out);
	return fd;
}

/* The decoders' estimate: what the file's header declares (the xz block's
 * dictionary, the zstd window), as liblzma and libzstd measure it, plus the
 * two I/O buffers; nothing for a plain file; and reading it leaves the
 * offset where the decoder starts. */
TEST(decompress_memusage_from_header)
{
	size_t len = 200000;
	unsigned char *data = make_data(len, 11), *z;
	uint8_t dig[FW_SHA256_LEN];
	uint64_t size = 0, need;
	size_t zlen = 0;
	lzma_stream strm = LZMA_STREAM_INIT;
	unsigned char out[4096];
	int fd;

	CHECK(data);
	CHECK(fw_decompress_memusage(-1, FW_COMP_NONE) == 0);
	/* A 64 MiB dictionary declared for 200 kB: the decoder allocates it whole. */
	fd = xz_with_dict(data, len, 64 * MIB);
	CHECK(fd >= 0);
	need = fw_decompress_memusage(fd, FW_COMP_XZ);
	z = slurp(fd, &zlen);
	CHECK(z);
	CHECK(lzma_stream_decoder(&strm, UINT64_MAX, 0) == LZMA_OK);
	strm.next_in = z;
	strm.avail_in = zlen;
	strm.next_out = out;
	strm.avail_out = sizeof(out);
	CHECK(lzma_code(&strm, LZMA_RUN) == LZMA_OK);
	CHECK(lzma_memusage(&strm) > 64 * MIB);
	CHECK(need >= lzma_memusage(&strm) && need < lzma_memusage(&strm) + 1 * MIB);
	lzma_end(&strm);
	free(z);
	CHECK(lseek(fd, 0, SEEK_CUR) == 0);
	CHECK(fw_digest_decompress(fd, FW_COMP_XZ, dig, &size, NULL) == 0 && size == len);
	close(fd);
	/* What fwdist's own encoder wrote: the dictionary shrunk to the blob. */
	fd = compress_to_fd(data, len, FW_COMP_XZ);
	CHECK(fd >= 0);
	CHECK(fw_decompress_memusage(fd, FW_COMP_XZ) < 2 * MIB);
	close(fd);
	/* Not xz at all: counted as the most the decoder would ever take. */
	fd = mem_fd("not xz", 6);
	CHECK(fd >= 0);
	CHECK(fw_decompress_memusage(fd, FW_COMP_XZ) >= 256 * MIB);
	close(fd);
	/* zstd: the frame's window, as libzstd estimates it for that frame. */
	fd = compress_to_fd(data, len, FW_COMP_ZSTD);
	CHECK(fd >= 0);
	z = slurp(fd, &zlen);
	CHECK(z);
	need = fw_decompress_memusage(fd, FW_COMP_ZSTD);
	CHECK(need == ZSTD_estimateDStreamSize_fromFrame(z, zlen) + 256 * 1024);
	CHECK(need < 2 * MIB);
	free(z);
	close(fd);
	free(data);
}
