/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Import's small helpers: string lists, growable text, split selectors, line rewrites, licence ids. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "import-int.h"
#include "util.h"

/* ---- small helpers ---- */

void fw_strv_free(struct fw_strv *s)
{
	fw_free_strv(s->v, s->n);
	memset(s, 0, sizeof(*s));
}

/* Take str (NULL: out of memory) into s. */
int imp_strv_take(struct fw_strv *s, char *str)
{
	if (!str || fw_grow(&s->v, &s->cap, s->n, sizeof(*s->v)) < 0) {
		free(str);
		return -ENOMEM;
	}
	s->v[s->n++] = str;
	return 0;
}

bool imp_strv_has(const struct fw_strv *s, const char *str)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], str) == 0)
			return true;
	return false;
}

/* Append [s, s + len) and a newline to the growable *buf (n used, *cap
 * allocated), keeping it NUL-terminated. On failure *buf is freed (and
 * NULL): -ENOMEM. */
int imp_add_line(char **buf, size_t *n, size_t *cap, const char *s, size_t len)
{
	while (*cap < *n + len + 2)
		if (fw_grow(buf, cap, *cap, 1) < 0) {
			free(*buf);
			*buf = NULL;
			return -ENOMEM;
		}
	memcpy(*buf + *n, s, len);
	*n += len;
	(*buf)[(*n)++] = '\n';
	(*buf)[*n] = '\0';
	return 0;
}

/* A split selector for a name or a directory: path: with the glob
 * characters escaped and blanks as '?' (the split's fields are blank-separated). */
void imp_put_path(char *buf, size_t *n, const char *name, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = name[i];

		if (c == ' ' || c == '\t') {
			buf[(*n)++] = '?';
			continue;
		}
		if (strchr("*?[\\", c))
			buf[(*n)++] = '\\';
		buf[(*n)++] = c;
	}
}

/* A prose line import writes ("# fwdist import: why: the upstream line")
 * is cut to what the WHENCE reader takes: it quotes a line that may
 * itself be at the limit. Only comments are cut, never an entry. */
void imp_cap_prose(char *text)
{
	if (text[0] == '#' && strlen(text) > FW_LINE_MAX)
		strcpy(text + FW_LINE_MAX - 3, "...");
}

/* The message the reader of file gives a line of len bytes (fwdist
 * check's, less its file:line), in buf; NULL when the line fits. */
const char *imp_line_limit(const char *file, size_t len, char *buf, size_t n)
{
	if (len <= FW_LINE_MAX)
		return NULL;
	snprintf(buf, n, "%s: line too long (%zu bytes, limit %d)", file, len, FW_LINE_MAX);
	return buf;
}

/* A blob's lines in the manifests: its checksum line (64 hex digits, two
 * blanks, the name) and, empty, its empty:yes split line (two columns of
 * 19 and path: escaped as imp_put_path escapes it). */
const char *imp_blob_limits(const char *name, bool empty, char *buf, size_t n)
{
	size_t len = strlen(name), esc = len;
	const char *why;

	for (const char *c = name; *c; c++)
		esc += strchr("*?[\\", *c) != NULL;
	why = imp_line_limit(FW_TREE_SUMS, FW_SHA256_HEX + 2 + len, buf, n);
	if (!why && empty)
		why = imp_line_limit(FW_TREE_SPLIT, 40 + strlen("empty:yes path:") + esc, buf, n);
	return why;
}

/* Replace line ln (once: the first reason stands). */
int imp_set_replace(struct imp *im, unsigned ln, char *text)
{
	if (!text)
		return -ENOMEM;
	imp_cap_prose(text);
	if (ln == 0 || ln > im->nlines || im->replace[ln]) {
		free(text);
		return 0;
	}
	im->replace[ln] = text;
	return 0;
}

/* Why check would refuse this name (or NULL): unsafe for install, a name
 * fwdist keeps for itself, or not UTF-8. Import refuses each such entry
 * alone, so that one bad name never fails the whole import. */
const char *imp_name_refusal(const char *name)
{
	const char *why = fw_name_problem(name);

	if (!why)
		why = fw_name_reserved(name) ? "a name fwdist reserves" : NULL;
	if (!why && !fw_utf8_valid(name))
		why = "name is not valid UTF-8";
	return why;
}

int imp_add_id(struct imp *im, const char *id, size_t len, struct idinfo **out)
{
	for (size_t i = 0; i < im->nids; i++)
		if (strlen(im->ids[i].id) == len && memcmp(im->ids[i].id, id, len) == 0) {
			*out = &im->ids[i];
			return 0;
		}
	if (fw_grow(&im->ids, &im->cap_ids, im->nids, sizeof(*im->ids)) < 0)
		return -ENOMEM;
	memset(&im->ids[im->nids], 0, sizeof(*im->ids));
	im->ids[im->nids].id = fw_strndup(id, len);
	if (!im->ids[im->nids].id)
		return -ENOMEM;
	*out = &im->ids[im->nids++];
	return 0;
}

int imp_mark_used(void *ctx, const char *id, size_t len)
{
	struct imp *im = ctx;
	struct idinfo *x;
	int r = imp_add_id(im, id, len, &x);

	if (r == 0)
		x->used = true;
	return r;
}
