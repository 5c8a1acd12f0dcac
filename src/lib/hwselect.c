/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The hardware's firmware as an install selection. */
#include "hwselect.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "modinfo.h"
#include "select.h"
#include "util.h"

/* The digits of a name's version: those before the extension of its last
 * component (fw_fw_pattern's), leading zeros skipped; *n their count. */
static const char *version_of(const char *name, size_t *n)
{
	const char *base, *dot, *p = fw_fw_digits(name, &base, &dot);

	while (p < dot - 1 && *p == '0')
		p++;
	*n = (size_t)(dot - p);
	return p;
}

int fw_hwsel_version_cmp(const char *a, const char *b)
{
	size_t na, nb;
	const char *va = version_of(a, &na), *vb = version_of(b, &nb);
	int c;

	if (na != nb)
		return na < nb ? -1 : 1;
	c = memcmp(va, vb, na);
	return c ? c : strcmp(a, b);
}

static int push(char ***v, size_t *n, size_t *cap, char *s)
{
	if (!s || fw_grow(v, cap, *n, sizeof(**v)) < 0) {
		free(s);
		return -ENOMEM;
	}
	(*v)[(*n)++] = s;
	return 0;
}

static int add_selected(struct fw_hwsel *s, const char *name)
{
	return push(&s->selected, &s->nselected, &s->cap_selected, strdup(name));
}

int fw_hwsel_add(struct fw_hwsel *s, const struct fw_hw *h, const struct fw_tree *t,
		 bool *blob_sel, bool *link_sel, struct fw_hwsel_counts *c)
{
	struct fw_fwreqs q;
	bool *has = NULL;
	int r = -ENOMEM;

	memset(c, 0, sizeof(*c));
	if (fw_fwreqs_build(&q, &h->mods) < 0)
		return -ENOMEM;
	c->devices = h->ndev;
	for (size_t i = 0; i < h->ndev; i++)
		c->bound += h->dev[i].nmods > 0 || h->dev[i].driver;
	c->modules = h->mods.n;
	c->names = q.n;
	has = calloc(q.n + 1, sizeof(*has));
	if (!has)
		goto out;
	for (size_t i = 0; i < q.n; i++)
		has[i] = fw_select_request(t, q.v[i].name, NULL, NULL);
	/* Names no group holds: each one a driver needs. */
	for (size_t i = 0; i < q.n; i++) {
		if (q.v[i].group >= 0)
			continue;
		if (has[i]) {
			fw_select_request(t, q.v[i].name, blob_sel, link_sel);
			c->selected++;
			if (add_selected(s, q.v[i].name) < 0)
				goto out;
		} else {
			c->absent++;
			if (push(&s->absent, &s->nabsent, &s->cap_absent,
				 fw_asprintf("%s (%s)", q.v[i].name,
					     h->mods.v[q.v[i].mods[0]].name)) < 0)
				goto out;
		}
	}
	/* Each group: its members the tree has, or only the newest of them.
	 * A name in two modules' groups belongs to the first (its group). */
	for (size_t g = 0; g < q.ng; g++) {
		const struct fw_fwgroup *x = &q.g[g];
		long newest = -1;
		size_t in_tree = 0, mine = 0;

		for (size_t k = 0; k < x->nmembers; k++) {
			size_t m = x->members[k];

			if (q.v[m].group != (long)g)
				continue;
			mine++;
			if (!has[m])
				continue;
			in_tree++;
			if (newest < 0 || fw_hwsel_version_cmp(q.v[m].name, q.v[newest].name) > 0)
				newest = (long)m;
		}
		if (!mine)
			continue;
		if (!in_tree) {
			c->absent++;
			if (push(&s->absent, &s->nabsent, &s->cap_absent,
				 fw_asprintf("%s (%s, none of %zu alternatives)", x->pattern,
					     h->mods.v[x->module].name, mine)) < 0)
				goto out;
			continue;
		}
		c->alt_absent += mine - in_tree;
		for (size_t k = 0; k < x->nmembers; k++) {
			size_t m = x->members[k];

			if (q.v[m].group != (long)g || !has[m])
				continue;
			if (s->newest && (long)m != newest) {
				c->older++;
				continue;
			}
			fw_select_request(t, q.v[m].name, blob_sel, link_sel);
			c->selected++;
			if (add_selected(s, q.v[m].name) < 0)
				goto out;
		}
	}
	r = 0;
out:
	free(has);
	fw_fwreqs_free(&q);
	return r;
}

static size_t uniq(char **v, size_t n)
{
	size_t w = 0;

	if (n > 1)
		qsort(v, n, sizeof(*v), fw_strcmp_ptr);
	for (size_t i = 0; i < n; i++) {
		if (w && strcmp(v[w - 1], v[i]) == 0) {
			free(v[i]);
			continue;
		}
		v[w++] = v[i];
	}
	return w;
}

int fw_hwsel_done(struct fw_hwsel *s)
{
	s->nselected = uniq(s->selected, s->nselected);
	s->nabsent = uniq(s->absent, s->nabsent);
	return 0;
}

void fw_hwsel_free(struct fw_hwsel *s)
{
	for (size_t k = 0; k < s->nk; k++) {
		free(s->k[k].moddir);
		fw_diag_free(&s->k[k].d);
	}
	free(s->k);
	free(s->blob);
	free(s->link);
	fw_free_strv(s->selected, s->nselected);
	fw_free_strv(s->absent, s->nabsent);
	memset(s, 0, sizeof(*s));
}

static int by_version(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

int fw_hwsel_kernels(const char *root, const struct fw_hw_opts *o, char ***kernels, size_t *nk,
		     char **top)
{
	DIR *dir;
	struct dirent *de;
	size_t cap = 0;

	*kernels = NULL;
	*nk = 0;
	*top = NULL;
	if (o->moddir || o->release) {
		char *k = o->moddir ? strdup(o->moddir)
				    : fw_asprintf("%s/lib/modules/%s", root, o->release);

		*kernels = calloc(1, sizeof(**kernels));
		if (!k || !*kernels) {
			free(k);
			return -ENOMEM;
		}
		(*kernels)[(*nk)++] = k;
		return 0;
	}
	*top = fw_asprintf("%s/lib/modules", root);
	if (!*top)
		return -ENOMEM;
	dir = opendir(*top);
	if (!dir)
		return -errno;
	while ((de = readdir(dir)) != NULL) {
		struct stat st;
		char *k;

		if (de->d_name[0] == '.')
			continue;
		k = fw_asprintf("%s/%s", *top, de->d_name);
		if (!k || fw_grow(kernels, &cap, *nk, sizeof(**kernels)) < 0) {
			free(k);
			closedir(dir);
			free(*top);
			*top = NULL;
			return -ENOMEM;
		}
		if (stat(k, &st) == 0 && S_ISDIR(st.st_mode))
			(*kernels)[(*nk)++] = k;
		else
			free(k);
	}
	closedir(dir);
	qsort(*kernels, *nk, sizeof(**kernels), by_version);
	return 0;
}

int fw_hwsel_resolve(struct fw_hwsel *s, const char *root, const struct fw_hw_opts *o,
		     const struct fw_tree *t, char **top)
{
	char **kernels = NULL;
	size_t nk = 0;
	int r = fw_hwsel_kernels(root, o, &kernels, &nk, top);

	if (r < 0 || !nk) {
		fw_free_strv(kernels, nk);
		return r;
	}
	s->k = calloc(nk, sizeof(*s->k));
	s->blob = calloc(t->nblobs + 1, sizeof(*s->blob));
	s->link = calloc(t->nlinks + 1, sizeof(*s->link));
	if (!s->k || !s->blob || !s->link)
		goto nomem;
	for (size_t k = 0; k < nk; k++) {
		struct fw_hwsel_kernel *x = &s->k[s->nk++];
		struct fw_hw_opts ho = *o;
		struct fw_hw h = { 0 };

		x->moddir = kernels[k];
		kernels[k] = NULL;
		ho.release = NULL;
		ho.moddir = x->moddir;
		ho.no_log = o->no_log || k > 0;
		ho.log = ho.no_log ? NULL : o->log;
		r = fw_hw_gather(&h, &ho, &x->d);
		x->no_modules = h.no_modules;
		x->log_error = h.log_error;
		x->partial = h.partial;
		if (r == 0 && !h.partial)
			r = fw_hwsel_add(s, &h, t, s->blob, s->link, &x->c);
		fw_hw_free(&h);
		/* With a moddir given, fw_hw_gather fails only for memory. */
		if (r < 0)
			goto nomem;
		if (x->partial) {
			fw_free_strv(kernels, nk);
			return 0;
		}
	}
	fw_free_strv(kernels, nk);
	return fw_hwsel_done(s);
nomem:
	fw_free_strv(kernels, nk);
	free(*top);
	*top = NULL;
	return -ENOMEM;
}
