/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Diagnostics: findings collected with the file and line they concern; only main() prints. */
#ifndef FWDIST_DIAG_H
#define FWDIST_DIAG_H

#include <stddef.h>

struct fw_diag_msg {
	char *file;    /* "WHENCE", "manifests/checksums", "firmware/x.bin", ... */
	unsigned line; /* 0 when the finding is about a whole file */
	char *text;
};

struct fw_diag {
	struct fw_diag_msg *v;
	size_t n, cap;
	int nomem; /* a message could not be stored: report that, never drop silently */
};

/* d may be NULL: the message is dropped (used for files known to be absent). */
void fw_diag_add(struct fw_diag *d, const char *file, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void fw_diag_free(struct fw_diag *d);

#endif
