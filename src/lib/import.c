/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist import: an upstream linux-firmware tree into this layout (a tree writer, like manifest). */
#include "import.h"

#include <dirent.h>
#include <fnmatch.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "digest.h"
#include "fsutil.h"
#include "import-int.h"
#include "lines.h"
#include "manifest.h"
#include "replaces.h"
#include "sums.h"
#include "tree.h"
#include "util.h"
#include "whence.h"




void fw_import_report_free(struct fw_import_report *r)
{
	fw_strv_free(&r->refused);
	fw_strv_free(&r->missing);
	fw_strv_free(&r->unlisted);
	fw_strv_free(&r->unknown);
	fw_strv_free(&r->no_text);
	fw_strv_free(&r->dropped);
	fw_strv_free(&r->notes);
	fw_strv_free(&r->changes);
	fw_strv_free(&r->packages);
	fw_strv_free(&r->uncovered);
	fw_strv_free(&r->split);
	fw_strv_free(&r->vendors);
}

/* ---- import state ---- */




/* ---- the model of what was built ---- */

/* The model of the stage; what its parsers say goes to d, or is dropped
 * (NULL) while the plan is still being pruned. Its verdicts rest on SRC's
 * files (sources present, text blobs), as the stage has none yet. */
static int load_stage_diag(struct imp *im, struct fw_tree *t, struct fw_diag *d)
{
	struct fw_diag tmp = { 0 };
	int r = fw_tree_load_content(t, im->stage_path, im->srcfd, d ? d : &tmp);

	fw_diag_free(&tmp);
	return r;
}

static int load_stage(struct imp *im, struct fw_tree *t)
{
	return load_stage_diag(im, t, NULL);
}

static int job_cmp_name(const void *key, const void *elem)
{
	return strcmp(key, ((const struct job *)elem)->name);
}


/* Append a split line for one file to the growable buf: its package by
 * category, empty:yes for an empty blob (upstream ships it; the kernel
 * refuses it: the split says so). */
static int split_file_line(char **buf, size_t *n, size_t *cap, const struct job *j)
{
	size_t need = 3 * strlen(j->name) + 100;

	while (*n + need > *cap)
		if (fw_grow(buf, cap, *cap, 1) < 0)
			return -ENOMEM;
	*n += (size_t)sprintf(*buf + *n, "%-19s %-19s %spath:",
			      j->cat == FW_CAT_FREE ? "firmware-free" : "firmware-nonfree",
			      j->cat == FW_CAT_FREE ? "main" : "non-free-firmware",
			      j->size == 0 ? "empty:yes " : "");
	imp_put_path(*buf, n, j->name, strlen(j->name));
	(*buf)[(*n)++] = '\n';
	return 0;
}

static int note_empty(struct imp *im, const struct job *j)
{
	im->rep->empty++;
	return imp_strv_take(&im->rep->notes,
			 fw_asprintf("%s: empty blob, shipped as upstream ships it (empty:yes in %s)",
				     fw_esc(j->name), FW_TREE_SPLIT));
}

/* The split proposed from the template: its lines (verbatim, in its order)
 * whose package takes a blob of the stage, then an empty:yes line for each
 * empty blob, in the package the template gives it as if it were not
 * empty. It becomes the split kept (cover_uncovered adds a line for each
 * blob the template places nowhere). */
static int propose_split(struct imp *im, const struct job *jobs, size_t njobs)
{
	const struct fw_split *sp = &im->tmpl_split;
	struct fw_tree t;
	unsigned *taken = calloc(sp->npkgs + 1, sizeof(*taken));
	size_t n = 0, cap = 0;
	char *buf = NULL, *head = NULL;
	struct fw_lines it;
	const char *ls, *le;
	int r = taken ? 0 : -ENOMEM;

	/* The stage's model, for each blob's driver, licence and category,
	 * with the template as its split for now. */
	if (r == 0)
		r = fw_write_atomic(im->stagefd, FW_TREE_SPLIT, im->tmpl, im->tmpl_len, 0644);
	if (r == 0)
		r = load_stage(im, &t);
	if (r < 0) {
		free(taken);
		return r;
	}
	for (size_t i = 0; i < t.nblobs; i++) {
		const struct fw_blob *b = &t.blobs[i];
		struct fw_blob_facts f = {
			.name = b->e->name,
			.driver = b->driver,
			.spdx = b->lic ? b->lic->spdx : NULL,
			.cat = b->cat,
		};
		int rule;

		if (b->duplicate || (b->cat != FW_CAT_FREE && b->cat != FW_CAT_NONFREE))
			continue;
		rule = fw_split_first(sp, &f);
		if (rule >= 0)
			taken[sp->rules[rule].pkg]++;
	}
	head = fw_asprintf("%s\n# Proposed by fwdist import from %s: the lines whose package "
			   "takes a blob.", FW_SPLIT_HEADER, im->tmpl_path);
	r = head ? imp_add_line(&buf, &n, &cap, head, strlen(head)) : -ENOMEM;
	fw_lines_init(&it, im->tmpl, im->tmpl_len);
	while (r == 0 && fw_lines_next(&it, &ls, &le))
		for (size_t k = 0; k < sp->nrules; k++)
			if (sp->rules[k].line == it.line && taken[sp->rules[k].pkg]) {
				r = imp_add_line(&buf, &n, &cap, ls, (size_t)(le - ls));
				break;
			}
	/* Empty blobs as copied, in the order write_split gives them (the
	 * model of the stage sees no blob yet): each with its facts. */
	for (size_t k = 0; r == 0 && k < njobs; k++) {
		const struct job *j = &jobs[k];
		const struct fw_blob *b = NULL;
		struct fw_blob_facts f;
		const struct fw_package *p;
		size_t need;
		int rule;

		if (!j->is_blob || j->size > 0 || j->err)
			continue;
		for (size_t i = 0; !b && i < t.nblobs; i++)
			if (!t.blobs[i].duplicate && strcmp(t.blobs[i].e->name, j->name) == 0)
				b = &t.blobs[i];
		if (!b || (b->cat != FW_CAT_FREE && b->cat != FW_CAT_NONFREE))
			continue;
		f = (struct fw_blob_facts){
			.name = b->e->name,
			.driver = b->driver,
			.spdx = b->lic ? b->lic->spdx : NULL,
			.cat = b->cat,
		};
		rule = fw_split_first(sp, &f);
		if (rule < 0)
			continue; /* cover_uncovered gives it a line */
		p = &sp->pkgs[sp->rules[rule].pkg];
		need = strlen(p->name) + strlen(p->section) + 3 * strlen(j->name) + 64;
		while (r == 0 && n + need > cap)
			if (fw_grow(&buf, &cap, cap, 1) < 0)
				r = -ENOMEM;
		if (r < 0)
			break;
		n += (size_t)sprintf(buf + n, "%-19s %-19s empty:yes path:", p->name, p->section);
		imp_put_path(buf, &n, j->name, strlen(j->name));
		buf[n++] = '\n';
		r = note_empty(im, j);
	}
	fw_tree_free(&t);
	free(taken);
	free(head);
	if (r == 0)
		r = fw_write_atomic(im->stagefd, FW_TREE_SPLIT, buf, n, 0644);
	if (r < 0) {
		free(buf);
		return r;
	}
	free(im->kept_split);
	im->kept_split = buf;
	im->kept_len = n;
	return 0;
}

/* DIR is an fwdist tree this import replaces (a previous import, or the
 * tree parts of a repository): what it has of its own (its split, its
 * manifests/replaces) is kept across releases. */
static bool into_tree(const struct imp *im)
{
	return im->in.kind == INTO_IMPORT || (im->in.kind == INTO_PARTS && im->in.fwdist_tree);
}

/* manifests/replaces (which Debian packages the split's packages take
 * files over from) is the packager's, as the split is: kept across
 * releases, as it is. */
static int keep_replaces(struct imp *im)
{
	char *buf;
	size_t len;
	int r;

	if (!into_tree(im))
		return 0;
	r = fw_read_text(im->in.fd, FW_TREE_REPLACES, &buf, &len);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = fw_write_atomic(im->stagefd, FW_TREE_REPLACES, buf, len, 0644);
	free(buf);
	return r;
}

static int write_split(struct imp *im, const struct job *jobs, size_t njobs)
{
	size_t cap = 4096, n;
	char *buf;
	bool any[FW_CAT_UNKNOWN + 1] = { false };
	int r;

	if (im->tmpl)
		return propose_split(im, jobs, njobs);
	if (im->kept_split) {
		/* The tree's own split, as it is; cover_uncovered adds a line
		 * for each blob it has none for. */
		return fw_write_atomic(im->stagefd, FW_TREE_SPLIT, im->kept_split, im->kept_len, 0644);
	}
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < njobs; i++)
		if (jobs[i].is_blob && jobs[i].size > 0)
			any[jobs[i].cat] = true;
	n = (size_t)sprintf(buf, "%s\n", FW_SPLIT_HEADER);
	if (im->o->debian_copyright) {
		/* Each binary package found is a package of the split. */
		r = imp_debian_split(im, jobs, njobs, &buf, &n, &cap);
		if (r < 0) {
			free(buf);
			return r;
		}
		any[FW_CAT_FREE] = any[FW_CAT_NONFREE] = false;
	}
	if (any[FW_CAT_FREE])
		n += (size_t)sprintf(buf + n, "firmware-free       main                category:free\n");
	if (any[FW_CAT_NONFREE])
		n += (size_t)sprintf(buf + n,
				     "firmware-nonfree    non-free-firmware   category:non-free\n");
	for (size_t i = 0; i < njobs; i++) {
		const struct job *j = &jobs[i];

		if (!j->is_blob || j->size > 0 || j->err)
			continue;
		r = split_file_line(&buf, &n, &cap, j);
		if (r == 0)
			r = note_empty(im, j);
		if (r < 0) {
			free(buf);
			return r;
		}
	}
	r = fw_write_atomic(im->stagefd, FW_TREE_SPLIT, buf, n, 0644);
	free(buf);
	return r;
}

/* The split kept from DIR: a line for each blob it has none for (by its
 * category; empty:yes for an empty one), each reported, so that the tree
 * passes check and the packager sees what to place. jobs are sorted by
 * name. */
static int cover_uncovered(struct imp *im, const struct job *jobs, size_t njobs)
{
	static const char head[] = "# fwdist import: blobs this split had no line for";
	struct fw_tree t;
	size_t n = im->kept_len, cap = im->kept_len + 4096;
	char *buf = malloc(cap);
	int r = buf ? load_stage(im, &t) : -ENOMEM;

	if (r < 0) {
		free(buf);
		return r;
	}
	memcpy(buf, im->kept_split, n);
	if (n && buf[n - 1] != '\n')
		buf[n++] = '\n';
	for (size_t i = 0; r == 0 && i < t.nblobs; i++) {
		const struct fw_blob *b = &t.blobs[i];
		const struct job *j;

		if (b->duplicate || b->pkg >= 0 || (b->cat != FW_CAT_FREE && b->cat != FW_CAT_NONFREE))
			continue;
		j = bsearch(b->e->name, jobs, njobs, sizeof(*jobs), job_cmp_name);
		if (!j)
			continue;
		if (!im->rep->uncovered.n) {
			memcpy(buf + n, head, sizeof(head) - 1);
			n += sizeof(head) - 1;
			buf[n++] = '\n';
		}
		r = split_file_line(&buf, &n, &cap, j);
		if (r == 0)
			r = imp_strv_take(&im->rep->uncovered,
				      fw_asprintf("%s: a line added for it (%s)", fw_esc(j->name),
						  j->cat == FW_CAT_FREE ? "firmware-free" : "firmware-nonfree"));
		if (r == 0 && j->size == 0)
			r = note_empty(im, j);
	}
	fw_tree_free(&t);
	if (r == 0 && im->rep->uncovered.n)
		r = fw_write_atomic(im->stagefd, FW_TREE_SPLIT, buf, n, 0644);
	free(buf);
	return r;
}

static const struct fw_split_rule *rule_at(const struct fw_split *s, unsigned line)
{
	for (size_t k = 0; k < s->nrules; k++)
		if (s->rules[k].line == line)
			return &s->rules[k];
	return NULL;
}

/* A package of the split kept across releases that takes no blob of this
 * release (a vendor the release dropped, as Debian 13 drops mlxsw): its
 * lines become one line "PACKAGE COMPONENT dropped" where its first line
 * was, reported, so that the import goes on and the metapackage Breaks the
 * package the previous release installed. */
static int drop_empty_packages(struct imp *im)
{
	struct fw_tree t;
	struct fw_lines it;
	const char *ls, *le;
	char *old = NULL, *buf = NULL;
	size_t len, n = 0, cap = 0;
	unsigned out = 0;
	bool *used = NULL, any = false;
	int r = fw_read_text(im->stagefd, FW_TREE_SPLIT, &old, &len);

	if (r < 0)
		return r;
	r = load_stage(im, &t);
	if (r < 0) {
		free(old);
		return r;
	}
	used = fw_tree_packages_used(&t);
	if (!used)
		r = -ENOMEM;
	for (size_t p = 0; r == 0 && p < t.split.npkgs; p++)
		any |= !used[p];
	fw_lines_init(&it, old, len);
	while (r == 0 && any && fw_lines_next(&it, &ls, &le)) {
		const struct fw_split_rule *ru = rule_at(&t.split, it.line);
		const struct fw_package *p = ru ? &t.split.pkgs[ru->pkg] : NULL;
		char *line;

		if (!p || used[ru->pkg]) {
			r = imp_add_line(&buf, &n, &cap, ls, (size_t)(le - ls));
			out++;
			continue;
		}
		if (p->line != it.line)
			continue; /* a further line of a dropped package */
		line = fw_asprintf("%-28s %-18s dropped", p->name, p->section);
		r = line ? imp_add_line(&buf, &n, &cap, line, strlen(line)) : -ENOMEM;
		free(line);
		out++;
		if (r == 0)
			r = imp_strv_take(&im->rep->split,
				      fw_asprintf("%s takes no blob in this release: kept as dropped (%s:%u)",
						  p->name, FW_TREE_SPLIT, out));
	}
	if (r == 0 && any)
		r = fw_write_atomic(im->stagefd, FW_TREE_SPLIT, buf, n, 0644);
	fw_tree_free(&t);
	free(used);
	free(old);
	free(buf);
	return r;
}

/* manifests/replaces has a line "name SUITE takes:from" already. */
static bool replaces_has(const char *buf, size_t len, const char *name, const char *from)
{
	struct fw_lines it;
	const char *ls, *le;

	if (!buf)
		return false;
	fw_lines_init(&it, buf, len);
	while (fw_lines_next(&it, &ls, &le)) {
		const char *q = ls, *f;
		size_t flen;

		f = fw_field(&q, le, &flen);
		if (flen != strlen(name) || memcmp(f, name, flen) != 0)
			continue;
		fw_field(&q, le, &flen);
		while ((f = fw_field(&q, le, &flen)), flen)
			if (flen == strlen(from) + 6 && memcmp(f, "takes:", 6) == 0 &&
			    memcmp(f + 6, from, flen - 6) == 0)
				return true;
	}
	return false;
}

struct vendor {                /* a template package the split lacks */
	unsigned pkg;          /* in the template */
	unsigned n;            /* blobs of the rest package it would take */
	const char *first[3];
};

/* A later import into a checkout: the blobs that fall to the split's
 * rest:yes package and that a package of the checkout's template (its
 * debian/vendor-split) would take, when the split has no such package (a
 * vendor new since the first import: cirrus, 1,206 blobs in 2025). Each is
 * reported with the template lines that take it and the manifests/replaces
 * line that moves the names safely (the new package Replaces the rest
 * package, which Pre-Depends on it: `fwdist debian substvars`); with
 * take_new_vendors both are written. */
static int new_vendors(struct imp *im)
{
	struct fw_split tmpl;
	struct fw_diag sd = { 0 };
	struct fw_tree t;
	struct vendor *v = NULL;
	char *tbuf = NULL, *sbuf = NULL, *rbuf = NULL, *add = NULL;
	size_t tlen, slen, rlen = 0, rcap = 0, nadd = 0, capadd = 0;
	char *rold = NULL;
	size_t rolen = 0;
	unsigned *skip = NULL, nskip = 0;
	const char *rest = NULL;
	int r;

	if (im->tmpl || im->in.kind != INTO_PARTS || !im->in.fwdist_tree || im->o->debian_copyright)
		return 0;
	r = fw_read_text(im->in.fd, FW_SPLIT_TEMPLATE, &tbuf, &tlen);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	r = fw_split_parse(&tmpl, FW_SPLIT_TEMPLATE, tbuf, tlen, &sd);
	if (r == 0 && sd.n)
		r = imp_strv_take(&im->rep->notes,
			      fw_asprintf("%s:%u: %s: new vendors not looked for", sd.v[0].file,
					  sd.v[0].line, sd.v[0].text));
	if (r < 0 || sd.n) {
		fw_diag_free(&sd);
		fw_split_free(&tmpl);
		free(tbuf);
		return r;
	}
	r = load_stage(im, &t);
	if (r < 0) {
		fw_split_free(&tmpl);
		free(tbuf);
		return r;
	}
	v = calloc(tmpl.npkgs + 1, sizeof(*v));
	skip = calloc(t.split.ndropped + 1, sizeof(*skip));
	if (!v || !skip)
		r = -ENOMEM;
	if (r == 0) {
		r = fw_read_text(im->stagefd, FW_TREE_REPLACES, &rold, &rolen);
		if (r == -ENOENT)
			r = 0;
	}
	for (size_t i = 0; r == 0 && i < t.nblobs; i++) {
		const struct fw_blob *b = &t.blobs[i];
		const struct fw_split_rule *ru;
		struct fw_blob_facts f;
		struct vendor *x;
		int k;

		if (b->duplicate || b->pkg < 0 || b->empty ||
		    (b->cat != FW_CAT_FREE && b->cat != FW_CAT_NONFREE))
			continue;
		ru = rule_at(&t.split, b->pkg_line);
		if (!ru || !ru->rest)
			continue;
		rest = t.split.pkgs[b->pkg].name;
		f = (struct fw_blob_facts){
			.name = b->e->name,
			.driver = b->driver,
			.spdx = b->lic ? b->lic->spdx : NULL,
			.cat = b->cat,
		};
		k = fw_split_first(&tmpl, &f);
		if (k < 0 || tmpl.rules[k].rest ||
		    fw_split_find(&t.split, tmpl.pkgs[tmpl.rules[k].pkg].name) >= 0)
			continue;
		x = &v[tmpl.rules[k].pkg];
		if (x->n < 3)
			x->first[x->n] = b->e->name;
		x->n++;
	}
	for (size_t p = 0; r == 0 && p < tmpl.npkgs; p++) {
		const struct vendor *x = &v[p];
		const char *name = tmpl.pkgs[p].name;
		char more[48] = "";

		if (!x->n)
			continue;
		if (x->n > 3)
			snprintf(more, sizeof(more), " and %u more", x->n - 3);
		r = imp_strv_take(&im->rep->vendors,
			      fw_asprintf("%s would take %u blob%s (%s%s%s%s%s%s)%s", name, x->n,
					  x->n == 1 ? "" : "s", fw_esc(x->first[0]),
					  x->n > 1 ? ", " : "", x->n > 1 ? fw_esc(x->first[1]) : "",
					  x->n > 2 ? ", " : "", x->n > 2 ? fw_esc(x->first[2]) : "", more,
					  im->o->take_new_vendors ? ": taken, with these lines" :
					  ": to take them, add these lines, the replaces one so "
					  "that apt upgrades move the names (or import with "
					  "--take-new-vendors)"));
		/* Its template lines, verbatim, in the template's order. */
		for (size_t k = 0; r == 0 && k < tmpl.nrules; k++) {
			struct fw_lines it;
			const char *ls, *le;

			if (tmpl.rules[k].pkg != p)
				continue;
			fw_lines_init(&it, tbuf, tlen);
			while (fw_lines_next(&it, &ls, &le))
				if (it.line == tmpl.rules[k].line)
					break;
			r = imp_strv_take(&im->rep->vendors,
				      fw_asprintf("  %s: %.*s", FW_TREE_SPLIT, (int)(le - ls), ls));
			if (r == 0 && im->o->take_new_vendors)
				r = imp_add_line(&add, &nadd, &capadd, ls, (size_t)(le - ls));
		}
		/* The names move from the rest package to this one: apt must
		 * let the new package replace the old one's files. */
		if (r == 0 && rest)
			r = imp_strv_take(&im->rep->vendors,
				      fw_asprintf("  %s: %-28s *  takes:%s", FW_TREE_REPLACES, name, rest));
		if (r == 0 && rest && im->o->take_new_vendors && !replaces_has(rold, rolen, name, rest)) {
			char *line = fw_asprintf("%-28s *  takes:%s", name, rest);

			r = line ? imp_add_line(&rbuf, &rlen, &rcap, line, strlen(line)) : -ENOMEM;
			free(line);
		}
		/* A package an earlier release dropped that takes blobs again:
		 * its dropped line goes. */
		if (r == 0 && im->o->take_new_vendors) {
			int di = fw_split_find_dropped(&t.split, name);

			if (di >= 0)
				skip[nskip++] = t.split.dropped[di].line;
		}
	}
	if (r == 0 && nadd) {
		/* Appended: these blobs fall to rest:yes now, so no earlier
		 * line takes them, and the new lines take nothing else. */
		r = fw_read_text(im->stagefd, FW_TREE_SPLIT, &sbuf, &slen);
		if (r == 0) {
			char *all = NULL, *head;
			size_t n = 0, cap = 0;
			struct fw_lines it;
			const char *ls, *le;

			fw_lines_init(&it, sbuf, slen);
			while (r == 0 && fw_lines_next(&it, &ls, &le)) {
				bool gone = false;

				for (unsigned k = 0; k < nskip; k++)
					gone |= skip[k] == it.line;
				if (!gone)
					r = imp_add_line(&all, &n, &cap, ls, (size_t)(le - ls));
			}
			head = fw_asprintf("# fwdist import --take-new-vendors: from %s", FW_SPLIT_TEMPLATE);
			if (r == 0)
				r = head ? imp_add_line(&all, &n, &cap, head, strlen(head)) : -ENOMEM;
			if (r == 0)
				r = imp_add_line(&all, &n, &cap, add, nadd - (nadd && add[nadd - 1] == '\n'));
			if (r == 0)
				r = fw_write_atomic(im->stagefd, FW_TREE_SPLIT, all, n, 0644);
			free(head);
			free(all);
		}
	}
	if (r == 0 && rlen) {
		char *all = rold ? fw_asprintf("%.*s%s%.*s", (int)rolen, rold,
					       rolen && rold[rolen - 1] != '\n' ? "\n" : "", (int)rlen, rbuf)
				 : fw_asprintf("# fwdist replaces 1\n%.*s", (int)rlen, rbuf);

		r = all ? fw_write_atomic(im->stagefd, FW_TREE_REPLACES, all, strlen(all), 0644) : -ENOMEM;
		free(all);
	}
	fw_tree_free(&t);
	fw_split_free(&tmpl);
	free(v);
	free(tbuf);
	free(sbuf);
	free(rbuf);
	free(rold);
	free(skip);
	free(add);
	return r;
}

static int cmp_sum(const void *a, const void *b)
{
	return strcmp(((const struct fw_sum *)a)->name, ((const struct fw_sum *)b)->name);
}

static int cmp_sum_job(const void *a, const void *b)
{
	return strcmp(((const struct job *)a)->name, ((const struct job *)b)->name);
}

/* ---- what changed against the tree that was at DIR ---- */

static const char *driver_word(const char *drv, char *buf, size_t n)
{
	size_t k = 0;

	if (!drv)
		return "(no driver)";
	while (drv[k] && drv[k] != ' ' && drv[k] != '\t' && k < n - 1) {
		buf[k] = drv[k];
		k++;
	}
	buf[k] = '\0';
	return buf;
}

static const struct fw_sum *old_sum(const struct fw_tree *o, const char *name)
{
	return fw_sums_find(&o->sums, name);
}

struct gone {                  /* an old blob not in the new tree */
	const uint8_t *sha256;
	uint64_t size;
	size_t k;              /* its index in the old tree */
};

static int cmp_digest(const struct gone *a, const struct gone *b)
{
	int c = memcmp(a->sha256, b->sha256, FW_SHA256_LEN);

	return c ? c : (a->size > b->size) - (a->size < b->size);
}

/* By digest and size, then in the old tree's order (the first one is taken). */
static int cmp_gone(const void *a, const void *b)
{
	const struct gone *x = a, *y = b;
	int c = cmp_digest(x, y);

	return c ? c : (x->k > y->k) - (x->k < y->k);
}

/* Block by block (by the Driver: word), what a packager reviews before a
 * release: new, removed and renamed files, changed digests, licences and
 * categories. Renames are a removed and a new name with the same digest. */
static int diff_trees(struct imp *im, const struct fw_tree *o, const struct fw_tree *t,
		      const struct job *jobs, size_t njobs)
{
	struct fw_strv *c = &im->rep->changes;
	char w[128];
	bool *renamed_old = calloc(o->nblobs + 1, sizeof(bool));
	struct gone *gone = calloc(o->nblobs + 1, sizeof(*gone));
	size_t *next = calloc(o->nblobs + 1, sizeof(*next)), ngone = 0;
	int r = 0;

	if (!renamed_old || !gone || !next) {
		free(renamed_old);
		free(gone);
		free(next);
		return -ENOMEM;
	}
	/* The old blobs gone from the new tree, by digest: a new name finds
	 * the first of them with its digest by a binary search, and each
	 * digest's cursor moves past those taken (100,000 empty blobs
	 * renamed share one digest: no rescans). */
	for (size_t k = 0; k < o->nblobs; k++) {
		const struct fw_blob *ob = &o->blobs[k];
		const struct fw_sum *s = old_sum(o, ob->e->name);
		const struct fw_name *nx = fw_tree_find(t, ob->e->name);

		if (!ob->duplicate && s && !(nx && nx->blob >= 0))
			gone[ngone++] = (struct gone){ s->sha256, s->size, k };
	}
	if (ngone > 1)
		qsort(gone, ngone, sizeof(*gone), cmp_gone);
	for (size_t k = 0; k < ngone; k++)
		next[k] = k;
	for (size_t i = 0; i < t->nblobs && r == 0; i++) {
		const struct fw_blob *b = &t->blobs[i];
		const struct fw_name *x;
		const struct job *j;

		if (b->duplicate)
			continue;
		j = bsearch(b->e->name, jobs, njobs, sizeof(*jobs), job_cmp_name);
		x = fw_tree_find(o, b->e->name);
		if (!x || x->blob < 0) {
			/* A rename: an old blob, gone now, with this digest. */
			const struct fw_blob *from = NULL;

			if (j) {
				struct gone key = { j->sha256, j->size, 0 };
				size_t lo = 0, hi = ngone;

				while (lo < hi) {
					size_t mid = lo + (hi - lo) / 2;

					if (cmp_digest(&gone[mid], &key) < 0)
						lo = mid + 1;
					else
						hi = mid;
				}
				if (lo < ngone && cmp_digest(&gone[lo], &key) == 0 && next[lo] < ngone &&
				    cmp_digest(&gone[next[lo]], &key) == 0) {
					size_t k = gone[next[lo]++].k;

					from = &o->blobs[k];
					renamed_old[k] = true;
				}
			}
			if (from)
				r = imp_strv_take(c, fw_asprintf("%s: renamed %s -> %s",
							     driver_word(b->driver, w, sizeof(w)),
							     fw_esc(from->e->name), fw_esc(b->e->name)));
			else
				r = imp_strv_take(c, fw_asprintf("%s: new %s (%s)",
							     driver_word(b->driver, w, sizeof(w)),
							     fw_esc(b->e->name), fw_category_name(b->cat)));
			continue;
		}
		{
			const struct fw_blob *ob = &o->blobs[x->blob];
			const struct fw_sum *s = old_sum(o, ob->e->name);
			const char *os = ob->lic ? ob->lic->spdx : "(none)";
			const char *ns = b->lic ? b->lic->spdx : "(none)";

			if (j && s && (s->size != j->size || memcmp(s->sha256, j->sha256, FW_SHA256_LEN)))
				r = imp_strv_take(c, fw_asprintf("%s: changed %s (digest)",
							     driver_word(b->driver, w, sizeof(w)),
							     fw_esc(b->e->name)));
			if (r == 0 && strcmp(os, ns) != 0)
				r = imp_strv_take(c, fw_asprintf("%s: licence of %s: %s -> %s",
							     driver_word(b->driver, w, sizeof(w)),
							     fw_esc(b->e->name), fw_esc(os), fw_esc(ns)));
			if (r == 0 && ob->cat != b->cat)
				r = imp_strv_take(c, fw_asprintf("%s: category of %s: %s -> %s",
							     driver_word(b->driver, w, sizeof(w)),
							     fw_esc(b->e->name), fw_category_name(ob->cat),
							     fw_category_name(b->cat)));
		}
	}
	for (size_t k = 0; k < o->nblobs && r == 0; k++) {
		const struct fw_blob *ob = &o->blobs[k];
		const struct fw_name *nx;

		if (ob->duplicate || renamed_old[k])
			continue;
		nx = fw_tree_find(t, ob->e->name);
		if (!nx || nx->blob < 0)
			r = imp_strv_take(c, fw_asprintf("%s: removed %s",
						     driver_word(ob->driver, w, sizeof(w)),
						     fw_esc(ob->e->name)));
	}
	/* The licence texts (manifests/licence-checksums, both sorted by
	 * name): a text changed is a change a packager reviews too. */
	for (size_t a = 0, b = 0; r == 0 && (a < o->text_sums.n || b < t->text_sums.n);) {
		const struct fw_sum *x = a < o->text_sums.n ? &o->text_sums.v[a] : NULL;
		const struct fw_sum *y = b < t->text_sums.n ? &t->text_sums.v[b] : NULL;
		int k = !x ? 1 : !y ? -1 : strcmp(x->name, y->name);

		if (k < 0)
			r = imp_strv_take(c, fw_asprintf("LICENSES: removed %s", fw_esc(x->name)));
		else if (k > 0)
			r = imp_strv_take(c, fw_asprintf("LICENSES: new %s", fw_esc(y->name)));
		else if (x->size != y->size || memcmp(x->sha256, y->sha256, FW_SHA256_LEN))
			r = imp_strv_take(c, fw_asprintf("LICENSES: changed %s (text)", fw_esc(x->name)));
		a += k <= 0;
		b += k >= 0;
	}
	free(renamed_old);
	free(gone);
	free(next);
	if (r == 0 && c->n > 1)
		qsort(c->v, c->n, sizeof(*c->v), fw_strcmp_ptr);
	return r;
}

/* ---- the import ---- *//* ---- the import ---- */

static int open_src(struct imp *im)
{
	int fd = open(im->o->src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (im->o->no_whence) {
		/* An unpacked package root: its firmware is lib/firmware. */
		int sub = openat(fd, "lib/firmware", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (sub >= 0) {
			im->rootfd = fd;
			fd = sub;
		}
	}
	im->srcfd = fd;
	return 0;
}

/* Load: the map, upstream's WHENCE (or one made for an installed tree),
 * the licences classified and the rewrite planned. */
static int import_load(struct imp *im)
{
	int r = 0;
	char *buf = NULL;
	size_t len;

	r = open_src(im);
	if (r < 0) {
		fw_diag_add(im->d, im->o->src, 0, "cannot open: %s", strerror(-r));
		return r;
	}
	r = imp_open_into(im, &im->into);
	if (r == 0)
		r = imp_refuse_overlap(im);
	if (r < 0)
		return r;
	im->licfds = calloc(im->o->nlicence_dirs + 1, sizeof(int));
	if (!im->licfds) {
		r = -ENOMEM;
		return r;
	}
	for (size_t i = 0; i < im->o->nlicence_dirs; i++) {
		im->licfds[i] = open(im->o->licence_dirs[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (im->licfds[i] < 0)
			fw_diag_add(im->d, im->o->licence_dirs[i], 0, "cannot open: %s", strerror(errno));
	}
	/* The map. */
	r = fw_read_text(AT_FDCWD, im->o->map_path, &buf, &len);
	if (r < 0) {
		fw_diag_add(im->d, im->o->map_path, 0, "cannot read: %s", strerror(-r));
		return r;
	}
	{
		size_t before = im->d->n;

		r = fw_licmap_parse(&im->map, im->o->map_path, buf, len, im->d);
		free(buf);
		buf = NULL;
		if (r == 0 && im->o->vouch)
			r = imp_licmap_vouch(&im->map);
		if (r < 0)
			return r;
		if (im->d->n != before) {
			r = -EINVAL;
			return r;
		}
	}
	/* Upstream's WHENCE, or one made for an installed tree. */
	if (im->o->debian_copyright) {
		r = imp_dep5_load(&im->dep5, im->rootfd >= 0 ? im->rootfd : im->srcfd, &im->rep->packages);
		if (r < 0) {
			fw_diag_add(im->d, im->o->src, 0, "usr/share/doc: %s", strerror(-r));
			return r;
		}
	}
	if (im->o->no_whence)
		r = imp_synth_whence(im);
	else
		r = fw_read_text(im->srcfd, "WHENCE", &im->wbuf, &im->wlen);
	if (r < 0) {
		fw_diag_add(im->d, im->o->src, 0, "WHENCE: cannot read: %s", strerror(-r));
		return r;
	}
	r = fw_whence_parse(&im->w, "WHENCE", im->wbuf, im->wlen, im->d);
	if (r < 0)
		return r;
	if (im->w.errors) {
		r = -EINVAL;
		return r;
	}
	r = imp_split_lines(im);
	if (r == 0)
		r = imp_classify(im);
	if (r == 0) {
		/* Which ids are used is known once the groups are planned;
		 * texts are looked for first, so a group without one is
		 * refused in the plan. */
		for (size_t g = 0; g < im->w.nlicences && r == 0; g++)
			if (!im->groups[g].refused)
				r = fw_spdx_eval(NULL, im->groups[g].expr, &(enum fw_category){ 0 },
						 imp_mark_used, im, &(const char *){ NULL });
	}
	if (r == 0)
		r = imp_find_texts(im);
	if (r == 0) {
		for (size_t i = 0; i < im->nids; i++)
			im->ids[i].used = false;
		r = imp_plan_whence(im);
	}
	if (r == 0)
		r = imp_report_no_text(im);
	if (r == 0)
		r = imp_report_unlisted(im);
	if (r < 0)
		return r;
	im->rep->blocks = (unsigned)im->w.nblocks;
	/* Listed files absent upstream are refused by name and the rest is
	 * imported: Debian's orig tarballs drop hundreds of files
	 * (Files-Excluded), and a packager imports what the release has. */
	return r;
}

/* The split template, if the split is proposed from one: --split-template
 * FILE, else the checkout's FW_SPLIT_TEMPLATE at the first import into a
 * checkout of this repository (its parts switched, no import mark yet): the
 * split the checkout has is then the repository's self-test tree's, not a
 * packager's. Later imports keep the split the first one proposed. A
 * template that does not parse fails the import, its lines said. */
static int load_template(struct imp *im)
{
	struct fw_diag sd = { 0 };
	int r;

	if (im->o->split_template) {
		im->tmpl_path = strdup(im->o->split_template);
		r = im->tmpl_path ? fw_read_text(AT_FDCWD, im->tmpl_path, &im->tmpl, &im->tmpl_len)
				  : -ENOMEM;
	} else {
		if (im->in.kind != INTO_PARTS || im->in.marked || !im->in.fwdist_tree ||
		    im->o->debian_copyright)
			return 0;
		r = fw_read_text(im->in.fd, FW_SPLIT_TEMPLATE, &im->tmpl, &im->tmpl_len);
		if (r == -ENOENT)
			return 0;
		im->tmpl_path = strdup(FW_SPLIT_TEMPLATE);
		if (!im->tmpl_path)
			r = -ENOMEM;
	}
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		fw_diag_add(im->d, im->tmpl_path, 0, "cannot read the split template: %s", strerror(-r));
		return r;
	}
	r = fw_split_parse(&im->tmpl_split, im->tmpl_path, im->tmpl, im->tmpl_len, &sd);
	for (size_t i = 0; r == 0 && i < sd.n; i++)
		fw_diag_add(im->d, sd.v[i].file, sd.v[i].line, "%s", sd.v[i].text);
	if (r == 0 && sd.n)
		r = -EINVAL;
	fw_diag_free(&sd);
	if (r < 0)
		return r;
	/* The template proposes the split: the one DIR has is not kept. */
	free(im->kept_split);
	im->kept_split = NULL;
	im->kept_len = 0;
	return 0;
}

/* Stage: DIR looked at (a cut-short switch completed first), a temporary
 * tree made beside or in it, the licences and the WHENCE written into it
 * and pruned until the model takes all of it. */
static int import_stage(struct imp *im)
{
	int r = 0;
	char *buf = NULL;
	size_t len;

	/* One import at a time beside DIR: a second one would take the
	 * first one's stage for what a killed import left. */
	if (flock(im->parentfd, LOCK_EX) < 0) {
		r = -errno;
		fw_diag_add(im->d, im->o->into, 0, "cannot lock the directory it is in: %s", strerror(-r));
		return r;
	}
	/* A switch of DIR's parts cut short is completed first: until then
	 * DIR may be part old, part new. */
	{
		int dfd = openat(im->parentfd, im->leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		r = dfd >= 0 ? imp_complete_journal(im, dfd) : 0;
		if (dfd >= 0)
			close(dfd);
		if (r < 0)
			return r;
	}
	r = imp_look_at_into(im, &im->in);
	if (r < 0)
		return r;
	if (into_tree(im)) {
		if (fw_tree_load(&im->old, im->o->into, &(struct fw_diag){ 0 }) == 0)
			im->have_old = im->rep->had_old = true;
		/* The split the tree has is kept across releases, unless an
		 * import generated it (then it is generated again). */
		if (!im->in.split_generated && fw_read_text(im->in.fd, FW_TREE_SPLIT, &im->kept_split,
							&im->kept_len) == 0) {
			struct fw_split sp;
			struct fw_diag sd = { 0 };

			r = fw_split_parse(&sp, FW_TREE_SPLIT, im->kept_split, im->kept_len, &sd);
			fw_split_free(&sp);
			if (r == 0 && sd.n) {
				r = imp_strv_take(&im->rep->notes, fw_asprintf("%s/%s does not parse: a split "
								       "generated instead",
								       fw_esc(im->o->into), FW_TREE_SPLIT));
				free(im->kept_split);
				im->kept_split = NULL;
			}
			fw_diag_free(&sd);
			if (r < 0)
				return r;
		}
	}
	r = load_template(im);
	if (r < 0)
		return r;
	/* What a killed import of this DIR left (its stage, marked): beside
	 * it, or in it when its parts are switched. */
	im->stagedir = im->in.kind == INTO_PARTS ? im->in.fd : im->parentfd;
	{
		char **nm;
		size_t nn;
		char *prefix = fw_asprintf(".%s.", im->in.kind == INTO_PARTS ? "import" : im->leaf);

		if (prefix && fw_read_dir_sorted(im->stagedir, &nm, &nn) == 0) {
			for (size_t i = 0; i < nn; i++)
				if (strncmp(nm[i], prefix, strlen(prefix)) == 0 &&
				    fw_is_stale_tmp(im->stagedir, nm[i]))
					fw_rm_rf_at(im->stagedir, nm[i]);
			fw_free_strv(nm, nn);
		}
		free(prefix);
	}
	r = fw_tmp_mkdir(im->stagedir, im->in.kind == INTO_PARTS ? "import" : im->leaf, im->stage,
			 sizeof(im->stage));
	if (r < 0) {
		im->stage[0] = '\0';
		fw_diag_add(im->d, im->o->into, 0, "cannot create a temporary tree %s it: %s",
			    im->in.kind == INTO_PARTS ? "in" : "beside", strerror(-r));
		return r;
	}
	{
		char *dir = strdup(im->o->into), *sl = dir ? strrchr(dir, '/') : NULL;

		if (im->in.kind == INTO_PARTS)
			im->stage_path = fw_asprintf("%s/%s", im->o->into, im->stage);
		else if (sl)
			im->stage_path = fw_asprintf("%.*s/%s", (int)(sl - dir), dir, im->stage);
		else
			im->stage_path = strdup(im->stage);
		free(dir);
		if (!im->stage_path) {
			r = -ENOMEM;
			return r;
		}
	}
	im->stagefd = openat(im->stagedir, im->stage, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (im->stagefd < 0) {
		r = -errno;
		return r;
	}
	r = fw_mkdirat(im->stagefd, "manifests", 0755);
	if (r == 0)
		r = fw_mkdirat(im->stagefd, FW_TREE_FIRMWARE, 0755);
	if (r == 0)
		r = imp_write_texts(im);
	if (r == 0)
		r = imp_write_policy(im);
	if (r == 0) {
		r = fw_read_text(AT_FDCWD, im->o->map_path, &buf, &len);
		if (r == 0)
			r = fw_write_atomic(im->stagefd, FW_TREE_LICMAP, buf, len, 0644);
		free(buf);
		buf = NULL;
	}
	/* The blobs the tree declares their own preferred form: kept, and
	 * judged so by the stage's model (their verdict decides the copy). */
	if (r == 0 && im->o->preferred_path) {
		r = fw_read_text(AT_FDCWD, im->o->preferred_path, &buf, &len);
		if (r == 0)
			r = fw_write_atomic(im->stagefd, FW_TREE_PREFERRED, buf, len, 0644);
		else if (r == -ENOENT)
			r = 0;
		free(buf);
		buf = NULL;
	}
	/* Write WHENCE, look at it through the model, drop what it rejects
	 * (bad links, second listings), until nothing more drops: each round
	 * drops at least one entry, so this ends. */
	for (int round = 0; r == 0; round++) {
		r = imp_write_whence(im);
		if (r < 0)
			break;
		if (im->have_t)
			fw_tree_free(&im->t);
		im->have_t = false;
		r = load_stage(im, &im->t);
		if (r < 0)
			break;
		im->have_t = true;
		r = imp_prune(im, &im->t);
		if (r <= 0)
			break;
		r = 0;
	}
	if (r < 0)
		return r;
	return r;
}

/* Copy what the model ships, and the sources. */
static int import_copy(struct imp *im)
{
	int r = 0;

	/* Copy what the model ships, and the sources. */
	im->jobs = calloc(im->t.nblobs + im->w.nentries + 1, sizeof(*im->jobs));
	if (!im->jobs) {
		r = -ENOMEM;
		return r;
	}
	for (size_t i = 0; i < im->t.nblobs; i++) {
		const struct fw_blob *b = &im->t.blobs[i];

		if (b->duplicate)
			continue;
		im->rep->files++;
		im->rep->cat[b->cat]++;
		if (b->cat != FW_CAT_FREE && b->cat != FW_CAT_NONFREE)
			continue;
		im->jobs[im->njobs].name = b->e->name;
		im->jobs[im->njobs].is_blob = true;
		im->jobs[im->njobs].cat = b->cat;
		im->njobs++;
	}
	r = imp_report_refused(im);
	if (r < 0)
		return r;
	im->rep->links = (unsigned)im->t.nlinks;
	im->fwfd = openat(im->stagefd, FW_TREE_FIRMWARE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (im->fwfd < 0) {
		r = -errno;
		return r;
	}
	r = imp_copy_blobs(im, im->jobs, im->njobs, im->fwfd);
	if (r == 0)
		r = imp_copy_sources(im, &im->t, im->fwfd);
	if (r < 0)
		return r;
	return r;
}

/* The manifests: checksums, the split, the import mark; then the
 * built tree must pass its own check. */
static int import_manifests(struct imp *im)
{
	int r = 0;

	/* Checksums from the digests taken while copying, those of the
	 * licence texts written, and the split. */
	{
		struct fw_sum *v = calloc(im->njobs + 1, sizeof(*v));
		char *sb;
		size_t sl;

		if (!v) {
			r = -ENOMEM;
			return r;
		}
		for (size_t i = 0; i < im->njobs; i++) {
			v[i].name = (char *)im->jobs[i].name;
			memcpy(v[i].sha256, im->jobs[i].sha256, FW_SHA256_LEN);
			v[i].size = im->jobs[i].size;
		}
		if (im->njobs > 1)
			qsort(v, im->njobs, sizeof(*v), cmp_sum);
		r = fw_sums_format(v, im->njobs, &sb, &sl);
		free(v);
		if (r == 0) {
			r = fw_write_atomic(im->stagefd, FW_TREE_SUMS, sb, sl, 0644);
			free(sb);
		}
	}
	if (r == 0) {
		struct fw_sum *tv;
		size_t ntv;
		char *sb;
		size_t sl;

		r = fw_manifest_text_sums(im->stagefd, &tv, &ntv);
		if (r == 0) {
			r = fw_sums_format_texts(tv, ntv, &sb, &sl);
			fw_manifest_text_sums_free(tv, ntv);
		}
		if (r == 0) {
			r = fw_write_atomic(im->stagefd, FW_TREE_TEXT_SUMS, sb, sl, 0644);
			free(sb);
		}
	}
	if (r == 0)
		r = write_split(im, im->jobs, im->njobs);
	if (r == 0)
		r = keep_replaces(im);
	if (r < 0)
		return r;
	if (im->njobs > 1)
		qsort(im->jobs, im->njobs, sizeof(*im->jobs), cmp_sum_job);
	if (im->kept_split)
		r = cover_uncovered(im, im->jobs, im->njobs);
	if (r == 0 && im->kept_split && !im->tmpl)
		r = drop_empty_packages(im);
	if (r == 0 && im->kept_split && !im->tmpl)
		r = new_vendors(im);
	if (r == 0)
		r = imp_keep_recipes(im);
	/* What this import wrote at the top of DIR, for the next one. */
	if (r == 0) {
		char **parts = NULL;
		size_t nparts = 0, k = 0;

		r = fw_read_dir_sorted(im->stagefd, &parts, &nparts);
		for (size_t i = 0; r == 0 && i < nparts; i++)
			if (strcmp(parts[i], FW_STAGE_MARK) != 0)
				parts[k++] = parts[i];
			else
				free(parts[i]);
		if (r == 0)
			r = imp_write_import_mark(im, parts, k);
		fw_free_strv(parts, k);
	}
	if (r < 0)
		return r;
	/* The built tree must pass its own check (the model; the files were
	 * hashed as they were copied). */
	{
		struct fw_tree fin;
		size_t before = im->d->n;

		/* Every reader's limits too (line lengths, sizes): what a
		 * parser of the written files says fails the import here,
		 * not `check` afterwards. */
		r = fw_tree_load(&fin, im->stage_path, im->d);
		if (r < 0) {
			fw_tree_free(&fin);
			return r;
		}
		fw_tree_check_model(&fin, im->d);
		/* The tree written judges by its own files what import judged
		 * by SRC's: the same verdict for every blob, or no import. */
		for (size_t i = 0; i < fin.nblobs && i < im->t.nblobs; i++)
			if (fin.blobs[i].cat != im->t.blobs[i].cat)
				fw_diag_add(im->d, FW_TREE_WHENCE, fin.blobs[i].e->line,
					    "%s: %s in the tree written, %s at import",
					    fw_esc(fin.blobs[i].e->name),
					    fw_category_name(fin.blobs[i].cat),
					    fw_category_name(im->t.blobs[i].cat));
		if (im->d->n != before) {
			fw_tree_free(&fin);
			r = -EPROTO;
			return r;
		}
		/* How the free blobs' freeness stands in the tree written: a
		 * verdict counts only for the bytes it was recorded on. */
		if (fin.recipes.n) {
			size_t how[3];

			r = fw_tree_freeness_counts(&fin, how);
			if (r == 0)
				r = imp_strv_take(&im->rep->notes,
						  fw_asprintf("free blobs: %zu rebuilt identical, %zu their own "
							      "preferred form, %zu source not rebuilt (fwdist "
							      "licenses says why; fwdist build --record rebuilds)",
							      how[FW_FREE_REBUILT], how[FW_FREE_OWN_FORM],
							      how[FW_FREE_NOT_REBUILT]));
		}
		if (r == 0 && im->have_old)
			r = diff_trees(im, &im->old, &fin, im->jobs, im->njobs);
		fw_tree_free(&fin);
		if (r < 0)
			return r;
	}
	return r;
}

/* Swap: the stage into DIR's place. */
static int import_swap(struct imp *im)
{
	int r = 0;

	/* Into place: the parts of DIR switched one by one, under a journal. */
	if (im->in.kind == INTO_PARTS) {
		r = imp_switch_parts(im, &im->in);
		if (r < 0)
			return r;
		im->rep->written = true;
		return 0;
	}
	/* Or the whole of DIR swapped with the old tree (all of it an
	 * import's, or empty), or the free name taken. Both trees carry the
	 * stage mark across the swap: the stage has had it since it was made,
	 * and the old tree gets it first. So whichever of them a kill leaves
	 * beside DIR, at any step, is one the next import recognises as its
	 * own and removes (before the swap the stage, after it the old tree).
	 * The mark that then sits at DIR's top is removed right after the
	 * swap; after a kill, the next import takes DIR as its own all the
	 * same (imp_look_at_into) and swaps it out, mark and all. */
	if (fsync(im->stagefd) < 0) {
		r = -errno;
		return r;
	}
	r = fw_stage_mark(im->parentfd, im->leaf);
	if (r < 0 && r != -ENOENT)
		return r;
	if (renameat2(im->parentfd, im->stage, im->parentfd, im->leaf, RENAME_EXCHANGE) == 0) {
		unlinkat(im->stagefd, FW_STAGE_MARK, 0);
		fw_rm_rf_at(im->parentfd, im->stage);
	} else if (errno == ENOENT) {
		if (renameat2(im->parentfd, im->stage, im->parentfd, im->leaf, RENAME_NOREPLACE) < 0) {
			r = -errno;
			return r;
		}
		unlinkat(im->stagefd, FW_STAGE_MARK, 0);
	} else {
		r = -errno;
		return r;
	}
	fsync(im->parentfd);
	im->rep->written = true;
	return 0;
}

/* Everything an import holds, whatever step it stopped at. */
static void import_free(struct imp *im)
{
	imp_into_free(&im->in);
	free(im->stage_path);
	free(im->kept_split);
	free(im->tmpl);
	free(im->tmpl_path);
	fw_split_free(&im->tmpl_split);
	if (im->fwfd >= 0)
		close(im->fwfd);
	if (im->have_t)
		fw_tree_free(&im->t);
	if (im->have_old)
		fw_tree_free(&im->old);
	free(im->jobs);
	free(im->into);
	for (size_t i = 0; im->licfds && i < im->o->nlicence_dirs; i++)
		if (im->licfds[i] >= 0)
			close(im->licfds[i]);
	free(im->licfds);
	if (im->srcfd >= 0)
		close(im->srcfd);
	if (im->rootfd >= 0)
		close(im->rootfd);
	imp_dep5_free(&im->dep5);
	if (im->stagefd >= 0)
		close(im->stagefd);
	if (im->parentfd >= 0)
		close(im->parentfd);
	for (size_t i = 0; im->replace && i <= im->nlines + 1; i++) {
		free(im->replace[i]);
		free(im->after[i]);
	}
	free(im->replace);
	free(im->after);
	free(im->lines);
	free(im->lens);
	free(im->named);
	fw_strv_free(&im->absent);
	free(im->orig);
	for (size_t g = 0; im->groups && g < im->w.nlicences; g++) {
		free(im->groups[g].expr);
		free(im->groups[g].wording);
	}
	free(im->groups);
	for (size_t i = 0; i < im->nids; i++) {
		free(im->ids[i].id);
		free(im->ids[i].text);
		free(im->ids[i].found);
		free(im->ids[i].bad);
		free(im->ids[i].named_as);
	}
	free(im->ids);
	free(im->wbuf);
	fw_whence_free(&im->w);
	fw_licmap_free(&im->map);
}

int fw_import(const struct fw_import_opts *o, struct fw_import_report *rep, struct fw_diag *d)
{
	struct imp im = { .o = o, .rep = rep, .d = d, .srcfd = -1, .rootfd = -1, .parentfd = -1,
			  .stagedir = -1, .stagefd = -1, .in = { .fd = -1 }, .fwfd = -1 };
	int r;

	memset(rep, 0, sizeof(*rep));
	r = import_load(&im);
	if (r == 0)
		r = import_stage(&im);
	if (r == 0)
		r = import_copy(&im);
	if (r == 0)
		r = import_manifests(&im);
	if (r == 0)
		r = import_swap(&im);
	/* A stage still ours (not renamed into place, not handed to the
	 * journal) is removed: a failure leaves DIR as it was. */
	if (r < 0 && im.stagedir >= 0 && im.stage[0])
		fw_rm_rf_at(im.stagedir, im.stage);
	import_free(&im);
	return r;
}
