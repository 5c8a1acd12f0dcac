/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Concurrent reader for the upgrade tests: opens every name as the kernel's
 * loader would (NAME, then NAME.xz, then NAME.zst, following symlinks) in a
 * loop until told to stop, and counts each time a name is not there.
 *
 *   reader ROOT NAMES STOPFILE
 *   reader ROOT NAMES --once     one round, for a caller that holds the
 *                                writer still while it reads (lockstep)
 *
 * NAMES has one name a line, "S name" for a name that must never be missing
 * (it exists before the upgrade and after it) and "N name" for one the
 * upgrade adds (missing until it first appears, never after). The reader runs
 * until STOPFILE exists, then prints
 *   reader: OPENS opens, ROUNDS rounds, MISSING missing
 * and one line per violation, and exits 1 if a name went missing. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct name {
	char *name;
	bool stable, seen;
	unsigned long missing;
};

static int try_open(const char *root, const char *name)
{
	static const char *const suffixes[] = { "", ".xz", ".zst" };
	char path[8192];

	for (size_t i = 0; i < 3; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/%s%s", root, name, suffixes[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			char c;
			/* Read a byte: an empty (partial) file would show here. */
			ssize_t n = read(fd, &c, 1);

			close(fd);
			return n == 1 ? 0 : -EIO;
		}
		if (errno != ENOENT)
			return -errno;
	}
	return -ENOENT;
}

int main(int argc, char **argv)
{
	struct name *v = NULL;
	size_t n = 0, cap = 0;
	unsigned long opens = 0, rounds = 0, missing = 0, errors = 0;
	bool once;
	char line[8192];
	FILE *f;

	if (argc != 4) {
		fprintf(stderr, "usage: reader ROOT NAMES STOPFILE|--once\n");
		return 2;
	}
	f = fopen(argv[2], "r");
	if (!f) {
		perror(argv[2]);
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);

		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		if (len < 3 || (line[0] != 'S' && line[0] != 'N') || line[1] != ' ')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				return 2;
		}
		v[n++] = (struct name){ .name = strdup(line + 2), .stable = line[0] == 'S' };
	}
	fclose(f);
	once = strcmp(argv[3], "--once") == 0;
	while (once ? rounds == 0 : access(argv[3], F_OK) != 0) {
		for (size_t i = 0; i < n; i++) {
			int r = try_open(argv[1], v[i].name);

			opens++;
			if (r == 0) {
				v[i].seen = true;
			} else if (r == -ENOENT) {
				if (v[i].stable || v[i].seen) {
					v[i].missing++;
					missing++;
				}
			} else {
				errors++;
				v[i].missing++;
			}
		}
		rounds++;
	}
	printf("reader: %lu opens, %lu rounds, %lu missing, %lu errors\n", opens, rounds, missing,
	       errors);
	for (size_t i = 0; i < n; i++)
		if (v[i].missing)
			printf("reader: %s: missing or unreadable %lu times\n", v[i].name, v[i].missing);
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	return missing || errors ? 1 : 0;
}
