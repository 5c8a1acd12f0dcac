/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Minimal unit-test harness: each TEST is reported as "ok NAME" or "FAIL NAME";
 * the binary exits with the number of failed tests (capped at 125), or 2
 * for an unknown test name. */
#ifndef FWDIST_UNIT_H
#define FWDIST_UNIT_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct unit_test {
	const char *name;
	void (*fn)(int *failed);
};

#define UNIT_MAX_TESTS 256
static struct unit_test unit_tests[UNIT_MAX_TESTS];
static int unit_ntests;
/* Tests registered past the table: the run refuses to report on a file
 * whose tests it cannot all run (main exits 2 naming the count). */
static int unit_dropped;

#define TEST(name)                                                            \
	static void test_##name(int *unit_failed);                            \
	__attribute__((constructor)) static void register_##name(void)        \
	{                                                                     \
		if (unit_ntests < UNIT_MAX_TESTS)                             \
			unit_tests[unit_ntests++] =                           \
				(struct unit_test){ #name, test_##name };     \
		else                                                          \
			unit_dropped++;                                       \
	}                                                                     \
	static void test_##name(int *unit_failed)

#define CHECK(cond)                                                           \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, \
				__LINE__, #cond);                             \
			*unit_failed = 1;                                     \
			return;                                               \
		}                                                             \
	} while (0)

/* The test cannot run here (a resource outside the project is absent):
 * reported as "skip NAME", counted apart, never as a pass. */
#define SKIP(why)                                                             \
	do {                                                                  \
		fprintf(stderr, "%s:%d: skipped: %s\n", __FILE__, __LINE__, why); \
		*unit_failed = -1;                                            \
		return;                                                       \
	} while (0)

#define CHECK_EQ_INT(a, b)                                                    \
	do {                                                                  \
		long long unit_a = (long long)(a), unit_b = (long long)(b);   \
		if (unit_a != unit_b) {                                       \
			fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", \
				__FILE__, __LINE__, #a, unit_a, #b, unit_b);  \
			*unit_failed = 1;                                     \
			return;                                               \
		}                                                             \
	} while (0)

#define CHECK_EQ_STR(a, b)                                                    \
	do {                                                                  \
		const char *unit_a = (a), *unit_b = (b);                      \
		if (!unit_a || !unit_b || strcmp(unit_a, unit_b) != 0) {      \
			fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", \
				__FILE__, __LINE__, #a, unit_a ? unit_a : "(null)", \
				unit_b ? unit_b : "(null)");                  \
			*unit_failed = 1;                                     \
			return;                                               \
		}                                                             \
	} while (0)

/* Diagnostic i of a struct fw_diag, exactly: file, line and text. Each test
 * file defines CHECK_DIAG(d, i, line, text) for the file it parses. */
#define CHECK_DIAG_IN(d, i, fname, ln, txt)                                   \
	do {                                                                  \
		CHECK((d)->n > (size_t)(i));                                  \
		CHECK_EQ_STR((d)->v[i].file, (fname));                        \
		CHECK_EQ_INT((d)->v[i].line, (ln));                           \
		CHECK_EQ_STR((d)->v[i].text, (txt));                          \
	} while (0)

/* The number of diagnostics, printing them all when it is not the one expected. */
#define CHECK_NDIAG(d, want)                                                  \
	do {                                                                  \
		if ((d)->n != (size_t)(want))                                 \
			for (size_t i_ = 0; i_ < (d)->n; i_++)                \
				fprintf(stderr, "  %s:%u: %s\n", (d)->v[i_].file, \
					(d)->v[i_].line, (d)->v[i_].text);    \
		CHECK_EQ_INT((d)->n, (want));                                 \
	} while (0)

/* Every test, or one alone: test-foo [NAME]. A NAME no test has is a
 * usage error (exit 2), not a run of nothing that passes. */
int main(int argc, char **argv)
{
	int failed = 0, ran = 0;

	if (argc > 2) {
		fprintf(stderr, "usage: %s [TEST]\n", argv[0]);
		return 2;
	}
	if (unit_dropped) {
		fprintf(stderr, "%s: %d tests past the table of %d (UNIT_MAX_TESTS in unit.h): "
			"none run; raise it or split the file\n", argv[0], unit_dropped, UNIT_MAX_TESTS);
		return 2;
	}
	for (int i = 0; i < unit_ntests; i++) {
		int f = 0;

		if (argc > 1 && strcmp(argv[1], unit_tests[i].name) != 0)
			continue;
		unit_tests[i].fn(&f);
		printf("%s %s\n", f < 0 ? "skip" : f ? "FAIL" : "ok", unit_tests[i].name);
		failed += f > 0;
		ran++;
	}
	if (argc > 1 && !ran) {
		fprintf(stderr, "%s: no test named '%s'\n", argv[0], argv[1]);
		return 2;
	}
	return failed > 125 ? 125 : failed;
}

/* A scratch directory for one test: dir (64 bytes at least) gets its path,
 * "/tmp/fwdist-unit-TAG.XXXXXX"; the result is an O_DIRECTORY descriptor
 * of it, or -1. unit_put writes text to path below fd (its directory must
 * exist); unit_cleanup removes the directory and all below it. */
static inline int unit_scratch(char *dir, const char *tag)
{
	snprintf(dir, 64, "/tmp/fwdist-unit-%s.XXXXXX", tag);
	if (!mkdtemp(dir))
		return -1;
	return open(dir, O_RDONLY | O_DIRECTORY);
}

static inline void unit_put(int fd, const char *path, const char *text)
{
	int f = openat(fd, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (f >= 0) {
		if (write(f, text, strlen(text)) < 0)
			perror(path);
		close(f);
	}
}

static inline void unit_cleanup(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		perror(cmd);
}

#endif
