/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist check: findings about the model, then about the files behind it. */
#ifndef FWDIST_CHECK_H
#define FWDIST_CHECK_H

struct fw_diag;
struct fw_progress;
struct fw_tree;

/* Findings about the model itself (licences, policy, split, links, names,
 * duplicates): everything that needs no blob read. */
void fw_tree_check_model(const struct fw_tree *t, struct fw_diag *d);
/* Findings that need firmware/ and LICENSES/: listed vs present both ways,
 * types, modes, sizes and digests. The blobs are hashed on jobs threads (0:
 * one per online CPU); the findings come in the same order whatever jobs.
 * The hashing is counted in progress (the files to hash, their sizes;
 * NULL: not counted). Returns 0 or -errno on a fatal error. */
int fw_tree_check_files(const struct fw_tree *t, unsigned jobs, struct fw_progress *progress,
			struct fw_diag *d);

#endif
