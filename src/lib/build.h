/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The builder: each recipe of manifests/build run in a sandbox, its outputs compared with the tree's blobs. */
#ifndef FWDIST_BUILD_H
#define FWDIST_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "digest.h"
#include "recipe.h"

struct fw_tree;
struct fw_blob;


/* The verdict of one output (one blob). */
struct fw_build_result {
	const struct fw_recipe *recipe; /* NULL: the blob has no recipe */
	const char *blob;               /* its tree name */
	enum fw_build_verdict v;
	char *why;                      /* a line: the reason, or the difference; NULL
					 * for identical */
	char *log;                      /* build-failed: the last lines of the output */
	uint64_t built_size, tree_size;
	int64_t first_diff;             /* FW_BV_DIFFERS: offset, -1 when unknown (the
					 * blob is absent: only its checksum line) */
	uint8_t sha256[FW_SHA256_LEN];  /* of the rebuilt output */
	bool built;                     /* sha256 and built_size are set */
	bool no_package;                /* not rebuilt: a tool is in no Debian package
					 * (tool none): said, not a failure */
};
void fw_build_result_free(struct fw_build_result *r);

struct fw_build_opts {
	const char *self;       /* the running fwdist's binary (tool fwdist) */
	int64_t epoch;          /* SOURCE_DATE_EPOCH */
	bool write;             /* put each built output into firmware/ (atomic) */
	unsigned timeout;       /* seconds; 0: the recipe's */
	unsigned log_lines;     /* lines of output kept for build-failed */
};

/* Where the commands run: a new mount, network, PID, IPC and UTS
 * namespace (as root; a user namespace too when that is refused), a
 * read-only root of /usr /bin /lib /lib64 /sbin /etc, and /build, the
 * scratch directory holding copies of the sources. */
#define FW_BUILD_DIR "/build"
#define FW_BUILD_PATH "/usr/bin:/bin"
#define FW_BUILD_SELF_DIR "/opt/fwdist/bin"

/* Build recipe r of tree t: res[i] for r->outputs[i]. 0 with a verdict
 * per output (whatever the build did), or -errno when nothing could be
 * tried at all (-ENOMEM; the scratch directory cannot be made). A
 * sandbox the kernel refuses is a build-failed verdict saying so: a
 * recipe is never run outside one. */
int fw_build_recipe(const struct fw_tree *t, const struct fw_recipe *r,
		    const struct fw_build_opts *o, struct fw_build_result *res);
/* The records of res (n verdicts) as manifests/build-verdicts, sorted by
 * blob: a new buffer. 0 or -ENOMEM. */
int fw_verdicts_format(const struct fw_build_result *res, size_t n, char **buf, size_t *len);
/* SOURCE_DATE_EPOCH for a build of t: $SOURCE_DATE_EPOCH when set (a
 * Debian build sets it from the changelog), else the newest mtime of
 * WHENCE and manifests/build. */
int64_t fw_build_epoch(const struct fw_tree *t);

/* Findings about manifests/build against the tree (fwdist check): every
 * output a File: or RawFile: of the tree, claimed by one recipe only;
 * every source present below firmware/ and named by a Source: of the
 * block listing the output (itself or a directory above it), or a blob of
 * the tree (a self-contained step); each verdict of manifests/build-verdicts
 * about a blob of the tree. */
void fw_tree_check_recipes(const struct fw_tree *t, struct fw_diag *d);

/* What main means in a tree with build recipes (fwdist check, not the
 * model: a build needs the tree loaded before it can record anything):
 * a copyleft blob in a package of section main must be rebuilt identical
 * from its source (a verdict of manifests/build-verdicts on its bytes) or
 * be its own preferred form; any other is a finding at its WHENCE line,
 * with the why and the ways out. A tree without recipes is left as the
 * model judges it (a Source: present is its proof). */
void fw_tree_check_rebuilt(const struct fw_tree *t, struct fw_diag *d);

/* How a free blob's freeness was established, for licenses. */
enum fw_freeness {
	FW_FREE_REBUILT,     /* source in the tree, rebuilt identical (recorded) */
	FW_FREE_OWN_FORM,    /* the blob is its own preferred form (text) */
	FW_FREE_NOT_REBUILT, /* source in the tree, not rebuilt (or not identical): why */
};
const char *fw_freeness_name(enum fw_freeness f);
/* The tree's free blobs counted by how their freeness was established
 * (how[] indexed by enum fw_freeness), as licenses lists them. 0 or
 * -ENOMEM. */
int fw_tree_freeness_counts(const struct fw_tree *t, size_t how[3]);
/* The way for a free blob b, and its words (a new string, NULL on ENOMEM):
 * a verdict of manifests/build-verdicts counts only while its SHA-256 is
 * the blob's line of manifests/checksums. */
char *fw_blob_freeness(const struct fw_tree *t, const struct fw_blob *b, enum fw_freeness *f);

#endif
