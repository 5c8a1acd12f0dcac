/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The checksums manifest computed from the blobs of a tree (a tree writer, with import). */
#ifndef FWDIST_MANIFEST_H
#define FWDIST_MANIFEST_H

#include <stddef.h>

#include "diag.h"
#include "sums.h"
#include "tree.h"

/* Hash every blob WHENCE lists (File: and RawFile:, not undistributable or
 * duplicated ones) and format manifests/checksums, sorted by name, into a
 * new buffer. A blob that cannot be read is a finding in d and the result
 * is -EIO (nothing to write); -ENOMEM; else 0 with *n blobs. */
int fw_manifest_sums(const struct fw_tree *t, char **buf, size_t *len, size_t *n,
		     struct fw_diag *d);
/* Format manifests/licence-checksums from the digest of each licence text
 * the policy names, as the model read it (one missing or no regular file
 * has none: check reports it). 0 with *n texts, or -ENOMEM. */
int fw_manifest_texts(const struct fw_tree *t, char **buf, size_t *len, size_t *n);

/* The checksum lines of every LICENSES/<id>.txt below rootfd, for a tree
 * being written (import): each a regular file, read without following a
 * symlink. *v is a new array of *n entries, sorted, whose names are new
 * strings ("<id>.txt"); fw_manifest_text_sums_free frees it. */
int fw_manifest_text_sums(int rootfd, struct fw_sum **v, size_t *n);
void fw_manifest_text_sums_free(struct fw_sum *v, size_t n);

#endif
