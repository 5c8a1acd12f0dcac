/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist import: the tree's build recipes, kept for the release that has their files. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fsutil.h"
#include "import-int.h"
#include "recipe.h"
#include "tree.h"
#include "util.h"

/* Whether the stage holds NAME below firmware/ as a regular file. */
static bool staged(struct imp *im, const char *name)
{
	struct stat st;

	return fstatat(im->fwfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* The first source or output of r the stage lacks, or NULL. */
static const char *lacks(struct imp *im, const struct fw_recipe *r)
{
	for (size_t i = 0; i < r->noutputs; i++)
		if (!staged(im, r->outputs[i].text))
			return r->outputs[i].text;
	for (size_t i = 0; i < r->nsources; i++)
		if (!staged(im, r->sources[i].text))
			return r->sources[i].text;
	return NULL;
}

/* The recipe a line of manifests/build belongs to: its first word. */
static const struct fw_recipe *line_recipe(const struct fw_recipes *rs, const char *s, size_t n)
{
	size_t w = 0;
	char name[FW_RECIPE_NAME_MAX + 1];

	while (w < n && s[w] != ' ' && s[w] != '\t')
		w++;
	if (w == 0 || w > FW_RECIPE_NAME_MAX)
		return NULL;
	memcpy(name, s, w);
	name[w] = '\0';
	return fw_recipes_find(rs, name);
}

/* manifests/build-verdicts beside the recipes: the lines about a blob of
 * the stage by a recipe kept (or by none: "-"); a verdict counts only
 * while its SHA-256 is the blob's, so one about changed bytes is kept and
 * ignored, as check and licenses do. */
static int keep_verdicts(struct imp *im, const struct fw_recipes *rs, const bool *keep_of)
{
	char *path = fw_asprintf("%s-verdicts", im->o->recipes_path);
	char *buf = NULL, *out = NULL;
	size_t len, n = 0, cap = 0;
	int r;

	if (!path)
		return -ENOMEM;
	r = fw_read_text(AT_FDCWD, path, &buf, &len);
	free(path);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	for (const char *p = buf, *end = buf + len; r == 0 && p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *tab = memchr(p, '\t', ll);
		bool keep = true;

		if (ll && p[0] != '#' && tab) {
			/* blob TAB verdict TAB recipe TAB ... */
			const char *v = tab + 1, *vt = memchr(v, '\t', (size_t)(p + ll - v));
			const char *rc = vt ? vt + 1 : NULL;
			const char *rt = rc ? memchr(rc, '\t', (size_t)(p + ll - rc)) : NULL;
			char *blob = strndup(p, (size_t)(tab - p));
			char *rname = rc ? strndup(rc, (size_t)((rt ? rt : p + ll) - rc)) : NULL;

			if (!blob || (rc && !rname)) {
				free(blob);
				free(rname);
				r = -ENOMEM;
				break;
			}
			keep = staged(im, blob);
			if (keep && rname && strcmp(rname, "-") != 0) {
				const struct fw_recipe *x = fw_recipes_find(rs, rname);

				keep = x && keep_of[x - rs->v];
			}
			free(blob);
			free(rname);
		}
		if (keep)
			r = imp_add_line(&out, &n, &cap, p, ll);
		p = nl ? nl + 1 : end;
	}
	if (r == 0)
		r = fw_write_atomic(im->stagefd, FW_TREE_VERDICTS, out ? out : "", n, 0644);
	free(out);
	free(buf);
	return r;
}

int imp_keep_recipes(struct imp *im)
{
	struct fw_recipes rs = { 0 };
	struct fw_diag d = { 0 };
	char *buf = NULL, *out = NULL;
	size_t len, n = 0, cap = 0, kept = 0;
	bool *keep = NULL, header = true;
	const char *p, *end, *pend = NULL;
	int r;

	if (!im->o->recipes_path)
		return 0;
	r = fw_read_text(AT_FDCWD, im->o->recipes_path, &buf, &len);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = fw_recipes_parse(&rs, FW_TREE_RECIPES, buf, len, &d);
	if (r < 0)
		goto out;
	keep = calloc(rs.n + 1, sizeof(*keep));
	if (!keep) {
		r = -ENOMEM;
		goto out;
	}
	/* A recipe goes with the release when everything it reads and writes
	 * is in it; `fwdist check` then judges it against the new WHENCE. */
	for (size_t i = 0; r == 0 && i < rs.n; i++) {
		const char *gone = lacks(im, &rs.v[i]);

		keep[i] = gone == NULL;
		if (keep[i])
			kept++;
		else
			r = imp_strv_take(&im->rep->notes,
					  fw_asprintf("recipe %s: dropped: %s is not in this release "
						      "(manifests/build:%u)",
						      rs.v[i].name, fw_esc(gone), rs.v[i].line));
	}
	/* The file again, less the dropped recipes' lines and the comments
	 * just above them; the comments before the first recipe stay. */
	for (p = buf, end = buf + len; r == 0 && p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const struct fw_recipe *rc;

		if (ll == 0 || p[0] == '#') {
			if (header)
				r = imp_add_line(&out, &n, &cap, p, ll);
			else if (!pend)
				pend = p;
		} else {
			header = false;
			rc = line_recipe(&rs, p, ll);
			if (rc && keep[rc - rs.v]) {
				/* The comment block above it, then the line. */
				for (const char *q = pend; r == 0 && q && q < p;) {
					const char *qn = memchr(q, '\n', (size_t)(p - q));
					size_t ql = qn ? (size_t)(qn - q) : (size_t)(p - q);

					r = imp_add_line(&out, &n, &cap, q, ql);
					q = qn ? qn + 1 : p;
				}
				if (r == 0)
					r = imp_add_line(&out, &n, &cap, p, ll);
			}
			pend = NULL;
		}
		p = nl ? nl + 1 : end;
	}
	if (r == 0 && rs.n)
		r = imp_strv_take(&im->rep->notes,
				  fw_asprintf("manifests/build: %zu of %zu recipes kept", kept, rs.n));
	if (r == 0)
		r = fw_write_atomic(im->stagefd, FW_TREE_RECIPES, out ? out : "", n, 0644);
	if (r == 0)
		r = keep_verdicts(im, &rs, keep);
out:
	free(out);
	free(keep);
	free(buf);
	fw_recipes_free(&rs);
	fw_diag_free(&d);
	return r;
}
