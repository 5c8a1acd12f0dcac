/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one plan of an install: every name it puts in a firmware directory, computed from the model. */
#ifndef FWDIST_PLAN_H
#define FWDIST_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compress.h"
#include "diag.h"
#include "tree.h"

/* What an install is asked for. */
struct fw_plan_opts {
	struct fw_selection sel; /* packages and --select (all NULL: everything) */
	enum fw_compress comp;   /* for File:; RawFile: is never compressed */
	bool dedup;              /* identical blobs of one package become symlinks */
	bool no_licences;        /* no licence texts in LICENSES/<package>/ */
};

enum fw_plan_kind {
	FW_PLAN_FILE,    /* a blob's bytes, stored as comp */
	FW_PLAN_LICENCE, /* a licence text, LICENSES/<package>/<id>.txt */
	FW_PLAN_LINK,    /* a symlink: a Link: entry, or a dedup link */
	FW_PLAN_DIR,     /* a directory the install needs */
};

struct fw_plan_entry {
	enum fw_plan_kind kind;
	char *final;                  /* its path in the firmware directory, with .xz/.zst */
	const char *name;             /* request name (no suffix); licence and dir: final */
	int pkg;                      /* package (split index); -1 for a directory */
	const struct fw_blob *blob;   /* FILE: the blob; LINK: whose bytes it serves, NULL
				       * for a directory link */
	const struct fw_link *link;   /* LINK of a Link: entry; NULL for a dedup link */
	const struct fw_text *text;   /* LICENCE */
	const char *src;              /* FILE: below firmware/; LICENCE: below the tree root */
	uint8_t sha256[FW_SHA256_LEN]; /* FILE, LICENCE, LINK to a blob: the content */
	uint64_t size;
	enum fw_compress comp;        /* FILE: how it is stored; LINK: its target's storage */
	char *target;                 /* LINK: the symlink's text, with the target's suffix */
	const char *dir_target;       /* LINK to a directory: that directory, as a name */
	long needs;                   /* LINK: the entry that must be in place first, or -1 */
};

struct fw_plan {
	const struct fw_tree *t;
	struct fw_plan_opts o;
	/* Copies first (FILE, LICENCE), then links (dedup links before Link:
	 * entries, so a Link: may point at a dedup link), then directories. */
	struct fw_plan_entry *v;
	size_t n, ncopies, nlinks, ndirs;
	size_t unsummed;  /* selected blobs left out: no checksum (findings in d) */
	bool *covers;     /* per package: the install covers the whole package */
	size_t *by_final; /* v sorted by final */
	size_t *by_name;  /* FILE and LINK entries sorted by name */
	size_t nnames;
};

/* Compute the plan of an install of t with o. A selected blob that has no
 * checksum is left out and reported in d (which may be NULL). 0 or -ENOMEM. */
int fw_plan_build(struct fw_plan *p, const struct fw_tree *t, const struct fw_plan_opts *o,
		  struct fw_diag *d);
void fw_plan_free(struct fw_plan *p);

/* The entry installed at final, or NULL. */
const struct fw_plan_entry *fw_plan_find(const struct fw_plan *p, const char *final);
/* The FILE or LINK entry of a request name (any suffix), or NULL. */
const struct fw_plan_entry *fw_plan_find_name(const struct fw_plan *p, const char *name);
/* Whether an install with this plan covers package pkg whole: then what
 * the record of pkg has and the plan has not is an old name to remove. */
bool fw_plan_covers(const struct fw_plan *p, int pkg);
/* The name of the package of e, or NULL for a directory. */
const char *fw_plan_package(const struct fw_plan *p, const struct fw_plan_entry *e);

/* --compress=auto and the check of an explicit xz or zstd against the target
 * kernel's config: config names it, else release gives /boot/config-R (R
 * from uname with autosel and neither). Nothing named and not autosel:
 * *comp stays (staging builds). force: an explicit choice the kernel cannot
 * load is allowed. 0, -EPERM when refused (the reason, FILE:LINE, in d), or
 * -errno when the config cannot be read (*path names it; a new string). */
int fw_plan_kernel_compress(const char *config, const char *release, bool autosel, bool force,
			    enum fw_compress *comp, char **path, struct fw_diag *d);

#endif
