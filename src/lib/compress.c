/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Streaming xz/zstd compression and decompression in the forms the kernel's firmware loader accepts. */
#include "compress.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lzma.h>
/* For ZSTD_estimateCStreamSize_usingCParams, ZSTD_getCParams and
 * ZSTD_estimateDStreamSize_fromFrame, the memory estimates of
 * fw_compress_memusage and fw_decompress_memusage: zstd's "experimental"
 * API, exported by libzstd.so all the same. Only those estimates use it. */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zstd_errors.h>

#include "membudget.h"
#include "progress.h"
#include "util.h"

/*
 * Fixed buffers whatever the file size: memory stays bounded and the same
 * for a 1 KiB and a 1 GiB blob. Allocated per call, not static, because
 * install runs one copy per core.
 */
#define IO_BUF_SIZE (128u * 1024u)

/*
 * xz: preset 6 is what linux-firmware's copy-firmware.sh gets from
 * `xz -C crc32`. Its 8 MiB dictionary is shrunk to the blob's size (see
 * xz_encoder_init), so small blobs do not cost a 94 MiB encoder.
 */
#define XZ_PRESET 6

/*
 * Decoding refuses xz streams that need more than this: bounded memory even
 * for a hostile file. xz -9 needs 65 MiB, so any sane stream fits.
 */
#define XZ_DEC_MEMLIMIT (256u << 20)

/*
 * zstd level 12: on a 20 MB binary, level 19 was 6% smaller but ten times
 * slower (1.7 MB/s against 18 MB/s), which would make installing a whole
 * linux-firmware tree take many minutes; 12 keeps most of the ratio. The
 * kernel decompresses firmware in one call, so neither the level nor the
 * window changes what it needs to load the file.
 */
#define ZSTD_LEVEL 12

/*
 * Decoding refuses zstd frames with a window above 2^27 (128 MiB), which is
 * libzstd's own default limit; set explicitly so the bound is visible here.
 */
#define ZSTD_DEC_WINDOWLOG_MAX 27

/* One read(), retried on EINTR. */
static ssize_t read_retry(int fd, void *buf, size_t len)
{
	for (;;) {
		ssize_t n = read(fd, buf, len);

		if (n >= 0)
			return n;
		if (errno != EINTR)
			return -errno;
	}
}

/*
 * Fill buf up to len bytes, stopping early only at end of file. A short
 * result therefore means EOF, which keeps the callers' loops simple and
 * guarantees the zstd frame header is complete in the first chunk.
 */
static ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read_retry(fd, (char *)buf + got, len - got);

		if (n < 0)
			return n;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* Write all of buf: short writes are continued, EINTR retried. */
static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		/* write() returning 0 for a non-empty buffer would loop forever. */
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

const char *fw_compress_suffix(enum fw_compress c)
{
	switch (c) {
	case FW_COMP_NONE:
		return "";
	case FW_COMP_XZ:
		return ".xz";
	case FW_COMP_ZSTD:
		return ".zst";
	}
	/* NULL rather than "": a wrong suffix would install a misnamed file. */
	return NULL;
}

const char *fw_compress_name(enum fw_compress c)
{
	switch (c) {
	case FW_COMP_NONE:
		return "none";
	case FW_COMP_XZ:
		return "xz";
	case FW_COMP_ZSTD:
		return "zstd";
	}
	return NULL;
}

int fw_compress_parse(const char *s, enum fw_compress *c)
{
	/* Exact, case-sensitive names only: reject rather than guess. */
	if (!s)
		return -EINVAL;
	if (strcmp(s, "none") == 0)
		*c = FW_COMP_NONE;
	else if (strcmp(s, "xz") == 0)
		*c = FW_COMP_XZ;
	else if (strcmp(s, "zstd") == 0)
		*c = FW_COMP_ZSTD;
	else
		return -EINVAL;
	return 0;
}

/* --- compression -------------------------------------------------------- */

struct copy_state {
	int src, dst;
	uint64_t expected, total;
	struct fw_sha256 h;
	unsigned char *in, *out;
	struct fw_progress *progress; /* counts each chunk read, or NULL */
};

/*
 * Read the next chunk of the source into st->in and hash it. Returns its
 * length (0 at EOF), -ESTALE as soon as the length disagrees with the
 * manifest, or -errno. Checking while reading stops early on a grown file
 * instead of compressing bytes that will be thrown away.
 */
static ssize_t copy_read(struct copy_state *st)
{
	ssize_t n = read_full(st->src, st->in, IO_BUF_SIZE);
	int r;

	if (n < 0)
		return n;
	if (n == 0)
		return st->total == st->expected ? 0 : -ESTALE;
	st->total += (uint64_t)n;
	if (st->total > st->expected)
		return -ESTALE;
	fw_progress_bytes(st->progress, (uint64_t)n);
	r = fw_sha256_update(&st->h, st->in, (size_t)n);
	return r < 0 ? r : n;
}

static int copy_none(struct copy_state *st)
{
	for (;;) {
		ssize_t n = copy_read(st);
		int r;

		if (n <= 0)
			return (int)n;
		r = write_all(st->dst, st->in, (size_t)n);
		if (r < 0)
			return r;
	}
}

static int lzma_ret_errno(lzma_ret ret)
{
	switch (ret) {
	case LZMA_MEM_ERROR:
	case LZMA_MEMLIMIT_ERROR:
		return -ENOMEM;
	default:
		return -EIO;
	}
}

/* The LZMA2 options for a blob of expected bytes. */
static int xz_options(lzma_options_lzma *opt, uint64_t expected)
{
	if (lzma_lzma_preset(opt, XZ_PRESET))
		return -EIO;
	/*
	 * A dictionary larger than the input cannot find more matches, so
	 * shrinking it to the blob's size costs no ratio. It bounds the
	 * encoder's memory (about 11x the dictionary) and the kernel's:
	 * fw_decompress_xz_pages, used unless the driver supplied its own
	 * buffer, runs xz_dec in XZ_DYNALLOC mode, which vmallocs the full
	 * dictionary size the header declares.
	 * expected is the manifest's size, so the output is still a pure
	 * function of the blob: installs stay reproducible.
	 */
	if (expected < opt->dict_size)
		opt->dict_size = expected < LZMA_DICT_SIZE_MIN ?
			LZMA_DICT_SIZE_MIN : (uint32_t)expected;
	return 0;
}

static int xz_encoder_init(lzma_stream *strm, uint64_t expected)
{
	lzma_options_lzma opt;
	lzma_filter filters[] = {
		{ .id = LZMA_FILTER_LZMA2, .options = &opt },
		{ .id = LZMA_VLI_UNKNOWN, .options = NULL },
	};
	lzma_ret ret;

	if (xz_options(&opt, expected) < 0)
		return -EIO;
	/*
	 * CRC32, not liblzma's default CRC64: the kernel's xz_dec refuses
	 * CRC64, and the driver would fail to load its firmware.
	 */
	ret = lzma_stream_encoder(strm, filters, LZMA_CHECK_CRC32);
	return ret == LZMA_OK ? 0 : lzma_ret_errno(ret);
}

static int copy_xz(struct copy_state *st)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	lzma_action action = LZMA_RUN;
	int r = xz_encoder_init(&strm, st->expected);

	if (r < 0)
		goto out;
	strm.next_out = st->out;
	strm.avail_out = IO_BUF_SIZE;
	for (;;) {
		lzma_ret ret;

		if (strm.avail_in == 0 && action == LZMA_RUN) {
			ssize_t n = copy_read(st);

			if (n < 0) {
				r = (int)n;
				goto out;
			}
			if (n == 0)
				action = LZMA_FINISH;
			strm.next_in = st->in;
			strm.avail_in = (size_t)n;
		}
		ret = lzma_code(&strm, action);
		if (strm.avail_out == 0 || ret == LZMA_STREAM_END) {
			r = write_all(st->dst, st->out, IO_BUF_SIZE - strm.avail_out);
			if (r < 0)
				goto out;
			strm.next_out = st->out;
			strm.avail_out = IO_BUF_SIZE;
		}
		if (ret == LZMA_STREAM_END)
			break;
		if (ret != LZMA_OK) {
			r = lzma_ret_errno(ret);
			goto out;
		}
	}
	r = 0;
out:
	lzma_end(&strm);
	return r;
}

static int zstd_err_errno(size_t ret)
{
	switch (ZSTD_getErrorCode(ret)) {
	case ZSTD_error_memory_allocation:
		return -ENOMEM;
	default:
		return -EIO;
	}
}

static int zstd_encoder_init(ZSTD_CCtx *cctx, uint64_t expected)
{
	size_t ret;

	ret = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, ZSTD_LEVEL);
	/* The decoder verifies it: a corrupted install is caught by verify. */
	if (!ZSTD_isError(ret))
		ret = ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	/* Default already, but the kernel depends on it: say so. */
	if (!ZSTD_isError(ret))
		ret = ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
	/*
	 * The pledged size goes into the frame header: the kernel's
	 * fw_decompress_zstd sizes its output buffer from it and refuses a
	 * frame without it. It also lets libzstd pick parameters for the size.
	 */
	if (!ZSTD_isError(ret))
		ret = ZSTD_CCtx_setPledgedSrcSize(cctx, expected);
	return ZSTD_isError(ret) ? zstd_err_errno(ret) : 0;
}

static int copy_zstd(struct copy_state *st)
{
	/*
	 * Single-threaded (nbWorkers 0, the default): install already runs
	 * one copy per core, and a single-threaded frame is reproducible.
	 */
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	int r;

	if (!cctx)
		return -ENOMEM;
	r = zstd_encoder_init(cctx, st->expected);
	if (r < 0)
		goto out;
	for (;;) {
		ssize_t n = copy_read(st);
		ZSTD_EndDirective mode = n == 0 ? ZSTD_e_end : ZSTD_e_continue;
		ZSTD_inBuffer in = { st->in, n > 0 ? (size_t)n : 0, 0 };
		size_t rem;

		if (n < 0) {
			r = (int)n;
			goto out;
		}
		/*
		 * e_continue: until the chunk is consumed (output may stay
		 * buffered inside the context); e_end: until all is flushed.
		 */
		do {
			ZSTD_outBuffer out = { st->out, IO_BUF_SIZE, 0 };

			rem = ZSTD_compressStream2(cctx, &out, &in, mode);
			if (ZSTD_isError(rem)) {
				/* Cannot happen after copy_read's checks; kept
				 * so a size mismatch never passes as -EIO. */
				r = ZSTD_getErrorCode(rem) == ZSTD_error_srcSize_wrong ?
					-ESTALE : zstd_err_errno(rem);
				goto out;
			}
			r = write_all(st->dst, st->out, out.pos);
			if (r < 0)
				goto out;
		} while (mode == ZSTD_e_end ? rem != 0 : in.pos < in.size);
		if (mode == ZSTD_e_end)
			break;
	}
	r = 0;
out:
	ZSTD_freeCCtx(cctx);
	return r;
}

uint64_t fw_compress_memusage(enum fw_compress c, uint64_t size)
{
	uint64_t enc = 0;

	if (c == FW_COMP_XZ) {
		lzma_options_lzma opt;
		lzma_filter filters[] = {
			{ .id = LZMA_FILTER_LZMA2, .options = &opt },
			{ .id = LZMA_VLI_UNKNOWN, .options = NULL },
		};

		/* The block encoder around LZMA2 adds a few KiB: noise. */
		enc = xz_options(&opt, size) < 0 ? UINT64_MAX : lzma_raw_encoder_memusage(filters);
	} else if (c == FW_COMP_ZSTD) {
		/* What zstd_encoder_init asks for: the level's parameters
		 * for the pledged size (a smaller window for a small blob). */
		enc = ZSTD_estimateCStreamSize_usingCParams(ZSTD_getCParams(ZSTD_LEVEL, size, 0));
	} else {
		return 0;
	}
	/* UINT64_MAX (liblzma's error): as much as the largest encoder. */
	return enc == UINT64_MAX ? FW_COMPRESS_MEM_MAX : enc + 2 * IO_BUF_SIZE;
}

int fw_copy_compress(int src, int dst, enum fw_compress c, uint64_t expected_size,
		     uint8_t digest[FW_SHA256_LEN], uint64_t *size_read)
{
	return fw_copy_compress_counted(src, dst, c, expected_size, digest, size_read, NULL);
}

int fw_copy_compress_counted(int src, int dst, enum fw_compress c, uint64_t expected_size,
			     uint8_t digest[FW_SHA256_LEN], uint64_t *size_read,
			     struct fw_progress *progress)
{
	struct copy_state st = {
		.src = src, .dst = dst, .expected = expected_size, .total = 0,
		.progress = progress,
	};
	int r;

	if (c != FW_COMP_NONE && c != FW_COMP_XZ && c != FW_COMP_ZSTD)
		return -EINVAL;
	/* One allocation for both buffers: one failure path. */
	st.in = malloc(2 * IO_BUF_SIZE);
	if (!st.in)
		return -ENOMEM;
	st.out = st.in + IO_BUF_SIZE;
	r = fw_sha256_init(&st.h);
	if (r < 0)
		goto out_buf;

	switch (c) {
	case FW_COMP_NONE:
		r = copy_none(&st);
		break;
	case FW_COMP_XZ:
		r = copy_xz(&st);
		break;
	case FW_COMP_ZSTD:
		r = copy_zstd(&st);
		break;
	}
	/* On -ESTALE the count still tells the caller how far it got. */
	if (size_read)
		*size_read = st.total;
	if (r == 0)
		r = fw_sha256_final(&st.h, digest);

	fw_sha256_free(&st.h);
out_buf:
	free(st.in);
	return r;
}

/* --- decompression ------------------------------------------------------ */

struct dec_state {
	int fd;
	uint64_t total;
	struct fw_sha256 h;
	unsigned char *in, *out;
	unsigned flags;
};

static int dec_output(struct dec_state *st, size_t len)
{
	st->total += len;
	return len ? fw_sha256_update(&st->h, st->out, len) : 0;
}

/*
 * After the first stream/frame: anything left in the buffer or the file is
 * trailing data. The kernel decodes only the first one, so the extra bytes
 * are never part of the firmware: flag them and leave them out of the
 * digest. One probe read suffices; there is no need to read the rest.
 */
static int dec_check_trailing(struct dec_state *st, size_t left_in_buf)
{
	ssize_t n;

	if (left_in_buf == 0) {
		n = read_retry(st->fd, st->in, 1);
		if (n < 0)
			return (int)n;
		left_in_buf = (size_t)n;
	}
	if (left_in_buf > 0)
		st->flags |= FW_DECOMP_TRAILING;
	return 0;
}

static int dec_none(struct dec_state *st)
{
	for (;;) {
		ssize_t n = read_full(st->fd, st->out, IO_BUF_SIZE);
		int r;

		if (n <= 0)
			return (int)n;
		r = dec_output(st, (size_t)n);
		if (r < 0)
			return r;
	}
}

static int lzma_dec_errno(lzma_ret ret)
{
	switch (ret) {
	case LZMA_FORMAT_ERROR:  /* not xz */
	case LZMA_OPTIONS_ERROR: /* reserved flags, unknown filter */
	case LZMA_DATA_ERROR:    /* corrupt, check mismatch */
	case LZMA_BUF_ERROR:     /* truncated */
		return -EBADMSG;
	default:
		return lzma_ret_errno(ret);
	}
}

static int dec_xz(struct dec_state *st)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	lzma_action action = LZMA_RUN;
	lzma_ret ret;
	int r;

	/*
	 * Not LZMA_CONCATENATED: the kernel decodes a single stream, so a
	 * second one (or padding) must be seen as trailing, not as content.
	 * LZMA_TELL_ANY_CHECK reports the check type as soon as the stream
	 * header is read, whatever it is, so a CRC64 stream is flagged
	 * (while still decoded and verified).
	 */
	ret = lzma_stream_decoder(&strm, XZ_DEC_MEMLIMIT, LZMA_TELL_ANY_CHECK);
	if (ret != LZMA_OK) {
		r = lzma_ret_errno(ret);
		goto out;
	}
	strm.next_out = st->out;
	strm.avail_out = IO_BUF_SIZE;
	for (;;) {
		if (strm.avail_in == 0 && action == LZMA_RUN) {
			ssize_t n = read_full(st->fd, st->in, IO_BUF_SIZE);

			if (n < 0) {
				r = (int)n;
				goto out;
			}
			/* FINISH at EOF turns a truncated stream into an error. */
			if (n == 0)
				action = LZMA_FINISH;
			strm.next_in = st->in;
			strm.avail_in = (size_t)n;
		}
		ret = lzma_code(&strm, action);
		if (strm.avail_out == 0 || ret == LZMA_STREAM_END) {
			r = dec_output(st, IO_BUF_SIZE - strm.avail_out);
			if (r < 0)
				goto out;
			strm.next_out = st->out;
			strm.avail_out = IO_BUF_SIZE;
		}
		if (ret == LZMA_GET_CHECK) {
			lzma_check check = lzma_get_check(&strm);

			/* What the kernel's xz_dec verifies: CRC32 or none. */
			if (check != LZMA_CHECK_CRC32 && check != LZMA_CHECK_NONE)
				st->flags |= FW_DECOMP_XZ_BAD_CHECK;
			continue;
		}
		if (ret == LZMA_STREAM_END)
			break;
		if (ret != LZMA_OK) {
			r = lzma_dec_errno(ret);
			goto out;
		}
	}
	r = dec_check_trailing(st, strm.avail_in);
out:
	lzma_end(&strm);
	return r;
}

static int zstd_dec_errno(size_t ret)
{
	switch (ZSTD_getErrorCode(ret)) {
	case ZSTD_error_memory_allocation:
	/* Over our window bound: refused to keep memory bounded. */
	case ZSTD_error_frameParameter_windowTooLarge:
		return -ENOMEM;
	default:
		return -EBADMSG;
	}
}

/*
 * Look at the first frame header the way the kernel does (it calls
 * zstd_get_frame_content_size on the whole file). len is the first chunk,
 * which read_full made either IO_BUF_SIZE or the whole file, so a header
 * cut short here is cut short in the file.
 */
static int zstd_check_header(const unsigned char *p, size_t len, unsigned *flags)
{
	uint32_t magic;
	unsigned long long fcs;

	if (len < 4)
		return -EBADMSG;
	magic = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		(uint32_t)p[3] << 24;
	/*
	 * A leading skippable frame gives the kernel no content size (libzstd
	 * reports 0 for it), so the kernel cannot load the file.
	 */
	if ((magic & ZSTD_MAGIC_SKIPPABLE_MASK) == ZSTD_MAGIC_SKIPPABLE_START) {
		*flags |= FW_DECOMP_ZSTD_NO_SIZE;
		return 0;
	}
	/*
	 * Checked by hand because libzstd, if built with legacy support,
	 * would accept pre-v0.8 formats the kernel does not decode.
	 */
	if (magic != ZSTD_MAGICNUMBER)
		return -EBADMSG;
	fcs = ZSTD_getFrameContentSize(p, len);
	if (fcs == ZSTD_CONTENTSIZE_ERROR)
		return -EBADMSG;
	if (fcs == ZSTD_CONTENTSIZE_UNKNOWN)
		*flags |= FW_DECOMP_ZSTD_NO_SIZE;
	return 0;
}

static int dec_zstd(struct dec_state *st)
{
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	bool first = true;
	size_t ret;
	int r;

	if (!dctx)
		return -ENOMEM;
	ret = ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, ZSTD_DEC_WINDOWLOG_MAX);
	if (ZSTD_isError(ret)) {
		r = -EIO;
		goto out;
	}
	for (;;) {
		ssize_t n = read_full(st->fd, st->in, IO_BUF_SIZE);
		ZSTD_inBuffer in = { st->in, n > 0 ? (size_t)n : 0, 0 };
		ZSTD_outBuffer out;

		if (n < 0) {
			r = (int)n;
			goto out;
		}
		if (first) {
			r = zstd_check_header(st->in, (size_t)n, &st->flags);
			if (r < 0)
				goto out;
			first = false;
		}
		/* EOF before the frame ended: truncated. */
		if (n == 0) {
			r = -EBADMSG;
			goto out;
		}
		/*
		 * Also go round while the output buffer came back full: the
		 * context may hold decoded bytes not yet flushed.
		 */
		do {
			out = (ZSTD_outBuffer){ st->out, IO_BUF_SIZE, 0 };
			ret = ZSTD_decompressStream(dctx, &out, &in);
			if (ZSTD_isError(ret)) {
				r = zstd_dec_errno(ret);
				goto out;
			}
			r = dec_output(st, out.pos);
			if (r < 0)
				goto out;
			/*
			 * 0: the first frame is complete and flushed, and
			 * in.pos is exactly at its end. Stop here: further
			 * frames are not what the kernel would load.
			 */
			if (ret == 0) {
				r = dec_check_trailing(st, in.size - in.pos);
				goto out;
			}
		} while (in.pos < in.size || out.pos == out.size);
	}
out:
	ZSTD_freeDCtx(dctx);
	return r;
}

/*
 * What the xz decoder of the stream starting with buf (len bytes) needs:
 * liblzma's estimate for the filters of its first block, whose header
 * declares the dictionary the decoder allocates in full. A stream whose
 * blocks declare larger dictionaries later is still bounded by
 * XZ_DEC_MEMLIMIT; xz(1) writes one filter chain for every block.
 */
static uint64_t xz_dec_memusage(const unsigned char *buf, size_t len)
{
	lzma_stream_flags flags;
	lzma_filter filters[LZMA_FILTERS_MAX + 1];
	lzma_block block = { .version = 0, .filters = filters };
	uint64_t need;

	if (len < LZMA_STREAM_HEADER_SIZE + 1 ||
	    lzma_stream_header_decode(&flags, buf) != LZMA_OK)
		return XZ_DEC_MEMLIMIT; /* the decoder will refuse it; count the most */
	buf += LZMA_STREAM_HEADER_SIZE;
	len -= LZMA_STREAM_HEADER_SIZE;
	if (buf[0] == 0)
		return 0; /* the index: no block, nothing to decode */
	block.check = flags.check;
	block.header_size = lzma_block_header_size_decode(buf[0]);
	if (block.header_size > len || lzma_block_header_decode(&block, NULL, buf) != LZMA_OK)
		return XZ_DEC_MEMLIMIT;
	need = lzma_raw_decoder_memusage(filters);
	for (size_t i = 0; filters[i].id != LZMA_VLI_UNKNOWN; i++)
		free(filters[i].options);
	return need == UINT64_MAX || need > XZ_DEC_MEMLIMIT ? XZ_DEC_MEMLIMIT : need;
}

uint64_t fw_decompress_memusage(int fd, enum fw_compress c)
{
	/* A block header is at most 1024 bytes; a zstd frame header 18. */
	unsigned char buf[LZMA_STREAM_HEADER_SIZE + LZMA_BLOCK_HEADER_SIZE_MAX];
	size_t got = 0;
	uint64_t dec;

	if (c != FW_COMP_XZ && c != FW_COMP_ZSTD)
		return 0;
	/* pread: the decoder reads from the current offset, left as it was. */
	while (got < sizeof(buf)) {
		ssize_t n = pread(fd, buf + got, sizeof(buf) - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* a short or unreadable file: the decoder says so */
		got += (size_t)n;
	}
	if (c == FW_COMP_XZ) {
		dec = xz_dec_memusage(buf, got);
	} else {
		size_t z = ZSTD_estimateDStreamSize_fromFrame(buf, got);

		/* Unreadable header: what the largest window we accept needs. */
		dec = ZSTD_isError(z) ? ZSTD_estimateDStreamSize((size_t)1 << ZSTD_DEC_WINDOWLOG_MAX) : z;
	}
	return dec + 2 * IO_BUF_SIZE;
}

/* Run the decoder of c over st->fd with its two I/O buffers (one
 * allocation, freed before returning). 0 or -errno. */
static int run_decoder_buffers(struct dec_state *st, enum fw_compress c)
{
	int r;

	st->in = malloc(2 * IO_BUF_SIZE);
	if (!st->in)
		return -ENOMEM;
	st->out = st->in + IO_BUF_SIZE;
	switch (c) {
	case FW_COMP_NONE:
		r = dec_none(st);
		break;
	case FW_COMP_XZ:
		r = dec_xz(st);
		break;
	default:
		r = dec_zstd(st);
		break;
	}
	free(st->in);
	st->in = st->out = NULL;
	return r;
}

/* run_decoder_buffers within the process's memory budget (membudget.h). */
static int run_decoder(struct dec_state *st, enum fw_compress c)
{
	uint64_t need = fw_decompress_memusage(st->fd, c);
	int r;

	fw_mem_acquire(need);
	r = run_decoder_buffers(st, c);
	fw_mem_release(need);
	return r;
}
int fw_digest_decompress(int fd, enum fw_compress c, uint8_t digest[FW_SHA256_LEN],
			 uint64_t *size, unsigned *flags)
{
	struct dec_state st = { .fd = fd, .total = 0, .flags = 0 };
	int r;

	if (c != FW_COMP_NONE && c != FW_COMP_XZ && c != FW_COMP_ZSTD)
		return -EINVAL;
	r = fw_sha256_init(&st.h);
	if (r < 0)
		return r;
	r = run_decoder(&st, c);
	if (r == 0)
		r = fw_sha256_final(&st.h, digest);
	if (r == 0) {
		if (size)
			*size = st.total;
		if (flags)
			*flags = st.flags;
	}
	fw_sha256_free(&st.h);
	return r;
}

/* --- piecewise decoding ------------------------------------------------- */

struct fw_decoder {
	int fd;
	enum fw_compress c;
	uint64_t need;          /* taken from the memory budget */
	unsigned char *in;      /* IO_BUF_SIZE */
	bool started, done;
	lzma_stream xz;
	lzma_action action;
	ZSTD_DCtx *zstd;
	ZSTD_inBuffer zin;
};

int fw_decoder_open(struct fw_decoder **dp, int fd, enum fw_compress c)
{
	struct fw_decoder *dec;
	lzma_stream init = LZMA_STREAM_INIT;
	int r = -ENOMEM;

	*dp = NULL;
	if (c != FW_COMP_NONE && c != FW_COMP_XZ && c != FW_COMP_ZSTD)
		return -EINVAL;
	dec = calloc(1, sizeof(*dec));
	if (!dec)
		return -ENOMEM;
	dec->fd = fd;
	dec->c = c;
	dec->xz = init;
	dec->action = LZMA_RUN;
	dec->need = fw_decompress_memusage(fd, c);
	fw_mem_acquire(dec->need);
	dec->in = malloc(IO_BUF_SIZE);
	if (!dec->in)
		goto fail;
	if (c == FW_COMP_XZ) {
		/* As dec_xz: one stream, the kernel's; the check type is
		 * not the reader's concern here. */
		lzma_ret ret = lzma_stream_decoder(&dec->xz, XZ_DEC_MEMLIMIT, 0);

		if (ret != LZMA_OK) {
			r = lzma_ret_errno(ret);
			goto fail;
		}
	} else if (c == FW_COMP_ZSTD) {
		dec->zstd = ZSTD_createDCtx();
		if (!dec->zstd)
			goto fail;
		if (ZSTD_isError(ZSTD_DCtx_setParameter(dec->zstd, ZSTD_d_windowLogMax,
							ZSTD_DEC_WINDOWLOG_MAX))) {
			r = -EIO;
			goto fail;
		}
	}
	*dp = dec;
	return 0;
fail:
	fw_decoder_close(dec);
	return r;
}

static ssize_t decoder_xz(struct fw_decoder *dec, unsigned char *buf, size_t len)
{
	dec->xz.next_out = buf;
	dec->xz.avail_out = len;
	while (dec->xz.avail_out > 0) {
		lzma_ret ret;

		if (dec->xz.avail_in == 0 && dec->action == LZMA_RUN) {
			ssize_t n = read_full(dec->fd, dec->in, IO_BUF_SIZE);

			if (n < 0)
				return n;
			/* FINISH at EOF turns a truncated stream into an error. */
			if (n == 0)
				dec->action = LZMA_FINISH;
			dec->xz.next_in = dec->in;
			dec->xz.avail_in = (size_t)n;
		}
		ret = lzma_code(&dec->xz, dec->action);
		if (ret == LZMA_STREAM_END) {
			dec->done = true;
			break;
		}
		if (ret != LZMA_OK)
			return lzma_dec_errno(ret);
	}
	return (ssize_t)(len - dec->xz.avail_out);
}

static ssize_t decoder_zstd(struct fw_decoder *dec, unsigned char *buf, size_t len)
{
	ZSTD_outBuffer out = { buf, len, 0 };

	while (out.pos < out.size) {
		size_t ret;

		if (dec->zin.pos == dec->zin.size) {
			ssize_t n = read_full(dec->fd, dec->in, IO_BUF_SIZE);
			unsigned flags = 0;

			if (n < 0)
				return n;
			if (!dec->started) {
				/* The magic the kernel accepts, as dec_zstd checks it. */
				int r = zstd_check_header(dec->in, (size_t)n, &flags);

				if (r < 0)
					return r;
				dec->started = true;
			}
			/* EOF before the frame ended: truncated. */
			if (n == 0)
				return -EBADMSG;
			dec->zin = (ZSTD_inBuffer){ dec->in, (size_t)n, 0 };
		}
		ret = ZSTD_decompressStream(dec->zstd, &out, &dec->zin);
		if (ZSTD_isError(ret))
			return zstd_dec_errno(ret);
		/* 0: the first frame is complete and flushed. */
		if (ret == 0) {
			dec->done = true;
			break;
		}
	}
	return (ssize_t)out.pos;
}

ssize_t fw_decoder_read(struct fw_decoder *dec, void *buf, size_t len)
{
	if (dec->done || len == 0)
		return 0;
	/* At most SSIZE_MAX at once, so the count fits. */
	if (len > IO_BUF_SIZE * 64)
		len = IO_BUF_SIZE * 64;
	switch (dec->c) {
	case FW_COMP_XZ:
		return decoder_xz(dec, buf, len);
	case FW_COMP_ZSTD:
		return decoder_zstd(dec, buf, len);
	default: {
		ssize_t n = read_full(dec->fd, buf, len);

		if (n >= 0 && (size_t)n < len)
			dec->done = true;
		return n;
	}
	}
}

void fw_decoder_close(struct fw_decoder *dec)
{
	if (!dec)
		return;
	lzma_end(&dec->xz);
	ZSTD_freeDCtx(dec->zstd);
	free(dec->in);
	fw_mem_release(dec->need);
	free(dec);
}
