/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The memory the process's compression encoders and decoders may hold together (--memory-limit). */
#include "membudget.h"

#include <pthread.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static uint64_t limit, used;
static unsigned long next_ticket, serving;
/* What this thread holds: a thread holding memory never waits. */
static _Thread_local uint64_t held;

uint64_t fw_mem_default(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	uint64_t quarter = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize / 4 : 0;

	return quarter && quarter < FW_MEM_DEFAULT_MAX ? quarter : FW_MEM_DEFAULT_MAX;
}

void fw_mem_set_limit(uint64_t l)
{
	pthread_mutex_lock(&lock);
	limit = l ? l : fw_mem_default();
	pthread_mutex_unlock(&lock);
}

uint64_t fw_mem_limit(void)
{
	uint64_t l;

	pthread_mutex_lock(&lock);
	if (!limit)
		limit = fw_mem_default();
	l = limit;
	pthread_mutex_unlock(&lock);
	return l;
}

void fw_mem_acquire(uint64_t need)
{
	if (need == 0)
		return;
	pthread_mutex_lock(&lock);
	if (!limit)
		limit = fw_mem_default();
	if (held == 0) {
		unsigned long ticket = next_ticket++;

		/* In turn, so a large need is not passed over forever by small
		 * ones; and only while something else holds memory, so one
		 * codec always runs. */
		while (ticket != serving || (used && used + need > limit))
			pthread_cond_wait(&cond, &lock);
		serving++;
		pthread_cond_broadcast(&cond); /* the next ticket may fit too */
	}
	used += need;
	held += need;
	pthread_mutex_unlock(&lock);
}

void fw_mem_release(uint64_t need)
{
	if (need == 0)
		return;
	pthread_mutex_lock(&lock);
	used -= need;
	held -= need;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}
