/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The model of a firmware tree: WHENCE, manifests/ and LICENSES/ loaded once and cross-referenced. */
#ifndef FWDIST_TREE_H
#define FWDIST_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "policy.h"
#include "split.h"
#include "sums.h"
#include "whence.h"

#define FW_TREE_WHENCE "WHENCE"
#define FW_TREE_FIRMWARE "firmware"
#define FW_TREE_LICENSES "LICENSES"
#define FW_TREE_SUMS "manifests/checksums"
#define FW_TREE_POLICY "manifests/licenses"
#define FW_TREE_SPLIT "manifests/packages"

/* A licence group of WHENCE, its SPDX expression evaluated against the policy. */
struct fw_lic_eval {
	enum fw_category cat;
	char *unknown;      /* first id the policy lacks, or NULL */
	const char *syntax; /* syntax error in the expression, or NULL */
};

/* One installable blob: a File: or RawFile: entry. */
struct fw_blob {
	struct fw_whence_entry *e;
	const struct fw_whence_licence *lic; /* NULL: no licence line applies */
	const char *driver;                  /* NULL: block without Driver: */
	enum fw_category licence_cat;        /* category of the licence expression */
	enum fw_category cat;                /* effective: free needs a Source: too */
	const struct fw_lic_eval *lev;       /* NULL: no licence line applies */
	int pkg, pkg2;                       /* package, and a second one if two match */
	unsigned pkg_line, pkg2_line;        /* the rules that matched */
	const struct fw_sum *sum;            /* NULL: no checksum line */
	bool duplicate;                      /* a second listing of an earlier name */
};

enum fw_link_state {
	FW_LINK_OK,
	FW_LINK_OUTSIDE,   /* target leaves the tree */
	FW_LINK_MISSING,   /* target is no blob and no directory of the tree */
	FW_LINK_TO_LINK,   /* target is itself a Link: */
	FW_LINK_LOOP,      /* following links comes back */
	FW_LINK_BAD_NAME,  /* the link's own name is unsafe */
};

struct fw_link {
	struct fw_whence_entry *e;
	char *resolved;   /* target as a tree name (NULL if it leaves the tree) */
	long blob;        /* index of the target blob, -1 for a directory or none */
	long via;         /* FW_LINK_TO_LINK / LOOP: index of the link it reaches */
	enum fw_link_state state;
	bool to_dir;      /* target is a directory of the tree */
	bool duplicate;
};

/* Name index entry: every name WHENCE gives, sorted. */
struct fw_name {
	const char *name;
	struct fw_whence_entry *e;
	long blob, link; /* index into blobs / links, or -1 */
};

struct fw_tree {
	char *root;
	int rootfd;
	struct fw_whence whence;
	struct fw_sums sums;
	struct fw_policy policy;
	struct fw_split split;
	bool have_sums, have_policy, have_split;
	struct fw_blob *blobs;
	size_t nblobs;
	struct fw_link *links;
	size_t nlinks;
	struct fw_name *index; /* sorted by name, first listing first */
	size_t nindex;
	struct fw_lic_eval *levals; /* one per whence.licences */
	char **dirs;           /* every directory that holds a blob, sorted */
	size_t ndirs;
};

/* Load the tree at root. Syntax errors in its files go to d; the model is
 * built regardless so one run reports everything. Returns 0, or -errno when
 * root or its WHENCE cannot be read at all (nothing to report on). */
int fw_tree_load(struct fw_tree *t, const char *root, struct fw_diag *d);
void fw_tree_free(struct fw_tree *t);

/* Look a name up in the index; NULL if WHENCE does not name it. */
const struct fw_name *fw_tree_find(const struct fw_tree *t, const char *name);
bool fw_tree_is_dir(const struct fw_tree *t, const char *name);

/* Findings about the model itself (licences, policy, split, links, names,
 * duplicates): everything that needs no blob read. */
void fw_tree_check_model(const struct fw_tree *t, struct fw_diag *d);
/* Findings that need firmware/ and LICENSES/: listed vs present both ways,
 * types, modes, sizes and digests. Returns 0 or -errno on a fatal error. */
int fw_tree_check_files(const struct fw_tree *t, struct fw_diag *d);

/* Whether install puts a blob / link in place for this package selection
 * (NULL: every package). Undistributable and unpackaged blobs never are; a
 * link goes with its target blob, a directory link with any blob below it. */
struct fw_selection {
	const bool *pkg;  /* per split package; NULL: every package */
	const bool *blob; /* per blob (a --select file); NULL: every blob */
	const bool *link; /* per link; NULL: every link */
};
bool fw_blob_installable(const struct fw_tree *t, const struct fw_blob *b,
			 const struct fw_selection *sel);
bool fw_link_installable(const struct fw_tree *t, const struct fw_link *l,
			 const struct fw_selection *sel);
/* The distinct licence ids (sorted, new strings) that the installable blobs
 * of sel (and of package pkg, if pkg >= 0) name in their SPDX expressions:
 * the licence texts shipping them requires. 0 or -ENOMEM. */
int fw_tree_licence_closure(const struct fw_tree *t, const struct fw_selection *sel, int pkg,
			    char ***ids, size_t *n);
void fw_free_strv(char **v, size_t n);

/* The package a link goes with: its target's, or for a directory link the
 * first installable blob's below it; -1 if none. */
int fw_link_package(const struct fw_tree *t, const struct fw_link *l, const struct fw_selection *sel);

/* The name of the package the split puts b in, or NULL. */
const char *fw_blob_package(const struct fw_tree *t, const struct fw_blob *b);

#endif
