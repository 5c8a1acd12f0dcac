/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist import: planning the WHENCE written from upstream's, line by line, and writing it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "import-int.h"
#include "manifest.h"
#include "sums.h"
#include "util.h"

int imp_split_lines(struct imp *im)
{
	size_t cap = 0, lcap = 0;
	const char *s = im->wbuf, *end = im->wbuf + im->wlen;

	im->nlines = 0;
	if (fw_grow(&im->lines, &cap, 0, sizeof(*im->lines)) < 0 ||
	    fw_grow(&im->lens, &lcap, 0, sizeof(*im->lens)) < 0)
		return -ENOMEM;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		if (fw_grow(&im->lines, &cap, im->nlines + 1, sizeof(*im->lines)) < 0 ||
		    fw_grow(&im->lens, &lcap, im->nlines + 1, sizeof(*im->lens)) < 0)
			return -ENOMEM;
		im->nlines++;
		im->lines[im->nlines] = s;
		im->lens[im->nlines] = (size_t)(e - s) - (e > s && e[-1] == '\r');
		s = nl ? nl + 1 : end;
	}
	im->replace = calloc(im->nlines + 2, sizeof(*im->replace));
	im->after = calloc(im->nlines + 2, sizeof(*im->after));
	return im->replace && im->after ? 0 : -ENOMEM;
}



static int add_after(struct imp *im, unsigned ln, const char *text)
{
	char *old = im->after[ln], *n, *capped = strdup(text);

	if (!capped)
		return -ENOMEM;
	imp_cap_prose(capped);
	n = old ? fw_asprintf("%s\n%s", old, capped) : strdup(capped);
	free(capped);
	if (!n)
		return -ENOMEM;
	free(old);
	im->after[ln] = n;
	return 0;
}

/* Turn an entry's lines (and its Version:/Info:) into prose saying why it
 * was not imported. */
static int drop_entry_as(struct imp *im, const struct fw_whence_entry *e, const char *why,
			 bool list)
{
	unsigned lns[3] = { e->line, e->version_line, e->info_line };

	for (int i = 0; i < 3; i++) {
		unsigned ln = lns[i];

		if (!ln || ln > im->nlines || im->replace[ln])
			continue;
		if (imp_set_replace(im, ln, fw_asprintf("# fwdist import: %s: %.*s", why,
						    (int)im->lens[ln], im->lines[ln])) < 0)
			return -ENOMEM;
	}
	if (!list)
		return 0;
	return imp_strv_take(&im->rep->dropped,
			 fw_asprintf("WHENCE:%u: %s: %s: %s", e->line, fw_entry_kind_name(e->kind),
				     fw_esc(e->name), why));
}

static int drop_entry(struct imp *im, const struct fw_whence_entry *e, const char *why)
{
	return drop_entry_as(im, e, why, true);
}


/* The limits of the files import writes, for one entry: the line each
 * file gives it, against what that file's reader takes (FW_LINE_MAX), with
 * the message that reader gives. A WHENCE line is upstream's own unless it
 * is rewritten quoted; a blob has a checksum line; an empty blob a split
 * line (path: escaped). NULL when it fits; else a message in buf. */
static const char *over_limit(const struct fw_whence_entry *e, bool empty, char *buf, size_t n)
{
	const char *why = NULL;

	if (e->flags & FW_E_UNQUOTED_SPACE)
		why = imp_line_limit(FW_TREE_WHENCE,
				     strlen(fw_entry_kind_name(e->kind)) + 4 + strlen(e->name), buf, n);
	if (!why && (e->kind == FW_E_FILE || e->kind == FW_E_RAWFILE))
		why = imp_blob_limits(e->name, empty, buf, n);
	return why;
}

/* Each listed name: present in SRC, safe, within the limits; else dropped. */
static int plan_entries(struct imp *im)
{
	struct fw_whence *w = &im->w;
	int r;

	im->named = calloc(w->nentries + 1, sizeof(*im->named));
	if (!im->named)
		return -ENOMEM;
	for (size_t i = 0; i < w->nentries; i++) {
		struct fw_whence_entry *e = &w->entries[i];
		struct stat st;
		int fd;

		if (e->kind == FW_E_LINK)
			continue;
		/* "Source: cis/" names a directory of sources, as the model reads it. */
		if (e->kind == FW_E_SOURCE && strlen(e->name) > 1 && e->name[strlen(e->name) - 1] == '/')
			e->name[strlen(e->name) - 1] = '\0';
		if (imp_name_refusal(e->name)) {
			r = drop_entry(im, e, imp_name_refusal(e->name));
			if (r < 0)
				return r;
			continue;
		}
		fd = fw_open_resolve(im->srcfd, e->name, O_RDONLY | O_NONBLOCK);
		if (fd >= 0 && fstat(fd, &st) == 0 &&
		    (S_ISREG(st.st_mode) || (e->kind == FW_E_SOURCE && S_ISDIR(st.st_mode)))) {
			char msg[128];

			close(fd);
			if (over_limit(e, S_ISREG(st.st_mode) && st.st_size == 0, msg, sizeof(msg))) {
				r = drop_entry(im, e, msg);
				if (r < 0)
					return r;
				continue;
			}
			im->named[i] = true;
			if (e->flags & FW_E_UNQUOTED_SPACE) {
				r = imp_set_replace(im, e->line,
						fw_asprintf("%s: \"%s\"", fw_entry_kind_name(e->kind), e->name));
				if (r < 0)
					return r;
			}
			continue;
		}
		if (fd >= 0)
			close(fd);
		/* A blob listed twice and absent is one file missing. */
		if ((e->kind == FW_E_FILE || e->kind == FW_E_RAWFILE) &&
		    !imp_strv_has(&im->absent, e->name) &&
		    imp_strv_take(&im->absent, strdup(e->name)) < 0)
			return -ENOMEM;
		r = imp_strv_take(&im->rep->missing,
			      fw_asprintf("WHENCE:%u: %s: %s%s", e->line, fw_entry_kind_name(e->kind),
					  fw_esc(e->name),
					  fd == -EXDEV ? " (a symlink out of the tree)" :
					  fd == -ELOOP ? " (a symlink in its path)" :
					  fd >= 0 ? " (not a regular file)" : ""));
		if (r == 0)
			r = drop_entry_as(im, e, fd == -EXDEV ? "symlink out of the tree, not imported" :
						 "absent upstream", false);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Each licence group: its lines kept, rewritten or refused. */
static int plan_groups(struct imp *im)
{
	struct fw_whence *w = &im->w;
	const char *syn;
	int r = 0;

	/* Which groups have an entry left: one pass, not one per group. */
	for (size_t i = 0; i < w->nentries; i++)
		if (w->entries[i].licence && w->entries[i].licence <= w->nlicences &&
		    !im->replace[w->entries[i].line])
			im->groups[w->entries[i].licence - 1].left = true;
	for (size_t g = 0; g < w->nlicences; g++) {
		const struct fw_whence_licence *l = &w->licences[g];
		struct group *gr = &im->groups[g];
		bool left = gr->left;

		/* A group none of whose entries is imported: its licence lines
		 * become prose too, or the parser would join them to the
		 * group before (consecutive licence lines share one group). */
		if (!left) {
			unsigned lns[2] = { l->text_line, l->spdx_line };

			/* An upstream SPDX line may already be rewritten (its
			 * '_' -> '-'): it becomes prose all the same, or it
			 * would name a licence no blob uses and the policy lacks. */
			if (l->spdx_line) {
				free(im->replace[l->spdx_line]);
				im->replace[l->spdx_line] = NULL;
			}
			for (int k = 0; k < 2; k++)
				if (lns[k] && !im->replace[lns[k]] &&
				    imp_set_replace(im, lns[k],
						fw_asprintf("# fwdist import: no entry left: %.*s",
							    (int)im->lens[lns[k]], im->lines[lns[k]])) < 0)
					return -ENOMEM;
			continue;
		}
		/* The files its wording names are ids of its expression
		 * (imp_classify): their texts are in LICENSES/, none at the top. */
		if (!gr->refused) {
			struct notext_ctx c = { .im = im };

			fw_spdx_eval(NULL, gr->expr, &(enum fw_category){ 0 }, imp_notext_id, &c, &syn);
			if (c.missing) {
				gr->refused = true;
				gr->why = "licence text not found";
				gr->cause = IMP_REFUSED_NO_TEXT;
			}
		}
		if (gr->refused) {
			char *note = fw_asprintf("# fwdist import: refused: %s%s%s", gr->why,
						 l->spdx ? "; upstream: " : "",
						 l->spdx ? l->spdx : "");

			if (!note)
				return -ENOMEM;
			if (l->spdx_line) {
				free(im->replace[l->spdx_line]);
				im->replace[l->spdx_line] = NULL;
			}
			if (l->spdx_line)
				r = imp_set_replace(im, l->spdx_line,
						strdup("SPDX-License-Identifier: " FW_IMPORT_REFUSED));
			else
				r = add_after(im, gr->para_end ? gr->para_end : l->text_line,
					      "SPDX-License-Identifier: " FW_IMPORT_REFUSED);
			if (r == 0)
				r = add_after(im, l->spdx_line ? l->spdx_line :
						  gr->para_end ? gr->para_end : l->text_line, note);
			free(note);
			if (r < 0)
				return r;
			r = imp_mark_used(im, FW_IMPORT_REFUSED, strlen(FW_IMPORT_REFUSED));
		} else {
			r = fw_spdx_eval(NULL, gr->expr, &(enum fw_category){ 0 }, imp_mark_used, im, &syn);
			if (r == 0 && !l->spdx) {
				char *line = fw_asprintf("SPDX-License-Identifier: %s", gr->expr);

				r = line ? add_after(im, gr->para_end ? gr->para_end : l->text_line, line) :
					   -ENOMEM;
				free(line);
			}
		}
		if (r < 0)
			return r;
	}
	return 0;
}

/* Entries with no licence line at all: refused, said at the block's end. */
static int plan_unlicensed(struct imp *im)
{
	struct fw_whence *w = &im->w;
	int r;

	/* Entries with no licence line at all: refused, said at the block's end. */
	for (size_t b = 0; b < w->nblocks; b++) {
		const struct fw_whence_block *blk = &w->blocks[b];
		unsigned last = 0;
		bool none = false;

		for (unsigned i = blk->first; i < blk->first + blk->count; i++) {
			const struct fw_whence_entry *e = &w->entries[i];
			unsigned l = e->line;

			if (e->version_line > l)
				l = e->version_line;
			if (e->info_line > l)
				l = e->info_line;
			if (l > last)
				last = l;
			if (!e->licence && e->kind != FW_E_LINK && e->kind != FW_E_SOURCE)
				none = true;
		}
		if (!none)
			continue;
		r = add_after(im, last, "SPDX-License-Identifier: " FW_IMPORT_REFUSED "\n"
				  "# fwdist import: refused: no licence");
		if (r == 0)
			r = imp_mark_used(im, FW_IMPORT_REFUSED, strlen(FW_IMPORT_REFUSED));
		if (r < 0)
			return r;
	}
	return 0;
}

/* Plan the rewrite: presence of listed files, licence lines. */
int imp_plan_whence(struct imp *im)
{
	int r = plan_entries(im);

	if (r == 0)
		r = plan_groups(im);
	if (r == 0)
		r = plan_unlicensed(im);
	return r;
}

int imp_write_whence(struct imp *im)
{
	size_t cap = im->wlen + 4096, n = 0, ocap = 0;
	char *out = malloc(cap);
	int r;

	if (!out)
		return -ENOMEM;
	im->norig = 1;
	for (size_t ln = 1; ln <= im->nlines; ln++) {
		size_t added = 1;

		for (const char *a = im->after[ln]; a && *a; a++)
			added += *a == '\n';
		if (im->after[ln])
			added++;
		while (ocap < im->norig + added + 1)
			if (fw_grow(&im->orig, &ocap, ocap, sizeof(*im->orig)) < 0) {
				free(out);
				return -ENOMEM;
			}
		im->orig[im->norig++] = (unsigned)ln;
		for (size_t k = 1; k < added; k++)
			im->orig[im->norig++] = 0;
		const char *s = im->replace[ln] ? im->replace[ln] : im->lines[ln];
		size_t len = im->replace[ln] ? strlen(im->replace[ln]) : im->lens[ln];
		size_t alen = im->after[ln] ? strlen(im->after[ln]) + 1 : 0;

		while (n + len + alen + 2 > cap)
			if (fw_grow(&out, &cap, cap, 1) < 0) {
				free(out);
				return -ENOMEM;
			}
		memcpy(out + n, s, len);
		n += len;
		out[n++] = '\n';
		if (alen) {
			memcpy(out + n, im->after[ln], alen - 1);
			n += alen - 1;
			out[n++] = '\n';
		}
	}
	r = fw_write_atomic(im->stagefd, FW_TREE_WHENCE, out, n, 0644);
	free(out);
	return r;
}

static const char *link_why(enum fw_link_state s)
{
	switch (s) {
	case FW_LINK_OUTSIDE: return "link target leaves the tree";
	case FW_LINK_MISSING: return "link target is not in the import";
	case FW_LINK_LOOP: return "link loop";
	case FW_LINK_BAD_NAME: return "unsafe link name";
	case FW_LINK_TO_BROKEN: return "link to a link that leads nowhere";
	case FW_LINK_TOO_DEEP: return "link chain longer than " "8";
	default: return "link not importable";
	}
}

const struct fw_whence_entry *imp_upstream_entry(const struct imp *im,
						 const struct fw_whence_entry *e)
{
	unsigned ln = e->line < im->norig ? im->orig[e->line] : 0;
	size_t lo = 0, hi = im->w.nentries;

	/* The parser keeps entries in line order: a binary search, so that
	 * pruning 100,000 links is not 100,000 scans. */
	while (ln && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (im->w.entries[mid].line == ln)
			return &im->w.entries[mid];
		if (im->w.entries[mid].line < ln)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Drop what the model of the written WHENCE rejects: bad links, second
 * listings, names fwdist cannot take. Returns how many were dropped. */
int imp_prune(struct imp *im, const struct fw_tree *t)
{
	int n = 0, r;

	for (size_t i = 0; i < t->nlinks; i++) {
		const struct fw_link *l = &t->links[i];
		const struct fw_whence_entry *ue = imp_upstream_entry(im, l->e);

		if (!ue || im->replace[ue->line])
			continue;
		if (l->duplicate)
			r = drop_entry(im, ue, "listed twice");
		else if (l->state != FW_LINK_OK)
			r = drop_entry(im, ue, link_why(l->state));
		else if (imp_name_refusal(l->e->name))
			r = drop_entry(im, ue, imp_name_refusal(l->e->name));
		else
			continue;
		if (r < 0)
			return r;
		n++;
	}
	for (size_t i = 0; i < t->nblobs; i++) {
		const struct fw_blob *b = &t->blobs[i];
		const struct fw_whence_entry *ue = b->duplicate ? imp_upstream_entry(im, b->e) : NULL;

		if (!ue || im->replace[ue->line])
			continue;
		r = drop_entry(im, ue, "listed twice");
		if (r < 0)
			return r;
		n++;
	}
	return n;
}
