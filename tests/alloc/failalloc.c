/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Allocation-failure injection, as pkgconf tests itself: preloaded into
 * fwdist, it makes the n-th allocation after main() starts fail
 * (FWDIST_FAIL_ALLOC=n), or counts them (FWDIST_COUNT_ALLOC=FILE: the total
 * is written there at exit). main() starts where fwdist's first call,
 * setlocale(), returns: what the loader and libc do before is not fwdist's.
 * glibc routes its own allocations through the preloaded malloc too, so a
 * failure inside libc, OpenSSL, liblzma or libzstd is injected as well. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <locale.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static atomic_int started;
static atomic_ulong count;
static unsigned long fail_at;

static int should_fail(void)
{
	unsigned long n;

	if (!atomic_load(&started))
		return 0;
	n = atomic_fetch_add(&count, 1) + 1;
	return fail_at && n == fail_at;
}

void *malloc(size_t n)
{
	if (should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
	if (should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
	if (should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, n);
}

static void report(void)
{
	const char *f = getenv("FWDIST_COUNT_ALLOC");
	FILE *o;

	if (!f || !(o = fopen(f, "w")))
		return;
	fprintf(o, "%lu\n", atomic_load(&count));
	fclose(o);
}

char *setlocale(int cat, const char *loc)
{
	static char *(*real)(int, const char *);
	const char *e = getenv("FWDIST_FAIL_ALLOC");
	char *r;

	if (!real)
		real = (char *(*)(int, const char *))dlsym(RTLD_NEXT, "setlocale");
	r = real(cat, loc);
	if (!atomic_load(&started)) {
		fail_at = e ? strtoul(e, NULL, 10) : 0;
		atexit(report);
		atomic_store(&started, 1);
	}
	return r;
}
