/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one plan of an install: final names, kinds, sources, digests, storage, packages, link targets. */
#include "plan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "util.h"

static struct fw_plan_entry *add(struct fw_plan *p, size_t *cap, enum fw_plan_kind kind)
{
	struct fw_plan_entry *e;

	if (fw_grow(&p->v, cap, p->n, sizeof(*p->v)) < 0)
		return NULL;
	e = &p->v[p->n++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->pkg = -1;
	e->needs = -1;
	return e;
}

static char *with_suffix(const char *s, enum fw_compress c)
{
	return fw_asprintf("%s%s", s, fw_compress_suffix(c));
}

static enum fw_compress blob_comp(const struct fw_blob *b, const struct fw_plan_opts *o)
{
	return b->e->kind == FW_E_RAWFILE ? FW_COMP_NONE : o->comp;
}

/* Dedup groups: same package, same content, same storage. */
static int cmp_dedup(const void *a, const void *b, void *arg)
{
	const struct fw_plan_entry *v = arg;
	const struct fw_plan_entry *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];
	int r;

	if (x->pkg != y->pkg)
		return x->pkg < y->pkg ? -1 : 1;
	if (x->comp != y->comp)
		return x->comp < y->comp ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	r = memcmp(x->sha256, y->sha256, FW_SHA256_LEN);
	return r ? r : strcmp(x->name, y->name);
}

static bool same_content(const struct fw_plan_entry *x, const struct fw_plan_entry *y)
{
	return x->pkg == y->pkg && x->comp == y->comp && x->size == y->size &&
	       memcmp(x->sha256, y->sha256, FW_SHA256_LEN) == 0;
}

static int plan_blobs(struct fw_plan *p, size_t *cap, long *entry_of_blob, struct fw_diag *d)
{
	const struct fw_tree *t = p->t;

	for (size_t i = 0; i < t->nblobs; i++) {
		const struct fw_blob *b = &t->blobs[i];
		struct fw_plan_entry *e;

		entry_of_blob[i] = -1;
		if (!fw_blob_installable(t, b, &p->o.sel))
			continue;
		if (!b->sum) {
			fw_diag_add(d, t->whence.path, b->e->line,
				    "%s: %s: no checksum in %s; not installed",
				    fw_entry_kind_name(b->e->kind), fw_esc(b->e->name), FW_TREE_SUMS);
			p->unsummed++;
			continue;
		}
		e = add(p, cap, FW_PLAN_FILE);
		if (!e)
			return -ENOMEM;
		e->name = e->src = b->e->name;
		e->blob = b;
		e->pkg = b->pkg;
		memcpy(e->sha256, b->sum->sha256, FW_SHA256_LEN);
		e->size = b->sum->size;
		e->comp = blob_comp(b, &p->o);
		e->final = with_suffix(b->e->name, e->comp);
		if (!e->final)
			return -ENOMEM;
		entry_of_blob[i] = (long)(p->n - 1);
	}
	return 0;
}

/* Dedup: within one package only, so that a package installed alone is
 * complete; the first name of each group keeps the bytes, the others
 * become relative symlinks to it. */
static int plan_dedup(struct fw_plan *p)
{
	size_t n = p->n, *order;

	if (!p->o.dedup || n < 2)
		return 0;
	order = malloc(n * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_dedup, p->v);
	for (size_t i = 1; i < n; i++) {
		struct fw_plan_entry *dup = &p->v[order[i]];
		size_t k = i;
		char *rel;

		while (k > 0 && same_content(&p->v[order[k - 1]], dup))
			k--;
		if (k == i)
			continue;
		rel = fw_relpath(dup->name, p->v[order[k]].name);
		if (!rel) {
			free(order);
			return -ENOMEM;
		}
		dup->kind = FW_PLAN_LINK;
		dup->target = with_suffix(rel, dup->comp);
		dup->needs = (long)order[k];
		free(rel);
		if (!dup->target) {
			free(order);
			return -ENOMEM;
		}
	}
	free(order);
	return 0;
}

static int plan_licences(struct fw_plan *p, size_t *cap)
{
	const struct fw_tree *t = p->t;

	for (size_t k = 0; k < t->split.npkgs; k++) {
		char **ids;
		size_t n;
		int r = fw_tree_licence_closure(t, &p->o.sel, (int)k, &ids, &n);

		if (r < 0)
			return r;
		for (size_t i = 0; i < n && r == 0; i++) {
			const struct fw_text *x = fw_tree_text(t, ids[i]);
			struct fw_plan_entry *e;

			/* An id the policy lacks makes its blobs uninstallable:
			 * a closure never holds one. */
			if (!x)
				continue;
			e = add(p, cap, FW_PLAN_LICENCE);
			if (!e) {
				r = -ENOMEM;
				break;
			}
			e->pkg = (int)k;
			e->text = x;
			e->src = x->path;
			memcpy(e->sha256, x->sha256, FW_SHA256_LEN);
			e->size = x->size;
			e->final = fw_asprintf("%s/%s/%s.txt", FW_DEST_LICENSES, t->split.pkgs[k].name,
					       x->pol->id);
			if (!e->final)
				r = -ENOMEM;
			else
				e->name = e->final;
		}
		fw_free_strv(ids, n);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Link: entries, shortest chains first, so that a link to a link comes
 * after the link it needs (the executor makes them in this order). */
static int plan_links(struct fw_plan *p, size_t *cap, const long *entry_of_blob)
{
	const struct fw_tree *t = p->t;
	long *entry_of_link = malloc((t->nlinks + 1) * sizeof(*entry_of_link));

	if (!entry_of_link)
		return -ENOMEM;
	for (size_t i = 0; i < t->nlinks; i++)
		entry_of_link[i] = -1;
	for (unsigned depth = 1; depth <= FW_LINK_MAX_CHAIN; depth++)
		for (size_t i = 0; i < t->nlinks; i++) {
			const struct fw_link *l = &t->links[i];
			struct fw_plan_entry *e;

			if (l->depth != depth || !fw_link_installable(t, l, &p->o.sel))
				continue;
			if (l->blob >= 0 && entry_of_blob[l->blob] < 0)
				continue; /* its blob has no checksum: reported with the blobs */
			if (l->via >= 0 && entry_of_link[l->via] < 0)
				continue; /* the rest of its chain is not planned */
			e = add(p, cap, FW_PLAN_LINK);
			if (!e) {
				free(entry_of_link);
				return -ENOMEM;
			}
			entry_of_link[i] = (long)(p->n - 1);
			e->name = l->e->name;
			e->link = l;
			e->pkg = fw_link_package(t, l, &p->o.sel);
			if (l->blob >= 0) {
				const struct fw_blob *b = &t->blobs[l->blob];

				e->blob = b;
				e->comp = blob_comp(b, &p->o);
				memcpy(e->sha256, b->sum->sha256, FW_SHA256_LEN);
				e->size = b->sum->size;
			} else {
				e->dir_target = l->end;
			}
			/* It needs what it points at: the blob, or the next link. */
			e->needs = l->via >= 0 ? entry_of_link[l->via] :
				   l->blob >= 0 ? entry_of_blob[l->blob] : -1;
			e->final = with_suffix(l->e->name, e->comp);
			e->target = with_suffix(l->e->target, e->comp);
			if (!e->final || !e->target) {
				free(entry_of_link);
				return -ENOMEM;
			}
		}
	free(entry_of_link);
	return 0;
}

/* Every directory that holds a planned name, once. */
static int plan_dirs(struct fw_plan *p, size_t *cap)
{
	char **dirs = NULL;
	size_t nd = 0, dcap = 0, nent = p->n;
	int r = 0;

	for (size_t i = 0; i < nent && r == 0; i++)
		for (const char *s = strchr(p->v[i].final, '/'); s; s = strchr(s + 1, '/')) {
			char *dir = fw_strndup(p->v[i].final, (size_t)(s - p->v[i].final));

			if (!dir || fw_grow(&dirs, &dcap, nd, sizeof(*dirs)) < 0) {
				free(dir);
				r = -ENOMEM;
				break;
			}
			dirs[nd++] = dir;
		}
	if (r == 0 && nd > 1)
		qsort(dirs, nd, sizeof(*dirs), fw_strcmp_ptr);
	for (size_t i = 0; i < nd; i++) {
		struct fw_plan_entry *e;

		/* Sorted: a repeat follows the one kept (still alive). */
		if (r < 0 || (p->n > nent && strcmp(dirs[i], p->v[p->n - 1].final) == 0)) {
			free(dirs[i]);
			continue;
		}
		e = add(p, cap, FW_PLAN_DIR);
		if (!e) {
			free(dirs[i]);
			r = -ENOMEM;
			continue;
		}
		e->final = dirs[i];
		e->name = e->final;
	}
	free(dirs);
	return r;
}

/* Copies to the front (the workers take them in order), then the links in
 * their planned order, then the directories. needs indexes are remapped. */
static int order_entries(struct fw_plan *p)
{
	struct fw_plan_entry *sorted = calloc(p->n + 1, sizeof(*sorted));
	long *newpos = malloc((p->n + 1) * sizeof(*newpos));
	size_t w = 0;

	if (!sorted || !newpos) {
		free(sorted);
		free(newpos);
		return -ENOMEM;
	}
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0; i < p->n; i++) {
			enum fw_plan_kind k = p->v[i].kind;
			int want = k == FW_PLAN_FILE || k == FW_PLAN_LICENCE ? 0 : k == FW_PLAN_LINK ? 1 : 2;

			if (want != pass)
				continue;
			newpos[i] = (long)w;
			sorted[w++] = p->v[i];
		}
	p->ncopies = p->nlinks = p->ndirs = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (sorted[i].needs >= 0)
			sorted[i].needs = newpos[sorted[i].needs];
		p->ncopies += sorted[i].kind == FW_PLAN_FILE || sorted[i].kind == FW_PLAN_LICENCE;
		p->nlinks += sorted[i].kind == FW_PLAN_LINK;
		p->ndirs += sorted[i].kind == FW_PLAN_DIR;
	}
	free(p->v);
	free(newpos);
	p->v = sorted;
	return 0;
}

static int cmp_final(const void *a, const void *b, void *arg)
{
	const struct fw_plan_entry *v = arg;

	return strcmp(v[*(const size_t *)a].final, v[*(const size_t *)b].final);
}

static int cmp_name(const void *a, const void *b, void *arg)
{
	const struct fw_plan_entry *v = arg;

	return strcmp(v[*(const size_t *)a].name, v[*(const size_t *)b].name);
}

static int build_indexes(struct fw_plan *p)
{
	p->by_final = malloc((p->n + 1) * sizeof(*p->by_final));
	p->by_name = malloc((p->n + 1) * sizeof(*p->by_name));
	if (!p->by_final || !p->by_name)
		return -ENOMEM;
	p->nnames = 0;
	for (size_t i = 0; i < p->n; i++) {
		p->by_final[i] = i;
		if (p->v[i].kind == FW_PLAN_FILE || p->v[i].kind == FW_PLAN_LINK)
			p->by_name[p->nnames++] = i;
	}
	if (p->n > 1)
		qsort_r(p->by_final, p->n, sizeof(*p->by_final), cmp_final, p->v);
	if (p->nnames > 1)
		qsort_r(p->by_name, p->nnames, sizeof(*p->by_name), cmp_name, p->v);
	return 0;
}

int fw_plan_build(struct fw_plan *p, const struct fw_tree *t, const struct fw_plan_opts *o,
		  struct fw_diag *d)
{
	long *entry_of_blob = malloc((t->nblobs + 1) * sizeof(*entry_of_blob));
	bool whole = !o->sel.pkg && !o->sel.blob;
	size_t cap = 0;
	int r;

	memset(p, 0, sizeof(*p));
	p->t = t;
	p->o = *o;
	p->covers = calloc(t->split.npkgs + 1, sizeof(*p->covers));
	if (!entry_of_blob || !p->covers) {
		free(entry_of_blob);
		return -ENOMEM;
	}
	for (size_t k = 0; k < t->split.npkgs; k++)
		p->covers[k] = whole || (o->sel.pkg && o->sel.pkg[k] && !o->sel.blob);
	r = plan_blobs(p, &cap, entry_of_blob, d);
	if (r == 0)
		r = plan_dedup(p);
	if (r == 0 && !o->no_licences)
		r = plan_licences(p, &cap);
	if (r == 0)
		r = plan_links(p, &cap, entry_of_blob);
	if (r == 0)
		r = plan_dirs(p, &cap);
	if (r == 0)
		r = order_entries(p);
	if (r == 0)
		r = build_indexes(p);
	free(entry_of_blob);
	return r;
}

void fw_plan_free(struct fw_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].final);
		free(p->v[i].target);
	}
	free(p->v);
	free(p->covers);
	free(p->by_final);
	free(p->by_name);
	memset(p, 0, sizeof(*p));
}

/* Binary search of idx[0..n), sorted by final name or by request name. */
static const struct fw_plan_entry *lookup(const struct fw_plan *p, const size_t *idx, size_t n,
					  const char *key, bool by_name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct fw_plan_entry *e = &p->v[idx[mid]];
		int c = strcmp(key, by_name ? e->name : e->final);

		if (c == 0)
			return e;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const struct fw_plan_entry *fw_plan_find(const struct fw_plan *p, const char *final)
{
	return lookup(p, p->by_final, p->n, final, false);
}

const struct fw_plan_entry *fw_plan_find_name(const struct fw_plan *p, const char *name)
{
	return lookup(p, p->by_name, p->nnames, name, true);
}

bool fw_plan_covers(const struct fw_plan *p, int pkg)
{
	return pkg >= 0 && (size_t)pkg < p->t->split.npkgs && p->covers[pkg];
}

const char *fw_plan_package(const struct fw_plan *p, const struct fw_plan_entry *e)
{
	return e->pkg >= 0 ? p->t->split.pkgs[e->pkg].name : NULL;
}
