/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Verify an installed firmware directory (plain, .xz or .zst) against the tree's manifest. */
#ifndef FWDIST_VERIFY_H
#define FWDIST_VERIFY_H

#include <stdbool.h>
#include <stddef.h>

#include "plan.h"
#include "progress.h"

struct fw_verify_opts {
	bool ignore_extra;        /* do not report unexpected entries */
	bool no_licences;         /* records: do not check the licence texts */
	unsigned jobs;            /* threads hashing; 0: one per online CPU */
	/* Counted as the names are checked (progress.h), or NULL: files are
	 * the names, bytes those of the blobs and texts. */
	struct fw_progress *progress;
};

struct fw_verify_problem {
	const char *kind; /* "missing", "modified", "wrong type", "unexpected", "kernel" */
	char *name;       /* as found or expected in the root */
	char *detail;     /* may be NULL */
};

struct fw_verify_result {
	size_t checked; /* names checked */
	struct fw_verify_problem *v;
	size_t n, cap;
};

/* Check the firmware directory rootfd against plan p (built uncompressed:
 * any of NAME, NAME.xz, NAME.zst is accepted, decompressed and hashed; a
 * symlink staying in the root is followed): blobs, links (a symlink
 * reaching the right content or directory), licence texts, fwdist's record
 * directory, and, unless ignore_extra, entries and empty directories the
 * plan does not explain. The names are checked on o->jobs threads; the
 * problems come in the same order whatever their number. Returns 0
 * (problems in res) or -errno. */
int fw_verify(const struct fw_plan *p, int rootfd, const struct fw_verify_opts *o,
	      struct fw_verify_result *res);
struct fw_records;
struct fw_dpkg;
/* Check the firmware directory fwfd against what its install records say
 * was installed there, with no tree: each recorded file (a regular file at
 * its recorded name, decompressed as recorded, with the recorded digest
 * and size), each link (its recorded text, reaching something inside),
 * each licence text; and, unless ignore_extra or only, entries no record
 * names and dpkg (if given) does not own. only: NULL, or one flag per
 * record of rs: check only those. Returns 0 (problems in res) or -errno. */
int fw_verify_records(const struct fw_records *rs, int fwfd, const struct fw_dpkg *dpkg,
		      const bool *only, const struct fw_verify_opts *o, struct fw_verify_result *res);
void fw_verify_result_free(struct fw_verify_result *res);

/* What verify with a tree makes of the records, when there are some. */
struct fw_verify_subset {
	size_t subset;     /* names of the tree no record lists: not installed */
	size_t subset_pkg; /* of which in packages with no record at all */
};
/* Compare the tree's plan p with what the records at fwfd say was
 * installed: a name of the tree that no record lists was left out by the
 * install (a subset: --hardware, --select, --package), not lost: those
 * leave res, counted in a. A name installed from another release of the
 * tree stays a problem: the tree asked about is not what is installed
 * there (a refused or interrupted upgrade is one). Only where every record
 * is readable: a damaged one decides nothing. 0 or -ENOMEM. */
int fw_verify_against_records(const struct fw_plan *p, int fwfd, struct fw_verify_result *res,
			      struct fw_verify_subset *a);

#endif
