/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where the kernel's loader finds a firmware name on an installed root. */
#include "fwsearch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "util.h"

void fw_search_close(struct fw_search *s)
{
	for (size_t i = 0; i < s->ntop; i++) {
		free(s->top[i]);
		if (s->fd[i] >= 0)
			close(s->fd[i]);
	}
	for (size_t i = 0; i < s->nsub; i++)
		free(s->sub[i]);
	memset(s, 0, sizeof(*s));
}

/* Append the subdirectory PRE RELEASE POST ("updates/" "6.1" "/"). */
static int add_sub(struct fw_search *s, const char *pre, const char *release, const char *post)
{
	char *p = fw_asprintf("%s%s%s", pre, release, post);

	if (!p)
		return -ENOMEM;
	s->sub[s->nsub++] = p;
	return 0;
}

int fw_search_open(struct fw_search *s, const char *destdir, const char *fwdir,
		   const char *release, char **where)
{
	const char *tops[FW_SEARCH_TOPS];
	size_t ntops = 0;
	int r = 0;

	memset(s, 0, sizeof(*s));
	*where = NULL;
	if (fwdir) {
		tops[ntops++] = fwdir;
	} else {
		/* The root's layout decides, as for every command. */
		int rootfd = fw_dest_open(destdir, "/", false, where);

		if (rootfd == -ENOENT) {
			/* No root yet: nothing installed, nothing to search. */
			free(*where);
			*where = NULL;
			return 0;
		}
		if (rootfd < 0)
			return rootfd;
		free(*where);
		*where = NULL;
		tops[ntops++] = fw_default_fwdir(rootfd);
		if (strcmp(tops[0], "/lib/firmware") == 0)
			tops[ntops++] = "/usr/lib/firmware";
		close(rootfd);
	}
	if (release && *release)
		r = add_sub(s, "updates/", release, "/");
	if (r == 0)
		r = add_sub(s, "updates/", "", "");
	if (r == 0 && release && *release)
		r = add_sub(s, "", release, "/");
	if (r == 0)
		r = add_sub(s, "", "", "");
	for (size_t i = 0; i < ntops && r == 0; i++) {
		int fd;

		s->top[i] = strdup(tops[i]);
		s->fd[i] = -1;
		s->ntop++;
		if (!s->top[i]) {
			r = -ENOMEM;
			break;
		}
		fd = fw_dest_open(destdir, tops[i], false, where);
		if (fd == -ENOENT) {
			free(*where);
			*where = NULL;
			continue;
		}
		if (fd < 0) {
			r = fd;
			break;
		}
		free(*where);
		*where = NULL;
		s->fd[i] = fd;
	}
	if (r < 0)
		fw_search_close(s);
	return r;
}

int fw_search_find(const struct fw_search *s, const char *name, char ***paths, size_t *n,
		   size_t *cap)
{
	static const char *const suffix[] = { "", ".xz", ".zst" };

	for (size_t t = 0; t < s->ntop; t++) {
		if (s->fd[t] < 0)
			continue;
		for (size_t d = 0; d < s->nsub; d++) {
			bool found = false;

			for (size_t k = 0; k < FW_ARRAY_SIZE(suffix); k++) {
				char *rel = fw_asprintf("%s%s%s", s->sub[d], name, suffix[k]);
				struct stat st;
				int fd;

				if (!rel)
					return -ENOMEM;
				/* Non-blocking: a FIFO under the name must not
				 * hang an initramfs build; only a regular file
				 * is firmware the loader takes. */
				fd = fw_open_resolve(s->fd[t], rel, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
				if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
					close(fd);
					fd = -1;
				}
				if (fd < 0) {
					free(rel);
					continue;
				}
				close(fd);
				found = true;
				if (fw_grow(paths, cap, *n, sizeof(**paths)) < 0) {
					free(rel);
					return -ENOMEM;
				}
				(*paths)[*n] = fw_asprintf("%s/%s", s->top[t], rel);
				free(rel);
				if (!(*paths)[*n])
					return -ENOMEM;
				(*n)++;
			}
			if (found)
				return 0;
		}
	}
	return 0;
}
