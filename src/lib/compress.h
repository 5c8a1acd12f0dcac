/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Streaming compression the kernel's firmware loader accepts (xz/crc32, zstd), with hashing. */
#ifndef FWDIST_COMPRESS_H
#define FWDIST_COMPRESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "digest.h"

enum fw_compress {
	FW_COMP_NONE = 0,
	FW_COMP_XZ,   /* liblzma, LZMA2, check CRC32: the kernel's xz_dec refuses CRC64 */
	FW_COMP_ZSTD, /* libzstd, one frame with its content size: the kernel needs it */
};

/* "", ".xz", ".zst" */
const char *fw_compress_suffix(enum fw_compress c);
/* "none", "xz", "zstd" */
const char *fw_compress_name(enum fw_compress c);
/* Parse "none" | "xz" | "zstd". 0 or -EINVAL. */
int fw_compress_parse(const char *s, enum fw_compress *c);

/* Copy the regular file open on src to dst, compressing with c (none: plain
 * copy), hashing the uncompressed bytes as they are read. expected_size is
 * the size the manifest promises; zstd pledges it so the frame header carries
 * the content size. Memory is bounded whatever the file size. Short writes and
 * EINTR are handled; ENOSPC and other write errors return -errno.
 * Returns 0, -ESTALE if the input's length differs from expected_size (the
 * digest is then not computed), -ENOMEM, -EIO for a library failure, or -errno. */
int fw_copy_compress(int src, int dst, enum fw_compress c, uint64_t expected_size,
		     uint8_t digest[FW_SHA256_LEN], uint64_t *size_read);
/* The same, adding each chunk's length to progress->bytes_done as it is
 * read (progress may be NULL). */
struct fw_progress;
int fw_copy_compress_counted(int src, int dst, enum fw_compress c, uint64_t expected_size,
			     uint8_t digest[FW_SHA256_LEN], uint64_t *size_read,
			     struct fw_progress *progress);

/* The memory fw_copy_compress needs to compress a blob of size bytes with
 * c: the encoder's (liblzma's and libzstd's own estimates; the xz
 * dictionary shrinks to the blob) and the I/O buffers; 0 for none, which
 * needs no encoder. */
uint64_t fw_compress_memusage(enum fw_compress c, uint64_t size);
/* xz -6 with its full 8 MiB dictionary, the most either needs: assumed
 * when liblzma cannot say. */
#define FW_COMPRESS_MEM_MAX (96ull << 20)

/* The memory the decoder of c needs for the file open on fd, from its
 * header (read with pread: the offset stays): the xz dictionary its first
 * block declares, or the zstd frame's window, as liblzma and libzstd
 * estimate them, and the I/O buffers; at most the decoders' hard caps. 0
 * for none. fw_digest_decompress and fw_decoder_open take this from the
 * process's memory budget (membudget.h) while they run. */
uint64_t fw_decompress_memusage(int fd, enum fw_compress c);

/* Flags reported by fw_digest_decompress about kernel compatibility. */
#define FW_DECOMP_XZ_BAD_CHECK    0x1u /* xz stream check is not CRC32 (or NONE) */
#define FW_DECOMP_ZSTD_NO_SIZE    0x2u /* zstd frame header lacks the content size */
#define FW_DECOMP_TRAILING        0x4u /* more than one frame/stream, or trailing data */

/* Decompress the file open on fd (c selects the format; none: plain read) and
 * compute SHA-256 and size of the content. Bounded memory. Returns 0 (with
 * *flags set from FW_DECOMP_*), -EBADMSG for corrupt or truncated data, -ENOMEM,
 * or -errno from read(). */
int fw_digest_decompress(int fd, enum fw_compress c, uint8_t digest[FW_SHA256_LEN],
			 uint64_t *size, unsigned *flags);

/* A decoder read piecewise, for a reader that needs only part of the
 * content (the ELF headers and .modinfo of a .ko.xz): the content of the
 * file open on fd, read from its current offset (at the file's start: the
 * memory estimate reads the header there), as c (none: as is), in the
 * caller's pieces; nothing past what the caller asks for is decoded, so a
 * small file that expands to gigabytes costs only what is read of it. Its
 * decoder's memory (fw_decompress_memusage) is taken from the process's
 * budget from open to close. 0, -ENOMEM or -EINVAL (c unknown). */
struct fw_decoder;
int fw_decoder_open(struct fw_decoder **dp, int fd, enum fw_compress c);
/* Up to len bytes of content into buf: fewer only at its end (the end of
 * the first xz stream or zstd frame, as the kernel decodes). Their count,
 * 0 at the end, -EBADMSG for corrupt or truncated data, -ENOMEM, or
 * -errno from read(). */
ssize_t fw_decoder_read(struct fw_decoder *dec, void *buf, size_t len);
/* NULL is fine. */
void fw_decoder_close(struct fw_decoder *dec);

#endif
