/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Install's small helpers every step uses (a leaf: it calls no other install file): failures, durability, the switch of one name. */
#include "install-int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "util.h"

const enum fw_compress inst_all_comp[3] = { FW_COMP_NONE, FW_COMP_XZ, FW_COMP_ZSTD };

void inst_fail(struct item *it, const char *fmt, ...)
{
	va_list ap;

	if (it->err)
		return;
	va_start(ap, fmt);
	if (vasprintf(&it->err, fmt, ap) < 0)
		it->err = NULL;
	va_end(ap);
	if (!it->err)
		it->err = strdup("out of memory");
}

/* Why a destination path could not be opened, in words. */
const char *inst_parent_error(int r)
{
	if (r == -ELOOP)
		return "a symlink is in its path in the destination; refusing to follow it";
	if (r == -ENOTDIR)
		return "a non-directory is in its path in the destination";
	return strerror(-r);
}

/* Something below destfd changed since the last syncfs. */
void inst_changed(struct ctx *c)
{
	atomic_store(&c->unsynced, true);
}

/* Put tmp in place of leaf, if what stands there is still what the
 * preflight checked (was; see fw_replace_checked): a file another writer
 * (dpkg, a user) put or renamed there since is left as it is (-EEXIST,
 * -ESTALE). Where an old directory stands at leaf, the two are swapped
 * atomically (RENAME_EXCHANGE: readers see the old tree or the new name,
 * never nothing) and the old tree removed; where the filesystem cannot
 * swap, the directory is moved aside first, and that is said.
 *
 * The old directory is marked as ours (fw_stage_mark) before the swap, not
 * after: the swap gives it a temporary name, and a kill at any moment from
 * then until its removal ends leaves a marked directory of that name, which
 * the next install or uninstall removes (fw_clean_tmp_in) and verify names
 * as such. Marked after the swap, a kill in between left an unmarked copy of
 * the old blobs that no run may remove, since it is not known to be ours. A
 * kill before the swap leaves the mark in the directory still in place,
 * which the next run swaps out again or cleans. */
int inst_replace(int pfd, const char *tmp, const char *leaf, bool exchange, struct fw_diag *d,
		 pthread_mutex_t *lock, const char *final, const struct fw_ident *was)
{
	struct stat st;
	bool dir;
	int r;

	if (!exchange)
		return fw_replace_checked(pfd, tmp, leaf, was);
	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return fw_replace_checked(pfd, tmp, leaf, was); /* gone: only if still free */
	if (!fw_ident_same(was, &st))
		return -ESTALE; /* not the directory checked: nothing marked */
	dir = S_ISDIR(st.st_mode);
	if (dir && (r = fw_stage_mark(pfd, leaf)) < 0)
		return r;
	r = fw_replace_checked(pfd, tmp, leaf, was);
	if (r != -EINVAL) {
		if (r < 0 && dir)
			fw_stage_unmark(pfd, leaf);
		return r;
	}
	{
		char aside[320];

		/* Aside under a temporary name of its own (marked, if a
		 * directory): what a kill leaves here is cleaned up too.
		 * What was moved is looked at again: only the directory
		 * checked is removed. */
		r = fw_tmp_rename(pfd, leaf, leaf, aside, sizeof(aside));
		if (r < 0) {
			if (dir)
				fw_stage_unmark(pfd, leaf);
			return r;
		}
		if (fstatat(pfd, aside, &st, AT_SYMLINK_NOFOLLOW) < 0 || !fw_ident_same(was, &st))
			r = -ESTALE;
		else
			r = fw_replace_checked(pfd, tmp, leaf, NULL);
		if (r < 0) {
			renameat(pfd, aside, pfd, leaf);
			if (dir)
				fw_stage_unmark(pfd, leaf);
			return r;
		}
		fw_rm_rf_at(pfd, aside);
		if (lock)
			pthread_mutex_lock(lock);
		fw_diag_add(d, "", 0,
			    "%s: the filesystem cannot swap a directory atomically "
			    "(RENAME_EXCHANGE); replaced in two steps", fw_esc(final));
		if (lock)
			pthread_mutex_unlock(lock);
		return 0;
	}
}

/* Why the final step left a name as it was, in words. */
const char *inst_replace_error(int r)
{
	if (r == -EEXIST)
		return "appeared during the install (another writer); kept";
	if (r == -ESTALE)
		return "replaced during the install by what fwdist did not check (another writer); kept";
	if (r == -EISDIR)
		return "a directory is in the way in the destination";
	return strerror(-r);
}
