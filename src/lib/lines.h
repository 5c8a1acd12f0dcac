/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Lines of fwdist's text formats: an iterator, blank-separated fields, and
 * the checks every line gets (length, NUL, header), reported as diagnostics. */
#ifndef FWDIST_LINES_H
#define FWDIST_LINES_H

#include <stdbool.h>
#include <stddef.h>

struct fw_diag;
/* Iterate over the lines of a text buffer. */
struct fw_lines {
	const char *s, *end;
	unsigned line;
};

static inline void fw_lines_init(struct fw_lines *it, const char *buf, size_t len)
{
	it->s = buf;
	it->end = buf + len;
	it->line = 0;
}

/* Next line as [*ls, *le) without its newline; 1, or 0 at the end. */
int fw_lines_next(struct fw_lines *it, const char **ls, const char **le);

/* Next blank-separated field of [*p, e): returns its start, sets *len
 * (0 at the end of the line) and advances *p past it and following blanks. */
const char *fw_field(const char **p, const char *e, size_t *len);

/* The common start of every line of fwdist's own text formats: a line longer
 * than max or holding a NUL (which would cut a field short) is reported; on
 * line 1 the header is checked, and a missing one reported, the line then
 * being read as data so that no data line is lost. Returns true when the
 * caller should parse the line, false for the header or a reported line. */
bool fw_line_start(struct fw_diag *d, const char *path, unsigned line, const char *ls,
		   const char *le, const char *header, size_t max);

#endif
