/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dpkg's locks on a root: taken as apt takes them, while fwdist writes where dpkg does. */
#ifndef FWDIST_DPKG_LOCK_H
#define FWDIST_DPKG_LOCK_H

#include <stdbool.h>
#include <sys/types.h>

/* Below the root, as dpkg's frontend interface (dpkg's
 * doc/spec/frontend-api.txt) names them: a frontend takes the frontend
 * lock, then the database lock; dpkg run by a frontend that set
 * DPKG_FRONTEND_LOCKED takes only the database lock. */
#define FW_DPKG_ADMINDIR "var/lib/dpkg"
#define FW_DPKG_STATUS FW_DPKG_ADMINDIR "/status"
#define FW_DPKG_LOCK_FRONTEND FW_DPKG_ADMINDIR "/lock-frontend"
#define FW_DPKG_LOCK_DB FW_DPKG_ADMINDIR "/lock"

struct fw_dpkg_lock {
	int frontend; /* the open lock files, or -1 */
	int db;
	/* Why none was taken though the root has a database: the dpkg
	 * running us holds them (DPKG_RUNNING_VERSION, its admin directory
	 * this root's). */
	bool by_parent;
};
#define FW_DPKG_LOCK_INIT { .frontend = -1, .db = -1, .by_parent = false }

/* Take dpkg's locks of the root open at rootfd, if it has a dpkg database
 * (FW_DPKG_STATUS), and hold them until fw_dpkg_unlock: fcntl write locks
 * on the whole of each file (open file description locks, else process
 * ones), as dpkg and apt take them, so that neither dpkg nor apt runs on
 * the root while fwdist writes there, nor fwdist while they do. Not
 * waited for: held by another process is -EAGAIN at once, as dpkg and apt
 * do by default, with *which the lock's path below the root
 * (FW_DPKG_LOCK_*) and *holder its pid (0 when not known: a lock of an
 * open file description has none). Run by dpkg itself (a maintainer
 * script, a trigger: DPKG_RUNNING_VERSION set, and DPKG_ADMINDIR, else
 * DPKG_ROOT/var/lib/dpkg, is this root's admin directory), its locks are
 * already held by that dpkg, for us: none is taken. With
 * DPKG_FRONTEND_LOCKED set (a frontend holds the frontend lock and runs
 * us as it runs dpkg) only the database lock is taken, as dpkg does. No
 * database: 0, nothing taken. 0 or -errno (*which names the file). */
int fw_dpkg_lock(int rootfd, struct fw_dpkg_lock *l, const char **which, pid_t *holder);
/* Release what fw_dpkg_lock took (closing the files drops the locks). */
void fw_dpkg_unlock(struct fw_dpkg_lock *l);

#endif
