/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Progress of a long operation: counters the workers bump, and the words a front end shows. */
#ifndef FWDIST_PROGRESS_H
#define FWDIST_PROGRESS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Files and bytes done of the totals. The library only counts (per file,
 * or per chunk read: never per byte, never under a lock); a front end
 * reads the counters from another thread and draws them. The totals may
 * be set once the work is known (0: not yet). */
struct fw_progress {
	atomic_uint_least64_t files_done, files_total;
	atomic_uint_least64_t bytes_done, bytes_total;
};

static inline void fw_progress_total(struct fw_progress *p, uint64_t files, uint64_t bytes)
{
	if (!p)
		return;
	atomic_store_explicit(&p->bytes_total, bytes, memory_order_relaxed);
	atomic_store_explicit(&p->files_total, files, memory_order_release);
}

static inline void fw_progress_bytes(struct fw_progress *p, uint64_t n)
{
	if (p && n)
		atomic_fetch_add_explicit(&p->bytes_done, n, memory_order_relaxed);
}

static inline void fw_progress_files(struct fw_progress *p, uint64_t n)
{
	if (p && n)
		atomic_fetch_add_explicit(&p->files_done, n, memory_order_relaxed);
}

/* A size for people: "0 B", "1023 B", "1.0 KiB", "12.3 MiB", "2.0 GiB"
 * (binary multiples, one decimal, up to EiB). Returns buf. */
char *fw_progress_size(char *buf, size_t len, uint64_t bytes);
/* Seconds as "M:SS" (minutes unbounded: "75:03"); "-:--" for an unknown
 * time (UINT64_MAX). Returns buf. */
char *fw_progress_time(char *buf, size_t len, uint64_t seconds);
/* Seconds left at the rate so far: (total - done) / (done / elapsed),
 * rounded up; UINT64_MAX when nothing is done yet or no time has passed,
 * 0 when done >= total. */
uint64_t fw_progress_eta(uint64_t done, uint64_t total, uint64_t elapsed_ms);
/* The line: "CMD: N/TOTAL files, B/TOTAL, RATE/s, M:SS left", the rate
 * and the time left from bytes (from files when the totals hold no byte),
 * over elapsed_ms. Returns the length written (truncated to len - 1). */
int fw_progress_format(char *buf, size_t len, const char *cmd, uint64_t files_done,
		       uint64_t files_total, uint64_t bytes_done, uint64_t bytes_total,
		       uint64_t elapsed_ms);

#endif
