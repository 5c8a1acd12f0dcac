/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist import --debian-copyright: an unpacked Debian root's AppStream metainfo and DEP-5 copyright files. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "import-int.h"
#include "util.h"

static int cmp_owner(const void *a, const void *b)
{
	return strcmp(((const struct owner *)a)->name, ((const struct owner *)b)->name);
}

/* The text of an XML element, its five predefined entities decoded. */
static char *xml_text(const char *s, size_t n)
{
	static const struct { const char *ent; char c; } ents[] = {
		{ "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' }, { "&quot;", '"' }, { "&apos;", '\'' },
	};
	char *out = malloc(n + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t k = 0;

		if (s[i] == '&')
			for (; k < FW_ARRAY_SIZE(ents); k++)
				if (n - i >= strlen(ents[k].ent) && !memcmp(s + i, ents[k].ent, strlen(ents[k].ent)))
					break;
		if (s[i] == '&' && k < FW_ARRAY_SIZE(ents)) {
			*o++ = ents[k].c;
			i += strlen(ents[k].ent);
		} else {
			*o++ = s[i++];
		}
	}
	*o = '\0';
	return out;
}

int imp_owners_load(struct owners *ow, int rootfd)
{
	static const char open_tag[] = "<firmware type=\"runtime\">", close_tag[] = "</firmware>";
	int mfd = fw_open_beneath(rootfd, "usr/share/metainfo", O_RDONLY | O_DIRECTORY, 0);
	char **names;
	size_t nn;
	int r;

	if (mfd < 0)
		return mfd == -ENOENT ? 0 : mfd;
	r = fw_read_dir_sorted(mfd, &names, &nn);
	for (size_t i = 0; r == 0 && i < nn; i++) {
		size_t len, sl = strlen(".metainfo.xml"), nl = strlen(names[i]);
		char *buf = NULL, *pkg;
		const char *p, *e;

		if (nl <= sl || strcmp(names[i] + nl - sl, ".metainfo.xml") != 0 ||
		    fw_read_text(mfd, names[i], &buf, &len) < 0)
			continue;
		pkg = fw_strndup(names[i], nl - sl);
		r = pkg ? imp_strv_take(&ow->pkgs, pkg) : -ENOMEM;
		for (p = buf; r == 0 && (p = strstr(p, open_tag)); p = e) {
			p += strlen(open_tag);
			e = strstr(p, close_tag);
			if (!e)
				break;
			if (fw_grow(&ow->v, &ow->cap, ow->n, sizeof(*ow->v)) < 0 ||
			    !(ow->v[ow->n].name = xml_text(p, (size_t)(e - p)))) {
				r = -ENOMEM;
				break;
			}
			ow->v[ow->n++].pkg = ow->pkgs.v[ow->pkgs.n - 1];
		}
		free(buf);
	}
	fw_free_strv(names, nn);
	close(mfd);
	if (r == 0 && ow->n > 1)
		qsort(ow->v, ow->n, sizeof(*ow->v), cmp_owner);
	return r;
}

void imp_owners_free(struct owners *ow)
{
	for (size_t i = 0; i < ow->n; i++)
		free(ow->v[i].name);
	free(ow->v);
	fw_strv_free(&ow->pkgs);
}

/* An entry for name (entries for one name are adjacent), or NULL. */
static const struct owner *find_owner(const struct owners *ow, const char *name)
{
	struct owner key = { .name = (char *)name };

	return ow->n ? bsearch(&key, ow->v, ow->n, sizeof(key), cmp_owner) : NULL;
}

static const char *owner_of(const struct owners *ow, const char *name)
{
	const struct owner *o = find_owner(ow, name);

	return o ? o->pkg : NULL;
}

/* Does pkg's metainfo list name (of the packages that list it, any)? */
static bool owned_by(const struct owners *ow, const char *name, const char *pkg)
{
	const struct owner *o = find_owner(ow, name);

	while (o && o > ow->v && strcmp(o[-1].name, name) == 0)
		o--;
	for (; o && o < ow->v + ow->n && strcmp(o->name, name) == 0; o++)
		if (strcmp(o->pkg, pkg) == 0)
			return true;
	return false;
}

static int cmp_job_index(const void *a, const void *b, void *arg)
{
	const struct job *jobs = arg;

	return strcmp(jobs[*(const size_t *)a].name, jobs[*(const size_t *)b].name);
}

static bool same_pkg(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) == 0 : a == b;
}

static int cmp_job_pkg(const void *a, const void *b, void *arg)
{
	const char *const *pkg = arg;
	const char *x = pkg[*(const size_t *)a], *y = pkg[*(const size_t *)b];

	if (!x || !y)
		return (x != NULL) - (y != NULL);
	return strcmp(x, y);
}

/* The package lines of a Debian root: each file goes to the package whose
 * metainfo lists it (files none lists, to firmware-free or firmware-nonfree
 * by category); a directory whose every blob goes to one package is one
 * line (a glob of everything below it), else a line per file. Empty
 * blobs have their own lines. */
int imp_debian_split(struct imp *im, const struct job *jobs, size_t njobs, char **bufp,
			size_t *np, size_t *capp)
{
	struct owners ow = { 0 };
	const char **pkg = calloc(njobs + 1, sizeof(*pkg));
	bool *main_ok = NULL;
	size_t *order = NULL, *seg = NULL, *packed = NULL, npacked = 0;
	int r = imp_owners_load(&ow, im->rootfd >= 0 ? im->rootfd : im->srcfd);

	if (!pkg)
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < njobs; i++) {
		const struct job *j = &jobs[i];

		if (!j->is_blob || j->err || (j->cat != FW_CAT_FREE && j->cat != FW_CAT_NONFREE))
			continue;
		pkg[i] = owner_of(&ow, j->name);
		if (!pkg[i])
			pkg[i] = j->cat == FW_CAT_FREE ? "firmware-free" : "firmware-nonfree";
	}
	/* A package with a non-free blob cannot be in main: the jobs sorted
	 * by package, each package's run looked at once. */
	main_ok = calloc(njobs + 1, sizeof(*main_ok));
	order = malloc((njobs + 1) * sizeof(*order));
	seg = calloc(njobs + 1, sizeof(*seg));
	packed = malloc((njobs + 1) * sizeof(*packed));
	if (r == 0 && (!main_ok || !order || !seg || !packed))
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < njobs; i++)
		order[i] = i;
	if (r == 0 && njobs > 1)
		qsort_r(order, njobs, sizeof(*order), cmp_job_pkg, pkg);
	for (size_t a = 0, b; r == 0 && a < njobs; a = b) {
		bool all_free = true;

		for (b = a; b < njobs && same_pkg(pkg[order[a]], pkg[order[b]]); b++)
			all_free &= jobs[order[b]].cat == FW_CAT_FREE;
		for (size_t k = a; k < b; k++)
			main_ok[order[k]] = pkg[order[k]] && all_free;
	}
	/* In name order, so that the files of a directory are together. */
	for (size_t i = 0; r == 0 && i < njobs; i++)
		order[i] = i;
	if (r == 0 && njobs > 1)
		qsort_r(order, njobs, sizeof(*order), cmp_job_index, (void *)jobs);
	/* The packaged ones alone, in that order, each with the number of
	 * package changes before it: a directory (a run of names) holds one
	 * package's blobs alone when the count is the same at both its ends. */
	for (size_t oi = 0; r == 0 && oi < njobs; oi++)
		if (pkg[order[oi]]) {
			seg[npacked] = npacked && !same_pkg(pkg[packed[npacked - 1]], pkg[order[oi]]) ?
				       seg[npacked - 1] + 1 : npacked ? seg[npacked - 1] : 0;
			packed[npacked++] = order[oi];
		}
	for (size_t oi = 0; r == 0 && oi < njobs; oi++) {
		size_t i = order[oi];
		const char *name = jobs[i].name, *cut = NULL;
		size_t need;

		if (!pkg[i] || jobs[i].size == 0)
			continue;
		/* The widest directory above it that only this package's
		 * blobs (or nothing packaged) fill. */
		for (const char *sl = strchr(name, '/'); sl && !cut; sl = strchr(sl + 1, '/')) {
			size_t dl = (size_t)(sl - name) + 1, lo = 0, hi = npacked, first, last;

			/* The run of packaged names below this directory. */
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (strncmp(jobs[packed[mid]].name, name, dl) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			first = lo;
			hi = npacked;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (strncmp(jobs[packed[mid]].name, name, dl) <= 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			last = lo; /* > first: name itself is in it */
			if (seg[first] == seg[last - 1])
				cut = sl;
		}
		need = 3 * strlen(name) + 100;
		while (r == 0 && *np + need > *capp)
			r = fw_grow(bufp, capp, *capp, 1);
		if (r < 0)
			break;
		*np += (size_t)sprintf(*bufp + *np, "%-19s %-19s path:", pkg[i],
				       main_ok[i] ? "main" : "non-free-firmware");
		imp_put_path(*bufp, np, name, cut ? (size_t)(cut - name) + 1 : strlen(name));
		if (cut)
			(*bufp)[(*np)++] = '*';
		(*bufp)[(*np)++] = '\n';
		/* Skip the rest of that directory: one line takes it. */
		if (cut)
			while (oi + 1 < njobs &&
			       !strncmp(jobs[order[oi + 1]].name, name, (size_t)(cut - name) + 1))
				oi++;
	}
	free(order);
	free(seg);
	free(packed);
	free(main_ok);
	free(pkg);
	imp_owners_free(&ow);
	return r;
}

void imp_dep5_free(struct dep5 *d)
{
	for (size_t i = 0; i < d->nfiles; i++) {
		for (size_t k = 0; k < d->files[i].n; k++) {
			fw_free_strv(d->files[i].paras[k].globs, d->files[i].paras[k].nglobs);
			free(d->files[i].paras[k].licence);
		}
		free(d->files[i].paras);
	}
	free(d->files);
	fw_free_strv(d->names, d->ntexts);
	fw_free_strv(d->texts, d->ntexts);
	memset(d, 0, sizeof(*d));
}

static int dep5_add_text(struct dep5 *d, const char *name, const char *body)
{
	size_t cap = d->cap_texts;

	if (!*body)
		return 0;
	for (size_t i = 0; i < d->ntexts; i++)
		if (strcmp(d->names[i], name) == 0)
			return 0; /* the first text of a name stands */
	if (fw_grow(&d->names, &cap, d->ntexts, sizeof(*d->names)) < 0)
		return -ENOMEM;
	cap = d->cap_texts;
	if (fw_grow(&d->texts, &d->cap_texts, d->ntexts, sizeof(*d->texts)) < 0)
		return -ENOMEM;
	d->names[d->ntexts] = strdup(name);
	d->texts[d->ntexts] = strdup(body);
	if (!d->names[d->ntexts] || !d->texts[d->ntexts])
		return -ENOMEM;
	d->ntexts++;
	(void)cap;
	return 0;
}

/* One copyright file: paragraphs of "Field: value" lines with continuation
 * lines (a leading blank; " ." is an empty line), separated by blank lines. */
static int dep5_end_para(struct dep5 *d, struct dep5_file *f, char **files, char **lic,
			 char **body)
{
	int r = 0;

	if (*files && *lic) {
		struct dep5_para para = { 0 };
		size_t cap = 0;
		char *s2 = NULL;

		for (char *g = strtok_r(*files, " \t", &s2); g && r == 0; g = strtok_r(NULL, " \t", &s2)) {
			if (fw_grow(&para.globs, &cap, para.nglobs, sizeof(char *)) < 0 ||
			    !(para.globs[para.nglobs] = strdup(g)))
				r = -ENOMEM;
			else
				para.nglobs++;
		}
		para.licence = strdup(*lic);
		if (r == 0 && para.licence && fw_grow(&f->paras, &f->cap, f->n, sizeof(*f->paras)) == 0) {
			f->paras[f->n++] = para;
		} else {
			fw_free_strv(para.globs, para.nglobs);
			free(para.licence);
			r = -ENOMEM;
		}
	}
	if (r == 0 && *lic && *body)
		r = dep5_add_text(d, *lic, *body);
	free(*files);
	free(*lic);
	free(*body);
	*files = *lic = *body = NULL;
	return r;
}

/* One copyright file: paragraphs of "Field: value" lines with continuation
 * lines (a leading blank; " ." is an empty line), separated by blank lines. */
static int dep5_parse(struct dep5 *d, const char *buf, size_t len)
{
	struct dep5_file *f;
	struct fw_lines it;
	const char *ls, *le;
	char *files = NULL, *lic = NULL, *body = NULL;
	size_t blen = 0, bcap = 0;
	enum { NONE, FILES, LICENSE, OTHER } field = NONE;
	int r = 0;

	if (fw_grow(&d->files, &d->cap_files, d->nfiles, sizeof(*d->files)) < 0)
		return -ENOMEM;
	f = &d->files[d->nfiles++];
	memset(f, 0, sizeof(*f));
	fw_lines_init(&it, buf, len);
	while (r == 0 && fw_lines_next(&it, &ls, &le)) {
		const char *q = ls;

		while (q < le && (*q == ' ' || *q == '\t'))
			q++;
		if (q == le) {
			r = dep5_end_para(d, f, &files, &lic, &body);
			blen = bcap = 0;
			field = NONE;
			continue;
		}
		if (q > ls) {
			size_t vl = (le - q == 1 && *q == '.') ? 0 : (size_t)(le - q);

			if (field == FILES) {
				char *n = fw_asprintf("%s %.*s", files, (int)vl, q);

				free(files);
				files = n;
				if (!n)
					r = -ENOMEM;
			} else if (field == LICENSE) {
				/* Room for the line, its newline and the NUL. */
				if (fw_grow(&body, &bcap, blen + vl + 1, 1) < 0) {
					r = -ENOMEM;
					continue;
				}
				memcpy(body + blen, q, vl);
				blen += vl;
				body[blen++] = '\n';
				body[blen] = '\0';
			}
			continue;
		}
		if (le - ls >= 6 && memcmp(ls, "Files:", 6) == 0) {
			field = FILES;
			free(files);
			files = fw_strndup(ls + 6, (size_t)(le - ls - 6));
			if (!files)
				r = -ENOMEM;
		} else if (le - ls >= 8 && memcmp(ls, "License:", 8) == 0) {
			const char *v = ls + 8;

			while (v < le && (*v == ' ' || *v == '\t'))
				v++;
			field = LICENSE;
			free(lic);
			free(body);
			lic = fw_strndup(v, (size_t)(le - v));
			body = strdup("");
			blen = 0;
			bcap = body ? 1 : 0; /* strdup("") holds the NUL */
			if (!lic || !body)
				r = -ENOMEM;
		} else {
			field = OTHER;
		}
	}
	if (r == 0)
		r = dep5_end_para(d, f, &files, &lic, &body);
	free(files);
	free(lic);
	free(body);
	return r;
}

/* usr/share/doc/<package>/copyright of every package unpacked in root. */
int imp_dep5_load(struct dep5 *d, int rootfd, struct fw_strv *pkgs)
{
	int docfd = fw_open_beneath(rootfd, "usr/share/doc", O_RDONLY | O_DIRECTORY, 0);
	char **names;
	size_t n;
	int r;

	if (docfd < 0)
		return docfd == -ENOENT ? 0 : docfd;
	r = fw_read_dir_sorted(docfd, &names, &n);
	for (size_t i = 0; r == 0 && i < n; i++) {
		char *path = fw_asprintf("%s/copyright", names[i]), *buf = NULL;
		size_t len;

		if (!path) {
			r = -ENOMEM;
			break;
		}
		if (fw_read_text(docfd, path, &buf, &len) == 0 && strstr(buf, "Files:")) {
			r = imp_strv_take(pkgs, strdup(names[i]));
			if (r == 0)
				r = dep5_parse(d, buf, len);
			if (r == 0)
				d->files[d->nfiles - 1].pkg = pkgs->v[pkgs->n - 1];
		}
		free(buf);
		free(path);
	}
	fw_free_strv(names, n);
	close(docfd);
	return r;
}

/* The licence DEP-5 gives a file: in each copyright file the last
 * paragraph that matches wins (DEP-5's rule); across packages, the first
 * match more specific than "*". A copyright file speaks only for what its
 * package ships: where the packages' metainfo says which ship the file,
 * the others' copyright files are not asked (firmware-sof-signed's
 * "Files: *" must not give s5p-mfc.fw its licence). A file no metainfo
 * lists that only the "Files: *" of several packages match, with other
 * licences, is not guessed (firmware-sof-signed's or firmware-zd1211's?).
 * NULL if none. */
const char *imp_dep5_licence(const struct dep5 *d, const struct owners *ow, const char *name)
{
	const char *any = NULL;
	bool claimed = owner_of(ow, name) != NULL, ambiguous = false;

	for (size_t i = 0; i < d->nfiles; i++) {
		const struct dep5_file *f = &d->files[i];
		const struct dep5_para *last = NULL;
		bool star = false;

		if (claimed && !(f->pkg && owned_by(ow, name, f->pkg)))
			continue;

		for (size_t k = 0; k < f->n; k++)
			for (size_t g = 0; g < f->paras[k].nglobs; g++)
				if (fnmatch(f->paras[k].globs[g], name, 0) == 0) {
					last = &f->paras[k];
					star = strcmp(f->paras[k].globs[g], "*") == 0;
				}
		if (last && !star)
			return last->licence;
		if (last && any && strcmp(any, last->licence) != 0)
			ambiguous = true;
		if (last && !any)
			any = last->licence;
	}
	return ambiguous ? NULL : any;
}
