/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Diagnostics: findings collected with the file and line they concern. */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void fw_diag_add(struct fw_diag *d, const char *file, unsigned line, const char *fmt, ...)
{
	struct fw_diag_msg m = { .line = line };
	va_list ap;
	int n;

	if (!d)
		return; /* the caller asked for no diagnostics */
	va_start(ap, fmt);
	n = vasprintf(&m.text, fmt, ap);
	va_end(ap);
	if (n < 0) {
		d->nomem = 1;
		return;
	}
	m.file = strdup(file ? file : "");
	if (!m.file || fw_grow(&d->v, &d->cap, d->n, sizeof(*d->v)) < 0) {
		free(m.file);
		free(m.text);
		d->nomem = 1;
		return;
	}
	d->v[d->n++] = m;
}

void fw_diag_free(struct fw_diag *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].file);
		free(d->v[i].text);
	}
	free(d->v);
	d->v = NULL;
	d->n = d->cap = 0;
	d->nomem = 0;
}
