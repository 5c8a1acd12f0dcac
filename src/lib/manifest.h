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

#endif
