/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Uninstall: remove what the record says fwdist installed, or what the plan says where there is none. */
#ifndef FWDIST_UNINSTALL_H
#define FWDIST_UNINSTALL_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "plan.h"
#include "record.h"

struct fw_uninstall_opts {
	bool force; /* also remove recorded files changed since they were installed */
};

struct fw_uninstall_result {
	size_t blobs, links, licences; /* removed */
	size_t kept;                   /* left in place: changed, or not the tree's (in d) */
	size_t failed;                 /* could not be removed or reached (in d) */
	/* What was removed: each path below the firmware directory and its
	 * type (FW_REC_FILE, FW_REC_LINK, FW_REC_LICENCE); lost is set when
	 * one could not be stored (out of memory). */
	struct fw_uninstall_name {
		enum fw_rec_type type;
		char *name;
	} *v;
	size_t n, cap;
	bool lost;
};
void fw_uninstall_result_free(struct fw_uninstall_result *res);

/* For each package of the plan: with a record (.fwdist/<package>.list),
 * remove exactly what it lists and the plan selects (all of it when the
 * plan covers the package whole), each only while it is still what the
 * record says, then rewrite or remove the record. A changed entry is kept
 * and reported (o->force removes a changed file, never another type).
 * Without a record, remove each variant (NAME, NAME.xz, NAME.zst) of the
 * plan's names whose content, or link text, is the tree's, and its licence
 * texts; anything else there is kept and reported. Also the temporary files
 * of an interrupted install, and the directories this leaves empty. Never
 * follows a symlink; a record fwdist did not write stops it (o->force: its
 * malformed lines are ignored). 0 or -errno. */
int fw_uninstall(const struct fw_plan *p, int fwfd, const struct fw_uninstall_opts *o,
		 struct fw_uninstall_result *res, struct fw_diag *d);

#endif
