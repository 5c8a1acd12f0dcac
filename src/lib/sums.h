/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifests/checksums: SHA-256 and size of every blob, in a form sha256sum -c also reads. */
#ifndef FWDIST_SUMS_H
#define FWDIST_SUMS_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "digest.h"

#define FW_SUMS_HEADER "# fwdist checksums 1"

struct fw_sum {
	char *name;
	uint8_t sha256[FW_SHA256_LEN];
	uint64_t size;
	unsigned line; /* the digest line */
};

struct fw_sums {
	char *path;
	struct fw_sum *v; /* sorted by name (byte order), unique */
	size_t n, cap;
};

/* Format, one blob per pair of lines, sorted by name in byte order:
 *   #size 1234
 *   <64 hex digits>  <name>
 * sha256sum skips the "#size" lines as comments, so
 * `cd firmware && sha256sum --strict -c ../manifests/checksums` works, and
 * from inside an installed tree too. */
int fw_sums_parse(struct fw_sums *s, const char *path, const char *buf, size_t len,
		  struct fw_diag *d);
void fw_sums_free(struct fw_sums *s);
const struct fw_sum *fw_sums_find(const struct fw_sums *s, const char *name);
/* Serialise v[0..n) (sorted by the caller) into a new buffer. */
int fw_sums_format(const struct fw_sum *v, size_t n, char **buf, size_t *len);

/* manifests/licence-checksums: the same format for the licence texts, each
 * named "<id>.txt" (one file right in LICENSES/), so that
 * `cd LICENSES && sha256sum --strict -c ../manifests/licence-checksums` works. */
int fw_sums_parse_texts(struct fw_sums *s, const char *path, const char *buf, size_t len,
			struct fw_diag *d);
int fw_sums_format_texts(const struct fw_sum *v, size_t n, char **buf, size_t *len);

#endif
