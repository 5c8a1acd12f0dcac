/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The executor of an install plan: verified, atomic, compressed, deduplicated, recorded. */
#ifndef FWDIST_INSTALL_H
#define FWDIST_INSTALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "dpkg.h"
#include "plan.h"
#include "progress.h"
#include "record.h"

struct fw_install_opts {
	bool force;     /* replace what fwdist did not install, or changed since */
	unsigned jobs;  /* worker threads; 0: one per online CPU */
	/* The signed release being installed (install --require-signature),
	 * or NULL. Each package's record keeps the newest one installed
	 * (record.h); an older serial, or the same serial with other signed
	 * pins, stops the install before anything is written, unless
	 * allow_downgrade. */
	const struct fw_rec_release *release;
	bool allow_downgrade;
	/* Counted as the copies go (progress.h), or NULL: files are the
	 * copies (blobs and licence texts), bytes what they read. */
	struct fw_progress *progress;
	/* If set, an array of the plan's p->n entries: each is set true when
	 * its entry is in place at the end (install --json lists them). */
	bool *in_place;
	/* What dpkg owns in the destination (dpkg.h), or NULL: those names
	 * are left alone (not written, replaced or removed), and so is every
	 * name of a package whose record is a Debian package's (a record dpkg
	 * lists, or one marked #packaged, unless adopt_packaged). */
	const struct fw_dpkg *dpkg;
	bool adopt_packaged; /* a record marked #packaged that no database lists is fwdist's */
	bool packaged;       /* mark the records written (debian/rules: the package's build) */
};

struct fw_install_result {
	size_t blobs;       /* blobs copied */
	size_t links;       /* Link: symlinks created or already right */
	size_t dedup_links; /* blobs installed as symlinks to an identical copy */
	size_t licences;    /* licence texts installed */
	size_t removed;     /* names of an earlier install the tree no longer has */
	size_t kept;        /* old names kept: changed since fwdist installed them */
	size_t unchanged;   /* blobs and texts already in place, not rewritten */
	size_t failed;      /* names not installed, or kept (reported in d) */
	size_t dpkg;        /* names left alone: a Debian package's (reported in d, no failure) */
	uint64_t bytes_in, bytes_out;
};

/* Carry out plan p in the firmware directory fwfd (from fw_dest_open).
 * Every blob is hashed while it is copied into a temporary file beside its
 * final name and renamed into place only if its SHA-256 and size match the
 * plan; failures are reported in d (naming the blob) and leave the old file
 * untouched. Nothing is followed or written outside fwfd.
 *
 * The install record (.fwdist/<package>.list, see record.h) is read first:
 * one that fwdist did not write (a malformed line, a foreign file) stops the
 * install before anything is written, unless o->force. It is written last,
 * after a complete install. An upgrade switches every path whose type
 * changed (file, link, directory) atomically where the filesystem allows
 * (RENAME_EXCHANGE), and a directory only once everything below its
 * replacement is in place; it removes the names the record has and the plan
 * no longer does when their bytes are still what the record says (a changed
 * one is kept and reported, unless o->force), and never replaces what fwdist
 * did not install unless o->force. A signed release (o->release) older than
 * the one a covered package's record has, or of the same serial with other
 * pins, is refused before anything is written (a finding naming the record,
 * "a downgrade from serial X to serial Y"), unless o->allow_downgrade; the
 * records then carry it. The names o->dpkg owns, and those of a package
 * whose record is a Debian package's, are left alone and reported once
 * per Debian package ("N names belong to dpkg package P: left alone"),
 * counted in res->dpkg, not as failures. Returns 0 (check res->failed) or -errno
 * for a failure that stopped it. */
int fw_install(const struct fw_plan *p, int fwfd, const struct fw_install_opts *o,
	       struct fw_install_result *res, struct fw_diag *d);

#endif
