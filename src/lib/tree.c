/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The model of a firmware tree: load WHENCE, manifests/ and LICENSES/ once, cross-reference them. */
#include "tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "licmap.h"
#include "util.h"

struct unknown_ctx {
	const struct fw_policy *p;
	char **unknown;
};

static int find_unknown(void *ctx, const char *id, size_t len)
{
	struct unknown_ctx *u = ctx;
	char buf[256];

	if (*u->unknown || len >= sizeof(buf))
		return 0;
	memcpy(buf, id, len);
	buf[len] = '\0';
	if (!fw_policy_find(u->p, buf)) {
		*u->unknown = strdup(buf);
		if (!*u->unknown)
			return -ENOMEM;
	}
	return 0;
}

struct copyleft_ctx {
	const struct fw_policy *p;
	const char **id;
};

/* The first id of an expression that the policy calls copyleft. */
static int find_copyleft(void *ctx, const char *id, size_t len)
{
	struct copyleft_ctx *c = ctx;
	const struct fw_policy_entry *e;
	char buf[256];

	if (*c->id || len >= sizeof(buf))
		return 0;
	memcpy(buf, id, len);
	buf[len] = '\0';
	e = fw_policy_find(c->p, buf);
	if (e && e->cat == FW_CAT_COPYLEFT)
		*c->id = e->id;
	return 0;
}

/* Remember that the model rests on the file at path (below the root): the
 * digest of the bytes it used, or (sha256 NULL) only its presence. A path
 * noted twice is merged by finish_reads. 0 or -ENOMEM. */
static int note_read(struct fw_tree *t, const char *path, const uint8_t *sha256)
{
	struct fw_tree_read *x;

	if (fw_grow(&t->reads, &t->cap_reads, t->nreads, sizeof(*t->reads)) < 0)
		return -ENOMEM;
	x = &t->reads[t->nreads];
	memset(x, 0, sizeof(*x));
	x->path = strdup(path);
	if (!x->path)
		return -ENOMEM;
	x->presence = !sha256;
	if (sha256)
		memcpy(x->sha256, sha256, FW_SHA256_LEN);
	t->nreads++;
	return 0;
}

static int cmp_read(const void *a, const void *b)
{
	return strcmp(((const struct fw_tree_read *)a)->path, ((const struct fw_tree_read *)b)->path);
}

/* Sort the reads by path, one entry a path: the bytes read win over a mere
 * presence, and two reads of other bytes mark the file changed (it was
 * swapped while the model was being built: no digest stands for it). */
static void finish_reads(struct fw_tree *t)
{
	size_t w = 0;

	if (t->nreads > 1)
		qsort(t->reads, t->nreads, sizeof(*t->reads), cmp_read);
	for (size_t i = 0; i < t->nreads; i++) {
		struct fw_tree_read *x = &t->reads[i], *prev = w ? &t->reads[w - 1] : NULL;

		if (!prev || strcmp(prev->path, x->path) != 0) {
			t->reads[w++] = *x;
			continue;
		}
		if (prev->presence && !x->presence) {
			memcpy(prev->sha256, x->sha256, FW_SHA256_LEN);
			prev->presence = false;
		} else if (!prev->presence && !x->presence &&
			 memcmp(prev->sha256, x->sha256, FW_SHA256_LEN) != 0)
			prev->changed = true;
		free(x->path);
	}
	t->nreads = w;
}

const struct fw_tree_read *fw_tree_read_find(const struct fw_tree *t, const char *path)
{
	struct fw_tree_read key = { .path = (char *)path };

	if (!t->nreads)
		return NULL;
	return bsearch(&key, t->reads, t->nreads, sizeof(*t->reads), cmp_read);
}

/* Read a file the model parses (fw_read_text: bounded, no final symlink
 * followed, a regular file) once, and note the digest of exactly the bytes
 * returned: the signature check compares that digest, never a second read
 * that could see other bytes. */
static int read_model_file(struct fw_tree *t, const char *path, char **buf, size_t *len)
{
	uint8_t sum[FW_SHA256_LEN];
	int r = fw_read_text(t->rootfd, path, buf, len);

	if (r < 0)
		return r;
	r = fw_sha256_buf(*buf, *len, sum);
	if (r == 0)
		r = note_read(t, path, sum);
	if (r < 0) {
		free(*buf);
		*buf = NULL;
	}
	return r;
}

/* Read one of the manifests; a missing file leaves an empty model (check
 * reports it), an unreadable one is reported here. */
static int load_text(struct fw_tree *t, const char *path, bool *have, char **buf, size_t *len,
		     struct fw_diag *d)
{
	int r = read_model_file(t, path, buf, len);

	*have = r == 0;
	if (r == -ENOENT) {
		*buf = NULL;
		*len = 0;
		return 0;
	}
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		if (r == -EFBIG)
			fw_diag_add(d, path, 0, "larger than the %u MiB fwdist reads; not read",
				    FW_TEXT_MAX >> 20);
		else if (r == -EINVAL)
			fw_diag_add(d, path, 0, "not a regular file (a symlink is not followed); not read");
		else
			fw_diag_add(d, path, 0, "cannot read: %s", strerror(-r));
		*buf = NULL;
		*len = 0;
	}
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	const struct fw_name *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->e->line < y->e->line ? -1 : x->e->line > y->e->line;
}

static int add_dirs(struct fw_tree *t, const char *name, size_t *cap)
{
	const char *p = name;

	while ((p = strchr(p, '/'))) {
		char *dir = fw_strndup(name, (size_t)(p - name));

		if (!dir || fw_grow(&t->dirs, cap, t->ndirs, sizeof(*t->dirs)) < 0) {
			free(dir);
			return -ENOMEM;
		}
		t->dirs[t->ndirs++] = dir;
		p++;
	}
	return 0;
}

static int build_index(struct fw_tree *t)
{
	struct fw_whence *w = &t->whence;
	size_t nb = 0, nl = 0, cap_dirs = 0, out;

	for (size_t i = 0; i < w->nentries; i++) {
		struct fw_whence_entry *e = &w->entries[i];
		size_t n = strlen(e->name);

		/* "Source: cis/" names a directory of sources. */
		if (e->kind == FW_E_SOURCE && n > 1 && e->name[n - 1] == '/')
			e->name[n - 1] = '\0';
		if (e->kind == FW_E_FILE || e->kind == FW_E_RAWFILE)
			nb++;
		else if (e->kind == FW_E_LINK)
			nl++;
	}
	t->blobs = calloc(nb ? nb : 1, sizeof(*t->blobs));
	t->links = calloc(nl ? nl : 1, sizeof(*t->links));
	t->index = calloc(w->nentries ? w->nentries : 1, sizeof(*t->index));
	if (!t->blobs || !t->links || !t->index)
		return -ENOMEM;
	for (size_t i = 0; i < w->nentries; i++) {
		struct fw_whence_entry *e = &w->entries[i];
		struct fw_name *x = &t->index[t->nindex++];

		x->name = e->name;
		x->e = e;
		x->blob = x->link = -1;
		if (e->kind == FW_E_FILE || e->kind == FW_E_RAWFILE) {
			struct fw_blob *b = &t->blobs[t->nblobs];

			b->e = e;
			b->pkg = -1;
			x->blob = (long)t->nblobs++;
		} else if (e->kind == FW_E_LINK) {
			struct fw_link *l = &t->links[t->nlinks];

			l->e = e;
			l->blob = l->via = -1;
			x->link = (long)t->nlinks++;
		}
	}
	qsort(t->index, t->nindex, sizeof(*t->index), cmp_name);
	/* Keep the first listing of each name; mark the others. */
	out = 0;
	for (size_t i = 0; i < t->nindex; i++) {
		struct fw_name *x = &t->index[i];

		if (out > 0 && strcmp(t->index[out - 1].name, x->name) == 0) {
			if (x->blob >= 0)
				t->blobs[x->blob].duplicate = true;
			if (x->link >= 0)
				t->links[x->link].duplicate = true;
			continue;
		}
		t->index[out++] = *x;
	}
	t->nindex = out;
	for (size_t i = 0; i < t->nblobs; i++)
		if (!t->blobs[i].duplicate && !fw_name_problem(t->blobs[i].e->name) &&
		    add_dirs(t, t->blobs[i].e->name, &cap_dirs) < 0)
			return -ENOMEM;
	if (t->ndirs > 1) /* qsort(NULL, 0, ...) is undefined */
		qsort(t->dirs, t->ndirs, sizeof(*t->dirs), fw_strcmp_ptr);
	out = 0;
	for (size_t i = 0; i < t->ndirs; i++) {
		if (out > 0 && strcmp(t->dirs[out - 1], t->dirs[i]) == 0) {
			free(t->dirs[i]);
			continue;
		}
		t->dirs[out++] = t->dirs[i];
	}
	t->ndirs = out;
	return 0;
}

static int resolve_licences(struct fw_tree *t)
{
	struct fw_whence *w = &t->whence;
	struct fw_lic_eval *ev = calloc(w->nlicences ? w->nlicences : 1, sizeof(*ev));

	t->levals = ev;
	if (!ev)
		return -ENOMEM;
	for (size_t i = 0; i < w->nlicences; i++) {
		struct unknown_ctx u = { .p = &t->policy, .unknown = &ev[i].unknown };
		int r;

		ev[i].cat = FW_CAT_UNKNOWN;
		if (!w->licences[i].spdx)
			continue;
		r = fw_spdx_eval(&t->policy, w->licences[i].spdx, &ev[i].cat, find_unknown, &u,
				 &ev[i].syntax);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			ev[i].cat = FW_CAT_UNKNOWN;
	}
	for (size_t i = 0; i < t->nblobs; i++) {
		struct fw_blob *b = &t->blobs[i];
		const struct fw_whence_block *blk = &w->blocks[b->e->block];

		b->driver = blk->driver;
		b->licence_cat = FW_CAT_UNKNOWN;
		if (b->e->licence) {
			b->lev = &ev[b->e->licence - 1];
			b->lic = &w->licences[b->e->licence - 1];
			b->licence_cat = b->lev->cat;
			if (!b->lic->spdx) {
				b->lic = NULL;
				b->lev = NULL;
			}
		}
		if (b->lic && !b->lev->syntax) {
			const char *syn;
			struct copyleft_ctx c = { .p = &t->policy, .id = &b->copyleft_id };

			fw_spdx_eval(NULL, b->lic->spdx, &(enum fw_category){ 0 }, find_copyleft, &c,
				     &syn);
		}
	}
	return 0;
}

static int add_match(struct fw_blob *b, unsigned pkg, unsigned line)
{
	for (size_t i = 0; i < b->nmore; i++)
		if (b->more[i].pkg == (int)pkg)
			return 0;
	if (fw_grow(&b->more, &b->cap_more, b->nmore, sizeof(*b->more)) < 0)
		return -ENOMEM;
	b->more[b->nmore++] = (struct fw_pkg_match){ (int)pkg, line };
	return 0;
}

/* The name a rule's path: selector matches alone (not negated, no glob
 * character once its escapes are undone), or NULL (none; out of memory
 * too: the rule is then tried on every blob, which is merely slower). */
static char *literal_path(const struct fw_split_rule *r)
{
	for (size_t i = 0; i < r->nsel; i++) {
		const char *v = r->sel[i].value;
		char *out, *o;

		if (r->sel[i].kind != FW_SEL_PATH || r->sel[i].negate)
			continue;
		out = o = malloc(strlen(v) + 1);
		if (!out)
			return NULL;
		for (; *v; v++) {
			if (*v == '*' || *v == '?' || *v == '[' || (*v == '\\' && !v[1]))
				break;
			if (*v == '\\')
				v++;
			*o++ = *v;
		}
		if (!*v) {
			*o = '\0';
			return out;
		}
		free(out);
	}
	return NULL;
}

struct lit_rule {
	char *name;
	size_t rule;
};

static int cmp_lit(const void *a, const void *b)
{
	const struct lit_rule *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->rule > y->rule) - (x->rule < y->rule);
}

/* Every blob against the rules in their order, then a blob no rule took
 * against the rest:yes rules in theirs. A rule whose path: names
 * one file (as import writes one for each empty blob, and a Debian split
 * for each file of a mixed directory) is looked up by that name, not tried
 * on every blob: 100,000 such lines and blobs stay n log n, not n^2. */
static int assign_packages(struct fw_tree *t)
{
	struct lit_rule *lit = calloc(t->split.nrules + 1, sizeof(*lit));
	size_t *general = calloc(t->split.nrules + 1, sizeof(*general));
	size_t *rest = calloc(t->split.nrules + 1, sizeof(*rest));
	size_t nlit = 0, ngen = 0, nrest = 0;
	int ret = 0;

	if (!lit || !general || !rest) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t r = 0; r < t->split.nrules; r++) {
		char *name;

		if (t->split.rules[r].rest) {
			rest[nrest++] = r;
			continue;
		}
		name = literal_path(&t->split.rules[r]);
		if (name)
			lit[nlit++] = (struct lit_rule){ name, r };
		else
			general[ngen++] = r;
	}
	if (nlit > 1)
		qsort(lit, nlit, sizeof(*lit), cmp_lit);
	for (size_t i = 0; i < t->nblobs; i++) {
		struct fw_blob *b = &t->blobs[i];
		struct fw_blob_facts f = {
			.name = b->e->name,
			.driver = b->driver,
			.spdx = b->lic ? b->lic->spdx : NULL,
			.cat = b->cat,
			.empty = b->empty,
		};
		size_t lo = 0, hi = nlit, g = 0;

		if (b->duplicate || (b->cat != FW_CAT_FREE && b->cat != FW_CAT_NONFREE))
			continue;
		while (lo < hi) { /* the first literal rule for this name */
			size_t mid = lo + (hi - lo) / 2;

			if (strcmp(lit[mid].name, f.name) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* The general rules and this name's literal ones, merged in
		 * rule order: the first match is the package, as before. */
		for (;;) {
			bool have_l = lo < nlit && strcmp(lit[lo].name, f.name) == 0;
			size_t r;
			const struct fw_split_rule *rule;

			if (!have_l && g == ngen)
				break;
			if (have_l && (g == ngen || lit[lo].rule < general[g]))
				r = lit[lo++].rule;
			else
				r = general[g++];
			rule = &t->split.rules[r];
			if (!fw_rule_matches(rule, &f))
				continue;
			if (b->pkg < 0) {
				b->pkg = (int)rule->pkg;
				b->pkg_line = rule->line;
			} else if ((int)rule->pkg != b->pkg && add_match(b, rule->pkg, rule->line) < 0) {
				ret = -ENOMEM;
				goto out;
			}
		}
		/* The rest: lines, for what no other line took; two of them
		 * taking it is the same conflict as two other lines. */
		for (size_t k = 0; b->pkg < 0 && k < nrest; k++) {
			const struct fw_split_rule *rule = &t->split.rules[rest[k]];

			if (!fw_rule_matches(rule, &f))
				continue;
			b->pkg = (int)rule->pkg;
			b->pkg_line = rule->line;
			for (size_t m = k + 1; m < nrest; m++) {
				const struct fw_split_rule *o = &t->split.rules[rest[m]];

				if ((int)o->pkg != b->pkg && fw_rule_matches(o, &f) &&
				    add_match(b, o->pkg, o->line) < 0) {
					ret = -ENOMEM;
					goto out;
				}
			}
		}
	}
out:
	for (size_t i = 0; lit && i < nlit; i++)
		free(lit[i].name);
	free(lit);
	free(general);
	free(rest);
	return ret;
}

/* What stands at firmware/<name> for every blob: one lstat each, through
 * directories opened without following anything. */
static void look_at_blobs(struct fw_tree *t)
{
	for (size_t i = 0; i < t->nblobs; i++) {
		struct fw_blob *b = &t->blobs[i];
		const char *leaf;
		struct stat st;
		int pfd;

		b->presence = FW_UNREACHABLE;
		if (t->fwfd < 0 || b->duplicate || fw_name_problem(b->e->name))
			continue;
		pfd = fw_open_parent(t->fwfd, b->e->name, 0, &leaf);
		if (pfd == -ENOENT) {
			b->presence = FW_ABSENT;
			continue;
		}
		if (pfd < 0)
			continue;
		if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			b->presence = errno == ENOENT ? FW_ABSENT : FW_UNREACHABLE;
		} else if (S_ISREG(st.st_mode)) {
			b->presence = FW_PRESENT;
			b->mode = st.st_mode;
			b->fsize = (uint64_t)st.st_size;
		} else {
			b->presence = FW_NOT_REGULAR;
		}
		if (pfd != t->fwfd)
			close(pfd);
	}
}

/* A text is shipped only as manifests/licence-checksums pins it, as a blob
 * only as manifests/checksums does. */
static int match_sum(struct fw_tree *t, struct fw_text *x)
{
	char *key = fw_asprintf("%s.txt", x->pol->id);

	if (!key)
		return -ENOMEM;
	x->sum = fw_sums_find(&t->text_sums, key);
	free(key);
	if (!x->sum)
		return -ENODATA;
	if (x->sum->size != x->size || memcmp(x->sum->sha256, x->sha256, FW_SHA256_LEN) != 0)
		return -EBADMSG;
	return 0;
}

/* Every licence text of the policy: present or not, and its digest. The
 * texts are small and few (upstream has about 200); reading them once here
 * is what lets install, verify and the reports agree on them. */
static int load_texts(struct fw_tree *t)
{
	t->texts = calloc(t->policy.n + 1, sizeof(*t->texts));
	if (!t->texts)
		return -ENOMEM;
	for (size_t i = 0; i < t->policy.n; i++) {
		struct fw_text *x = &t->texts[i];
		struct stat st;
		int fd;

		x->pol = &t->policy.v[i];
		x->path = fw_asprintf("%s/%s.txt", FW_TREE_LICENSES, x->pol->id);
		if (!x->path)
			return -ENOMEM;
		if (fw_name_problem(x->pol->id) || strchr(x->pol->id, '/')) {
			x->err = -EINVAL;
			continue;
		}
		fd = fw_open_beneath(t->rootfd, x->path, O_RDONLY | O_NONBLOCK, 0);
		if (fd < 0) {
			x->err = fd;
			continue;
		}
		if (fstat(fd, &st) < 0)
			x->err = -errno;
		else if (!S_ISREG(st.st_mode))
			x->err = -EINVAL;
		/* A text hard-linked from elsewhere changes when that file
		 * does, behind the tree's back: texts are the tree's own. */
		else if (st.st_nlink > 1)
			x->err = -EMLINK;
		else
			x->err = fw_sha256_fd(fd, x->sha256, &x->size);
		close(fd);
		/* Install copies the text only with this digest. */
		if (x->err == 0 && note_read(t, x->path, x->sha256) < 0)
			return -ENOMEM;
		if (x->err == -ENOMEM)
			return -ENOMEM;
		if (x->err == 0 && t->have_text_sums)
			x->err = match_sum(t, x);
		if (x->err == -ENOMEM)
			return -ENOMEM;
	}
	return 0;
}

struct text_ctx {
	const struct fw_tree *t;
	const char *missing;
};

static int find_missing_text(void *ctx, const char *id, size_t len)
{
	struct text_ctx *c = ctx;
	char buf[256];
	const struct fw_text *x;

	if (c->missing || len >= sizeof(buf))
		return 0;
	memcpy(buf, id, len);
	buf[len] = '\0';
	x = fw_tree_text(c->t, buf);
	if (x && x->err)
		c->missing = x->pol->id;
	return 0;
}

static bool tree_has_file(const struct fw_tree *t, const char *dir, const char *name)
{
	char *path = fw_asprintf("%s%s", dir, name);
	struct stat st;
	bool ok;

	if (!path)
		return true; /* ENOMEM: no finding made up */
	/* A name that could leave the tree is looked up nowhere: absent. */
	ok = !fw_name_problem(path) && fstatat(t->rootfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	     S_ISREG(st.st_mode);
	free(path);
	return ok;
}

struct has_texts {
	const struct fw_tree *t;
	bool all;
};

static int id_has_text(void *ctx, const char *id, size_t len)
{
	struct has_texts *c = ctx;
	char buf[256];
	const struct fw_text *x;

	if (len >= sizeof(buf)) {
		c->all = false;
		return 0;
	}
	memcpy(buf, id, len);
	buf[len] = '\0';
	x = fw_tree_text(c->t, buf);
	if (!x || x->err)
		c->all = false;
	return 0;
}

/* Upstream's licence file name, as a wording gives it, through the
 * licence map (its file: line) to the ids whose texts LICENSES/ holds: an
 * import keeps upstream's licence files there, under their ids. */
static bool mapped_text(const struct fw_tree *t, const struct fw_licmap *m, const char *name)
{
	char *key = fw_asprintf("file:%s", name);
	const struct fw_licmap_entry *e;
	struct has_texts c = { .t = t, .all = true };

	if (!key)
		return true; /* ENOMEM: no finding made up */
	e = m ? fw_licmap_find(m, key) : NULL;
	free(key);
	if (!e || fw_spdx_eval(NULL, e->expr, &(enum fw_category){ 0 }, id_has_text, &c,
			       &(const char *){ NULL }) < 0)
		return false;
	return c.all;
}

/* The files a licence group's Licence: wording points at ("See X", "See X
 * and Y"): the first the tree lacks, at its top, in LICENSES/, and through
 * the licence map under LICENSES/<id>.txt, is the group's absent_file (the
 * wording then gives no terms). */
static int wording_files(struct fw_tree *t)
{
	struct fw_licmap map, *m = NULL;
	char *buf = NULL;
	size_t len;
	int r = 0;

	if (fw_read_text(t->rootfd, FW_TREE_LICMAP, &buf, &len) == 0) {
		struct fw_diag d = { 0 };

		r = fw_licmap_parse(&map, FW_TREE_LICMAP, buf, len, &d);
		if (r == 0)
			m = d.n ? NULL : &map;
		if (!m)
			fw_licmap_free(&map);
		fw_diag_free(&d);
		free(buf);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < t->whence.nlicences && r == 0; i++) {
		const char *s = t->whence.licences[i].text;
		char **files;
		size_t n;

		if (!s)
			continue;
		r = fw_licmap_wording_files(s, &files, &n);
		for (size_t k = 0; k < n; k++) {
			if (!t->levals[i].absent_file && !tree_has_file(t, "", files[k]) &&
			    !tree_has_file(t, FW_TREE_LICENSES "/", files[k]) &&
			    !mapped_text(t, m, files[k])) {
				t->levals[i].absent_file = files[k];
				continue;
			}
			free(files[k]);
		}
		free(files);
	}
	if (m)
		fw_licmap_free(m);
	return r;
}

/* manifests/preferred-form: after its header, lines GLOB<TAB>REASON (a
 * glob of names as WHENCE lists them, fnmatch(3) with FNM_PATHNAME; the
 * reason said by licenses and debian/copyright), '#' comments and blank
 * lines. Its lines are findings in d; absent, nothing is declared. */
static int load_preferred(struct fw_tree *t, struct fw_diag *d)
{
	struct fw_lines it;
	const char *ls, *le;
	bool have;
	size_t len;
	int r = load_text(t, FW_TREE_PREFERRED, &have, &t->prefbuf, &len, d);

	if (r < 0 || !t->prefbuf)
		return r;
	fw_lines_init(&it, t->prefbuf, len);
	while (fw_lines_next(&it, &ls, &le)) {
		char *l = (char *)ls, *tab;

		if (it.line == 1) {
			if ((size_t)(le - ls) != strlen(FW_PREFERRED_HEADER) ||
			    memcmp(ls, FW_PREFERRED_HEADER, (size_t)(le - ls)) != 0)
				fw_diag_add(d, FW_TREE_PREFERRED, 1, "expected \"%s\"", FW_PREFERRED_HEADER);
			continue;
		}
		if (ls == le || *ls == '#')
			continue;
		l[le - ls] = '\0';
		tab = strchr(l, '\t');
		if (!tab || tab == l || !tab[1] || strchr(tab + 1, '\t')) {
			fw_diag_add(d, FW_TREE_PREFERRED, it.line, "expected GLOB<TAB>REASON");
			continue;
		}
		*tab = '\0';
		{
			const char **g = realloc(t->pref_globs, (t->npref + 1) * sizeof(*g));
			const char **rs;

			if (!g)
				return -ENOMEM;
			t->pref_globs = g;
			rs = realloc(t->pref_reasons, (t->npref + 1) * sizeof(*rs));
			if (!rs)
				return -ENOMEM;
			t->pref_reasons = rs;
		}
		t->pref_globs[t->npref] = l;
		t->pref_reasons[t->npref++] = tab + 1;
	}
	return 0;
}

/* The reason manifests/preferred-form gives for name, or NULL. */
static const char *preferred_form(const struct fw_tree *t, const char *name)
{
	for (size_t i = 0; i < t->npref; i++)
		if (fnmatch(t->pref_globs[i], name, FNM_PATHNAME) == 0)
			return t->pref_reasons[i];
	return NULL;
}

/* ---- the verdict: one place, for check, licenses, list, sbom and import ---- */

static bool hex_digit(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Is [s, e) a line of Intel HEX (":10..."), an S-record ("S1...") or a
 * bare hex dump: binary data written in hex digits, not a source? */
static bool hex_line(const char *s, const char *e)
{
	size_t digits = 0;

	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	if (s < e && *s == ':')
		s++;
	else if (e - s > 1 && *s == 'S' && s[1] >= '0' && s[1] <= '9')
		s += 2;
	for (; s < e; s++) {
		if (hex_digit((unsigned char)*s))
			digits++;
		else if (*s != ' ' && *s != '\t')
			return false;
	}
	return digits > 0;
}

bool fw_blob_is_text(const char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf, *end = p + len;
	const char *ls, *le;

	if (len == 0 || len > FW_SELF_SOURCE_MAX)
		return false;
	while (p < end) {
		unsigned c = *p, n, cp;

		if (c < 0x80) {
			/* Printable ASCII, tab, CR, LF: nothing else (NUL,
			 * escape, form feed, DEL are not in a text someone edits). */
			if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
				return false;
			p++;
			continue;
		}
		/* UTF-8, strictly: no overlong form, no surrogate, nothing
		 * past U+10FFFF, no C1 control. */
		if (c >= 0xc2 && c <= 0xdf)
			n = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3, cp = c & 0x07;
		else
			return false;
		if ((size_t)(end - p) <= n)
			return false;
		for (unsigned k = 1; k <= n; k++) {
			if ((p[k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (p[k] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
			return false;
		p += n + 1;
	}
	/* Text, but binary data written in hex when every line that is not
	 * blank is a hex line. */
	for (ls = buf; ls < buf + len; ls = le + 1) {
		const char *q;

		le = memchr(ls, '\n', (size_t)(buf + len - ls));
		if (!le)
			le = buf + len;
		for (q = ls; q < le && (*q == ' ' || *q == '\t' || *q == '\r'); q++)
			;
		if (q < le && !hex_line(q, le))
			return true;
	}
	return false;
}

/* Is the tree name a blob or link of WHENCE (what a Source: must not be)? */
static bool listed(const struct fw_tree *t, const char *name)
{
	const struct fw_name *x = fw_tree_find(t, name);

	return x && (x->blob >= 0 || x->link >= 0);
}

/* The source file name (below firmware/) a verdict rests on, noted when the
 * verdict is the tree's own (note): its presence is then pinned. */
static int note_source(struct fw_tree *t, bool note, const char *name)
{
	char *path;
	int r;

	if (!note)
		return 0;
	path = fw_asprintf("%s/%s", FW_TREE_FIRMWARE, name);
	r = path ? note_read(t, path, NULL) : -ENOMEM;
	free(path);
	return r;
}

/* Does directory dfd (tree name prefix) hold a regular file WHENCE does not
 * list as a blob or link, at most depth levels down? Nothing is followed. */
static int dir_has_source(struct fw_tree *t, bool note, int dfd, const char *prefix, int depth)
{
	DIR *dir;
	struct dirent *de;
	int found = 0;

	if (depth <= 0)
		return 0;
	dir = fdopendir(dfd);
	if (!dir) {
		close(dfd);
		return 0;
	}
	while (!found && (de = readdir(dir))) {
		struct stat st;
		char *name;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		name = fw_asprintf("%s/%s", prefix, de->d_name);
		if (!name) {
			found = -ENOMEM;
			break;
		}
		if (S_ISREG(st.st_mode)) {
			found = !listed(t, name);
			if (found && note_source(t, note, name) < 0)
				found = -ENOMEM;
		} else if (S_ISDIR(st.st_mode)) {
			int sub = openat(dirfd(dir), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub >= 0)
				found = dir_has_source(t, note, sub, name, depth - 1);
		}
		free(name);
	}
	closedir(dir);
	return found;
}

/* Does Source: name hold source in cfd: a regular file WHENCE does not list
 * as a blob (a path that holds just the blob itself is no source), or a
 * directory holding one? 1, 0 or -ENOMEM. */
static int source_present(struct fw_tree *t, bool note, int cfd, const char *name)
{
	const char *leaf;
	struct stat st;
	int pfd, r = 0;

	if (cfd < 0 || fw_name_problem(name))
		return 0;
	pfd = fw_open_parent(cfd, name, 0, &leaf);
	if (pfd < 0)
		return 0;
	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISREG(st.st_mode)) {
			r = !listed(t, name);
			if (r && note_source(t, note, name) < 0)
				r = -ENOMEM;
		} else if (S_ISDIR(st.st_mode)) {
			int dfd = openat(pfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (dfd >= 0)
				r = dir_has_source(t, note, dfd, name, 16);
		}
	}
	if (pfd != cfd)
		close(pfd);
	return r;
}

/* Is the blob, as cfd holds it, text (fw_blob_is_text)? 1, 0, or -ENOMEM.
 * When the verdict is the tree's own (note), the digest of the bytes judged
 * is noted: a signed install then holds the verdict only if the signer's
 * blob is those bytes. */
static int blob_text(struct fw_tree *t, bool note, int cfd, const char *name)
{
	const char *leaf;
	struct stat st;
	char *buf, *path;
	uint8_t sum[FW_SHA256_LEN];
	int text = 0, pfd, fd;
	ssize_t n;
	size_t got = 0;

	if (cfd < 0 || fw_name_problem(name))
		return 0;
	pfd = fw_open_parent(cfd, name, 0, &leaf);
	if (pfd < 0)
		return 0;
	fd = openat(pfd, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (pfd != cfd)
		close(pfd);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > FW_SELF_SOURCE_MAX) {
		close(fd);
		return 0;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (buf) {
		/* One byte more than the size: a file that grew is not judged
		 * on a part of it. */
		while (got <= (size_t)st.st_size &&
		       (n = read(fd, buf + got, (size_t)st.st_size + 1 - got)) > 0)
			got += (size_t)n;
		if (got == (size_t)st.st_size) {
			text = fw_blob_is_text(buf, got);
			if (note) {
				path = fw_asprintf("%s/%s", FW_TREE_FIRMWARE, name);
				if (!path || fw_sha256_buf(buf, got, sum) < 0 ||
				    note_read(t, path, sum) < 0)
					text = -ENOMEM;
				free(path);
			}
		}
		free(buf);
	} else {
		text = -ENOMEM;
	}
	close(fd);
	return text;
}

/* Each blob's category: its licence as shipped. Free means DFSG-free *and*
 * built from source in the tree: a Source: counts only where the files it
 * names are there (not a blob, not a directory of blobs alone), and a text
 * blob is its own source. Without source a free licence gives non-free
 * (binary only), a copyleft one undistributable: the GPL lets no one ship
 * the binary without its source (Debian's reading of GPL firmware without
 * source). A dual licence takes its most favourable branch. */
static int verdicts(struct fw_tree *t, int cfd)
{
	const struct fw_whence *w = &t->whence;
	signed char *src = calloc(w->nentries ? w->nentries : 1, 1);
	/* What the verdicts read of the tree itself is noted (note_read);
	 * import's content directory is not the tree. */
	bool note = cfd >= 0 && cfd == t->fwfd;

	if (!src)
		return -ENOMEM;
	for (size_t i = 0; i < w->nentries; i++) {
		int r;

		if (w->entries[i].kind != FW_E_SOURCE)
			continue;
		r = source_present(t, note, cfd, w->entries[i].name);
		if (r < 0) {
			free(src);
			return r;
		}
		src[i] = (signed char)r;
	}
	for (size_t i = 0; i < t->nblobs; i++) {
		struct fw_blob *b = &t->blobs[i];
		const struct fw_whence_block *blk = &w->blocks[b->e->block];
		enum fw_category with, without;
		const char *syn;
		char *br_with = NULL, *br_without = NULL;
		int r;

		b->cat = b->licence_cat;
		if (!b->lic || b->lev->syntax)
			continue;
		for (unsigned k = blk->first; b->e->group && k < blk->first + blk->count; k++)
			if (w->entries[k].kind == FW_E_SOURCE && w->entries[k].group == b->e->group &&
			    src[k])
				b->has_source = true;
		r = fw_spdx_eval_shipped(&t->policy, b->lic->spdx, true, &with, &syn, &br_with);
		if (r == 0)
			r = fw_spdx_eval_shipped(&t->policy, b->lic->spdx, false, &without, &syn,
						 &br_without);
		if (r == -ENOMEM) {
			free(br_with);
			free(br_without);
			free(src);
			return r;
		}
		b->free_with_source = with == FW_CAT_FREE;
		/* Declared its own preferred form (Sierra Wireless's CIS
		 * files): as good as its source. */
		if (!b->has_source && with != without)
			b->preferred = preferred_form(t, b->e->name);
		if (b->preferred) {
			b->self_source = true;
		} else if (!b->has_source && with != without && !b->duplicate) {
			/* The blob is read only where its text makes a difference. */
			r = blob_text(t, note, cfd, b->e->name);
			if (r < 0) {
				free(br_with);
				free(br_without);
				free(src);
				return r;
			}
			b->self_source = r;
		}
		if (b->has_source || b->self_source) {
			b->cat = with;
			b->branch = br_with;
			free(br_without);
		} else {
			b->cat = without;
			b->branch = br_without;
			free(br_with);
		}
	}
	free(src);
	return 0;
}

/* The licence rules, in one place: what makes a blob's licence a problem. */
static void licence_problems(struct fw_tree *t)
{
	for (size_t i = 0; i < t->nblobs; i++) {
		struct fw_blob *b = &t->blobs[i];
		unsigned m = 0;

		if (b->duplicate)
			continue;
		if (!b->lic) {
			m |= FW_LP_NO_LICENCE;
		} else {
			struct text_ctx c = { .t = t };
			enum fw_category cat;
			const char *syn;

			if (b->lev->syntax)
				m |= FW_LP_SYNTAX;
			else if (b->lev->unknown)
				m |= FW_LP_NOT_IN_POLICY;
			fw_spdx_eval(NULL, b->lic->spdx, &cat, find_missing_text, &c, &syn);
			if (c.missing) {
				m |= FW_LP_NO_TEXT;
				b->missing_text = c.missing;
			}
			/* An undistributable File: documents a refused blob:
			 * only the blob's presence in the tree is a problem. */
			if (b->cat == FW_CAT_UNDISTRIBUTABLE && b->presence != FW_ABSENT &&
			    b->presence != FW_UNREACHABLE)
				m |= FW_LP_UNDIST_PRESENT;
			if (b->licence_cat == FW_CAT_FREE && b->cat != FW_CAT_FREE)
				m |= FW_LP_FREE_NO_SOURCE;
			/* Undistributable only because a copyleft licence's
			 * source is not in the tree. */
			if (!b->has_source && !b->self_source && b->copyleft_id &&
			    b->cat == FW_CAT_UNDISTRIBUTABLE && b->licence_cat != FW_CAT_UNDISTRIBUTABLE)
				m |= FW_LP_COPYLEFT_NO_SOURCE;
		}
		if (b->e->licence && t->levals[b->e->licence - 1].absent_file)
			m |= FW_LP_WORDING_FILE;
		b->lproblems = m;
		/* Findings: all but the facts; and a refused blob, absent,
		 * documents its refusal: what its wording names ships to no one. */
		b->findings = m & ~(unsigned)FW_LP_FACTS;
		if (b->cat == FW_CAT_UNDISTRIBUTABLE &&
		    (b->presence == FW_ABSENT || b->presence == FW_UNREACHABLE))
			b->findings &= ~(unsigned)FW_LP_WORDING_FILE;
	}
}

static void resolve_links(struct fw_tree *t)
{
	for (size_t i = 0; i < t->nlinks; i++) {
		struct fw_link *l = &t->links[i];
		const struct fw_name *x;
		bool outside;

		if (l->duplicate)
			continue;
		if (fw_name_problem(l->e->name)) {
			l->state = FW_LINK_BAD_NAME;
			continue;
		}
		l->resolved = fw_link_resolve(l->e->name, l->e->target, &outside);
		if (!l->resolved) {
			/* NULL without outside is ENOMEM: the check reports it as outside
			 * rather than pass it. */
			l->state = FW_LINK_OUTSIDE;
			continue;
		}
		if (fw_name_problem(l->resolved)) {
			l->state = FW_LINK_OUTSIDE;
			continue;
		}
		x = fw_tree_find(t, l->resolved);
		if (x && x->blob >= 0) {
			l->blob = x->blob;
			l->state = FW_LINK_OK;
		} else if (x && x->link >= 0) {
			l->via = x->link;
			l->state = FW_LINK_TO_LINK;
		} else if (fw_tree_is_dir(t, l->resolved)) {
			l->to_dir = true;
			l->state = FW_LINK_OK;
		} else {
			l->state = FW_LINK_MISSING;
		}
	}
	/* Chains: follow each link to the end, at most FW_LINK_MAX_CHAIN
	 * links and never twice through one (a loop). The chain serves what
	 * its last link serves. Walked on the states of the first pass, so the
	 * order of the links does not matter. */
	for (size_t i = 0; i < t->nlinks; i++) {
		struct fw_link *l = &t->links[i];

		if (l->state == FW_LINK_OK && !l->duplicate) {
			l->depth = 1;
			l->end = l->resolved;
		}
	}
	for (size_t i = 0; i < t->nlinks; i++) {
		struct fw_link *l = &t->links[i];
		const struct fw_link *cur = l;
		unsigned depth = 1;
		bool loop = false;

		if (l->state != FW_LINK_TO_LINK || l->depth)
			continue;
		while (!loop && cur->via >= 0 && !cur->depth && depth <= t->nlinks) {
			cur = &t->links[cur->via];
			depth++;
			loop = cur == l;
		}
		if (loop) {
			l->state = FW_LINK_LOOP;
		} else if (!cur->depth) {
			/* Into a loop it is not part of, or to a broken link. */
			l->state = FW_LINK_TO_BROKEN; /* the chain ends at a broken link */
		} else if (depth - 1 + cur->depth > FW_LINK_MAX_CHAIN) {
			l->state = FW_LINK_TOO_DEEP;
			l->depth = 0;
			l->blob = -1;
		} else {
			/* cur is the first link of the chain whose end is known
			 * (a direct link): this one serves what it serves. */
			l->state = FW_LINK_OK;
			l->blob = cur->blob;
			l->to_dir = cur->to_dir;
			l->end = cur->end;
			l->depth = depth - 1 + cur->depth;
		}
	}
}

int fw_tree_load(struct fw_tree *t, const char *root, struct fw_diag *d)
{
	return fw_tree_load_content(t, root, -1, d);
}

int fw_tree_load_content(struct fw_tree *t, const char *root, int contentfd, struct fw_diag *d)
{
	char *buf = NULL;
	size_t len;
	int r;

	memset(t, 0, sizeof(*t));
	t->rootfd = t->fwfd = -1;
	t->root = strdup(root);
	if (!t->root)
		return -ENOMEM;
	t->rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->rootfd < 0)
		return -errno;
	r = read_model_file(t, FW_TREE_WHENCE, &buf, &len);
	if (r < 0)
		return r;
	r = fw_whence_parse(&t->whence, FW_TREE_WHENCE, buf, len, d);
	free(buf);
	buf = NULL;
	if (r < 0)
		return r;

	r = load_text(t, FW_TREE_SUMS, &t->have_sums, &buf, &len, d);
	if (r == 0)
		r = fw_sums_parse(&t->sums, FW_TREE_SUMS, buf ? buf : "", len, t->have_sums ? d : NULL);
	free(buf);
	buf = NULL;
	if (r < 0)
		return r;
	r = load_text(t, FW_TREE_TEXT_SUMS, &t->have_text_sums, &buf, &len, d);
	if (r == 0)
		r = fw_sums_parse_texts(&t->text_sums, FW_TREE_TEXT_SUMS, buf ? buf : "", len,
					t->have_text_sums ? d : NULL);
	free(buf);
	buf = NULL;
	if (r < 0)
		return r;
	r = load_text(t, FW_TREE_POLICY, &t->have_policy, &buf, &len, d);
	if (r == 0)
		r = fw_policy_parse(&t->policy, FW_TREE_POLICY, buf ? buf : "", len,
				    t->have_policy ? d : NULL);
	free(buf);
	buf = NULL;
	if (r < 0)
		return r;
	r = load_text(t, FW_TREE_SPLIT, &t->have_split, &buf, &len, d);
	if (r == 0)
		r = fw_split_parse(&t->split, FW_TREE_SPLIT, buf ? buf : "", len,
				   t->have_split ? d : NULL);
	free(buf);
	buf = NULL;
	if (r < 0)
		return r;
	r = load_text(t, FW_TREE_RECIPES, &t->have_recipes, &buf, &len, d);
	if (r == 0)
		r = fw_recipes_parse(&t->recipes, FW_TREE_RECIPES, buf ? buf : "", len,
				     t->have_recipes ? d : NULL);
	free(buf);
	buf = NULL;
	if (r < 0)
		return r;
	r = load_text(t, FW_TREE_VERDICTS, &t->have_verdicts, &buf, &len, d);
	if (r == 0)
		r = fw_verdicts_parse(&t->verdicts, FW_TREE_VERDICTS, buf ? buf : "", len,
				      t->have_verdicts ? d : NULL);
	free(buf);
	if (r < 0)
		return r;

	r = load_preferred(t, d);
	if (r == 0)
		r = build_index(t);
	if (r == 0)
		r = resolve_licences(t);
	if (r == 0) {
		resolve_links(t);
		for (size_t i = 0; i < t->nblobs; i++)
			t->blobs[i].sum = fw_sums_find(&t->sums, t->blobs[i].e->name);
		t->fwfd = openat(t->rootfd, FW_TREE_FIRMWARE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				 O_CLOEXEC);
		t->fw_err = t->fwfd < 0 ? -errno : 0;
		look_at_blobs(t);
		r = verdicts(t, contentfd >= 0 ? contentfd : t->fwfd);
	}
	if (r == 0) {
		/* Empty: its checksum line says zero bytes, or, without one,
		 * the file is. The manifest decides where it speaks: a blob
		 * truncated since is a size mismatch to report (install
		 * refuses it by name), not an empty blob quietly left out. */
		for (size_t i = 0; i < t->nblobs; i++) {
			struct fw_blob *b = &t->blobs[i];

			b->empty = b->sum ? b->sum->size == 0 :
					    b->presence == FW_PRESENT && b->fsize == 0;
		}
		r = assign_packages(t);
	}
	if (r == 0)
		r = load_texts(t);
	if (r == 0)
		r = wording_files(t);
	if (r == 0)
		licence_problems(t);
	finish_reads(t);
	return r;
}

void fw_tree_free(struct fw_tree *t)
{
	free(t->prefbuf);
	free(t->pref_globs);
	free(t->pref_reasons);
	for (size_t i = 0; t->levals && i < t->whence.nlicences; i++)
		free(t->levals[i].unknown), free(t->levals[i].absent_file);
	free(t->levals);
	for (size_t i = 0; i < t->nlinks; i++)
		free(t->links[i].resolved);
	for (size_t i = 0; t->blobs && i < t->nblobs; i++)
		free(t->blobs[i].more), free(t->blobs[i].branch);
	for (size_t i = 0; t->texts && i < t->policy.n; i++)
		free(t->texts[i].path);
	for (size_t i = 0; i < t->nreads; i++)
		free(t->reads[i].path);
	free(t->reads);
	free(t->texts);
	if (t->fwfd >= 0)
		close(t->fwfd);
	for (size_t i = 0; i < t->ndirs; i++)
		free(t->dirs[i]);
	free(t->dirs);
	free(t->blobs);
	free(t->links);
	free(t->index);
	fw_whence_free(&t->whence);
	fw_sums_free(&t->sums);
	fw_sums_free(&t->text_sums);
	fw_policy_free(&t->policy);
	fw_split_free(&t->split);
	fw_recipes_free(&t->recipes);
	fw_verdicts_free(&t->verdicts);
	if (t->rootfd >= 0)
		close(t->rootfd);
	free(t->root);
	memset(t, 0, sizeof(*t));
	t->rootfd = t->fwfd = -1;
}

const struct fw_text *fw_tree_text(const struct fw_tree *t, const char *id)
{
	const struct fw_policy_entry *p = fw_policy_find(&t->policy, id);

	return p && t->texts ? &t->texts[p - t->policy.v] : NULL;
}

int fw_tree_read_text(const struct fw_tree *t, const struct fw_text *x, char **bufp, size_t *lenp)
{
	uint8_t sum[FW_SHA256_LEN];
	char *buf = NULL;
	size_t len = 0;
	int fd, r;

	*bufp = NULL;
	*lenp = 0;
	if (x->err)
		return x->err;
	/* The model's size bounds the read: a text grown since is stale. */
	if (x->size > FW_TEXT_MAX)
		return -EFBIG;
	fd = fw_open_beneath(t->rootfd, x->path, O_RDONLY | O_NONBLOCK, 0);
	if (fd < 0)
		return fd;
	buf = malloc((size_t)x->size + 2);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n = read(fd, buf + len, (size_t)x->size + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > x->size)
			break;
	}
	buf[len] = '\0';
	r = fw_sha256_buf(buf, len, sum);
	if (r < 0)
		goto fail;
	if (len != x->size || memcmp(sum, x->sha256, FW_SHA256_LEN) != 0) {
		r = -ESTALE;
		goto fail;
	}
	if (memchr(buf, '\0', len)) {
		r = -EINVAL;
		goto fail;
	}
	close(fd);
	*bufp = buf;
	*lenp = len;
	return 0;
fail:
	close(fd);
	free(buf);
	return r;
}

const char *fw_text_problem(const struct fw_text *x)
{
	static _Thread_local char buf[512];

	if (!x->err)
		return NULL;
	if (x->err == -EBADMSG) {
		char want[FW_SHA256_HEX + 1], got[FW_SHA256_HEX + 1];

		fw_sha256_hex(x->sum->sha256, want);
		fw_sha256_hex(x->sha256, got);
		if (x->sum->size != x->size)
			snprintf(buf, sizeof(buf), "licence text %s: size mismatch: %s:%u: "
				 "%llu bytes, file %llu bytes", fw_esc(x->path), FW_TREE_TEXT_SUMS,
				 x->sum->line, (unsigned long long)x->sum->size,
				 (unsigned long long)x->size);
		else
			snprintf(buf, sizeof(buf), "licence text %s: SHA-256 mismatch: %s:%u: %s, "
				 "file %s", fw_esc(x->path), FW_TREE_TEXT_SUMS, x->sum->line, want, got);
		return buf;
	}
	snprintf(buf, sizeof(buf), "licence text %s %s", fw_esc(x->path),
		 x->err == -ENOENT ? "missing" :
		 x->err == -ELOOP ? "is a symlink (licence texts are regular files)" :
		 x->err == -EINVAL ? "is not a regular file" :
		 x->err == -EMLINK ? "has other hard links (texts are the tree's own files; copy it)" :
		 x->err == -ENODATA ? "has no checksum in " FW_TREE_TEXT_SUMS " (run fwdist manifest)" :
				     strerror(-x->err));
	return buf;
}

char *fw_lic_eval_text(const struct fw_lic_eval *ev, const char *spdx)
{
	if (ev->syntax)
		return fw_asprintf("bad SPDX expression '%s': %s", fw_esc(spdx), ev->syntax);
	if (ev->unknown)
		return fw_asprintf("licence %s not in %s", fw_esc(ev->unknown), FW_TREE_POLICY);
	return NULL;
}

char *fw_licence_problem_text(const struct fw_tree *t, const struct fw_blob *b, unsigned bit)
{
	const char *spdx = b->lic ? fw_esc(b->lic->spdx) : "";

	switch (bit) {
	case FW_LP_NO_LICENCE:
		return strdup("no licence (no SPDX-License-Identifier: line applies to it)");
	case FW_LP_SYNTAX:
	case FW_LP_NOT_IN_POLICY:
		return fw_lic_eval_text(b->lev, b->lic->spdx);
	case FW_LP_NO_TEXT:
		return strdup(fw_text_problem(fw_tree_text(t, b->missing_text)));
	case FW_LP_UNDIST_PRESENT:
		if (b->lproblems & FW_LP_COPYLEFT_NO_SOURCE)
			return fw_asprintf("copyleft licence %s but no source in the tree: "
					   "undistributable: the blob must not be in the tree",
					   fw_esc(b->copyleft_id));
		return fw_asprintf("licence %s is undistributable: the blob must not be in the tree",
				   spdx);
	case FW_LP_FREE_NO_SOURCE:
		return fw_asprintf("free licence (%s) but no source in the tree: non-free", spdx);
	case FW_LP_COPYLEFT_NO_SOURCE:
		return fw_asprintf("copyleft licence %s but no source in the tree: undistributable",
				   fw_esc(b->copyleft_id ? b->copyleft_id : spdx));
	case FW_LP_WORDING_FILE:
		return fw_asprintf("its Licence: wording only names %s, which is not in the tree",
				   fw_esc(t->levals[b->e->licence - 1].absent_file));
	}
	return strdup("unknown licence problem");
}

char *fw_blob_verdict_text(const struct fw_tree *t, const struct fw_blob *b)
{
	const char *spdx = b->lic ? fw_esc(b->lic->spdx) : NULL;
	const char *src = b->has_source ? "source in the tree" :
			  b->preferred ? "its own preferred form (manifests/preferred-form)" :
			  b->self_source ? "its own source (a text file)" : NULL;
	char *under = NULL, *s;
	const struct fw_policy_entry *p;

	if (!b->lic)
		return strdup("undistributable: no licence");
	if (b->lev->syntax || b->lev->unknown) {
		char *why = fw_lic_eval_text(b->lev, b->lic->spdx);

		s = why ? fw_asprintf("unknown: %s", why) : NULL;
		free(why);
		return s;
	}
	/* A dual licence: the branch it ships under, said first. */
	if (b->branch) {
		under = fw_asprintf("%s, under %s", spdx, fw_esc(b->branch));
		if (!under)
			return NULL;
		spdx = under;
	}
	switch (b->cat) {
	case FW_CAT_FREE:
		s = fw_asprintf("free: %s, %s", spdx, src ? src : "free licence");
		break;
	case FW_CAT_NONFREE:
		s = b->free_with_source ?
			    fw_asprintf("non-free: %s, a free licence without its source in the tree: "
					"binary only", spdx) :
			    fw_asprintf("non-free: %s, redistributable, binary only", spdx);
		break;
	case FW_CAT_UNDISTRIBUTABLE:
		if (b->free_with_source) {
			s = fw_asprintf("undistributable: %s, copyleft without its source in the tree: "
					"no right to ship the binary alone", spdx);
			break;
		}
		p = fw_policy_find(&t->policy, b->lic->spdx);
		s = p ? fw_asprintf("undistributable: %s (%s)", spdx, p->reason) :
			fw_asprintf("undistributable: %s", spdx);
		break;
	default:
		s = fw_asprintf("%s: %s", fw_category_name(b->cat), spdx);
		break;
	}
	free(under);
	return s;
}

static int cmp_key_name(const void *key, const void *elem)
{
	return strcmp(key, ((const struct fw_name *)elem)->name);
}

const struct fw_name *fw_tree_find(const struct fw_tree *t, const char *name)
{
	if (!t->nindex)
		return NULL;
	return bsearch(name, t->index, t->nindex, sizeof(*t->index), cmp_key_name);
}

bool fw_tree_is_dir(const struct fw_tree *t, const char *name)
{
	if (!t->ndirs)
		return false;
	return bsearch(&name, t->dirs, t->ndirs, sizeof(*t->dirs), fw_strcmp_ptr) != NULL;
}

const char *fw_blob_package(const struct fw_tree *t, const struct fw_blob *b)
{
	return b->pkg >= 0 ? t->split.pkgs[b->pkg].name : NULL;
}

bool fw_blob_selected(const struct fw_tree *t, const struct fw_blob *b,
		      const struct fw_selection *sel)
{
	if (b->duplicate)
		return false;
	if (sel && sel->pkg && (b->pkg < 0 || !sel->pkg[b->pkg]))
		return false;
	return !sel || !sel->blob || sel->blob[b - t->blobs];
}

bool fw_blob_installable(const struct fw_tree *t, const struct fw_blob *b,
			 const struct fw_selection *sel)
{
	if (b->duplicate || fw_name_problem(b->e->name))
		return false;
	/* Undistributable and uncategorised blobs are never installed. */
	if (b->cat != FW_CAT_FREE && b->cat != FW_CAT_NONFREE)
		return false;
	if (b->pkg < 0)
		return false;
	if (sel && sel->pkg && !sel->pkg[b->pkg])
		return false;
	return !sel || !sel->blob || sel->blob[b - t->blobs];
}

static long dir_link_blob(const struct fw_tree *t, const struct fw_link *l,
			  const struct fw_selection *sel)
{
	size_t n = strlen(l->end);

	for (size_t j = 0; j < t->nblobs; j++)
		if (strncmp(t->blobs[j].e->name, l->end, n) == 0 &&
		    t->blobs[j].e->name[n] == '/' && fw_blob_installable(t, &t->blobs[j], sel))
			return (long)j;
	return -1;
}

bool fw_link_installable(const struct fw_tree *t, const struct fw_link *l,
			 const struct fw_selection *sel)
{
	if (l->duplicate || l->state != FW_LINK_OK)
		return false;
	if (sel && sel->link && !sel->link[l - t->links])
		return false;
	/* A link to a link needs the rest of its chain in place. */
	if (l->via >= 0 && !fw_link_installable(t, &t->links[l->via], sel))
		return false;
	if (l->blob >= 0)
		return fw_blob_installable(t, &t->blobs[l->blob], sel);
	return dir_link_blob(t, l, sel) >= 0;
}

int fw_link_package(const struct fw_tree *t, const struct fw_link *l, const struct fw_selection *sel)
{
	long b;

	if (l->state != FW_LINK_OK)
		return -1;
	b = l->blob >= 0 ? l->blob : dir_link_blob(t, l, sel);
	return b >= 0 ? t->blobs[b].pkg : -1;
}

struct count_ctx {
	const struct fw_policy *p;
	unsigned *counts;
};

static int count_id(void *ctx, const char *id, size_t len)
{
	struct count_ctx *c = ctx;
	const struct fw_policy_entry *e;
	char buf[256];

	if (len >= sizeof(buf))
		return 0;
	memcpy(buf, id, len);
	buf[len] = '\0';
	e = fw_policy_find(c->p, buf);
	if (e)
		c->counts[e - c->p->v]++;
	return 0;
}

int fw_tree_licence_counts(const struct fw_tree *t, const struct fw_selection *sel,
			   unsigned *counts)
{
	struct count_ctx c = { .p = &t->policy, .counts = counts };

	for (size_t i = 0; i < t->nblobs; i++) {
		const struct fw_blob *b = &t->blobs[i];
		enum fw_category cat;
		const char *syn;

		if (!b->lic || !fw_blob_selected(t, b, sel))
			continue;
		if (fw_spdx_eval(NULL, b->lic->spdx, &cat, count_id, &c, &syn) == -ENOMEM)
			return -ENOMEM;
	}
	return 0;
}

struct closure_ctx {
	char **v;
	size_t n, cap;
};

static int closure_add(void *ctx, const char *id, size_t len)
{
	struct closure_ctx *c = ctx;
	char *s;

	for (size_t i = 0; i < c->n; i++)
		if (strlen(c->v[i]) == len && memcmp(c->v[i], id, len) == 0)
			return 0;
	s = fw_strndup(id, len);
	if (!s || fw_grow(&c->v, &c->cap, c->n, sizeof(*c->v)) < 0) {
		free(s);
		return -ENOMEM;
	}
	c->v[c->n++] = s;
	return 0;
}

int fw_tree_licence_closure(const struct fw_tree *t, const struct fw_selection *sel, int pkg,
			    char ***ids, size_t *n)
{
	struct closure_ctx c = { 0 };

	for (size_t i = 0; i < t->nblobs; i++) {
		const struct fw_blob *b = &t->blobs[i];
		enum fw_category cat;
		const char *syn;

		if (!fw_blob_installable(t, b, sel) || (pkg >= 0 && b->pkg != pkg) || !b->lic)
			continue;
		if (fw_spdx_eval(NULL, b->lic->spdx, &cat, closure_add, &c, &syn) == -ENOMEM) {
			fw_free_strv(c.v, c.n);
			return -ENOMEM;
		}
	}
	if (c.n > 1)
		qsort(c.v, c.n, sizeof(*c.v), fw_strcmp_ptr);
	*ids = c.v;
	*n = c.n;
	return 0;
}

bool *fw_tree_packages_used(const struct fw_tree *t)
{
	bool *used = calloc(t->split.npkgs + 1, sizeof(*used));

	for (size_t i = 0; used && i < t->nblobs; i++) {
		const struct fw_blob *b = &t->blobs[i];

		if (b->duplicate)
			continue;
		if (b->pkg >= 0 && (size_t)b->pkg < t->split.npkgs)
			used[b->pkg] = true;
		for (size_t k = 0; k < b->nmore; k++)
			if (b->more[k].pkg >= 0 && (size_t)b->more[k].pkg < t->split.npkgs)
				used[b->more[k].pkg] = true;
	}
	return used;
}
