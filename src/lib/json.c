/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON output helpers. */
#include "json.h"

#include <stddef.h>

#include "util.h"

void fw_json_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	putc('"', f);
	while (*s) {
		size_t n;

		if (*s == '"' || *s == '\\') {
			putc('\\', f);
			putc(*s++, f);
			continue;
		}
		if (*s < 0x20 || *s == 0x7f) {
			fprintf(f, "\\u%04x", *s++);
			continue;
		}
		n = fw_utf8_len((const char *)s);
		if (n == 0) {
			fprintf(f, "\\u%04x", *s++);
			continue;
		}
		fwrite(s, 1, n, f);
		s += n;
	}
	putc('"', f);
}
