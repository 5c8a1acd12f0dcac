/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON output helpers: strings escaped per RFC 8259, nothing else. */
#ifndef FWDIST_JSON_H
#define FWDIST_JSON_H

#include <stdio.h>

/* Write s as a JSON string literal (with quotes; '"', '\\' and control
 * characters escaped), or, when s is not valid UTF-8, as an array of its
 * bytes as numbers ("b\xff" -> [98,255]): every JSON value of every command
 * goes through here, so the output is always valid and exact. */
void fw_json_str(FILE *f, const char *s);

#endif
