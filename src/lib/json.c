/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON output helpers. */
#include "json.h"

#include <stddef.h>

#include "util.h"

void fw_json_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	/* Not UTF-8 (a file name may hold any byte): the bytes, as numbers,
	 * the convention of systemd's journal export (journalctl -o json).
	 * A JSON string is Unicode text, so any string form would either
	 * lose the bytes (U+FFFD), mislabel them (\u00XX is Latin-1) or need
	 * an unpaired surrogate that strict parsers refuse; an array is
	 * valid JSON everywhere, exact, and cannot be mistaken for a name. */
	if (!fw_utf8_valid(str)) {
		putc('[', f);
		for (const unsigned char *c = s; *c; c++)
			fprintf(f, "%s%u", c == s ? "" : ",", *c);
		putc(']', f);
		return;
	}
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
		fwrite(s, 1, n, f);
		s += n;
	}
	putc('"', f);
}
