/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PCMCIA CIS: pack_cis's text description packed into the bytes pack_cis writes. */
#include "cis.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "ihex.h"
#include "util.h"

/* Tuple codes (PC Card Standard; the kernel's include/pcmcia/cistpl.h). */
enum {
	TPL_DEVICE = 0x01,
	TPL_LONGLINK_MFC = 0x06,
	TPL_LINKTARGET = 0x13,
	TPL_NO_LINK = 0x14,
	TPL_VERS_1 = 0x15,
	TPL_DEVICE_A = 0x17,
	TPL_CONFIG = 0x1a,
	TPL_CFTABLE_ENTRY = 0x1b,
	TPL_MANFID = 0x20,
	TPL_FUNCID = 0x21,
	TPL_END = 0xff,
};

/* pack_cis's limits, which it did not check: its tables hold 8 functions,
 * 4 devices, 4 version strings, 16 I/O and 8 memory windows. A tuple's
 * body is at most 255 bytes (its link byte). */
#define MAX_FUNCS 8
#define MAX_DEVS 4
#define MAX_STRS 4
#define MAX_IOWIN 16
#define MAX_MEMWIN 8
#define TUPLE_MAX 255

enum tok { T_EOF, T_WORD, T_FLAG, T_NUM, T_QTY, T_VERSION, T_STR, T_PUNCT };
/* What a number with a unit measures, and the unit pack_cis keeps it in. */
enum qty { Q_SIZE /* bytes */, Q_TIME /* ns */, Q_VOLT /* 10 uV */, Q_CURR /* 100 nA */ };

struct cis_parse {
	const char *path;
	struct fw_diag *d;
	const char *p, *end;
	unsigned line;   /* of p */
	/* The current token: its kind, text and line; a number's value. */
	enum tok t;
	const char *s;
	size_t n;
	unsigned tline;
	uint32_t num;
	enum qty q;
};

/* One tuple being built: code, link, body. Bytes past the body's 255 are
 * counted, not stored, and the tuple is then refused. */
struct tuple {
	uint8_t b[2 + TUPLE_MAX];
	size_t n;
};

struct chain {
	uint8_t b[FW_CIS_MAX];
	size_t n;
	unsigned tuples;
};

static int fail(struct cis_parse *c, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct cis_parse *c, unsigned line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fw_diag_add(c->d, c->path, line, "%s", msg);
	return -EINVAL;
}

/* ---- the tokens ---- */

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static bool is_alpha(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}

/* The current token for a message: "'text'" (cut at 40 characters), or
 * what it is. */
static const char *tokname(const struct cis_parse *c, char *buf, size_t len)
{
	if (c->t == T_EOF)
		return "end of file";
	if (c->t == T_STR)
		snprintf(buf, len, "\"%.*s\"", (int)(c->n > 40 ? 40 : c->n), c->s);
	else if (c->t == T_FLAG)
		snprintf(buf, len, "'[%.*s]'", (int)(c->n > 40 ? 40 : c->n), c->s);
	else
		snprintf(buf, len, "'%.*s'", (int)(c->n > 40 ? 40 : c->n), c->s);
	return buf;
}

#define TOK(c) tokname((c), (char[64]){ 0 }, 64)

struct unit {
	const char *name;
	enum qty q;
	uint32_t scale; /* 0: refused */
};

/* pack_cis's units, and the scale it multiplies by. It reads uV with a
 * scale of 0.1 passed as an int, that is 0: every uV value is 0. */
static const struct unit unit_table[] = {
	{ "b", Q_SIZE, 1 },         { "kb", Q_SIZE, 1024 },      { "mb", Q_SIZE, 1024 * 1024 },
	{ "s", Q_TIME, 1000000000 }, { "ms", Q_TIME, 1000000 },  { "us", Q_TIME, 1000 },
	{ "ns", Q_TIME, 1 },        { "V", Q_VOLT, 100000 },     { "mV", Q_VOLT, 100 },
	{ "uV", Q_VOLT, 0 },        { "A", Q_CURR, 10000000 },   { "mA", Q_CURR, 10000 },
	{ "uA", Q_CURR, 10 },
};

/* A float (24-bit significand) holds v exactly. */
static bool float_exact(uint64_t v)
{
	while (v && !(v & 1))
		v >>= 1;
	return v < (1u << 24);
}

/*
 * A token that starts with a digit: a number (decimal, or 0x and hex
 * digits), a version (digits.digits, for vers_1) or a whole number with a
 * unit. pack_cis read numbers with strtoul(s, NULL, 0), so 010 was octal:
 * a leading 0 is refused. It read a number with a unit as a float times
 * the unit's scale, rounded: a fraction, or a value a float cannot hold
 * exactly, is refused, so that what is accepted is the exact value.
 */
static int lex_number(struct cis_parse *c)
{
	const char *s = c->p, *e = s;
	size_t n, dig = 0;
	uint64_t v = 0;

	while (e < c->end && (is_alpha(*e) || is_digit(*e) || *e == '.') && *e != '_')
		e++;
	c->p = e;
	c->s = s;
	c->n = n = (size_t)(e - s);
	if (n > 2 && s[0] == '0' && s[1] == 'x') {
		for (size_t i = 2; i < n; i++) {
			int h = ihex_hexval(s[i]);

			if (h < 0)
				return fail(c, c->tline, "%s is not a number", TOK(c));
			v = v << 4 | (unsigned)h;
			if (v > UINT32_MAX)
				return fail(c, c->tline, "%s is out of range (at most 0xffffffff)", TOK(c));
		}
		c->t = T_NUM;
		c->num = (uint32_t)v;
		return 0;
	}
	while (dig < n && is_digit(s[dig]))
		dig++;
	if (dig > 1 && s[0] == '0')
		return fail(c, c->tline, "%s: a leading 0 (pack_cis reads 010 as octal 8)", TOK(c));
	for (size_t i = 0; i < dig; i++) {
		v = v * 10 + (unsigned)(s[i] - '0');
		if (v > UINT32_MAX)
			return fail(c, c->tline, "%s is out of range (at most 4294967295)", TOK(c));
	}
	if (dig == n) {
		c->t = T_NUM;
		c->num = (uint32_t)v;
		return 0;
	}
	if (s[dig] == '.') {
		size_t f = dig + 1;

		while (f < n && is_digit(s[f]))
			f++;
		if (f == n && f > dig + 1) {
			c->t = T_VERSION;
			return 0;
		}
		for (size_t u = 0; f > dig + 1 && u < FW_ARRAY_SIZE(unit_table); u++)
			if (strlen(unit_table[u].name) == n - f &&
			    memcmp(unit_table[u].name, s + f, n - f) == 0)
				return fail(c, c->tline,
					    "%s: a unit takes a whole number (pack_cis reads a fraction "
					    "through a float): use a smaller unit",
					    TOK(c));
		return fail(c, c->tline, "%s is not a number", TOK(c));
	}
	for (size_t u = 0; u < FW_ARRAY_SIZE(unit_table); u++) {
		if (strlen(unit_table[u].name) != n - dig ||
		    memcmp(unit_table[u].name, s + dig, n - dig) != 0)
			continue;
		if (!unit_table[u].scale)
			return fail(c, c->tline, "%s: pack_cis reads every uV value as 0", TOK(c));
		if (v * unit_table[u].scale > UINT32_MAX)
			return fail(c, c->tline, "%s is out of range", TOK(c));
		if (v >= 1u << 24 || !float_exact(v * unit_table[u].scale))
			return fail(c, c->tline, "%s: pack_cis reads it through a float, which does not "
				    "hold it exactly", TOK(c));
		c->t = T_QTY;
		c->q = unit_table[u].q;
		c->num = (uint32_t)(v * unit_table[u].scale);
		return 0;
	}
	return fail(c, c->tline, "%s is not a number", TOK(c));
}

/* The next token. Comments (# or ; to the end of the line) and blanks
 * between tokens are skipped; newlines only count lines. */
static int next(struct cis_parse *c)
{
	const char *q;

	for (;;) {
		while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
			c->p++;
		if (c->p < c->end && (*c->p == '#' || *c->p == ';')) {
			while (c->p < c->end && *c->p != '\n')
				c->p++;
		}
		if (c->p < c->end && *c->p == '\n') {
			c->line++;
			c->p++;
			continue;
		}
		break;
	}
	c->s = c->p;
	c->n = 0;
	c->tline = c->line;
	if (c->p == c->end) {
		c->t = T_EOF;
		return 0;
	}
	switch (*c->p) {
	case '"':
		/* Printable ASCII on one line. pack_cis copied a backslash
		 * and what follows it as they are: refused, as an escape
		 * would be misread. */
		for (q = c->p + 1; q < c->end && *q != '"'; q++)
			if (*q < 0x20 || *q > 0x7e || *q == '\\')
				break;
		if (q == c->end || *q != '"') {
			if (q < c->end && *q == '\\')
				return fail(c, c->tline, "a backslash in a string (pack_cis has no escapes)");
			if (q < c->end && *q != '\n')
				return fail(c, c->tline, "a string holds byte 0x%02x (printable ASCII only)",
					    (unsigned char)*q);
			return fail(c, c->tline, "a string is not closed on its line");
		}
		c->t = T_STR;
		c->s = c->p + 1;
		c->n = (size_t)(q - c->s);
		c->p = q + 1;
		return 0;
	case '[':
		for (q = c->p + 1; q < c->end && (is_alpha(*q) || is_digit(*q) || *q == '='); q++)
			;
		if (q == c->end || *q != ']' || q == c->p + 1)
			return fail(c, c->tline, "'[' not followed by a flag name and ']'");
		c->t = T_FLAG;
		c->s = c->p + 1;
		c->n = (size_t)(q - c->s);
		c->p = q + 1;
		return 0;
	case ',':
	case '-':
	case '{':
	case '}':
	case '@':
		c->t = T_PUNCT;
		c->n = 1;
		c->p++;
		return 0;
	}
	if (is_digit(*c->p))
		return lex_number(c);
	if (is_alpha(*c->p)) {
		for (q = c->p; q < c->end && (is_alpha(*q) || is_digit(*q)); q++)
			;
		c->t = T_WORD;
		c->n = (size_t)(q - c->p);
		c->p = q;
		return 0;
	}
	if (*c->p > 0x20 && *c->p < 0x7f)
		return fail(c, c->tline, "unexpected character '%c'", *c->p);
	return fail(c, c->tline, "unexpected byte 0x%02x", (unsigned char)*c->p);
}

static bool is_word(const struct cis_parse *c, const char *w)
{
	return c->t == T_WORD && c->n == strlen(w) && memcmp(c->s, w, c->n) == 0;
}

static bool is_flag(const struct cis_parse *c, const char *w)
{
	return c->t == T_FLAG && c->n == strlen(w) && memcmp(c->s, w, c->n) == 0;
}

static bool is_punct(const struct cis_parse *c, char ch)
{
	return c->t == T_PUNCT && *c->s == ch;
}

/* The index of the current word in names (NULL-terminated), or -1. */
static int word_in(const struct cis_parse *c, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (is_word(c, names[i]))
			return i;
	return -1;
}

static int expect_punct(struct cis_parse *c, const char *what, char ch)
{
	if (!is_punct(c, ch))
		return fail(c, c->tline, "%s: expected '%c', found %s", what, ch, TOK(c));
	return next(c);
}

static int expect_word(struct cis_parse *c, const char *what, const char *w)
{
	if (!is_word(c, w))
		return fail(c, c->tline, "%s: expected %s, found %s", what, w, TOK(c));
	return next(c);
}

/* A number of at most max. */
static int expect_num(struct cis_parse *c, const char *what, uint32_t max, uint32_t *v)
{
	if (c->t != T_NUM)
		return fail(c, c->tline, "%s: expected a number, found %s", what, TOK(c));
	if (c->num > max)
		return fail(c, c->tline, "%s: %s is out of range (at most 0x%x)", what, TOK(c), max);
	*v = c->num;
	return next(c);
}

static int expect_qty(struct cis_parse *c, const char *what, enum qty q, uint32_t *v)
{
	static const char *const qname[] = { "a size (b, kb, mb)", "a time (s, ms, us, ns)",
					     "a voltage (V, mV)", "a current (A, mA, uA)" };

	if (c->t != T_QTY || c->q != q)
		return fail(c, c->tline, "%s: expected %s, found %s", what, qname[q], TOK(c));
	*v = c->num;
	return next(c);
}

/* ---- tuples ---- */

static void put(struct tuple *t, unsigned byte)
{
	if (t->n < sizeof(t->b))
		t->b[t->n] = (uint8_t)byte;
	t->n++;
}

static void tuple_start(struct tuple *t, unsigned code)
{
	t->n = 0;
	put(t, code);
	put(t, 0);
}

/* Set the link byte and append the tuple to ch. */
static int tuple_end(struct cis_parse *c, unsigned line, const char *what, struct tuple *t,
		     struct chain *ch)
{
	if (t->n - 2 > TUPLE_MAX)
		return fail(c, line, "%s: the tuple would be %zu bytes, more than %u", what, t->n - 2,
			    TUPLE_MAX);
	t->b[1] = (uint8_t)(t->n - 2);
	if (ch->n + t->n > sizeof(ch->b))
		return fail(c, line, "%s: the CIS grows past %u bytes", what, FW_CIS_MAX);
	memcpy(ch->b + ch->n, t->b, t->n);
	ch->n += t->n;
	ch->tuples++;
	return 0;
}

/*
 * A device speed in ns as pack_cis writes it into the device byte (code in
 * the low 3 bits) and, for code 7, an extended speed byte: mantissa
 * 1.0-8.0 and a power of ten of ns. Returns the extended byte, 0 for none,
 * or -1 when pack_cis would round the speed (it takes the next mantissa
 * up) or overflow the exponent.
 */
static const unsigned mantissa[16] = { 10, 12, 13, 15, 20, 25, 30, 35,
				       40, 45, 50, 55, 60, 70, 80, 90 };

static int speed_code(uint32_t ns, unsigned *code)
{
	static const uint32_t fixed[] = { 0, 250, 200, 150, 100 };
	uint32_t s = ns;
	uint64_t back;
	unsigned e = 1, m;

	for (unsigned i = 0; i < FW_ARRAY_SIZE(fixed); i++)
		if (ns == fixed[i]) {
			*code = i;
			return 0;
		}
	while (s > 80) {
		s /= 10;
		e++;
	}
	for (m = 0; m < 15 && mantissa[m] < s; m++)
		;
	if (m == 15 || e > 7)
		return -1;
	back = mantissa[m];
	for (unsigned i = 1; i < e; i++)
		back *= 10;
	if (back != ns)
		return -1;
	*code = 7;
	return (int)((m + 1) << 3 | e);
}

/* The size byte: (units - 1) << 3 | code, units 1-32 of 512 << 2 * code
 * bytes. -1 when pack_cis would round (it divides) or the code is past 6. */
static int size_byte(uint32_t bytes)
{
	uint32_t units = bytes / 512;
	unsigned e = 0;

	while (units > 32) {
		units /= 4;
		e++;
	}
	if (!units || e > 6 || ((uint64_t)units * 512 << 2 * e) != bytes)
		return -1;
	return (int)((units - 1) << 3 | e);
}

static int tuple_device(struct cis_parse *c, struct chain *ch, unsigned code, const char *what)
{
	/* pack_cis's names for the device types, at their codes (2, 8-12, 14
	 * and 15 have none; pack_cis took a number there too: refused). */
	static const char *const types[] = { "NULL", "ROM", "", "EPROM", "EEPROM", "FLASH", "SRAM",
					     "DRAM", "", "", "", "", "", "fn_specific", NULL };
	unsigned line = c->tline, ndev = 0;
	struct tuple t;
	int r, type;

	tuple_start(&t, code);
	if ((r = next(c)) < 0)
		return r;
	if (is_word(c, "no_info")) {
		if ((r = next(c)) < 0)
			return r;
		put(&t, 0xff);
		return tuple_end(c, line, what, &t, ch);
	}
	while ((type = word_in(c, types)) >= 0 && *types[type]) {
		uint32_t speed, size;
		unsigned spcode, sline;
		int ext, sz;

		if (++ndev > MAX_DEVS)
			return fail(c, c->tline, "%s: more than %u devices", what, MAX_DEVS);
		if ((r = next(c)) < 0)
			return r;
		sline = c->tline;
		if ((r = expect_qty(c, what, Q_TIME, &speed)) < 0)
			return r;
		if ((ext = speed_code(speed, &spcode)) < 0)
			return fail(c, sline, "%s: a speed of %u ns cannot be written exactly", what,
				    speed);
		if ((r = expect_punct(c, what, ',')) < 0)
			return r;
		sline = c->tline;
		if ((r = expect_qty(c, what, Q_SIZE, &size)) < 0)
			return r;
		if ((sz = size_byte(size)) < 0)
			return fail(c, sline,
				    "%s: a size of %u bytes cannot be written exactly (1 to 32 times "
				    "512 bytes times a power of 4 up to 4096)",
				    what, size);
		put(&t, (unsigned)type << 4 | spcode);
		if (ext)
			put(&t, (unsigned)ext);
		put(&t, (unsigned)sz);
	}
	if (!ndev)
		return fail(c, c->tline,
			    "%s: expected no_info or a device type (NULL, ROM, EPROM, EEPROM, FLASH, "
			    "SRAM, DRAM, fn_specific), found %s",
			    what, TOK(c));
	put(&t, 0xff);
	return tuple_end(c, line, what, &t, ch);
}

/*
 * vers_1 MAJOR.MINOR: pack_cis read it as a float and took the fraction's
 * digits by multiplying by 10 until it was within 0.01 of a whole number,
 * so 4.10 and 4.01 gave minor 1, and 4.99 gave 1 too. Accepted: N.0, N.D
 * and N.DD (D 1-9, not 99), which it reads right.
 */
static int version(struct cis_parse *c, unsigned *major, unsigned *minor)
{
	const char *dot = memchr(c->s, '.', c->n), *f = dot + 1;
	size_t fn = (size_t)(c->s + c->n - f);
	unsigned v = 0;

	for (const char *p = c->s; p < dot; p++)
		v = v * 10 + (unsigned)(*p - '0');
	if (dot - c->s > 3 || v > 255)
		return fail(c, c->tline, "vers_1: major version %s is out of range (at most 255)", TOK(c));
	*major = v;
	if (fn == 1) {
		*minor = (unsigned)(f[0] - '0');
		return 0;
	}
	if (fn == 2 && f[0] != '0' && f[1] != '0' && !(f[0] == '9' && f[1] == '9')) {
		*minor = (unsigned)(f[0] - '0') * 10 + (unsigned)(f[1] - '0');
		return 0;
	}
	return fail(c, c->tline,
		    "vers_1: version %s is not N.0, N.D or N.DD (pack_cis misreads a minor "
		    "version with a 0 digit, 99 or more than 2 digits)",
		    TOK(c));
}

static int tuple_vers_1(struct cis_parse *c, struct chain *ch)
{
	unsigned line = c->tline, major = 0, minor = 0, ns = 0;
	struct tuple t;
	int r;

	tuple_start(&t, TPL_VERS_1);
	if ((r = next(c)) < 0)
		return r;
	if (c->t != T_VERSION)
		return fail(c, c->tline, "vers_1: expected a version (4.1), found %s", TOK(c));
	if ((r = version(c, &major, &minor)) < 0 || (r = next(c)) < 0)
		return r;
	put(&t, major);
	put(&t, minor);
	while (is_punct(c, ',')) {
		if ((r = next(c)) < 0)
			return r;
		if (c->t != T_STR)
			return fail(c, c->tline, "vers_1: expected a string, found %s", TOK(c));
		if (++ns > MAX_STRS)
			return fail(c, c->tline, "vers_1: more than %u strings", MAX_STRS);
		for (size_t i = 0; i < c->n; i++)
			put(&t, (unsigned char)c->s[i]);
		put(&t, 0);
		if ((r = next(c)) < 0)
			return r;
	}
	for (; ns < MAX_STRS; ns++)
		put(&t, 0);
	put(&t, 0xff);
	return tuple_end(c, line, "vers_1", &t, ch);
}

static int tuple_manfid(struct cis_parse *c, struct chain *ch)
{
	unsigned line = c->tline;
	uint32_t manf, card;
	struct tuple t;
	int r;

	if ((r = next(c)) < 0 || (r = expect_num(c, "manfid", 0xffff, &manf)) < 0 ||
	    (r = expect_punct(c, "manfid", ',')) < 0 || (r = expect_num(c, "manfid", 0xffff, &card)) < 0)
		return r;
	tuple_start(&t, TPL_MANFID);
	put(&t, manf & 0xff);
	put(&t, manf >> 8);
	put(&t, card & 0xff);
	put(&t, card >> 8);
	return tuple_end(c, line, "manfid", &t, ch);
}

static int tuple_funcid(struct cis_parse *c, struct chain *ch)
{
	static const char *const funcs[] = { "multi_function", "memory_card",   "serial_port",
					     "parallel_port",  "fixed_disk",    "video_adapter",
					     "network_adapter", "aims_card",    "scsi_adapter",
					     NULL };
	unsigned line = c->tline, sysinit = 0;
	uint32_t func;
	struct tuple t;
	int r, i;

	if ((r = next(c)) < 0)
		return r;
	if ((i = word_in(c, funcs)) >= 0) {
		func = (uint32_t)i;
		r = next(c);
	} else {
		r = expect_num(c, "funcid", 0xff, &func);
	}
	if (r < 0)
		return r;
	while (is_flag(c, "post") || is_flag(c, "rom")) {
		unsigned bit = is_flag(c, "post") ? 0x01 : 0x02;

		if (sysinit & bit)
			return fail(c, c->tline, "funcid: %s given twice", TOK(c));
		sysinit |= bit;
		if ((r = next(c)) < 0)
			return r;
	}
	tuple_start(&t, TPL_FUNCID);
	put(&t, func);
	put(&t, sysinit);
	return tuple_end(c, line, "funcid", &t, ch);
}

/* Little-endian in as few bytes as hold it (at least one); the count. */
static unsigned put_min(struct tuple *t, uint32_t v)
{
	unsigned n = 0;

	do {
		put(t, v & 0xff);
		v >>= 8;
		n++;
	} while (v);
	return n;
}

static int tuple_config(struct cis_parse *c, struct chain *ch)
{
	unsigned line = c->tline, nb, nm;
	uint32_t base, mask, last;
	struct tuple t;
	int r;

	if ((r = next(c)) < 0 || (r = expect_word(c, "config", "base")) < 0 ||
	    (r = expect_num(c, "config base", UINT32_MAX, &base)) < 0 ||
	    (r = expect_word(c, "config", "mask")) < 0 ||
	    (r = expect_num(c, "config mask", UINT32_MAX, &mask)) < 0 ||
	    (r = expect_word(c, "config", "last_index")) < 0 ||
	    (r = expect_num(c, "config last_index", 0x3f, &last)) < 0)
		return r;
	tuple_start(&t, TPL_CONFIG);
	put(&t, 0);
	put(&t, last);
	nb = put_min(&t, base);
	nm = put_min(&t, mask);
	t.b[2] = (uint8_t)((nb - 1) | (nm - 1) << 2);
	return tuple_end(c, line, "config", &t, ch);
}

/* ---- cftable_entry ---- */

struct power {
	unsigned present; /* bit i: param[i] given (Vnom Vmin Vmax Istatic Iavg Ipeak Idown) */
	uint32_t param[7];
};

struct entry {
	unsigned index, iface, misc, given; /* given: the items seen (GIVEN_*) */
	struct power pw[3];                 /* Vcc, Vpp1, Vpp2 */
	unsigned nio, ioflags;
	int lines;                          /* -1: no [lines=N] */
	struct { uint32_t base, len; } io[MAX_IOWIN];
	unsigned irq1;
	uint32_t irq2;
	unsigned nmem;
	struct { uint32_t card, host, len; } mem[MAX_MEMWIN];
};

enum { GIVEN_VCC = 1, GIVEN_VPP1 = 2, GIVEN_VPP2 = 4, GIVEN_IO = 8, GIVEN_IRQ = 16,
       GIVEN_MEM = 32, GIVEN_TIMING = 64 };

/*
 * A power parameter as pack_cis writes it: a byte of mantissa (1.0-9.0,
 * the table above) and exponent (a power of ten of the unit: 10 uV, 100
 * nA), and for a value with more digits an extension byte adding 0.01-0.99
 * to the mantissa. Returns the bytes (1 or 2), or 0 when pack_cis would
 * not write the value: 0 (it loops forever), digits it drops (it divides
 * a value past 3 significant digits) or an exponent past 7.
 */
static unsigned power_bytes(uint32_t v, uint8_t out[2])
{
	uint32_t t = v;
	unsigned e = 1, m = 0, x = 0;
	uint64_t back;

	if (!v)
		return 0;
	while (t % 10 == 0 || t > 999) {
		t /= 10;
		e++;
	}
	if (t < 100) {
		if (t < 10) {
			t *= 10;
			e--;
		}
		for (m = 0; m < 16 && mantissa[m] != t; m++)
			;
		if (m == 16) {
			t *= 10;
			e--;
		}
	}
	if (t >= 100) {
		e++;
		x = t / 10 - t / 10 % 10;
		for (m = 0; m < 16 && mantissa[m] != x; m++)
			;
		x = t - 10 * x;
	}
	if (e > 7 || m == 16)
		return 0;
	/* (mantissa * 10 + extension) / 100 * 10^e must give v back. */
	back = mantissa[m] * 10 + x;
	for (unsigned i = 0; i < e; i++)
		back *= 10;
	if (back != (uint64_t)v * 100)
		return 0;
	out[0] = (uint8_t)(m << 3 | e | (x ? 0x80 : 0));
	out[1] = (uint8_t)x;
	return x ? 2 : 1;
}

static int item_power(struct cis_parse *c, struct power *pw, const char *what)
{
	static const char *const params[] = { "Vnom", "Vmin", "Vmax", "Istatic", "Iavg", "Ipeak",
					      "Idown", NULL };
	int r, i;

	if ((r = next(c)) < 0)
		return r;
	while ((i = word_in(c, params)) >= 0) {
		char name[64];
		uint8_t b[2];

		snprintf(name, sizeof(name), "%s %s", what, params[i]);
		if (pw->present & 1u << i)
			return fail(c, c->tline, "%s given twice", name);
		if ((r = next(c)) < 0)
			return r;
		if (c->t == T_QTY && c->q == (i < 3 ? Q_VOLT : Q_CURR) && !power_bytes(c->num, b))
			return fail(c, c->tline,
				    "%s: %s cannot be written exactly (not 0, at most 3 significant "
				    "digits)",
				    name, TOK(c));
		if ((r = expect_qty(c, name, i < 3 ? Q_VOLT : Q_CURR, &pw->param[i])) < 0)
			return r;
		pw->present |= 1u << i;
	}
	if (!pw->present)
		return fail(c, c->tline,
			    "%s: expected Vnom, Vmin, Vmax, Istatic, Iavg, Ipeak or Idown, found %s",
			    what, TOK(c));
	return 0;
}

/* A window A-B: its start and length (B - A + 1), B not below A. */
static int window(struct cis_parse *c, const char *what, uint32_t *start, uint32_t *len)
{
	unsigned line = c->tline;
	uint32_t end;
	int r;

	if ((r = expect_num(c, what, UINT32_MAX, start)) < 0 || (r = expect_punct(c, what, '-')) < 0 ||
	    (r = expect_num(c, what, UINT32_MAX, &end)) < 0)
		return r;
	if (end < *start || (*start == 0 && end == UINT32_MAX))
		return fail(c, line, "%s: window 0x%x-0x%x is %s", what, *start, end,
			    end < *start ? "backwards" : "4 GiB long");
	*len = end - *start + 1;
	return 0;
}

static int item_io(struct cis_parse *c, struct entry *en)
{
	unsigned line = c->tline;
	int r;

	if ((r = next(c)) < 0)
		return r;
	for (;;) {
		if (en->nio == MAX_IOWIN)
			return fail(c, c->tline, "io: more than %u windows", MAX_IOWIN);
		if ((r = window(c, "io", &en->io[en->nio].base, &en->io[en->nio].len)) < 0)
			return r;
		en->nio++;
		if (!is_punct(c, ','))
			break;
		if ((r = next(c)) < 0)
			return r;
	}
	for (bool range = false; c->t == T_FLAG; ) {
		unsigned bit = is_flag(c, "8bit") ? 0x20 : is_flag(c, "16bit") ? 0x40 : 0;

		if (bit) {
			if (en->ioflags & bit)
				return fail(c, c->tline, "io: %s given twice", TOK(c));
			en->ioflags |= bit;
		} else if (is_flag(c, "range")) {
			if (range)
				return fail(c, c->tline, "io: [range] given twice");
			range = true;
		} else if (c->n > 6 && memcmp(c->s, "lines=", 6) == 0) {
			unsigned v = 0;
			size_t i;

			for (i = 6; i < c->n && is_digit(c->s[i]) && v <= 26; i++)
				v = v * 10 + (unsigned)(c->s[i] - '0');
			if (i < c->n || v > 26 || (c->s[6] == '0' && c->n > 7))
				return fail(c, c->tline, "io: %s: N is not 0-26", TOK(c));
			if (en->lines >= 0)
				return fail(c, c->tline, "io: [lines=N] given twice");
			en->lines = (int)v;
		} else {
			break;
		}
		if ((r = next(c)) < 0)
			return r;
	}
	/* One window at 0: pack_cis writes only its size, as address lines
	 * (rounding it up to a power of two), and drops [lines=N]. */
	if (en->nio == 1 && en->io[0].base == 0) {
		unsigned j = 0;

		while (j < 32 && (1ull << j) < en->io[0].len)
			j++;
		if ((1ull << j) != en->io[0].len)
			return fail(c, line, "io: a lone window at 0 is written as a power of two "
				    "long: 0x%x is not", en->io[0].len);
		if (en->lines >= 0 && (unsigned)en->lines != j)
			return fail(c, line, "io: a lone window at 0 decodes %u lines: [lines=%d] "
				    "would be dropped", j, en->lines);
	}
	return 0;
}

static int item_irq(struct cis_parse *c, struct entry *en)
{
	unsigned line = c->tline;
	int r;

	if ((r = next(c)) < 0)
		return r;
	if (is_word(c, "mask")) {
		if ((r = next(c)) < 0 || (r = expect_num(c, "irq mask", 0xffff, &en->irq2)) < 0)
			return r;
		en->irq1 = 0x10;
	} else {
		uint32_t n;

		if ((r = expect_num(c, "irq", 15, &n)) < 0)
			return r;
		en->irq1 = n;
	}
	while (c->t == T_FLAG) {
		unsigned bit = is_flag(c, "level") ? 0x20 : is_flag(c, "pulse") ? 0x40
			     : is_flag(c, "shared") ? 0x80 : 0;

		if (!bit)
			break;
		if (en->irq1 & bit)
			return fail(c, c->tline, "irq: %s given twice", TOK(c));
		en->irq1 |= bit;
		if ((r = next(c)) < 0)
			return r;
	}
	if (!en->irq1)
		return fail(c, line, "irq 0 needs [level], [pulse] or [shared] (pack_cis writes no "
			    "IRQ byte of 0)");
	return 0;
}

static int item_memory(struct cis_parse *c, struct entry *en)
{
	int r;

	if ((r = next(c)) < 0)
		return r;
	for (;;) {
		unsigned line = c->tline;
		uint32_t card, len, host;

		if (en->nmem == MAX_MEMWIN)
			return fail(c, line, "memory: more than %u windows", MAX_MEMWIN);
		if ((r = window(c, "memory", &card, &len)) < 0 || (r = expect_punct(c, "memory", '@')) < 0 ||
		    (r = expect_num(c, "memory", UINT32_MAX, &host)) < 0)
			return r;
		/* pack_cis writes addresses and lengths in pages of 256. */
		if ((card | len | host) & 0xff)
			return fail(c, line, "memory: addresses and lengths must be multiples of 0x100 "
				    "(pack_cis drops the low byte)");
		en->mem[en->nmem].card = card;
		en->mem[en->nmem].len = len;
		en->mem[en->nmem].host = host;
		en->nmem++;
		if (!is_punct(c, ','))
			return 0;
		if ((r = next(c)) < 0)
			return r;
	}
}

/* timing wait T ready T reserved T: read and, as pack_cis does, not
 * written (it has no timing field in what it packs). */
static int item_timing(struct cis_parse *c)
{
	static const char *const kinds[] = { "wait", "ready", "reserved", NULL };
	unsigned seen = 0;
	uint32_t v;
	int r, i;

	if ((r = next(c)) < 0)
		return r;
	while ((i = word_in(c, kinds)) >= 0) {
		if (seen & 1u << i)
			return fail(c, c->tline, "timing: %s given twice", kinds[i]);
		seen |= 1u << i;
		if ((r = next(c)) < 0 || (r = expect_qty(c, "timing", Q_TIME, &v)) < 0)
			return r;
	}
	return 0;
}

static void put_power(struct tuple *t, const struct power *pw)
{
	put(t, pw->present);
	for (unsigned i = 0; i < 7; i++) {
		uint8_t b[2];
		unsigned n;

		if (!(pw->present & 1u << i))
			continue;
		n = power_bytes(pw->param[i], b);
		for (unsigned j = 0; j < n; j++)
			put(t, b[j]);
	}
}

static void put_le(struct tuple *t, uint32_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		put(t, v >> 8 * i & 0xff);
}

/* Bytes for a field of size code s (1, 2 or 3: 1, 2 or 4 bytes). */
static unsigned code_bytes(unsigned s)
{
	return s == 3 ? 4 : s;
}

static unsigned size_code(uint32_t v)
{
	return v > 0xffff ? 3 : v > 0xff ? 2 : 1;
}

static void put_io(struct tuple *t, const struct entry *en)
{
	uint32_t ma = 0, ml = 0;
	unsigned a, l;

	if (en->nio == 1 && en->io[0].base == 0) {
		unsigned j = 0;

		while ((1ull << j) < en->io[0].len)
			j++;
		put(t, en->ioflags | j);
		return;
	}
	for (unsigned i = 0; i < en->nio; i++) {
		ma |= en->io[i].base;
		ml |= en->io[i].len - 1;
	}
	a = size_code(ma);
	l = size_code(ml);
	put(t, 0x80 | en->ioflags | (en->lines >= 0 ? (unsigned)en->lines : 0));
	put(t, (en->nio - 1) | a << 4 | l << 6);
	for (unsigned i = 0; i < en->nio; i++) {
		put_le(t, en->io[i].base, code_bytes(a));
		put_le(t, en->io[i].len - 1, code_bytes(l));
	}
}

static void put_mem(struct tuple *t, const struct entry *en)
{
	uint32_t ma = 0, ml = 0, ha = 0;
	unsigned a, l;

	for (unsigned i = 0; i < en->nmem; i++) {
		ma |= en->mem[i].card;
		ml |= en->mem[i].len;
		ha |= en->mem[i].host;
	}
	/* In pages of 256 bytes, host and card addresses of one size. */
	a = size_code((ma | ha) >> 8);
	l = size_code(ml >> 8);
	put(t, (en->nmem - 1) | a << 5 | l << 3 | (ha ? 0x80 : 0));
	for (unsigned i = 0; i < en->nmem; i++) {
		put_le(t, en->mem[i].len >> 8, l);
		put_le(t, en->mem[i].card >> 8, a);
		if (ha)
			put_le(t, en->mem[i].host >> 8, a);
	}
}

static int tuple_cftable(struct cis_parse *c, struct chain *ch)
{
	static const char *const flags[] = { "default", "bvd", "wp", "rdybsy", "mwait", "audio",
					     "readonly", "pwrdown", NULL };
	/* Where each flag goes: the index byte, the interface byte, the misc byte. */
	static const struct { unsigned where, bit; } fl[] = {
		{ 0, 0x40 }, { 1, 0x10 }, { 1, 0x20 }, { 1, 0x40 },
		{ 1, 0x80 }, { 2, 0x08 }, { 2, 0x10 }, { 2, 0x20 },
	};
	static const char *const pwname[] = { "Vcc", "Vpp1", "Vpp2", NULL };
	struct entry en = { .lines = -1 };
	unsigned line = c->tline, seen = 0, features = 0;
	uint32_t index;
	struct tuple t;
	int r;

	if ((r = next(c)) < 0 || (r = expect_num(c, "cftable_entry", 0x3f, &index)) < 0)
		return r;
	en.index = index | 0x80;
	en.iface = 0x01;
	for (;;) {
		int i, p = -1;

		if (c->t == T_FLAG) {
			for (i = 0; flags[i] && !is_flag(c, flags[i]); i++)
				;
			if (!flags[i])
				return fail(c, c->tline, "cftable_entry: %s is not valid here", TOK(c));
			if (seen & 1u << i)
				return fail(c, c->tline, "cftable_entry: %s given twice", TOK(c));
			seen |= 1u << i;
			*(fl[i].where == 0 ? &en.index : fl[i].where == 1 ? &en.iface : &en.misc) |=
				fl[i].bit;
			r = next(c);
		} else if ((p = word_in(c, pwname)) >= 0) {
			if (en.given & GIVEN_VCC << p)
				return fail(c, c->tline, "cftable_entry: %s given twice", pwname[p]);
			en.given |= GIVEN_VCC << p;
			r = item_power(c, &en.pw[p], pwname[p]);
		} else if (is_word(c, "io") || is_word(c, "irq") || is_word(c, "memory") ||
			   is_word(c, "timing")) {
			unsigned g = is_word(c, "io") ? GIVEN_IO : is_word(c, "irq") ? GIVEN_IRQ
				   : is_word(c, "memory") ? GIVEN_MEM : GIVEN_TIMING;

			if (en.given & g)
				return fail(c, c->tline, "cftable_entry: %s given twice", TOK(c));
			en.given |= g;
			r = g == GIVEN_IO ? item_io(c, &en) : g == GIVEN_IRQ ? item_irq(c, &en)
			  : g == GIVEN_MEM ? item_memory(c, &en) : item_timing(c);
		} else {
			break;
		}
		if (r < 0)
			return r;
	}
	/* pack_cis writes Vpp1 only after Vcc, Vpp2 only after both. */
	if ((en.given & GIVEN_VPP1) && !(en.given & GIVEN_VCC))
		return fail(c, line, "cftable_entry: Vpp1 without Vcc (pack_cis drops it)");
	if ((en.given & GIVEN_VPP2) && !(en.given & GIVEN_VPP1))
		return fail(c, line, "cftable_entry: Vpp2 without Vpp1 (pack_cis drops it)");

	tuple_start(&t, TPL_CFTABLE_ENTRY);
	put(&t, en.index);
	put(&t, en.iface);
	put(&t, 0);
	for (unsigned i = 0; i < 3; i++)
		if (en.given & GIVEN_VCC << i) {
			features++;
			put_power(&t, &en.pw[i]);
		}
	if (en.nio) {
		features |= 0x08;
		put_io(&t, &en);
	}
	if (en.given & GIVEN_IRQ) {
		features |= 0x10;
		put(&t, en.irq1);
		if (en.irq1 & 0x10) {
			put(&t, en.irq2 & 0xff);
			put(&t, en.irq2 >> 8);
		}
	}
	if (en.nmem) {
		features |= 0x60;
		put_mem(&t, &en);
	}
	if (en.misc) {
		features |= 0x80;
		put(&t, en.misc);
	}
	t.b[4] = (uint8_t)features;
	return tuple_end(c, line, "cftable_entry", &t, ch);
}

/* ---- the whole ---- */

/* Words of the grammar that are no tuple: found where a tuple should
 * start, they are out of place rather than unknown. */
static const char *const known[] = {
	"Vcc", "Vpp1", "Vpp2", "Vnom", "Vmin", "Vmax", "Istatic", "Iavg", "Ipeak", "Idown",
	"io", "irq", "memory", "timing", "wait", "ready", "reserved", "mask", "base", "last_index",
	"no_info", "NULL", "ROM", "EPROM", "EEPROM", "FLASH", "SRAM", "DRAM", "fn_specific",
	"multi_function", "memory_card", "serial_port", "parallel_port", "fixed_disk",
	"video_adapter", "network_adapter", "aims_card", "scsi_adapter", "mfc", NULL,
};
/* pack_cis's other tuples: the JEDEC ones, and checksum (which it read
 * and dropped). */
static const char *const unsupported[] = { "checksum", "cjedec", "ajedec", NULL };

/* Tuples up to what ends the chain (end of file, mfc or '}'). */
static int parse_chain(struct cis_parse *c, struct chain *ch, bool root)
{
	int r;

	for (;;) {
		unsigned line = c->tline;

		if (c->t == T_EOF || (root && is_word(c, "mfc")) || (!root && is_punct(c, '}')))
			return 0;
		if (is_word(c, "dev_info")) {
			if (!root || ch->tuples)
				return fail(c, line, "dev_info must be the first tuple of the CIS "
					    "(pack_cis would add a null one before it)");
			r = tuple_device(c, ch, TPL_DEVICE, "dev_info");
		} else if (is_word(c, "attr_dev_info")) {
			if (!root)
				return fail(c, line, "attr_dev_info inside mfc");
			r = tuple_device(c, ch, TPL_DEVICE_A, "attr_dev_info");
		} else if (is_word(c, "vers_1")) {
			r = tuple_vers_1(c, ch);
		} else if (is_word(c, "manfid")) {
			r = tuple_manfid(c, ch);
		} else if (is_word(c, "funcid")) {
			r = tuple_funcid(c, ch);
		} else if (is_word(c, "config")) {
			r = tuple_config(c, ch);
		} else if (is_word(c, "cftable_entry")) {
			r = tuple_cftable(c, ch);
		} else if (word_in(c, unsupported) >= 0) {
			return fail(c, line, "%s: a pack_cis tuple fwdist does not pack", TOK(c));
		} else if (word_in(c, known) >= 0 || c->t == T_FLAG) {
			return fail(c, line, "%s is not valid here", TOK(c));
		} else if (c->t == T_WORD) {
			return fail(c, line, "unknown keyword %s", TOK(c));
		} else {
			return fail(c, line, "expected a tuple, found %s", TOK(c));
		}
		if (r < 0)
			return r;
	}
}

static void put_bytes(uint8_t *out, size_t *n, const uint8_t *b, size_t len)
{
	memcpy(out + *n, b, len);
	*n += len;
}

/* Line length and NUL, first: every later message then names a line that
 * can be shown. */
static int check_lines(struct cis_parse *c, const char *text, size_t len)
{
	const char *s = text, *end = text + len;

	for (unsigned line = 1; s < end; line++) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *le = nl ? nl : end;

		if ((size_t)(le - s) > FW_CIS_LINE_MAX)
			return fail(c, line, "line too long (%zu bytes, limit %u)", (size_t)(le - s),
				    FW_CIS_LINE_MAX);
		if (memchr(s, '\0', (size_t)(le - s)))
			return fail(c, line, "NUL byte in line");
		s = nl ? nl + 1 : end;
	}
	return 0;
}

struct cis_chains {
	struct chain root, fn[MAX_FUNCS];
	unsigned nf;
};

int fw_cis_pack(const char *path, const char *text, size_t len, uint8_t out[FW_CIS_MAX],
		size_t *outlen, struct fw_diag *d)
{
	static const uint8_t null_device[] = { TPL_DEVICE, 3, 0x00, 0x00, 0xff };
	static const uint8_t no_link[] = { TPL_NO_LINK, 0, TPL_END, 0 };
	static const uint8_t target[] = { TPL_LINKTARGET, 3, 'C', 'I', 'S' };
	static const uint8_t end[] = { TPL_END, 0 };
	struct cis_parse c = { .path = path, .d = d, .p = text, .end = text + len, .line = 1 };
	struct cis_chains *ch;
	size_t total, n = 0;
	bool dev;
	int r;

	*outlen = 0;
	if (len > FW_CIS_TEXT_MAX) {
		fw_diag_add(d, path, 0, "larger than %u KiB", FW_CIS_TEXT_MAX >> 10);
		return -EINVAL;
	}
	if ((r = check_lines(&c, text, len)) < 0)
		return r;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return -ENOMEM;
	if ((r = next(&c)) < 0 || (r = parse_chain(&c, &ch->root, true)) < 0)
		goto out;
	if (!ch->root.tuples) {
		/* pack_cis read a NULL list here. */
		r = fail(&c, c.tline, "expected a tuple before %s", TOK(&c));
		goto out;
	}
	if (is_word(&c, "mfc")) {
		if ((r = next(&c)) < 0)
			goto out;
		for (;;) {
			if (ch->nf == MAX_FUNCS) {
				r = fail(&c, c.tline, "mfc: more than %u functions", MAX_FUNCS);
				goto out;
			}
			if ((r = expect_punct(&c, "mfc", '{')) < 0 ||
			    (r = parse_chain(&c, &ch->fn[ch->nf++], false)) < 0 ||
			    (r = expect_punct(&c, "mfc", '}')) < 0)
				goto out;
			if (!is_punct(&c, ','))
				break;
			if ((r = next(&c)) < 0)
				goto out;
		}
	}
	if (c.t != T_EOF) {
		r = fail(&c, c.tline, "expected end of file after mfc, found %s", TOK(&c));
		goto out;
	}

	/* A CISTPL_DEVICE first, then the tuples; then either NO_LINK and
	 * END, or LONGLINK_MFC (a target per function, each in attribute
	 * memory at its offset), END, and per function LINKTARGET, its
	 * tuples, END. */
	dev = ch->root.n && ch->root.b[0] == TPL_DEVICE;
	total = (dev ? 0 : sizeof(null_device)) + ch->root.n;
	if (!ch->nf) {
		total += sizeof(no_link);
	} else {
		total += 3 + 5 * ch->nf + sizeof(end);
		for (unsigned i = 0; i < ch->nf; i++)
			total += sizeof(target) + ch->fn[i].n + sizeof(end);
	}
	if (total > FW_CIS_MAX) {
		fw_diag_add(d, path, 0, "the CIS would be %zu bytes, more than %u", total, FW_CIS_MAX);
		r = -EINVAL;
		goto out;
	}
	if (!dev)
		put_bytes(out, &n, null_device, sizeof(null_device));
	put_bytes(out, &n, ch->root.b, ch->root.n);
	if (!ch->nf) {
		put_bytes(out, &n, no_link, sizeof(no_link));
	} else {
		size_t at = n + 3 + 5 * ch->nf + sizeof(end);

		out[n++] = TPL_LONGLINK_MFC;
		out[n++] = (uint8_t)(5 * ch->nf + 1);
		out[n++] = (uint8_t)ch->nf;
		for (unsigned i = 0; i < ch->nf; i++) {
			out[n++] = 0; /* attribute memory */
			for (unsigned j = 0; j < 4; j++)
				out[n++] = (uint8_t)(at >> 8 * j);
			at += sizeof(target) + ch->fn[i].n + sizeof(end);
		}
		put_bytes(out, &n, end, sizeof(end));
		for (unsigned i = 0; i < ch->nf; i++) {
			put_bytes(out, &n, target, sizeof(target));
			put_bytes(out, &n, ch->fn[i].b, ch->fn[i].n);
			put_bytes(out, &n, end, sizeof(end));
		}
	}
	*outlen = n;
	r = 0;
out:
	free(ch);
	return r;
}

int fw_cis_pack_file(const char *path, uint8_t out[FW_CIS_MAX], size_t *outlen, struct fw_diag *d)
{
	uint8_t *buf;
	size_t len;
	int r = fw_read_file(path, FW_CIS_TEXT_MAX, &buf, &len);

	*outlen = 0;
	if (r == -EINVAL)
		fw_diag_add(d, path, 0, "not a regular file");
	else if (r == -EFBIG)
		fw_diag_add(d, path, 0, "larger than %u KiB", FW_CIS_TEXT_MAX >> 10);
	else if (r == -ENOMEM)
		return r;
	else if (r < 0)
		fw_diag_add(d, path, 0, "cannot read: %s", strerror(-r));
	if (r < 0)
		return -EINVAL;
	r = fw_cis_pack(path, (const char *)buf, len, out, outlen, d);
	free(buf);
	return r;
}
