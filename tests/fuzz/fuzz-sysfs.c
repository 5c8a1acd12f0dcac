/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the sysfs walk (fw_hw_scan): a saved /sys copy built from the input, then walked. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "hardware.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The input is records separated by NUL bytes, each a type byte, a path
 * below the copy's top, and after a tab its content:
 *   d PATH          a directory
 *   f PATH \t DATA  a file holding DATA (a modalias, uevent, anything)
 *   l PATH \t DEST  a symlink to DEST (driver, subsystem, loops)
 * Parent directories are made as needed. Paths that would leave the copy
 * (absolute, "..") are skipped: the walk is what is fuzzed, not the
 * builder. Link targets are kept as given: the walk must follow none.
 */

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(p);
}

static int safe_path(const char *p)
{
	if (!*p || *p == '/' || strlen(p) > 512)
		return 0;
	for (const char *c = p; *c; c = strchr(c, '/') ? strchr(c, '/') + 1 : c + strlen(c)) {
		if (strncmp(c, "..", 2) == 0 && (c[2] == '/' || c[2] == '\0'))
			return 0;
	}
	return 1;
}

/* mkdir -p of path's parent, below top (dfd). */
static void parents(int dfd, char *path)
{
	for (char *s = strchr(path, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		(void)mkdirat(dfd, path, 0755);
		*s = '/';
	}
}

static void build(int dfd, const uint8_t *data, size_t size)
{
	size_t i = 0;
	unsigned n = 0;

	while (i < size && n++ < 256) {
		const uint8_t *z = memchr(data + i, '\0', size - i);
		size_t len = z ? (size_t)(z - (data + i)) : size - i;
		char *rec = strndup((const char *)data + i, len);
		char *tab, *path;
		int fd;

		i += len + 1;
		if (!rec)
			return;
		if (len < 2) {
			free(rec);
			continue;
		}
		path = rec + 1;
		tab = strchr(path, '\t');
		if (tab)
			*tab++ = '\0';
		if (!safe_path(path)) {
			free(rec);
			continue;
		}
		parents(dfd, path);
		switch (rec[0]) {
		case 'd':
			(void)mkdirat(dfd, path, 0755);
			break;
		case 'f':
			fd = openat(dfd, path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
			if (fd >= 0) {
				if (tab)
					(void)!write(fd, tab, strlen(tab));
				close(fd);
			}
			break;
		case 'l':
			(void)symlinkat(tab ? tab : "", dfd, path);
			break;
		}
		free(rec);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char top[PATH_MAX];
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	struct fw_hw h = { 0 };
	struct fw_diag d = { 0 };
	int dfd;

	snprintf(top, sizeof(top), "%s/fuzz-sysfs.XXXXXX", base);
	if (!mkdtemp(top))
		return 0;
	dfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		build(dfd, data, size);
		close(dfd);
		(void)fw_hw_scan(&h, top, &d);
	}
	fw_hw_free(&h);
	fw_diag_free(&d);
	nftw(top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}
