/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Preloaded into fwdist: the most memory its large blocks (at least 64 KiB:
 * codec dictionaries, match finders, I/O buffers) held at once, written at
 * exit to $FWDIST_PEAK_ALLOC in bytes. Measures what --memory-limit bounds,
 * as allocated, independently of fwdist's own accounting. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

#define LARGE (64u * 1024u)

static atomic_size_t live, peak;

static void add(void *p)
{
	size_t n = p ? malloc_usable_size(p) : 0, now, old;

	if (n < LARGE)
		return;
	now = atomic_fetch_add(&live, n) + n;
	old = atomic_load(&peak);
	while (now > old && !atomic_compare_exchange_weak(&peak, &old, now))
		;
}

static void sub(void *p)
{
	size_t n = p ? malloc_usable_size(p) : 0;

	if (n >= LARGE)
		atomic_fetch_sub(&live, n);
}

void *malloc(size_t n)
{
	void *p = __libc_malloc(n);

	add(p);
	return p;
}

void *calloc(size_t a, size_t b)
{
	void *p = __libc_calloc(a, b);

	add(p);
	return p;
}

void *realloc(void *p, size_t n)
{
	void *q;

	sub(p);
	q = __libc_realloc(p, n);
	add(q ? q : p); /* a failed realloc leaves p as it was */
	return q;
}

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p = __libc_memalign(align, n);

	if (!p)
		return 12; /* ENOMEM */
	add(p);
	*out = p;
	return 0;
}

void *aligned_alloc(size_t align, size_t n)
{
	void *p = __libc_memalign(align, n);

	add(p);
	return p;
}

void free(void *p)
{
	sub(p);
	__libc_free(p);
}

__attribute__((destructor)) static void report(void)
{
	const char *f = getenv("FWDIST_PEAK_ALLOC");
	FILE *o;

	if (f && (o = fopen(f, "w"))) {
		fprintf(o, "%zu\n", atomic_load(&peak));
		fclose(o);
	}
}
