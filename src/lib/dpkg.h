/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dpkg's database of a root: which names of its firmware directory a Debian package owns. */
#ifndef FWDIST_DPKG_H
#define FWDIST_DPKG_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"

/* Where dpkg lists each installed package's files, one path a line, below
 * the root: info/<package>.list (info/<package>:<arch>.list for a
 * Multi-Arch: same package). */
#define FW_DPKG_INFO "var/lib/dpkg/info"
/* At most this many .list files are read: a real system has a few
 * thousand; each file is bounded by FW_TEXT_MAX. */
#define FW_DPKG_LISTS_MAX 200000u

/* The names below one firmware directory that dpkg packages own. */
struct fw_dpkg {
	bool present;  /* the root has a dpkg database (FW_DPKG_INFO) */
	char **pkgs;   /* the packages owning at least one name, by index */
	size_t npkgs, cap_pkgs;
	struct fw_dpkg_name {
		char *name;  /* relative to the firmware directory */
		size_t pkg;  /* index into pkgs */
	} *v;          /* sorted by name, one entry per name (the first owner) */
	size_t n, cap;
};

/* Read rootfd's dpkg database (FW_DPKG_INFO/<package>.list), never
 * following a symlink below rootfd, and keep the paths below fwdir (a path
 * below the root, "/usr/lib/firmware"). On a merged-/usr root
 * (fw_root_is_merged) /lib/... and /usr/lib/... are one file: both
 * spellings, of the paths and of fwdir, are compared as /usr/lib/....
 * No database (no FW_DPKG_INFO): 0, db->present false. A database that
 * cannot be read whole (a symlink in the way, a list past the limits, not
 * a regular file) is -errno, with the file named in d: what dpkg owns
 * cannot then be told, and the callers touch nothing. */
int fw_dpkg_load(int rootfd, const char *fwdir, struct fw_dpkg *db, struct fw_diag *d);
void fw_dpkg_free(struct fw_dpkg *db);
/* The dpkg package that owns name (below the firmware directory), or NULL. */
const char *fw_dpkg_owner(const struct fw_dpkg *db, const char *name);
/* The owner of any of NAME, NAME.xz, NAME.zst (every storage of a name:
 * one variant of dpkg's is enough to leave the name alone), or NULL. */
const char *fw_dpkg_owner_any(const struct fw_dpkg *db, const char *name);

/* The names left alone, per owner, for one message each: "N names belong
 * to dpkg package P: left alone; use apt to change them (a, b, c, ...)". */
#define FW_DPKG_SHOWN 3
struct fw_dpkg_tally {
	struct fw_dpkg_owner {
		char *package;
		size_t count;
		char *shown[FW_DPKG_SHOWN];
		bool marked; /* a record marked as the package's, no database lists it */
	} *v;
	size_t n, cap;
	bool nomem;
};
/* Count name as left alone for package (marked: by a record's mark only). */
void fw_dpkg_tally_add(struct fw_dpkg_tally *t, const char *package, const char *name, bool marked);
/* One message per package into d, in the order first seen; the total. */
size_t fw_dpkg_tally_report(const struct fw_dpkg_tally *t, struct fw_diag *d);
void fw_dpkg_tally_free(struct fw_dpkg_tally *t);

#endif
