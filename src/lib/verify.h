/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Verify an installed firmware directory (plain, .xz or .zst) against the tree's manifest. */
#ifndef FWDIST_VERIFY_H
#define FWDIST_VERIFY_H

#include <stdbool.h>
#include <stddef.h>

#include "tree.h"

struct fw_verify_opts {
	struct fw_selection sel;  /* what to expect (all NULL: everything) */
	bool ignore_extra;        /* do not report unexpected entries */
	bool no_licences;         /* do not expect LICENSES/<package>/<id>.txt */
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

/* Check every expected name of the selection under rootfd: blobs (one of
 * NAME, NAME.xz, NAME.zst, decompressed and hashed; a symlink staying in the
 * root is followed), links (a symlink reaching the right content or
 * directory), and, unless ignore_extra, entries nothing explains.
 * Returns 0 (problems in res) or -errno. */
int fw_verify(const struct fw_tree *t, int rootfd, const struct fw_verify_opts *o,
	      struct fw_verify_result *res);
void fw_verify_result_free(struct fw_verify_result *res);

#endif
