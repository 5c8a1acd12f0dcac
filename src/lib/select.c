/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Selection files: exact request names or shell globs, one per line. */
#include "select.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "lines.h"
#include "tree.h"
#include "util.h"

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Mark one index entry; returns whether it is installable at all. */
static bool mark(const struct fw_tree *t, const struct fw_name *x, bool *blob_sel, bool *link_sel)
{
	if (x->blob >= 0) {
		blob_sel[x->blob] = true;
		return fw_blob_installable(t, &t->blobs[x->blob], NULL);
	}
	if (x->link >= 0) {
		const struct fw_link *l = &t->links[x->link];

		link_sel[x->link] = true;
		if (l->state != FW_LINK_OK)
			return false;
		/* The rest of its chain comes with it. */
		for (long v = l->via; v >= 0; v = t->links[v].via)
			link_sel[v] = true;
		if (l->blob >= 0) {
			blob_sel[l->blob] = true;
		} else {
			size_t n = strlen(l->end);

			for (size_t j = 0; j < t->nblobs; j++)
				if (strncmp(t->blobs[j].e->name, l->end, n) == 0 &&
				    t->blobs[j].e->name[n] == '/')
					blob_sel[j] = true;
		}
		return fw_link_installable(t, l, NULL);
	}
	return false; /* Source: files are not installed */
}

/* The '/' before end in s, or NULL. */
static char *prev_slash(char *s, char *end)
{
	while (end > s)
		if (*--end == '/')
			return end;
	return NULL;
}

/* How many directory links a request name may go through: the kernel's
 * path walk follows at most 40 symlinks. */
#define REQUEST_LINKS_MAX 40

bool fw_select_request(const struct fw_tree *t, const char *name, bool *blob_sel, bool *link_sel)
{
	long via[REQUEST_LINKS_MAX + 1]; /* and the link the name itself is */
	size_t nvia = 0;
	char *cur = strdup(name);
	long blob = -1, link = -1;

	while (cur && nvia < REQUEST_LINKS_MAX) {
		const struct fw_name *x = fw_tree_find(t, cur);
		const struct fw_link *l = NULL;
		char *slash, *next;

		if (x) {
			if (x->blob >= 0) {
				blob = x->blob;
			} else if (x->link >= 0 && t->links[x->link].state == FW_LINK_OK &&
				   t->links[x->link].blob >= 0) {
				link = x->link;
				blob = t->links[link].blob;
			}
			break;
		}
		/* The longest leading directory that is a link to a directory:
		 * the loader's path walk goes through it. */
		for (slash = strrchr(cur, '/'); slash; slash = prev_slash(cur, slash)) {
			*slash = '\0';
			x = fw_tree_find(t, cur);
			*slash = '/';
			if (x && x->link >= 0 && t->links[x->link].state == FW_LINK_OK &&
			    t->links[x->link].to_dir) {
				l = &t->links[x->link];
				break;
			}
		}
		if (!l)
			break;
		via[nvia++] = x->link;
		next = fw_asprintf("%s%s", l->end, slash);
		free(cur);
		cur = next;
	}
	free(cur);
	if (blob < 0 || !fw_blob_installable(t, &t->blobs[blob], NULL))
		return false;
	if (blob_sel) {
		blob_sel[blob] = true;
		if (link >= 0)
			via[nvia++] = link;
		for (size_t i = 0; i < nvia; i++)
			for (long v = via[i]; v >= 0; v = t->links[v].via)
				link_sel[v] = true;
	}
	return true;
}

int fw_select_load(const struct fw_tree *t, const char *path, bool *blob_sel, bool *link_sel,
		   struct fw_diag *d)
{
	struct fw_lines it;
	const char *ls, *le;
	char *buf;
	size_t len;
	int r = fw_read_text(AT_FDCWD, path, &buf, &len);

	if (r < 0)
		return r;
	fw_lines_init(&it, buf, len);
	while (fw_lines_next(&it, &ls, &le)) {
		const char *s = ls, *e = le, *problem;
		bool any = false, usable = false;
		char *pat;

		if ((size_t)(e - s) > FW_LINE_MAX) {
			fw_diag_add(d, path, it.line, "line too long (%zu bytes, limit %d)",
				    (size_t)(e - s), FW_LINE_MAX);
			continue;
		}
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (s == e || *s == '#')
			continue;
		pat = fw_strndup(s, (size_t)(e - s));
		if (!pat) {
			free(buf);
			return -ENOMEM;
		}
		problem = memchr(s, '\0', (size_t)(e - s)) ? "NUL byte in line" : fw_name_problem(pat);
		if (problem) {
			fw_diag_add(d, path, it.line, "%s: %s", fw_esc(pat), problem);
			free(pat);
			continue;
		}
		if (!is_glob(pat)) {
			const struct fw_name *x = fw_tree_find(t, pat);

			if (x) {
				any = true;
				usable = mark(t, x, blob_sel, link_sel);
			}
		} else {
			for (size_t i = 0; i < t->nindex; i++) {
				const struct fw_name *x = &t->index[i];

				if (x->e->kind == FW_E_SOURCE ||
				    fnmatch(pat, x->name, FNM_PATHNAME | FNM_PERIOD) != 0)
					continue;
				any = true;
				usable |= mark(t, x, blob_sel, link_sel);
			}
		}
		if (!any)
			fw_diag_add(d, path, it.line, "%s: matches no File:, RawFile: or Link: of %s",
				    fw_esc(pat), t->whence.path);
		else if (!usable)
			fw_diag_add(d, path, it.line,
				    "%s: selects only what is never installed (undistributable, "
				    "unpackaged or broken)", fw_esc(pat));
		free(pat);
	}
	free(buf);
	return 0;
}
