/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist import: an upstream linux-firmware tree into this layout (a tree writer, like manifest). */
#ifndef FWDIST_IMPORT_H
#define FWDIST_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "licmap.h"
#include "policy.h"

struct fw_progress;

/* The licence of what import refuses (unknown licence, text not found):
 * undistributable, its text written by import itself. */
#define FW_IMPORT_REFUSED "LicenseRef-fwdist-refused"
/* --vouch: the licence of an installed tree's files no licence information
 * covers, when whoever imports it vouches for them (non-free: binary
 * redistribution as far as they know; never classified). */
#define FW_IMPORT_VOUCHED "LicenseRef-fwdist-vouched"
/* The Licence: wording import gives those files (--no-whence). */
#define FW_IMPORT_INSTALLED_WORDING "Unknown: an installed tree without licence information."

struct fw_strv {
	char **v;
	size_t n, cap;
};
void fw_strv_free(struct fw_strv *s);

/* The vendor split template of a checkout of this repository: the split of
 * the first import into it is proposed from it (fwdist(1), import). */
#define FW_SPLIT_TEMPLATE "debian/vendor-split"

struct fw_import_opts {
	const char *src;           /* the upstream tree */
	const char *into;          /* the tree to write (replaced as a whole) */
	const char *map_path;      /* manifests/licence-map to classify with */
	const char *preferred_path; /* manifests/preferred-form the tree keeps, or NULL */
	const char *recipes_path;   /* manifests/build the tree keeps (its recipes whose
				     * files the release has), or NULL */
	const char *const *licence_dirs;
	size_t nlicence_dirs;
	bool allow_missing;        /* accepted for scripts: absent files never stop an import */
	bool link;                 /* hard-link blobs where possible */
	bool no_whence;            /* SRC is an installed tree: every file a File: */
	bool debian_copyright;     /* licences from SRC's usr/share/doc/<pkg>/copyright */
	bool vouch;                /* no_whence: what no licence covers is FW_IMPORT_VOUCHED */
	bool adopt;                /* DIR need not be an fwdist tree: what is in the way is kept */
	/* A later import into a checkout: the packages of its
	 * FW_SPLIT_TEMPLATE the split lacks and which would now take blobs of
	 * the rest:yes package are added (their template lines), each with a
	 * manifests/replaces line taking the names over from that package. */
	bool take_new_vendors;
	/* The split is proposed from this template (manifests/packages lines;
	 * NULL: DIR's FW_SPLIT_TEMPLATE at the first import into a checkout). */
	const char *split_template;
	/* The upstream release, YYYYMMDD (fw_release_valid), or NULL: recorded
	 * as "release YYYYMMDD" in manifests/imported. */
	const char *release;
	/* The blobs' copies, counted as they go (progress.h), or NULL. */
	struct fw_progress *progress;
};

/* What an import found and did; every list is of printable lines. */
struct fw_import_report {
	/* The refused summary, said first: per cause (a licence text missing,
	 * a licence unknown, an undistributable verdict, a file missing) how
	 * many blobs, a few names and the step that would admit them. */
	struct fw_strv refused;
	unsigned nrefused;         /* blobs refused (listed entries missing: missing.n) */
	unsigned nabsent;          /* of missing, the File:/RawFile: names (once each) */
	struct fw_strv missing;    /* "WHENCE:LINE: File: NAME" listed, absent */
	struct fw_strv unlisted;   /* on disk, in no WHENCE entry */
	struct fw_strv unknown;    /* licences the map does not know */
	struct fw_strv no_text;    /* licence ids whose text was not found */
	struct fw_strv dropped;    /* entries not imported, and why */
	struct fw_strv notes;      /* other facts (CRLF converted, empty blobs shipped) */
	struct fw_strv changes;    /* against the tree that was at DIR */
	struct fw_strv packages;   /* --debian-copyright: the packages found */
	struct fw_strv uncovered;  /* blobs the split kept from DIR has no line for */
	struct fw_strv split;      /* packages of the kept split that take nothing now (dropped) */
	struct fw_strv vendors;    /* template packages the split lacks that would take blobs */
	unsigned blocks, files, links, sources, copied, linked, empty;
	unsigned cat[FW_CAT_UNKNOWN + 1]; /* blobs per effective category */
	uint64_t bytes;
	bool had_old;              /* DIR held a tree: changes is meaningful */
	bool written;
};
void fw_import_report_free(struct fw_import_report *r);

/* Whether s[0..n) is a release: 8 digits YYYYMMDD, a month 01-12 and a
 * day 01-31 (linux-firmware tags its releases so). */
bool fw_release_valid(const char *s, size_t n);
/* The release in a directory name: the last run of exactly 8 digits of
 * path's last component that is a release, into out. 0, or -ENOENT. */
int fw_release_from_name(const char *path, char out[9]);
/* A "revision N" line's N: 1 to 9999, no sign, no leading 0. 0 or -EINVAL. */
int fw_revision_parse(const char *s, size_t n, unsigned *out);

/* Import o->src into o->into. The tree is built under a temporary name
 * beside DIR, checked, and renamed into place: a failure or an interrupt
 * leaves DIR as it was. Nothing in SRC is followed out of SRC, nothing is
 * written outside the temporary tree and DIR. Returns 0 when written
 * (listed files absent from SRC are refused, each in rep->missing);
 * -EINVAL for WHENCE or map errors (in d, nothing written); -EPROTO when the built tree failed its own check (in d); else
 * -errno with d saying where. */
int fw_import(const struct fw_import_opts *o, struct fw_import_report *rep, struct fw_diag *d);

#endif
