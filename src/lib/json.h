/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON output helpers: strings escaped per RFC 8259, nothing else. */
#ifndef FWDIST_JSON_H
#define FWDIST_JSON_H

#include <stdio.h>

/* Write s as a JSON string literal (with quotes). Bytes that are not valid
 * UTF-8 are written as \u00XX of their value so the output stays valid. */
void fw_json_str(FILE *f, const char *s);

#endif
