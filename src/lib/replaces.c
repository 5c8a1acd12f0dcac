/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifests/replaces: which Debian packages each package of the split takes files over from, per suite. */
#include "replaces.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lines.h"
#include "util.h"

static const char *const suites[] = { "bookworm", "trixie", "forky" };

bool fw_suite_known(const char *suite)
{
	for (size_t i = 0; i < FW_ARRAY_SIZE(suites); i++)
		if (strcmp(suites[i], suite) == 0)
			return true;
	return false;
}

void fw_replaces_free(struct fw_replaces *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].suite);
		free(r->v[i].debian);
	}
	free(r->v);
	*r = (struct fw_replaces){ 0 };
}

/* Whether two suites of lines (or a line's and a suite built for) overlap:
 * '*' meets every suite. */
static bool suites_meet(const char *a, const char *b)
{
	return strcmp(a, "*") == 0 || strcmp(b, "*") == 0 || strcmp(a, b) == 0;
}

/* Whether package from reaches package to through the Pre-Depends edges of
 * suite (Q -> P: Q, a package of the split that P takes:, pre-depends on
 * P), depth first; seen has a slot per package. */
static bool reaches(const struct fw_replaces *r, const struct fw_split *s, unsigned from,
		    unsigned to, const char *suite, bool *seen)
{
	if (from == to)
		return true;
	seen[from] = true;
	for (size_t i = 0; i < r->n; i++) {
		const struct fw_replace *e = &r->v[i];
		int q;

		if (e->provides || !suites_meet(e->suite, suite))
			continue;
		q = fw_split_find(s, e->debian);
		if (q == (int)from && !seen[e->pkg] && reaches(r, s, e->pkg, to, suite, seen))
			return true;
	}
	return false;
}

/* The problem with adding word e (not yet in r) on its line, into msg, or
 * false when there is none. */
static bool word_problem(const struct fw_replaces *r, const struct fw_split *s,
			 const struct fw_replace *e, char *msg, size_t len, bool *nomem)
{
	int q = fw_split_find(s, e->debian);

	if (strcmp(e->debian, s->pkgs[e->pkg].name) == 0)
		return snprintf(msg, len, "the package itself") > 0;
	if (e->provides && q >= 0)
		return snprintf(msg, len, "a package of the split: provides: would make it conflict "
					  "with it") > 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct fw_replace *o = &r->v[i];

		if (!suites_meet(o->suite, e->suite) || strcmp(o->debian, e->debian) != 0)
			continue;
		if (o->pkg == e->pkg && o->line == e->line)
			return snprintf(msg, len, "named twice on the line") > 0;
		if (o->pkg == e->pkg)
			return snprintf(msg, len, "already named for this package and suite on line %u",
					o->line) > 0;
		if (o->provides || e->provides)
			return snprintf(msg, len, "also named by %s on line %u, with a provides: "
					"(the two packages would conflict)", s->pkgs[o->pkg].name,
					o->line) > 0;
	}
	/* A takes: between two packages of the split is a Pre-Depends of the
	 * one taken from on the one taking: it must not close a cycle. */
	if (!e->provides && q >= 0) {
		bool *seen = calloc(s->npkgs, sizeof(*seen));

		if (!seen) {
			*nomem = true;
			return false;
		}
		for (size_t k = 0; k < FW_ARRAY_SIZE(suites); k++) {
			if (!suites_meet(e->suite, suites[k]))
				continue;
			memset(seen, 0, s->npkgs * sizeof(*seen));
			if (reaches(r, s, e->pkg, (unsigned)q, suites[k], seen)) {
				free(seen);
				return snprintf(msg, len, "closes a cycle of takes: in %s (each package "
						"pre-depends on the one that takes its names; a cycle "
						"cannot be unpacked)", suites[k]) > 0;
			}
		}
		free(seen);
	}
	return false;
}

int fw_replaces_parse(struct fw_replaces *r, const struct fw_split *s, const char *path,
		      const char *buf, size_t len, struct fw_diag *d)
{
	struct fw_lines it;
	const char *ls, *le;

	*r = (struct fw_replaces){ 0 };
	fw_lines_init(&it, buf, len);
	while (fw_lines_next(&it, &ls, &le)) {
		const char *q = ls, *pkg, *suite, *w;
		size_t pkglen, suitelen, wlen, first = r->n;
		char *pname, *sname = NULL;
		bool bad = false;
		int pi;

		if (!fw_line_start(d, path, it.line, ls, le, FW_REPLACES_HEADER, FW_LINE_MAX))
			continue;
		if (ls == le || *ls == '#')
			continue;
		pkg = fw_field(&q, le, &pkglen);
		suite = fw_field(&q, le, &suitelen);
		pname = fw_strndup(pkg, pkglen);
		if (!pname)
			return -ENOMEM;
		pi = fw_split_find(s, pname);
		if (!fw_valid_package(pkg, pkglen)) {
			fw_diag_add(d, path, it.line, "'%s': not a valid Debian package name", pname);
			bad = true;
		} else if (pi < 0) {
			fw_diag_add(d, path, it.line, "%s: not a package of %s", pname, s->path);
			bad = true;
		}
		if (!bad) {
			sname = fw_strndup(suite, suitelen);
			if (!sname) {
				free(pname);
				return -ENOMEM;
			}
			if (strcmp(sname, "*") != 0 && !fw_suite_known(sname)) {
				fw_diag_add(d, path, it.line,
					    "%s: suite '%s' is not bookworm, trixie, forky or *", pname,
					    sname);
				bad = true;
			} else if (q == le) {
				fw_diag_add(d, path, it.line, "%s: no takes:PACKAGE or provides:PACKAGE",
					    pname);
				bad = true;
			}
		}
		while (!bad && (w = fw_field(&q, le, &wlen), wlen)) {
			struct fw_replace e = { .pkg = (unsigned)pi, .line = it.line };
			char msg[256];
			bool nomem = false, problem;

			if (wlen > 6 && memcmp(w, "takes:", 6) == 0) {
				w += 6, wlen -= 6;
			} else if (wlen > 9 && memcmp(w, "provides:", 9) == 0) {
				e.provides = true;
				w += 9, wlen -= 9;
			} else {
				fw_diag_add(d, path, it.line, "'%.*s': neither takes:PACKAGE nor provides:PACKAGE",
					    (int)wlen, w);
				bad = true;
				break;
			}
			if (!fw_valid_package(w, wlen)) {
				fw_diag_add(d, path, it.line, "'%.*s': not a valid Debian package name",
					    (int)wlen, w);
				bad = true;
				break;
			}
			e.suite = strdup(sname);
			e.debian = fw_strndup(w, wlen);
			if (!e.suite || !e.debian || fw_grow(&r->v, &r->cap, r->n, sizeof(*r->v)) < 0) {
				free(e.suite);
				free(e.debian);
				goto nomem;
			}
			problem = word_problem(r, s, &e, msg, sizeof(msg), &nomem);
			if (nomem) {
				free(e.suite);
				free(e.debian);
				goto nomem;
			}
			if (problem) {
				fw_diag_add(d, path, it.line, "%s %s:%s: %s", pname,
					    e.provides ? "provides" : "takes", e.debian, msg);
				free(e.suite);
				free(e.debian);
				bad = true;
				break;
			}
			r->v[r->n++] = e;
		}
		/* A line with a problem adds nothing. */
		if (bad) {
			for (size_t i = first; i < r->n; i++) {
				free(r->v[i].suite);
				free(r->v[i].debian);
			}
			r->n = first;
		}
		free(pname);
		free(sname);
		continue;
nomem:
		free(pname);
		free(sname);
		fw_replaces_free(r);
		return -ENOMEM;
	}
	return 0;
}

int fw_replaces_load(struct fw_replaces *r, const struct fw_split *s, int rootfd,
		     struct fw_diag *d)
{
	char *buf = NULL;
	size_t len, before = d->n;
	int e = fw_read_text(rootfd, FW_TREE_REPLACES, &buf, &len);

	*r = (struct fw_replaces){ 0 };
	if (e == -ENOENT)
		return 0;
	if (e < 0) {
		if (e != -ENOMEM)
			fw_diag_add(d, FW_TREE_REPLACES, 0, "cannot read: %s", strerror(-e));
		return e == -ENOMEM ? e : -EINVAL;
	}
	e = fw_replaces_parse(r, s, FW_TREE_REPLACES, buf, len, d);
	free(buf);
	if (e == 0 && d->n > before)
		e = -EINVAL;
	/* On an error, nothing is held: the caller has nothing to free. */
	if (e < 0)
		fw_replaces_free(r);
	return e;
}

/* One variable: "NAME=" then the items, ", " between them. */
static void var(FILE *f, const char *name, const struct fw_replaces *r, const struct fw_split *s,
		unsigned pkg, const char *suite, const char *version, int which)
{
	const char *sep = "";

	fprintf(f, "fwdist:%s=", name);
	for (size_t i = 0; i < r->n; i++) {
		const struct fw_replace *e = &r->v[i];

		if (!suites_meet(e->suite, suite))
			continue;
		switch (which) {
		case 0: /* Replaces */
			if (e->pkg != pkg)
				continue;
			if (e->provides)
				fprintf(f, "%s%s", sep, e->debian);
			else
				fprintf(f, "%s%s (<< %s)", sep, e->debian, version);
			break;
		case 1: /* Provides */
			if (e->pkg != pkg || !e->provides)
				continue;
			fprintf(f, "%s%s (= %s)", sep, e->debian, version);
			break;
		case 2: /* Conflicts */
			if (e->pkg != pkg || !e->provides)
				continue;
			fprintf(f, "%s%s", sep, e->debian);
			break;
		default: /* Pre-Depends: who takes this package's names */
			if (e->provides || strcmp(e->debian, s->pkgs[pkg].name) != 0)
				continue;
			fprintf(f, "%s%s (= %s)", sep, s->pkgs[e->pkg].name, version);
			break;
		}
		sep = ", ";
	}
	fputc('\n', f);
}

void fw_replaces_substvars(FILE *f, const struct fw_replaces *r, const struct fw_split *s,
			   unsigned pkg, const char *suite, const char *version)
{
	var(f, "Replaces", r, s, pkg, suite, version, 0);
	var(f, "Provides", r, s, pkg, suite, version, 1);
	var(f, "Conflicts", r, s, pkg, suite, version, 2);
	var(f, "Pre-Depends", r, s, pkg, suite, version, 3);
}
