/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Uninstall: remove what the record says fwdist installed, or what the plan says where there is none. */
#ifndef FWDIST_UNINSTALL_H
#define FWDIST_UNINSTALL_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "dpkg.h"
#include "plan.h"
#include "record.h"

struct fw_uninstall_opts {
	bool force; /* also remove recorded files changed since they were installed */
	/* What dpkg owns in the destination (dpkg.h), or NULL: never removed. */
	const struct fw_dpkg *dpkg;
	bool adopt_packaged; /* a record marked #packaged that no database lists is fwdist's */
};

struct fw_uninstall_result {
	size_t blobs, links, licences; /* removed */
	size_t kept;                   /* left in place: changed, or not the tree's (in d) */
	size_t failed;                 /* could not be removed or reached (in d) */
	size_t dpkg;                   /* left alone: a Debian package's (in d, no failure) */
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
 * malformed lines are ignored). A name o->dpkg owns is never removed (it
 * is reported once per Debian package and forgotten by the record); a
 * record that is a Debian package's (dpkg lists it, or it is marked
 * #packaged and o->adopt_packaged is not set) stops it before anything is
 * removed, a failure naming the package. 0 or -errno. */
int fw_uninstall(const struct fw_plan *p, int fwfd, const struct fw_uninstall_opts *o,
		 struct fw_uninstall_result *res, struct fw_diag *d);

#endif
