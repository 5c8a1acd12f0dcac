/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifests/packages: which binary packages exist and which blobs each takes. */
#include "split.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "lines.h"
#include "util.h"

static const char *const sections[] = { "main", "contrib", "non-free", "non-free-firmware" };

/* Debian policy 5.6.1: lower case letters, digits, + - . ; at least two
 * characters, starting with an alphanumeric. */
bool fw_valid_package(const char *s, size_t n)
{
	if (n < 2 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9')))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '-' ||
		      c == '.'))
			return false;
	}
	return true;
}

static bool valid_section(const char *s, size_t n)
{
	for (size_t i = 0; i < FW_ARRAY_SIZE(sections); i++)
		if (strlen(sections[i]) == n && memcmp(sections[i], s, n) == 0)
			return true;
	return false;
}

bool fw_section_allows(const char *section, enum fw_category cat)
{
	if (cat == FW_CAT_FREE)
		return true;
	if (cat == FW_CAT_NONFREE)
		return strcmp(section, "non-free") == 0 || strcmp(section, "non-free-firmware") == 0;
	return false;
}

int fw_split_find(const struct fw_split *s, const char *name)
{
	for (size_t i = 0; i < s->npkgs; i++)
		if (strcmp(s->pkgs[i].name, name) == 0)
			return (int)i;
	return -1;
}

int fw_split_find_dropped(const struct fw_split *s, const char *name)
{
	for (size_t i = 0; i < s->ndropped; i++)
		if (strcmp(s->dropped[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* PACKAGE SECTION dropped: the one field left at q is "dropped". */
static bool dropped_line(const char *q, const char *le)
{
	const char *f;
	size_t flen;

	f = fw_field(&q, le, &flen);
	if (flen != 7 || memcmp(f, "dropped", 7) != 0)
		return false;
	fw_field(&q, le, &flen);
	return flen == 0;
}

static const struct {
	const char *prefix;
	enum fw_sel_kind kind;
} sel_kinds[] = {
	{ "category:", FW_SEL_CATEGORY },
	{ "path:", FW_SEL_PATH },
	{ "driver:", FW_SEL_DRIVER },
	{ "licence:", FW_SEL_LICENCE },
	{ "license:", FW_SEL_LICENCE },
	{ "empty:", FW_SEL_EMPTY },
	{ "rest:", FW_SEL_REST },
};

static int parse_selector(const char *f, size_t n, struct fw_selector *sel, const char **err)
{
	memset(sel, 0, sizeof(*sel));
	if (n && *f == '!') {
		sel->negate = true;
		f++;
		n--;
	}
	for (size_t i = 0; i < FW_ARRAY_SIZE(sel_kinds); i++) {
		size_t pl = strlen(sel_kinds[i].prefix);

		if (n > pl && memcmp(f, sel_kinds[i].prefix, pl) == 0) {
			sel->kind = sel_kinds[i].kind;
			sel->value = fw_strndup(f + pl, n - pl);
			if (!sel->value)
				return -ENOMEM;
			if (sel->kind == FW_SEL_CATEGORY &&
			    (fw_category_parse(sel->value, &sel->cat) < 0 ||
			     sel->cat == FW_CAT_UNDISTRIBUTABLE || sel->cat == FW_CAT_COPYLEFT)) {
				*err = "category: takes free or non-free";
				free(sel->value);
				sel->value = NULL;
				return -EINVAL;
			}
			if ((sel->kind == FW_SEL_EMPTY || sel->kind == FW_SEL_REST) &&
			    strcmp(sel->value, "yes") != 0) {
				*err = sel->kind == FW_SEL_EMPTY ? "empty: takes yes" : "rest: takes yes";
				free(sel->value);
				sel->value = NULL;
				return -EINVAL;
			}
			/* "Everything but the rest" is every other line: a
			 * negated rest: would say nothing a line does not. */
			if (sel->kind == FW_SEL_REST && sel->negate) {
				*err = "rest: cannot be negated";
				free(sel->value);
				sel->value = NULL;
				return -EINVAL;
			}
			return 0;
		}
	}
	*err = n == 7 && memcmp(f, "dropped", 7) == 0 ?
		       "dropped: alone on its line (a package that takes nothing now)" :
		       "unknown selector (category:, path:, driver:, licence:, empty:, rest:, or dropped)";
	return -EINVAL;
}

int fw_split_parse(struct fw_split *s, const char *path, const char *buf, size_t len,
		   struct fw_diag *d)
{
	struct fw_lines it;
	const char *ls, *le;

	memset(s, 0, sizeof(*s));
	s->path = strdup(path);
	if (!s->path)
		return -ENOMEM;
	fw_lines_init(&it, buf, len);
	while (fw_lines_next(&it, &ls, &le)) {
		struct fw_split_rule rule = { .line = it.line };
		size_t selcap = 0;
		const char *q = ls, *pkg, *sec, *f, *err = NULL;
		size_t pkglen, seclen, flen;
		char *pname;
		int pi;

		if (!fw_line_start(d, path, it.line, ls, le, FW_SPLIT_HEADER, FW_LINE_MAX))
			continue;
		if (ls == le || *ls == '#')
			continue;
		pkg = fw_field(&q, le, &pkglen);
		sec = fw_field(&q, le, &seclen);
		if (!fw_valid_package(pkg, pkglen)) {
			fw_diag_add(d, path, it.line, "'%.*s': not a valid Debian package name",
				    (int)pkglen, pkg);
			continue;
		}
		if (!valid_section(sec, seclen)) {
			fw_diag_add(d, path, it.line,
				    "%.*s: section '%.*s' is not main, contrib, non-free or non-free-firmware",
				    (int)pkglen, pkg, (int)seclen, sec);
			continue;
		}
		if (q == le) {
			fw_diag_add(d, path, it.line, "%.*s: no selectors (category:, path:, ...)",
				    (int)pkglen, pkg);
			continue;
		}
		pname = fw_strndup(pkg, pkglen);
		if (!pname)
			return -ENOMEM;
		if (dropped_line(q, le)) {
			/* Whether a line also takes blobs for it is check's
			 * to say (the lines may come in any order). */
			struct fw_dropped x = { .name = pname, .line = it.line };
			int di = fw_split_find_dropped(s, pname);

			if (di >= 0) {
				fw_diag_add(d, path, it.line, "%s: dropped already at line %u", pname,
					    s->dropped[di].line);
				free(pname);
				continue;
			}
			x.section = fw_strndup(sec, seclen);
			if (!x.section ||
			    fw_grow(&s->dropped, &s->cap_dropped, s->ndropped, sizeof(*s->dropped)) < 0) {
				free(x.section);
				free(pname);
				return -ENOMEM;
			}
			s->dropped[s->ndropped++] = x;
			continue;
		}
		pi = fw_split_find(s, pname);
		if (pi >= 0 && (strlen(s->pkgs[pi].section) != seclen ||
				memcmp(s->pkgs[pi].section, sec, seclen) != 0)) {
			fw_diag_add(d, path, it.line, "%s: section differs from line %u", pname,
				    s->pkgs[pi].line);
			free(pname);
			continue;
		}
		/* Every selector is parsed before anything is registered: a
		 * line with a bad one is reported and adds nothing, neither a
		 * rule nor its package. A package only such a line names
		 * would otherwise exist with no rule (check would add "takes
		 * no blob" to the real error, fw_split_find would find it) and
		 * would fix the section later lines are held to. */
		while ((f = fw_field(&q, le, &flen)), flen) {
			int r;

			if (fw_grow(&rule.sel, &selcap, rule.nsel, sizeof(*rule.sel)) < 0)
				goto nomem;
			r = parse_selector(f, flen, &rule.sel[rule.nsel], &err);
			if (r == -ENOMEM)
				goto nomem;
			if (r < 0) {
				fw_diag_add(d, path, it.line, "'%.*s': %s", (int)flen, f, err);
				break;
			}
			if (rule.sel[rule.nsel].kind == FW_SEL_REST)
				rule.rest = true;
			rule.nsel++;
		}
		if (err) {
			for (size_t i = 0; i < rule.nsel; i++)
				free(rule.sel[i].value);
			free(rule.sel);
			free(pname);
			continue;
		}
		if (pi < 0) {
			struct fw_package p = { .name = pname, .line = it.line };

			p.section = fw_strndup(sec, seclen);
			if (!p.section || fw_grow(&s->pkgs, &s->cap_pkgs, s->npkgs, sizeof(*s->pkgs)) < 0) {
				free(p.section);
				goto nomem;
			}
			s->pkgs[s->npkgs] = p;
			pi = (int)s->npkgs++;
		} else {
			free(pname);
		}
		/* pname now belongs to pkgs (or is freed): not freed again below. */
		pname = NULL;
		rule.pkg = (unsigned)pi;
		if (fw_grow(&s->rules, &s->cap_rules, s->nrules, sizeof(*s->rules)) < 0)
			goto nomem;
		s->rules[s->nrules++] = rule;
		continue;
nomem:
		for (size_t i = 0; i < rule.nsel; i++)
			free(rule.sel[i].value);
		free(rule.sel);
		free(pname);
		return -ENOMEM;
	}
	if (it.line == 0)
		fw_diag_add(d, path, 0, "empty file (missing header line '%s')", FW_SPLIT_HEADER);
	return 0;
}

void fw_split_free(struct fw_split *s)
{
	for (size_t i = 0; i < s->npkgs; i++) {
		free(s->pkgs[i].name);
		free(s->pkgs[i].section);
	}
	for (size_t i = 0; i < s->nrules; i++) {
		for (size_t j = 0; j < s->rules[i].nsel; j++)
			free(s->rules[i].sel[j].value);
		free(s->rules[i].sel);
	}
	for (size_t i = 0; i < s->ndropped; i++) {
		free(s->dropped[i].name);
		free(s->dropped[i].section);
	}
	free(s->dropped);
	free(s->pkgs);
	free(s->rules);
	free(s->path);
	memset(s, 0, sizeof(*s));
}

struct id_search {
	const char *want;
	bool found;
};

static int id_cb(void *ctx, const char *id, size_t len)
{
	struct id_search *x = ctx;

	if (strlen(x->want) == len && memcmp(x->want, id, len) == 0)
		x->found = true;
	return 0;
}

static bool sel_matches(const struct fw_selector *sel, const struct fw_blob_facts *f)
{
	switch (sel->kind) {
	case FW_SEL_CATEGORY:
		return f->cat == sel->cat;
	case FW_SEL_EMPTY:
		return f->empty;
	case FW_SEL_REST:
		return true; /* what the rule takes: its order does the rest */
	case FW_SEL_PATH:
		return fnmatch(sel->value, f->name, 0) == 0;
	case FW_SEL_DRIVER: {
		/* Match the driver's first word: "Driver: tg3 - Broadcom ..." is tg3. */
		char word[256];
		size_t n = 0;

		if (!f->driver)
			return false;
		while (f->driver[n] && f->driver[n] != ' ' && f->driver[n] != '\t' &&
		       n < sizeof(word) - 1) {
			word[n] = f->driver[n];
			n++;
		}
		word[n] = '\0';
		return fnmatch(sel->value, word, 0) == 0;
	}
	case FW_SEL_LICENCE: {
		struct id_search x = { .want = sel->value };
		enum fw_category c;
		const char *syn;

		if (!f->spdx)
			return false;
		fw_spdx_eval(NULL, f->spdx, &c, id_cb, &x, &syn);
		return x.found;
	}
	}
	return false;
}

bool fw_rule_matches(const struct fw_split_rule *r, const struct fw_blob_facts *f)
{
	bool names_empty = false;

	for (size_t i = 0; i < r->nsel; i++)
		if (r->sel[i].kind == FW_SEL_EMPTY && !r->sel[i].negate)
			names_empty = true;
	if (f->empty && !names_empty)
		return false;
	for (size_t i = 0; i < r->nsel; i++)
		if (sel_matches(&r->sel[i], f) == r->sel[i].negate)
			return false;
	return true;
}

int fw_split_first(const struct fw_split *s, const struct fw_blob_facts *f)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < s->nrules; i++)
			if (s->rules[i].rest == (pass == 1) && fw_rule_matches(&s->rules[i], f))
				return (int)i;
	return -1;
}
