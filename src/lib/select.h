/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Selection files (--select): exact request names or shell globs, one per
 * line, resolved against the model. */
#ifndef FWDIST_SELECT_H
#define FWDIST_SELECT_H

#include <stdbool.h>

struct fw_diag;
struct fw_tree;

/* Read FILE (one name or glob per line, '#' comments, blank lines ignored)
 * and mark the blobs and links of t it selects in blob_sel[nblobs] and
 * link_sel[nlinks]. A name selects exactly that name, never a substring; a
 * glob follows the shell (fnmatch with FNM_PATHNAME: '*' stops at '/'); a
 * selected link selects its target too (a directory link, every blob below
 * it). A line that selects nothing, or only what is never installed, is a
 * finding at FILE:LINE. Returns 0 or -errno (file unreadable, ENOMEM). */
int fw_select_load(const struct fw_tree *t, const char *path, bool *blob_sel, bool *link_sel,
		   struct fw_diag *d);

/* Select one name as the kernel's loader looks it up below the firmware
 * directory: a blob; a link, the rest of its chain and the blob it serves;
 * or a name below a directory link (Link: dir -> other), the links it goes
 * through and the blob they lead to. Only a name that ends at a blob install
 * puts in place (fw_blob_installable with no selection) is marked; with
 * blob_sel NULL nothing is marked, the answer alone is given. Returns
 * whether it was. */
bool fw_select_request(const struct fw_tree *t, const char *name, bool *blob_sel, bool *link_sel);

#endif
