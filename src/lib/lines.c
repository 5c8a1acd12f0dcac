/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Lines of fwdist's text formats: iterator, fields, the common line checks.
 * Apart from util.c because it reports through diag.c, which grows its
 * array with util.c's fw_grow: the two would otherwise depend on each other. */
#include "lines.h"

#include <string.h>

#include "diag.h"

int fw_lines_next(struct fw_lines *it, const char **ls, const char **le)
{
	const char *nl;

	if (it->s >= it->end)
		return 0;
	nl = memchr(it->s, '\n', (size_t)(it->end - it->s));
	*ls = it->s;
	*le = nl ? nl : it->end;
	it->s = nl ? nl + 1 : it->end;
	it->line++;
	return 1;
}

const char *fw_field(const char **p, const char *e, size_t *len)
{
	const char *s = *p, *f;

	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	f = s;
	while (s < e && *s != ' ' && *s != '\t')
		s++;
	*len = (size_t)(s - f);
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	*p = s;
	return f;
}

bool fw_line_start(struct fw_diag *d, const char *path, unsigned line, const char *ls,
		   const char *le, const char *header, size_t max)
{
	size_t n = (size_t)(le - ls);

	if (n > max) {
		fw_diag_add(d, path, line, "line too long (%zu bytes, limit %zu)", n, max);
		return false;
	}
	if (memchr(ls, '\0', n)) {
		fw_diag_add(d, path, line, "NUL byte in line");
		return false;
	}
	if (line == 1) {
		if (n == strlen(header) && memcmp(ls, header, n) == 0)
			return false;
		fw_diag_add(d, path, 1, "missing header line '%s'", header);
	}
	return true;
}
