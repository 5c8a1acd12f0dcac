/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Intel HEX reader/writer and the kernel's binary ihex records: pure, no allocation. */
#include "ihex.h"

#include <string.h>

_Static_assert(IHEX_LINE_MAX >= 1 + 2 * (1 + 2 + 1 + 255 + 1) + 1, "a record of 255 bytes fits");

const char *ihex_strerror(enum ihex_error e)
{
	switch (e) {
	case IHEX_OK: return "no error";
	case IHEX_ENOCOLON: return "line does not start with ':'";
	case IHEX_ENONHEX: return "non-hex character";
	case IHEX_ESHORT: return "short record";
	case IHEX_ELONG: return "characters after the checksum";
	case IHEX_ECHECKSUM: return "bad checksum";
	case IHEX_ETYPE: return "unknown record type";
	case IHEX_EFORM: return "wrong length or address for the record type";
	case IHEX_EWRAP: return "data record crosses a 64 KiB boundary";
	case IHEX_EOVERLAP: return "overlapping data";
	case IHEX_EMIXED: return "segment (02) and linear (04) addresses both in force";
	case IHEX_EAFTER: return "data after the end-of-file record";
	case IHEX_ENOEOF: return "no end-of-file record";
	case IHEX_ERUNS: return "too many separate runs of data";
	case IHEX_EBIN: return "binary ihex record runs past the end, or no end record";
	case IHEX_EBINZERO: return "binary ihex: zero-length record before the end";
	}
	return "unknown error";
}

int ihex_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One decoded record. */
struct rec {
	unsigned len, type;
	uint16_t addr;
	uint8_t data[255];
};

static enum ihex_error decode(const char *ls, const char *le, struct rec *r)
{
	uint8_t b[5 + 255];
	size_t nd, need, i;
	unsigned sum = 0;

	if (ls == le || *ls != ':')
		return IHEX_ENOCOLON;
	ls++;
	nd = (size_t)(le - ls);
	/* Every character must be a hex digit: checked before any length
	 * logic so that "short" never hides a bad character. */
	for (i = 0; i < nd; i++)
		if (ihex_hexval(ls[i]) < 0)
			return IHEX_ENONHEX;
	if (nd < 10)
		return IHEX_ESHORT;
	r->len = (unsigned)(ihex_hexval(ls[0]) << 4 | ihex_hexval(ls[1]));
	need = 2 * (5 + (size_t)r->len);
	if (nd < need)
		return IHEX_ESHORT;
	if (nd > need)
		return IHEX_ELONG;
	for (i = 0; i < need / 2; i++) {
		b[i] = (uint8_t)(ihex_hexval(ls[2 * i]) << 4 | ihex_hexval(ls[2 * i + 1]));
		sum += b[i];
	}
	if (sum & 0xff)
		return IHEX_ECHECKSUM;
	r->addr = (uint16_t)(b[1] << 8 | b[2]);
	r->type = b[3];
	memcpy(r->data, b + 4, r->len);
	return IHEX_OK;
}

/* Walk the lines: LF or CRLF endings; the last line may lack its newline. */
struct walk {
	const char *p, *e;
	unsigned line;
};

static int next_line(struct walk *w, const char **ls, const char **le)
{
	const char *s = w->p, *n;

	if (s >= w->e)
		return 0;
	for (n = s; n < w->e && *n != '\n'; n++)
		;
	if (n == w->e)
		n = NULL;
	*ls = s;
	*le = n ? n : w->e;
	w->p = n ? n + 1 : w->e;
	if (*le > s && (*le)[-1] == '\r')
		(*le)--;
	w->line++;
	return 1;
}

/* The state of addressing while reading. */
struct addr_state {
	uint32_t seg, lin; /* 02: segment << 4; 04: upper << 16 */
};

/* Zero n bytes (padding, the end record). Not with memset, which this file
 * promises not to need: nor with a plain loop or "= { 0 }", which gcc and
 * clang turn into a call to memset. A volatile store stays a store
 * (tests/images/run checks the object with nm at every -O level). */
static void zero(uint8_t *p, size_t n)
{
	volatile uint8_t *v = p;

	while (n--)
		*v++ = 0;
}

static void walk_init(struct walk *w, const char *text, size_t len, struct addr_state *a)
{
	w->p = text;
	w->e = text + len;
	w->line = 0;
	a->seg = a->lin = 0;
}

static enum ihex_error record_meta(const struct rec *r, struct addr_state *a, struct ihex_info *info)
{
	switch (r->type) {
	case 0:
		return IHEX_OK;
	case 1:
		return r->len == 0 ? IHEX_OK : IHEX_EFORM;
	case 2:
	case 4:
		if (r->len != 2 || r->addr != 0)
			return IHEX_EFORM;
		if (r->type == 2)
			a->seg = (uint32_t)(r->data[0] << 8 | r->data[1]) << 4;
		else
			a->lin = (uint32_t)(r->data[0] << 8 | r->data[1]) << 16;
		/* Readers disagree on how the two combine (BFD adds them,
		 * srec_cat takes the last one): refuse rather than guess. */
		return a->seg && a->lin ? IHEX_EMIXED : IHEX_OK;
	case 3:
	case 5:
		if (r->len != 4 || r->addr != 0)
			return IHEX_EFORM;
		if (info) {
			uint32_t v = (uint32_t)r->data[0] << 24 | (uint32_t)r->data[1] << 16 |
				     (uint32_t)r->data[2] << 8 | r->data[3];
			if (r->type == 3) {
				info->has_cs_ip = 1;
				info->cs_ip = v;
			} else {
				info->has_start = 1;
				info->start = v;
			}
		}
		return IHEX_OK;
	}
	return IHEX_ETYPE;
}

static enum ihex_error ierr(struct ihex_err *err, enum ihex_error code, unsigned line,
			    uint64_t off, unsigned type)
{
	if (err) {
		err->code = code;
		err->line = line;
		err->offset = off;
		err->type = type;
	}
	return code;
}

enum ihex_error ihex_scan(const char *text, size_t len, struct ihex_run *runs, size_t max_runs,
			  struct ihex_info *info, struct ihex_err *err)
{
	struct walk w;
	struct addr_state a;
	const char *ls, *le;
	int seen_eof = 0;
	struct rec r;

	/* Field by field: clang builds an initialised struct with memset, even
	 * at -O0, and gcc a compound literal (see zero()). */
	walk_init(&w, text, len, &a);
	info->nruns = 0;
	info->records = info->lines = 0;
	info->has_start = info->has_cs_ip = 0;
	info->start = info->cs_ip = 0;
	while (next_line(&w, &ls, &le)) {
		uint64_t off = (uint64_t)(ls - text);
		enum ihex_error e;
		uint32_t addr;

		info->lines = w.line;
		if (seen_eof)
			return ierr(err, IHEX_EAFTER, w.line, off, 0);
		e = decode(ls, le, &r);
		if (e == IHEX_OK)
			e = record_meta(&r, &a, info);
		if (e != IHEX_OK)
			return ierr(err, e, w.line, off, r.type);
		if (r.type == 1) {
			seen_eof = 1;
			continue;
		}
		if (r.type != 0 || r.len == 0)
			continue;
		if ((uint32_t)r.addr + r.len > 0x10000)
			return ierr(err, IHEX_EWRAP, w.line, off, 0);
		addr = a.seg + a.lin + r.addr;
		info->records++;
		/* Records continuing the last run extend it; anything else is
		 * checked against every run (the table is the caller's). */
		if (info->nruns && runs[info->nruns - 1].addr + runs[info->nruns - 1].len == addr &&
		    runs[info->nruns - 1].len + r.len > runs[info->nruns - 1].len) {
			runs[info->nruns - 1].len += r.len;
			continue;
		}
		for (size_t i = 0; i < info->nruns; i++)
			if (addr < runs[i].addr + (uint64_t)runs[i].len &&
			    runs[i].addr < (uint64_t)addr + r.len)
				return ierr(err, IHEX_EOVERLAP, w.line, off, 0);
		if (info->nruns == max_runs)
			return ierr(err, IHEX_ERUNS, w.line, off, 0);
		runs[info->nruns].addr = addr;
		runs[info->nruns].len = r.len;
		info->nruns++;
	}
	if (!seen_eof)
		return ierr(err, IHEX_ENOEOF, w.line + 1, len, 0);
	/* Sort by address (insertion sort: no libc beyond memcpy), merge. */
	for (size_t i = 1; i < info->nruns; i++) {
		struct ihex_run x = runs[i];
		size_t j = i;

		while (j > 0 && runs[j - 1].addr > x.addr) {
			runs[j] = runs[j - 1];
			j--;
		}
		runs[j] = x;
	}
	if (info->nruns) {
		size_t n = 1;

		for (size_t i = 1; i < info->nruns; i++) {
			if ((uint64_t)runs[n - 1].addr + runs[n - 1].len == runs[i].addr &&
			    (uint64_t)runs[n - 1].len + runs[i].len <= UINT32_MAX)
				runs[n - 1].len += runs[i].len;
			else
				runs[n++] = runs[i];
		}
		info->nruns = n;
	}
	return ierr(err, IHEX_OK, 0, 0, 0);
}

void ihex_fill(const char *text, size_t len, uint8_t *out, uint32_t base, uint64_t outlen)
{
	struct walk w;
	struct addr_state a;
	const char *ls, *le;
	struct rec r;

	walk_init(&w, text, len, &a);
	while (next_line(&w, &ls, &le)) {
		if (decode(ls, le, &r) != IHEX_OK || record_meta(&r, &a, NULL) != IHEX_OK)
			return;
		if (r.type == 1)
			return;
		if (r.type != 0)
			continue;
		for (unsigned i = 0; i < r.len; i++) {
			uint64_t at = (uint64_t)a.seg + a.lin + r.addr + i;

			if (at >= base && at - base < outlen)
				out[at - base] = r.data[i];
		}
	}
}

size_t ihex_bin_records(const char *text, size_t len, uint8_t *out)
{
	struct walk w;
	struct addr_state a;
	const char *ls, *le;
	struct rec r;
	size_t k = 0;

	walk_init(&w, text, len, &a);
	while (next_line(&w, &ls, &le)) {
		if (decode(ls, le, &r) != IHEX_OK || record_meta(&r, &a, NULL) != IHEX_OK ||
		    r.type == 1)
			break;
		if (r.type != 0 || r.len == 0)
			continue;
		if (out)
			k += ihex_bin_put(out + k, a.seg + a.lin + r.addr, r.data, (uint16_t)r.len);
		else
			k += ihex_bin_size((uint16_t)r.len);
	}
	if (out)
		ihex_bin_put(out + k, 0, NULL, 0);
	return k + IHEX_BIN_HDR;
}

size_t ihex_put_record(char *out, unsigned type, uint16_t addr, const uint8_t *data, size_t n)
{
	static const char hx[] = "0123456789ABCDEF";
	uint8_t b[5 + 255];
	unsigned sum = 0;
	size_t k = 0;

	b[0] = (uint8_t)n;
	b[1] = (uint8_t)(addr >> 8);
	b[2] = (uint8_t)addr;
	b[3] = (uint8_t)type;
	if (n)
		memcpy(b + 4, data, n);
	for (size_t i = 0; i < n + 4; i++)
		sum += b[i];
	b[n + 4] = (uint8_t)(0x100 - (sum & 0xff));
	out[k++] = ':';
	for (size_t i = 0; i < n + 5; i++) {
		out[k++] = hx[b[i] >> 4];
		out[k++] = hx[b[i] & 15];
	}
	out[k++] = '\n';
	return k;
}

int ihex_bin_next(const uint8_t *buf, size_t len, size_t *off, struct ihex_binrec *rec,
		  struct ihex_err *err)
{
	size_t o = *off;

	if (o > len || len - o < IHEX_BIN_HDR) {
		ierr(err, IHEX_EBIN, 0, o, 0);
		return -1;
	}
	rec->offset = o;
	rec->addr = (uint32_t)buf[o] << 24 | (uint32_t)buf[o + 1] << 16 | (uint32_t)buf[o + 2] << 8 |
		    buf[o + 3];
	rec->len = (uint16_t)(buf[o + 4] << 8 | buf[o + 5]);
	rec->data = buf + o + IHEX_BIN_HDR;
	if (rec->len == 0) {
		/* ihex_validate_fw(): the zero-length record must sit exactly
		 * in the last 6 bytes; an earlier one is refused here. */
		if (len - o != IHEX_BIN_HDR) {
			ierr(err, IHEX_EBINZERO, 0, o, 0);
			return -1;
		}
		*off = len;
		return 0;
	}
	if (ihex_bin_size(rec->len) > len - o) {
		ierr(err, IHEX_EBIN, 0, o, 0);
		return -1;
	}
	*off = o + ihex_bin_size(rec->len);
	return 1;
}

size_t ihex_bin_put(uint8_t *out, uint32_t addr, const uint8_t *data, uint16_t n)
{
	size_t sz = ihex_bin_size(n);

	if (n == 0) {
		zero(out, IHEX_BIN_HDR);
		return sz;
	}
	out[0] = (uint8_t)(addr >> 24);
	out[1] = (uint8_t)(addr >> 16);
	out[2] = (uint8_t)(addr >> 8);
	out[3] = (uint8_t)addr;
	out[4] = (uint8_t)(n >> 8);
	out[5] = (uint8_t)n;
	memcpy(out + IHEX_BIN_HDR, data, n);
	zero(out + IHEX_BIN_HDR + n, sz - IHEX_BIN_HDR - n);
	return sz;
}
