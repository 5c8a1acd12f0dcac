/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where the kernel's loader finds a firmware name on an installed root. */
#ifndef FWDIST_FWSEARCH_H
#define FWDIST_FWSEARCH_H

#include <stddef.h>

/* The directories the loader searches, in its order, below each firmware
 * directory: updates/RELEASE, updates, RELEASE, the directory itself (the
 * RELEASE ones only when the release is known). */
#define FW_SEARCH_SUBDIRS 4
#define FW_SEARCH_TOPS 2

struct fw_search {
	char *top[FW_SEARCH_TOPS]; /* root-relative paths, "/usr/lib/firmware" */
	int fd[FW_SEARCH_TOPS];    /* open, or -1 where the directory is absent */
	size_t ntop;
	char *sub[FW_SEARCH_SUBDIRS]; /* "updates/6.1.0-9-amd64/", "updates/", ..., "" */
	size_t nsub;
};

/* The firmware directories of the root destdir (NULL or "": /): fwdir
 * alone when given, else the root's own (fw_default_fwdir): on a merged-/usr
 * root /usr/lib/firmware, which /lib/firmware is; on a split one
 * /lib/firmware (the kernel's) and then /usr/lib/firmware (where Debian 13's
 * packages put it). Each opened with fw_dest_open; an absent one (or an
 * absent root: none) is skipped. release may be NULL. *where gets the path at which an open
 * stopped (NULL on success). 0, -ENOMEM, or -errno of an open. */
int fw_search_open(struct fw_search *s, const char *destdir, const char *fwdir,
		   const char *release, char **where);

/* The files that serve name: in the first directory of the search (tops in
 * order, each in the loader's order) holding name, name.xz or name.zst,
 * every one of those it holds, as root-relative paths (a link is named,
 * not its target; its target must stay inside the firmware directory, as
 * fw_open_resolve checks, and be a regular file: a directory or a FIFO of
 * that name is none, and is never waited on). *paths (new strings, appended, *n counting)
 * gets none when no directory holds it. 0 or -ENOMEM. */
int fw_search_find(const struct fw_search *s, const char *name, char ***paths, size_t *n,
		   size_t *cap);

void fw_search_close(struct fw_search *s);

#endif
