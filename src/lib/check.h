/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist check: findings about the model, then about the files behind it. */
#ifndef FWDIST_CHECK_H
#define FWDIST_CHECK_H

#include <stdbool.h>
#include <stddef.h>

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

/* What fwdist check counts of a tree with no finding. */
struct fw_check_counts {
	size_t free, nonfree, undistributable; /* blobs of each category */
	/* A tree with build recipes: its free blobs by how their freeness
	 * was established (enum fw_freeness: rebuilt identical, their own
	 * preferred form, source not rebuilt), as licenses gives it. */
	bool has_recipes;
	size_t how[3];
};

/* Everything fwdist check checks, in this order: the model
 * (fw_tree_check_model); manifests/replaces, when the tree has one,
 * against the split; manifests/modules, when the tree has one (it becomes
 * the packages' <modalias> entries, which clients match against every
 * device: an over-broad alias is refused too); the files
 * (fw_tree_check_files, counted in progress); and, when all of that
 * holds, the committed generated packaging against what the model gives
 * (fw_debian_check). A fatal error is a finding too ("check stopped").
 * c gets the blobs' categories. 0 or -errno of the fatal error. */
int fw_tree_check(const struct fw_tree *t, unsigned jobs, struct fw_progress *progress,
		  struct fw_diag *d, struct fw_check_counts *c);

#endif
