/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Progress of a long operation: the words of its line (the counters are inline in progress.h). */
#include "progress.h"

#include <inttypes.h>
#include <stdio.h>

char *fw_progress_size(char *buf, size_t len, uint64_t bytes)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	uint64_t tenths;
	unsigned u = 0;

	if (bytes < 1024) {
		snprintf(buf, len, "%" PRIu64 " B", bytes);
		return buf;
	}
	/* Tenths of the unit, rounded to nearest, in integers (no double
	 * rounding 1023.96 KiB up to "1024.0 KiB": that is 1.0 MiB). */
	for (;;) {
		uint64_t div = (uint64_t)1 << (10 * (u + 1));

		tenths = (uint64_t)(((unsigned __int128)bytes * 10 + div / 2) / div);
		if (tenths < 10240 || u == 5)
			break;
		u++;
	}
	snprintf(buf, len, "%" PRIu64 ".%u %s", tenths / 10, (unsigned)(tenths % 10), unit[u]);
	return buf;
}

char *fw_progress_time(char *buf, size_t len, uint64_t seconds)
{
	if (seconds == UINT64_MAX)
		snprintf(buf, len, "-:--");
	else
		snprintf(buf, len, "%" PRIu64 ":%02u", seconds / 60, (unsigned)(seconds % 60));
	return buf;
}

uint64_t fw_progress_eta(uint64_t done, uint64_t total, uint64_t elapsed_ms)
{
	unsigned __int128 num;

	if (done >= total)
		return 0;
	if (!done || !elapsed_ms)
		return UINT64_MAX;
	/* left / (done / elapsed), in ms, rounded up to whole seconds. */
	num = (unsigned __int128)(total - done) * elapsed_ms;
	num = (num + (unsigned __int128)done * 1000 - 1) / ((unsigned __int128)done * 1000);
	return num > UINT64_MAX - 1 ? UINT64_MAX - 1 : (uint64_t)num;
}

int fw_progress_format(char *buf, size_t len, const char *cmd, uint64_t files_done,
		       uint64_t files_total, uint64_t bytes_done, uint64_t bytes_total,
		       uint64_t elapsed_ms)
{
	char done[32], total[32], rate[32], left[32];
	uint64_t per_s = elapsed_ms ? (uint64_t)((unsigned __int128)bytes_done * 1000 / elapsed_ms) : 0;
	uint64_t eta = bytes_total ? fw_progress_eta(bytes_done, bytes_total, elapsed_ms) :
				     fw_progress_eta(files_done, files_total, elapsed_ms);
	int n;

	n = snprintf(buf, len, "%s: %" PRIu64 "/%" PRIu64 " files, %s/%s, %s/s, %s left", cmd,
		     files_done, files_total, fw_progress_size(done, sizeof(done), bytes_done),
		     fw_progress_size(total, sizeof(total), bytes_total),
		     fw_progress_size(rate, sizeof(rate), per_s),
		     fw_progress_time(left, sizeof(left), eta));
	if (n < 0)
		return 0;
	return (size_t)n >= len ? (int)(len ? len - 1 : 0) : n;
}
