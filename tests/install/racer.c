// SPDX-License-Identifier: GPL-2.0-or-later
// Preloaded into fwdist by tests/install/race: another writer (dpkg, a user)
// at the worst moment. Just before the Nth call that changes a name fwdist
// checked earlier (renameat, renameat2 or unlinkat of a name that is not one
// of fwdist's temporaries, nor below .fwdist), it renames a new file of its
// own over that name, as dpkg unpacks one (NAME.dpkg-new, then rename).
//   FWDIST_RACE_AT=N    plant before the Nth such call (0: plant nothing)
//   FWDIST_RACE_LOG=F   one line per such call: its number and the name's
//                       path (and "planted" on the one planted at)
//   FWDIST_RACE_RUN=CMD at the Nth call, run CMD (sh -c) instead of planting:
//                       what another process sees at that moment
// The planted file holds "planted by the racer\n", mode 0644.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long calls;

static int (*real_renameat2)(int, const char *, int, const char *, unsigned);
static int (*real_renameat)(int, const char *, int, const char *);

static const char *leaf_of(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

// The directory of dirfd/path, as a path (for the log and the check).
static void dir_path(int dirfd, const char *path, char *out, size_t n)
{
	char fdp[64], d[PATH_MAX];
	const char *s = strrchr(path, '/');
	ssize_t k;

	if (path[0] == '/') {
		snprintf(out, n, "%.*s", s ? (int)(s - path) : 0, path);
		return;
	}
	snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", dirfd);
	if (dirfd == AT_FDCWD)
		snprintf(fdp, sizeof(fdp), "/proc/self/cwd");
	k = readlink(fdp, d, sizeof(d) - 1);
	d[k < 0 ? 0 : k] = '\0';
	snprintf(out, n, "%s%s%.*s", d, s ? "/" : "", s ? (int)(s - path) : 0, path);
}

// A name fwdist checked before changing it: not a temporary (".x.fwdist-abc123"),
// not fwdist's record below .fwdist/.
static int checked_name(int dirfd, const char *path)
{
	char dir[PATH_MAX];
	size_t n;

	if (!path || leaf_of(path)[0] == '.')
		return 0;
	dir_path(dirfd, path, dir, sizeof(dir));
	n = strlen(dir);
	return !(n >= 8 && strcmp(dir + n - 8, "/.fwdist") == 0);
}

static void plant(int dirfd, const char *path)
{
	char dir[PATH_MAX], tmp[PATH_MAX], dst[PATH_MAX];
	static const char text[] = "planted by the racer\n";
	int fd;

	dir_path(dirfd, path, dir, sizeof(dir));
	snprintf(tmp, sizeof(tmp), "%s/%s.dpkg-new", dir, leaf_of(path));
	snprintf(dst, sizeof(dst), "%s/%s", dir, leaf_of(path));
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, sizeof(text) - 1) != (ssize_t)(sizeof(text) - 1) || close(fd) < 0 ||
	    real_renameat(AT_FDCWD, tmp, AT_FDCWD, dst) < 0) {
		perror("racer: plant");
		_exit(99);
	}
}

// Count the call, and plant before the Nth.
static void before(int dirfd, const char *path)
{
	const char *at = getenv("FWDIST_RACE_AT"), *log = getenv("FWDIST_RACE_LOG");
	char dir[PATH_MAX];
	long n;
	int hit;
	FILE *f;

	if (!real_renameat) {
		real_renameat = (int (*)(int, const char *, int, const char *))dlsym(RTLD_NEXT, "renameat");
		real_renameat2 = (int (*)(int, const char *, int, const char *, unsigned))
			dlsym(RTLD_NEXT, "renameat2");
	}
	if (!checked_name(dirfd, path))
		return;
	pthread_mutex_lock(&lock);
	n = ++calls;
	hit = at && atol(at) == n;
	if (hit && getenv("FWDIST_RACE_RUN"))
		hit = system(getenv("FWDIST_RACE_RUN")) == 0 ? 2 : 3;
	else if (hit)
		plant(dirfd, path);
	if (log && (f = fopen(log, "a"))) {
		dir_path(dirfd, path, dir, sizeof(dir));
		fprintf(f, "%ld %s/%s%s\n", n, dir, leaf_of(path),
			hit == 1 ? " planted" : hit == 2 ? " ran" : hit == 3 ? " ran, failed" : "");
		fclose(f);
	}
	pthread_mutex_unlock(&lock);
}

int renameat2(int od, const char *op, int nd, const char *np, unsigned flags)
{
	if (checked_name(nd, np))
		before(nd, np);
	else
		before(od, op);
	return real_renameat2(od, op, nd, np, flags);
}

int renameat(int od, const char *op, int nd, const char *np)
{
	if (checked_name(nd, np))
		before(nd, np);
	else
		before(od, op);
	return real_renameat(od, op, nd, np);
}

int unlinkat(int dirfd, const char *path, int flags)
{
	static int (*real)(int, const char *, int);

	if (!real)
		real = (int (*)(int, const char *, int))dlsym(RTLD_NEXT, "unlinkat");
	if (!(flags & AT_REMOVEDIR))
		before(dirfd, path);
	return real(dirfd, path, flags);
}
