/* SPDX-License-Identifier: GPL-2.0-or-later */
/* LD_PRELOAD hook for tests/sign/run: swap a tree file's bytes between fwdist's opens of it, deterministically. */
/*
 * A writer of the tree racing a signed install, without the race: on the
 * first open of a file named as FWDIST_SWAP_FILE (its last component; a
 * directory open does not count), the bytes of FWDIST_SWAP_UNSIGNED are put
 * in its place first; on the second open, the bytes of FWDIST_SWAP_SIGNED
 * are put back first. So whatever reads it first sees content nobody signed,
 * and whatever reads it again sees the signed content. Each swap is a
 * rename of a whole new file, as a careful attacker would do it.
 * FWDIST_SWAP_LOG, if set, gets a line per counted open.
 * Built by tests/sign/run with cc -shared -fPIC.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int opens;

/* Copy from into a new file beside to, then rename it over to. The hook's
 * own opens go straight to the kernel, not back through the hook. */
static void put(const char *from, const char *to)
{
	char tmp[4096], buf[65536];
	int in, out;
	ssize_t n;

	if (!from || snprintf(tmp, sizeof(tmp), "%s.swap-tmp", to) >= (int)sizeof(tmp))
		abort();
	in = (int)syscall(SYS_openat, AT_FDCWD, from, O_RDONLY | O_CLOEXEC);
	out = (int)syscall(SYS_openat, AT_FDCWD, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (in < 0 || out < 0)
		abort();
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			abort();
	if (n < 0 || close(out) < 0 || rename(tmp, to) < 0)
		abort();
	close(in);
}

static void before_open(const char *path, int flags)
{
	const char *target = getenv("FWDIST_SWAP_FILE"), *base, *leaf, *log;

	if (!target || !path || (flags & O_DIRECTORY))
		return;
	base = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	leaf = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (strcmp(base, leaf) != 0)
		return;
	opens++;
	log = getenv("FWDIST_SWAP_LOG");
	if (log) {
		FILE *f = fopen(log, "ae");

		if (f) {
			fprintf(f, "open %d of %s\n", opens, path);
			fclose(f);
		}
	}
	if (opens == 1)
		put(getenv("FWDIST_SWAP_UNSIGNED"), target);
	else if (opens == 2)
		put(getenv("FWDIST_SWAP_SIGNED"), target);
}

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

int openat(int dirfd, const char *path, int flags, ...)
{
	static int (*real)(int, const char *, int, ...);
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (!real)
		real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
	before_open(path, flags);
	return real(dirfd, path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	static int (*real)(const char *, int, ...);
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	if (!real)
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	before_open(path, flags);
	return real(path, flags, mode);
}
