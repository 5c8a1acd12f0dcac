/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of progress.c: sizes for people, the time left, the line, and counters shared by threads. */
#include "progress.h"

#include <pthread.h>
#include <stdint.h>

#include "unit.h"

#define CHECK_SIZE(bytes, want)                                               \
	do {                                                                  \
		char b_[32];                                                  \
		CHECK_EQ_STR(fw_progress_size(b_, sizeof(b_), (bytes)), (want)); \
	} while (0)

TEST(size_units)
{
	CHECK_SIZE(0, "0 B");
	CHECK_SIZE(1, "1 B");
	CHECK_SIZE(1023, "1023 B");
	CHECK_SIZE(1024, "1.0 KiB");
	CHECK_SIZE(1536, "1.5 KiB");
	CHECK_SIZE(10 * 1024 + 102, "10.1 KiB");
	CHECK_SIZE(1048576, "1.0 MiB");
	CHECK_SIZE(12 * 1048576 + 314573, "12.3 MiB");
	CHECK_SIZE(640ull << 20, "640.0 MiB");
	CHECK_SIZE(1ull << 30, "1.0 GiB");
	CHECK_SIZE(3ull << 40, "3.0 TiB");
	CHECK_SIZE(1ull << 50, "1.0 PiB");
	CHECK_SIZE(UINT64_MAX, "16.0 EiB");
}

TEST(size_rounding)
{
	/* To the nearest tenth; a tenth that rounds up to 1024 of a unit is
	 * the next unit, never "1024.0 KiB". */
	CHECK_SIZE(1024 + 51, "1.0 KiB");
	CHECK_SIZE(1024 + 52, "1.1 KiB");
	CHECK_SIZE(1048575, "1.0 MiB");
	CHECK_SIZE(1048576 - 51, "1.0 MiB");    /* 1023.95 KiB */
	CHECK_SIZE(1048576 - 52, "1023.9 KiB"); /* 1023.949 KiB */
	CHECK_SIZE((1ull << 30) - 1, "1.0 GiB");
	/* A smaller buffer truncates, never overflows. */
	{
		char b[5];

		CHECK_EQ_STR(fw_progress_size(b, sizeof(b), 1536), "1.5 ");
	}
}

TEST(time_left)
{
	char b[32];

	CHECK_EQ_STR(fw_progress_time(b, sizeof(b), 0), "0:00");
	CHECK_EQ_STR(fw_progress_time(b, sizeof(b), 59), "0:59");
	CHECK_EQ_STR(fw_progress_time(b, sizeof(b), 60), "1:00");
	CHECK_EQ_STR(fw_progress_time(b, sizeof(b), 41), "0:41");
	CHECK_EQ_STR(fw_progress_time(b, sizeof(b), 75 * 60 + 3), "75:03");
	CHECK_EQ_STR(fw_progress_time(b, sizeof(b), UINT64_MAX), "-:--");
}

TEST(eta)
{
	/* Half done in 10 s: 10 s left. */
	CHECK(fw_progress_eta(50, 100, 10000) == 10);
	/* A third done in 1 s: 2 s left. */
	CHECK(fw_progress_eta(1, 3, 1000) == 2);
	/* Rounded up: 0.5 s left is 1 s, so 0:00 only when done. */
	CHECK(fw_progress_eta(2, 3, 1000) == 1);
	CHECK(fw_progress_eta(999, 1000, 1) == 1);
	CHECK(fw_progress_eta(100, 100, 5000) == 0);
	CHECK(fw_progress_eta(101, 100, 5000) == 0);
	/* Nothing done yet, or no time passed: unknown. */
	CHECK(fw_progress_eta(0, 100, 5000) == UINT64_MAX);
	CHECK(fw_progress_eta(10, 100, 0) == UINT64_MAX);
	/* 1 byte of 16 EiB in an hour: huge, but known and no overflow. */
	CHECK(fw_progress_eta(1, UINT64_MAX, 3600000) == UINT64_MAX - 1);
	/* 600 MiB at 15 MiB/s from 150 MiB after 10 s: 30 s. */
	CHECK(fw_progress_eta(150ull << 20, 600ull << 20, 10000) == 30);
}

TEST(line)
{
	char b[256];

	CHECK_EQ_INT(fw_progress_format(b, sizeof(b), "install", 812, 3391, 150ull << 20,
					600ull << 20, 10000),
		     (int)strlen("install: 812/3391 files, 150.0 MiB/600.0 MiB, 15.0 MiB/s, 0:30 left"));
	CHECK_EQ_STR(b, "install: 812/3391 files, 150.0 MiB/600.0 MiB, 15.0 MiB/s, 0:30 left");
	/* At the start: no rate, no time left yet. */
	fw_progress_format(b, sizeof(b), "check", 0, 10, 0, 2048, 0);
	CHECK_EQ_STR(b, "check: 0/10 files, 0 B/2.0 KiB, 0 B/s, -:-- left");
	/* Totals with no byte (empty files, links): the time from files. */
	fw_progress_format(b, sizeof(b), "verify", 5, 10, 0, 0, 2000);
	CHECK_EQ_STR(b, "verify: 5/10 files, 0 B/0 B, 0 B/s, 0:02 left");
	/* Done. */
	fw_progress_format(b, sizeof(b), "import", 3, 3, 3000, 3000, 1500);
	CHECK_EQ_STR(b, "import: 3/3 files, 2.9 KiB/2.9 KiB, 2.0 KiB/s, 0:00 left");
	/* Truncated to the buffer: the length written, terminated. */
	CHECK_EQ_INT(fw_progress_format(b, 10, "install", 1, 2, 3, 4, 5), 9);
	CHECK_EQ_STR(b, "install: ");
}

/* Counters bumped by many threads at once add up (no lost update). */
static struct fw_progress shared;

static void *bump(void *arg)
{
	(void)arg;
	for (int i = 0; i < 100000; i++) {
		fw_progress_bytes(&shared, 3);
		fw_progress_files(&shared, 1);
	}
	return NULL;
}

TEST(counters_threads)
{
	pthread_t th[4];

	fw_progress_total(&shared, 400000, 1200000);
	for (int i = 0; i < 4; i++)
		CHECK(pthread_create(&th[i], NULL, bump, NULL) == 0);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	CHECK(atomic_load(&shared.files_done) == 400000);
	CHECK(atomic_load(&shared.bytes_done) == 1200000);
	CHECK(atomic_load(&shared.files_total) == 400000);
	CHECK(atomic_load(&shared.bytes_total) == 1200000);
	/* NULL counts nothing, and does not crash. */
	fw_progress_bytes(NULL, 1);
	fw_progress_files(NULL, 1);
	fw_progress_total(NULL, 1, 1);
}
