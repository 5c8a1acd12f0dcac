/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dpkg's locks on a root: taken as apt takes them, while fwdist writes where dpkg does. */
#include "dpkg-lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "util.h"

/* Is admfd the admin directory of the dpkg that runs us? dpkg sets
 * DPKG_RUNNING_VERSION, DPKG_ADMINDIR and DPKG_ROOT for the maintainer
 * scripts and hooks it runs, and holds its database lock meanwhile: a lock
 * taken here would fail against our own parent. Another root's database is
 * not the one it holds, and is locked as usual. */
static bool parent_holds(int admfd)
{
	const char *ver = getenv("DPKG_RUNNING_VERSION"), *adm = getenv("DPKG_ADMINDIR");
	const char *root = getenv("DPKG_ROOT");
	struct stat a, b;
	char *path;
	bool same;

	if (!ver || !*ver)
		return false;
	path = adm && *adm ? strdup(adm) : fw_asprintf("%s/%s", root ? root : "", FW_DPKG_ADMINDIR);
	same = path && stat(path, &b) == 0 && fstat(admfd, &a) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
	free(path);
	return same;
}

/* One lock file, as apt's GetLock takes it: created if missing (0640),
 * never through a symlink, a write lock on the whole file, not waited for. */
static int lock_one(int admfd, const char *leaf, int *out, pid_t *holder)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };
	int fd = openat(admfd, leaf, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0640), e;

	if (fd < 0)
		return -errno;
	/* An open file description's lock stays as long as this fd, whatever
	 * else of the process opens and closes the file; dpkg's and apt's
	 * process locks conflict with it all the same. Before Linux 3.15:
	 * a process lock. */
	if (fcntl(fd, F_OFD_SETLK, &fl) == 0 || (errno == EINVAL && fcntl(fd, F_SETLK, &fl) == 0)) {
		*out = fd;
		return 0;
	}
	e = errno;
	if (e == EACCES || e == EAGAIN) {
		struct flock q = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };

		/* dpkg and apt hold process locks: their pid is known. */
		*holder = fcntl(fd, F_GETLK, &q) == 0 && q.l_type != F_UNLCK && q.l_pid > 0 ? q.l_pid : 0;
		e = EAGAIN;
	}
	close(fd);
	return -e;
}

int fw_dpkg_lock(int rootfd, struct fw_dpkg_lock *l, const char **which, pid_t *holder)
{
	const char *fl = getenv("DPKG_FRONTEND_LOCKED");
	struct stat st;
	int admfd, r = 0;

	*holder = 0;
	*which = FW_DPKG_ADMINDIR;
	admfd = fw_open_beneath(rootfd, FW_DPKG_ADMINDIR, O_RDONLY | O_DIRECTORY, 0);
	if (admfd == -ENOENT)
		return 0;
	if (admfd < 0)
		return admfd;
	*which = FW_DPKG_STATUS;
	if (fstatat(admfd, "status", &st, AT_SYMLINK_NOFOLLOW) < 0) {
		r = errno == ENOENT ? 0 : -errno; /* no database: nobody to lock out */
		goto out;
	}
	if (parent_holds(admfd)) {
		l->by_parent = true;
		goto out;
	}
	/* The frontend lock first, then the database's, as apt does: another
	 * frontend waits on the first, and dpkg run alone on the second. */
	if (!fl || !*fl) {
		*which = FW_DPKG_LOCK_FRONTEND;
		r = lock_one(admfd, "lock-frontend", &l->frontend, holder);
		if (r < 0)
			goto out;
	}
	*which = FW_DPKG_LOCK_DB;
	r = lock_one(admfd, "lock", &l->db, holder);
	if (r < 0)
		fw_dpkg_unlock(l);
out:
	close(admfd);
	return r;
}

void fw_dpkg_unlock(struct fw_dpkg_lock *l)
{
	if (l->frontend >= 0)
		close(l->frontend);
	if (l->db >= 0)
		close(l->db);
	l->frontend = l->db = -1;
}
