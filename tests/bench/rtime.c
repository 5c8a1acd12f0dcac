/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Timing wrapper for tests/bench/run: wall time, CPU time and peak RSS of one command.
 *
 *   rtime OUT COMMAND [ARG...]
 *
 * Runs COMMAND, waits for it with wait4() and appends one line to OUT:
 *   WALL USER SYS MAXRSS
 * (seconds with microseconds, and KiB). Exits with COMMAND's status
 * (128+N if killed by signal N, 127 if it could not be run).
 *
 * The rusage wait4() returns for a child is the child's own plus that of
 * every descendant it reaped (Linux fills it like RUSAGE_BOTH), so for
 * `bash -c 'xargs -P2 ...'` USER and SYS are the sum over all processes of
 * the pipeline, and MAXRSS is the peak of the largest single process among
 * them, not the sum of processes that ran at the same time.
 * GNU time does the same, but prints wall time to 10 ms only. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double secs(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	FILE *out;
	pid_t pid;
	int st;

	if (argc < 3) {
		fprintf(stderr, "usage: rtime OUT COMMAND [ARG...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("rtime: fork");
		return 127;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "rtime: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &st, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("rtime: wait4");
			return 127;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);

	out = fopen(argv[1], "a");
	if (!out) {
		fprintf(stderr, "rtime: %s: %s\n", argv[1], strerror(errno));
		return 127;
	}
	fprintf(out, "%.6f %.6f %.6f %ld\n",
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
		secs(&ru.ru_utime), secs(&ru.ru_stime), ru.ru_maxrss);
	if (fclose(out) != 0) {
		fprintf(stderr, "rtime: %s: %s\n", argv[1], strerror(errno));
		return 127;
	}
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}
