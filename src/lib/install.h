/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Install the tree into a firmware directory: verified, atomic, compressed, deduplicated. */
#ifndef FWDIST_INSTALL_H
#define FWDIST_INSTALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compress.h"
#include "diag.h"
#include "tree.h"

struct fw_install_opts {
	enum fw_compress comp;  /* for File:; RawFile: is never compressed */
	bool dedup;             /* identical blobs of one package become symlinks */
	struct fw_selection sel; /* what to install (all NULL: everything) */
	bool force;             /* replace files and directories fwdist did not install */
	bool no_licences;       /* do not install the licence texts */
	unsigned jobs;          /* worker threads; 0: one per online CPU */
	/* Called from the workers after each blob (serialised by the library). */
	void (*progress)(void *ctx, size_t done, size_t total, uint64_t bytes);
	void *progress_ctx;
};

struct fw_install_result {
	size_t blobs;       /* blobs copied */
	size_t links;       /* Link: symlinks created or already right */
	size_t dedup_links; /* blobs installed as symlinks to an identical copy */
	size_t licences;    /* licence texts installed */
	size_t removed;     /* names of an earlier install the tree no longer has */
	size_t unchanged;   /* blobs and texts already in place, not rewritten */
	size_t failed;      /* blobs or links not installed */
	uint64_t bytes_in, bytes_out;
};

/* Install the selected blobs and links of t into the directory destfd.
 * Every blob is hashed while it is copied into a temporary file beside its
 * final name and renamed into place only if its SHA-256 and size match the
 * manifest; failures are reported in d (naming the blob) and leave the old
 * file untouched. Nothing is followed or written outside destfd.
 *
 * The licence texts the installed blobs need go to LICENSES/<package>/.
 * What was installed is recorded, last, in .fwdist/<package>.list (see
 * record.h); an upgrade switches every path whose type changed (file, link,
 * directory) atomically where the filesystem allows (RENAME_EXCHANGE),
 * removes the names the record has and the tree no longer does, and never
 * replaces a file or directory it did not install unless o->force.
 * Returns 0 (check res->failed) or -errno for a failure that stopped it. */
int fw_install(const struct fw_tree *t, int destfd, const struct fw_install_opts *o,
	       struct fw_install_result *res, struct fw_diag *d);

/* Remove what fw_install would have put in place for this selection: every
 * variant (NAME, NAME.xz, NAME.zst) of its blobs and links that is a file or
 * a symlink, stale temporary files of an interrupted install, and the
 * directories this leaves empty. Never follows a symlink. res counts what
 * was removed (blobs + links). Returns 0 or -errno. */
int fw_uninstall(const struct fw_tree *t, int destfd, const struct fw_selection *sel,
		 struct fw_install_result *res, struct fw_diag *d);

/* Open (creating with mode 0755 as needed) the directory DESTDIR/FIRMWAREDIR.
 * With a DESTDIR, every component below it is opened without following
 * symlinks; without one, the system's own path is used as it is (on merged-
 * /usr systems /lib is a symlink). Returns an fd or -errno. */
int fw_install_open_dest(const char *destdir, const char *firmware_dir, const char **failed_at);

#endif
