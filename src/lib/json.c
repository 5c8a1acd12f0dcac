/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON output helpers. */
#include "json.h"

#include <stddef.h>

/* Length of a valid UTF-8 sequence at s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are invalid. */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

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
		n = utf8_len(s);
		if (n == 0) {
			fprintf(f, "\\u%04x", *s++);
			continue;
		}
		fwrite(s, 1, n, f);
		s += n;
	}
	putc('"', f);
}
