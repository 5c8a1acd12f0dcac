/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist import: what it refused, counted per cause, with the step that admits each. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "import-int.h"
#include "util.h"

/* Where Debian keeps the common licence texts (base-files): a text missing
 * from the upstream tree is often there, and the report says so. */
#define COMMON_LICENCES "/usr/share/common-licenses"

/* How many names a cause shows before "and N more". */
#define SHOWN 3

enum cause {
	C_NO_TEXT,  /* a licence text missing: one bucket per text */
	C_UNKNOWN,  /* a licence the map does not classify: one per licence line */
	C_UNDIST,   /* the verdict is undistributable: one per verdict */
	C_N,
};

struct bucket {
	enum cause cause;
	char *key;     /* what the blobs share (a text, a licence line, a verdict) */
	char *step;    /* what would admit them */
	const char *shown[SHOWN];
	unsigned n;
};

struct buckets {
	struct bucket *v;
	size_t n, cap;
};

/* The bucket of (cause, key), made with step (taken) when new; key is
 * taken too. NULL on ENOMEM (both freed). */
static struct bucket *bucket(struct buckets *bs, enum cause cause, char *key, char *step)
{
	if (!key || !step)
		goto nomem;
	for (size_t i = 0; i < bs->n; i++)
		if (bs->v[i].cause == cause && strcmp(bs->v[i].key, key) == 0) {
			free(key);
			free(step);
			return &bs->v[i];
		}
	if (fw_grow(&bs->v, &bs->cap, bs->n, sizeof(*bs->v)) < 0)
		goto nomem;
	bs->v[bs->n] = (struct bucket){ .cause = cause, .key = key, .step = step };
	return &bs->v[bs->n++];
nomem:
	free(key);
	free(step);
	return NULL;
}

static void add(struct bucket *b, const char *name)
{
	if (b->n < SHOWN)
		b->shown[b->n] = name;
	b->n++;
}

/* "a, b, c and 5 more" of the names shown and the count. */
static char *names(const char *const *shown, unsigned n)
{
	unsigned k = n < SHOWN ? n : SHOWN;
	char *s = strdup(""), *t;

	for (unsigned i = 0; s && i < k; i++) {
		t = fw_asprintf("%s%s%s", s, i ? ", " : "", fw_esc(shown[i]));
		free(s);
		s = t;
	}
	if (s && n > k) {
		t = fw_asprintf("%s and %u more", s, n - k);
		free(s);
		s = t;
	}
	return s;
}

/* Whether Debian's common licences hold a text import would take under
 * name: then the step is to give that directory. */
static bool common_has(int cfd, const char *name)
{
	char *buf = NULL;
	size_t len;
	bool crlf, latin1;

	if (cfd < 0 || fw_name_problem(name) ||
	    imp_read_licence(cfd, name, &buf, &len, &crlf, &latin1, NULL) < 0)
		return false;
	free(buf);
	return true;
}

/* The step that admits the blobs of a text missing under file name(s). */
static char *text_step(int cfd, const char *what, const struct fw_strv *nm)
{
	char *list = NULL, *s;

	for (size_t k = 0; k < nm->n; k++)
		if (common_has(cfd, nm->v[k]))
			return fw_asprintf(COMMON_LICENCES "/%s serves %s: --licence-dir "
					   COMMON_LICENCES, nm->v[k], what);
	for (size_t k = 0; k < nm->n; k++) {
		char *t = fw_asprintf("%s%s%s", list ? list : "",
				      k == 0 ? "" : k + 1 == nm->n ? " or " : ", ", fw_esc(nm->v[k]));

		free(list);
		if (!(list = t))
			return NULL;
	}
	s = fw_asprintf("add %s to the upstream tree or give --licence-dir DIR holding it",
			list ? list : "");
	free(list);
	return s;
}

struct first_missing {
	const struct imp *im;
	const struct idinfo *x; /* the first id of the expression without a text */
};

static int first_missing(void *ctx, const char *id, size_t len)
{
	struct first_missing *c = ctx;

	for (size_t i = 0; i < c->im->nids && !c->x; i++)
		if (strlen(c->im->ids[i].id) == len && memcmp(c->im->ids[i].id, id, len) == 0 &&
		    !c->im->ids[i].text)
			c->x = &c->im->ids[i];
	return 0;
}

/* The bucket of a blob the stage refused under FW_IMPORT_REFUSED: why
 * import refused its licence group upstream. */
static struct bucket *refused_group(struct imp *im, struct buckets *bs, int cfd,
				    const struct fw_blob *b)
{
	const struct fw_whence_entry *ue = imp_upstream_entry(im, b->e);
	const struct fw_whence_licence *l;
	const struct group *gr;
	unsigned line;

	if (!ue || !ue->licence || ue->licence > im->w.nlicences)
		return bucket(bs, C_UNDIST, strdup("no licence in its WHENCE block"),
			      strdup("give the block a Licence: line upstream"));
	gr = &im->groups[ue->licence - 1];
	l = &im->w.licences[ue->licence - 1];
	line = l->spdx_line ? l->spdx_line : l->text_line;
	switch (gr->cause) {
	case IMP_REFUSED_NO_TEXT: {
		struct first_missing c = { .im = im };
		struct fw_strv nm = { 0 };
		struct bucket *bk;

		fw_spdx_eval(NULL, gr->expr, &(enum fw_category){ 0 }, first_missing, &c,
			     &(const char *){ NULL });
		if (!c.x)
			break;
		if (c.x->named_as && !c.x->bad) {
			struct fw_strv one = { .v = (char *[]){ c.x->named_as }, .n = 1 };

			return bucket(bs, C_NO_TEXT, strdup(c.x->named_as),
				      text_step(cfd, c.x->named_as, &one));
		}
		if (c.x->bad)
			return bucket(bs, C_NO_TEXT, strdup(c.x->named_as ? c.x->named_as : c.x->id),
				      fw_asprintf("%s is neither UTF-8 nor ISO-8859-1 text (a control "
						  "byte no text has): give its text in UTF-8 with "
						  "--licence-dir DIR", fw_esc(c.x->bad)));
		if (imp_text_names(im, c.x, &nm) < 0) {
			fw_strv_free(&nm);
			return NULL;
		}
		bk = bucket(bs, C_NO_TEXT, strdup(c.x->id), text_step(cfd, c.x->id, &nm));
		fw_strv_free(&nm);
		return bk;
	}
	case IMP_REFUSED_UNKNOWN:
		return bucket(bs, C_UNKNOWN, fw_asprintf("WHENCE:%u (%s)", line, gr->why),
			      strdup(strcmp(gr->why, "bad SPDX expression") == 0 ?
					     "correct its SPDX-License-Identifier: line upstream" :
					     "classify it in the licence map (manifests/licence-map "
					     "or --map FILE)"));
	case IMP_REFUSED_NO_LICENCE:
		return bucket(bs, C_UNDIST, strdup("no licence in its WHENCE block"),
			      strdup("give the block a Licence: line upstream"));
	case IMP_REFUSED_NOT:
		break;
	}
	return bucket(bs, C_UNDIST, fw_asprintf("WHENCE:%u: refused at import", line),
		      strdup("see the WHENCE written"));
}

/* The bucket of a refused blob: the verdict of the model (tree.c) decides
 * that it is refused and, unless import refused its licence, says why. */
static struct bucket *classify(struct imp *im, struct buckets *bs, int cfd, const struct fw_blob *b)
{
	char *v, *key;
	const char *k;
	bool unknown = b->cat == FW_CAT_UNKNOWN;

	if (b->lic && b->lic->spdx && strcmp(b->lic->spdx, FW_IMPORT_REFUSED) == 0)
		return refused_group(im, bs, cfd, b);
	v = fw_blob_verdict_text(&im->t, b);
	if (!v)
		return NULL;
	k = v;
	if (strncmp(k, "unknown: ", 9) == 0)
		k += 9;
	else if (strncmp(k, "undistributable: ", 17) == 0)
		k += 17;
	key = strdup(k);
	free(v);
	if (unknown)
		return bucket(bs, C_UNKNOWN, key,
			      strdup("classify it in the licence map (manifests/licence-map or "
				     "--map FILE)"));
	if (!b->lic)
		return bucket(bs, C_UNDIST, key, strdup("give the block a Licence: line upstream"));
	return bucket(bs, C_UNDIST, key,
		      strdup(b->free_with_source ?
				     "add their source to the upstream tree, named by a Source: "
				     "line of their block" :
				     "none: the licence does not allow shipping them"));
}

static int cmp_bucket(const void *a, const void *b)
{
	const struct bucket *x = a, *y = b;

	if (x->cause != y->cause)
		return x->cause < y->cause ? -1 : 1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int put(struct fw_import_report *rep, char *line)
{
	return imp_strv_take(&rep->refused, line);
}

/* " (N of the M under "SECTION")" when a cause's count is not its
 * section's, else "". */
static const char *of_section(char *buf, size_t len, unsigned n, size_t m, const char *section)
{
	if (n == m)
		return "";
	snprintf(buf, len, " (of the %zu under \"%s\", the others refuse no blob)", m, section);
	return buf;
}

int imp_report_refused(struct imp *im)
{
	char of[128];
	struct fw_import_report *rep = im->rep;
	struct buckets bs = { 0 };
	unsigned per[C_N] = { 0 }, kinds[C_N] = { 0 };
	int cfd = open(COMMON_LICENCES, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = 0;

	for (size_t i = 0; i < im->t.nblobs; i++) {
		const struct fw_blob *b = &im->t.blobs[i];
		struct bucket *bk;

		if (b->duplicate || b->cat == FW_CAT_FREE || b->cat == FW_CAT_NONFREE)
			continue;
		bk = classify(im, &bs, cfd, b);
		if (!bk) {
			r = -ENOMEM;
			goto out;
		}
		add(bk, b->e->name);
	}
	if (bs.n > 1)
		qsort(bs.v, bs.n, sizeof(*bs.v), cmp_bucket);
	for (size_t i = 0; i < bs.n; i++) {
		per[bs.v[i].cause] += bs.v[i].n;
		kinds[bs.v[i].cause]++;
	}
	for (int c = 0; c < C_N; c++)
		rep->nrefused += per[c];
	/* Absent files are counted as the "missing" section lists them
	 * (one line per entry: a Source: or a name listed twice too), so
	 * that the heading, this line and that section agree. */
	for (int c = 0; c < C_N && r == 0; c++) {
		if (!per[c])
			continue;
		/* The sections below list every text missing and every
		 * licence unknown, also those whose blobs are all absent or
		 * not imported: a count that differs says so. */
		if (c == C_NO_TEXT)
			r = put(rep, fw_asprintf("%u blob%s for %u licence text%s missing%s:", per[c],
						 per[c] == 1 ? "" : "s", kinds[c], kinds[c] == 1 ? "" : "s",
						 of_section(of, sizeof(of), kinds[c], rep->no_text.n,
							    "licence texts missing")));
		else if (c == C_UNKNOWN)
			r = put(rep, fw_asprintf("%u blob%s for %u unknown licence%s%s:", per[c],
						 per[c] == 1 ? "" : "s", kinds[c], kinds[c] == 1 ? "" : "s",
						 of_section(of, sizeof(of), kinds[c], rep->unknown.n,
							    "unknown licences")));
		else
			r = put(rep, fw_asprintf("%u blob%s undistributable by %u verdict%s:", per[c],
						 per[c] == 1 ? "" : "s", kinds[c], kinds[c] == 1 ? "" : "s"));
		for (size_t i = 0; i < bs.n && r == 0; i++) {
			const struct bucket *bk = &bs.v[i];
			char *nm;

			if ((int)bk->cause != c)
				continue;
			nm = names(bk->shown, bk->n);
			r = nm ? put(rep, fw_asprintf("  %s: %u blob%s (%s): %s", fw_esc(bk->key), bk->n,
						      bk->n == 1 ? "" : "s", nm, bk->step)) :
				 -ENOMEM;
			free(nm);
		}
	}
	if (r == 0 && rep->missing.n) {
		size_t ne = rep->missing.n, nf = im->absent.n;

		rep->nabsent = (unsigned)nf;
		char *nm = names((const char *const *)im->absent.v, (unsigned)nf);

		if (!nm)
			r = -ENOMEM;
		else if (ne == nf)
			r = put(rep, fw_asprintf("%zu listed file%s missing (%s): listed in WHENCE, absent "
						 "from the upstream tree: add %s to import %s (each under "
						 "\"missing\")", ne, ne == 1 ? "" : "s", nm,
						 ne == 1 ? "it" : "them", ne == 1 ? "it" : "them"));
		else
			r = put(rep, fw_asprintf("%zu listed entr%s missing (%zu file%s%s%s; %zu other%s: "
						 "Source:, Link: or a name listed twice): listed in "
						 "WHENCE, absent from the upstream tree: add them to "
						 "import them (each under \"missing\")",
						 ne, ne == 1 ? "y" : "ies", nf, nf == 1 ? "" : "s",
						 nf ? ": " : "", nf ? nm : "", ne - nf,
						 ne - nf == 1 ? "" : "s"));
		free(nm);
	}
out:
	for (size_t i = 0; i < bs.n; i++) {
		free(bs.v[i].key);
		free(bs.v[i].step);
	}
	free(bs.v);
	if (cfd >= 0)
		close(cfd);
	return r;
}
