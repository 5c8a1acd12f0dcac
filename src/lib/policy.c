/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Licence policy (manifests/licenses) and SPDX expressions evaluated against it. */
#include "policy.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lines.h"
#include "util.h"

#define POLICY_HEADER "# fwdist licence policy 1"

static const char *const cat_names[] = {
	[FW_CAT_FREE] = "free",
	[FW_CAT_COPYLEFT] = "copyleft",
	[FW_CAT_NONFREE] = "non-free",
	[FW_CAT_UNDISTRIBUTABLE] = "undistributable",
	[FW_CAT_UNKNOWN] = "unknown",
};

const char *fw_category_name(enum fw_category c)
{
	if (c < FW_CAT_FREE || c > FW_CAT_UNKNOWN)
		return "unknown";
	return cat_names[c];
}

int fw_category_parse(const char *s, enum fw_category *c)
{
	for (int i = FW_CAT_FREE; i < FW_CAT_UNKNOWN; i++)
		if (strcmp(s, cat_names[i]) == 0) {
			*c = (enum fw_category)i;
			return 0;
		}
	return -EINVAL;
}

static bool spdx_id_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '-' || c == '+';
}

static bool valid_id(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!spdx_id_char(s[i]))
			return false;
	return true;
}

int fw_policy_parse(struct fw_policy *p, const char *path, const char *buf, size_t len,
		    struct fw_diag *d)
{
	struct fw_lines it;
	const char *ls, *le;

	memset(p, 0, sizeof(*p));
	p->path = strdup(path);
	if (!p->path)
		return -ENOMEM;
	fw_lines_init(&it, buf, len);
	while (fw_lines_next(&it, &ls, &le)) {
		struct fw_policy_entry ent = { .line = it.line };
		const char *q = ls, *id, *cat, *re;
		size_t idlen, catlen;
		char catbuf[32];

		if (!fw_line_start(d, path, it.line, ls, le, POLICY_HEADER, FW_LINE_MAX))
			continue;
		if (ls == le || *ls == '#')
			continue; /* blank or comment */
		id = fw_field(&q, le, &idlen);
		cat = fw_field(&q, le, &catlen);
		re = le;
		while (re > q && (re[-1] == ' ' || re[-1] == '\t'))
			re--;
		ent.id = fw_strndup(id, idlen);
		if (!ent.id)
			return -ENOMEM;
		if (!valid_id(id, idlen)) {
			fw_diag_add(d, path, it.line, "'%s': not an SPDX licence id", fw_esc(ent.id));
			goto skip;
		}
		if (catlen == 0 || catlen >= sizeof(catbuf) || re == q) {
			fw_diag_add(d, path, it.line, "%s: expected 'ID CATEGORY REASON'", ent.id);
			goto skip;
		}
		memcpy(catbuf, cat, catlen);
		catbuf[catlen] = '\0';
		/* "non-free+accept": the user must accept the licence before
		 * installing (packaging asks through debconf). A free licence
		 * cannot demand that (DFSG), an undistributable one is never
		 * installed. */
		if (catlen > 7 && strcmp(catbuf + catlen - 7, "+accept") == 0) {
			catbuf[catlen - 7] = '\0';
			ent.accept = true;
		}
		if (fw_category_parse(catbuf, &ent.cat) < 0) {
			fw_diag_add(d, path, it.line,
				    "%s: unknown category '%s' (free, copyleft, non-free or undistributable)",
				    ent.id, fw_esc(catbuf));
			goto skip;
		}
		if (ent.accept && ent.cat != FW_CAT_NONFREE) {
			fw_diag_add(d, path, it.line,
				    "%s: only a non-free licence can demand acceptance (+accept)", ent.id);
			goto skip;
		}
		if (p->n > 0 && strcmp(p->v[p->n - 1].id, ent.id) >= 0) {
			if (strcmp(p->v[p->n - 1].id, ent.id) == 0)
				fw_diag_add(d, path, it.line, "%s: listed twice (first at line %u)",
					    ent.id, p->v[p->n - 1].line);
			else
				fw_diag_add(d, path, it.line,
					    "%s: out of order (the file is kept sorted)", ent.id);
			goto skip;
		}
		ent.reason = fw_strndup(q, (size_t)(re - q));
		if (!ent.reason || fw_grow(&p->v, &p->cap, p->n, sizeof(*p->v)) < 0) {
			free(ent.id);
			free(ent.reason);
			return -ENOMEM;
		}
		p->v[p->n++] = ent;
		continue;
skip:
		free(ent.id);
	}
	if (it.line == 0)
		fw_diag_add(d, path, 0, "empty file (missing header line '%s')", POLICY_HEADER);
	return 0;
}

void fw_policy_free(struct fw_policy *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].id);
		free(p->v[i].reason);
	}
	free(p->v);
	free(p->path);
	memset(p, 0, sizeof(*p));
}

static int cmp_entry(const void *key, const void *elem)
{
	return strcmp(key, ((const struct fw_policy_entry *)elem)->id);
}

const struct fw_policy_entry *fw_policy_find(const struct fw_policy *p, const char *id)
{
	if (!p->n)
		return NULL;
	return bsearch(id, p->v, p->n, sizeof(*p->v), cmp_entry);
}

/* Recursive-descent evaluation of an SPDX expression. */
struct spdx {
	const struct fw_policy *p;
	const char *s;
	int (*each_id)(void *ctx, const char *id, size_t len);
	void *ctx;
	const char *err;
	int depth;
	int source; /* -1: categories as the policy gives them; 0/1: as shipped
		     * without / with source (fw_spdx_eval_shipped) */
	const char *branch; /* the top-level OR operand that gave the category */
	size_t branch_len;
	bool or_seen;       /* the expression has a top-level OR */
};

enum tok { T_END, T_ID, T_AND, T_OR, T_WITH, T_LP, T_RP, T_BAD };

static enum tok peek(struct spdx *x, const char **start, size_t *len)
{
	const char *s = x->s;

	while (*s == ' ' || *s == '\t')
		s++;
	*start = s;
	*len = 0;
	if (!*s)
		return T_END;
	if (*s == '(' || *s == ')') {
		*len = 1;
		return *s == '(' ? T_LP : T_RP;
	}
	while (spdx_id_char(s[*len]))
		(*len)++;
	if (*len == 0)
		return T_BAD;
	/* Operators are matched case-sensitively, as SPDX requires. */
	if (*len == 3 && memcmp(s, "AND", 3) == 0)
		return T_AND;
	if (*len == 2 && memcmp(s, "OR", 2) == 0)
		return T_OR;
	if (*len == 4 && memcmp(s, "WITH", 4) == 0)
		return T_WITH;
	return T_ID;
}

static void take(struct spdx *x, const char *start, size_t len)
{
	x->s = start + len;
}

static int eval_or(struct spdx *x, enum fw_category *cat);

static int eval_id(struct spdx *x, const char *id, size_t len, enum fw_category *cat)
{
	char buf[256];
	const struct fw_policy_entry *e;
	int r;

	if (len >= sizeof(buf)) {
		x->err = "licence id too long";
		return -EINVAL;
	}
	memcpy(buf, id, len);
	buf[len] = '\0';
	if (x->each_id) {
		r = x->each_id(x->ctx, id, len);
		if (r < 0)
			return r;
	}
	e = x->p ? fw_policy_find(x->p, buf) : NULL;
	*cat = e ? e->cat : FW_CAT_UNKNOWN;
	if (x->source == 0 && *cat == FW_CAT_FREE)
		*cat = FW_CAT_NONFREE;
	else if (x->source >= 0 && *cat == FW_CAT_COPYLEFT)
		*cat = x->source ? FW_CAT_FREE : FW_CAT_UNDISTRIBUTABLE;
	return 0;
}

static int eval_with(struct spdx *x, enum fw_category *cat)
{
	const char *st;
	size_t len;
	enum tok t = peek(x, &st, &len);
	int r;

	if (t == T_LP) {
		if (++x->depth > 32) {
			x->err = "expression nested too deeply";
			return -EINVAL;
		}
		take(x, st, len);
		r = eval_or(x, cat);
		if (r < 0)
			return r;
		t = peek(x, &st, &len);
		if (t != T_RP) {
			x->err = "missing ')'";
			return -EINVAL;
		}
		take(x, st, len);
		x->depth--;
		return 0;
	}
	if (t != T_ID) {
		x->err = t == T_END ? "expression ends early" : "expected a licence id";
		return -EINVAL;
	}
	take(x, st, len);
	r = eval_id(x, st, len, cat);
	if (r < 0)
		return r;
	t = peek(x, &st, &len);
	if (t == T_WITH) {
		enum fw_category ex;

		take(x, st, len);
		t = peek(x, &st, &len);
		if (t != T_ID) {
			x->err = "expected an exception id after WITH";
			return -EINVAL;
		}
		take(x, st, len);
		r = eval_id(x, st, len, &ex);
		if (r < 0)
			return r;
		if (ex > *cat)
			*cat = ex;
	}
	return 0;
}

static int eval_and(struct spdx *x, enum fw_category *cat)
{
	const char *st;
	size_t len;
	int r = eval_with(x, cat);

	while (r == 0 && peek(x, &st, &len) == T_AND) {
		enum fw_category c;

		take(x, st, len);
		r = eval_with(x, &c);
		if (r == 0 && c > *cat)
			*cat = c;
	}
	return r;
}

/* The text [s, e) without its blanks at either end. */
static void trimmed(const char *s, const char *e, const char **ts, size_t *tl)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*ts = s;
	*tl = (size_t)(e - s);
}

static int eval_or(struct spdx *x, enum fw_category *cat)
{
	const char *st, *op = x->s;
	size_t len;
	int r = eval_and(x, cat);
	bool top = x->depth == 0;

	/* At the top level, remember which operand gave the category: the
	 * first of the most favourable ones, the licence a blob ships under. */
	if (r == 0 && top)
		trimmed(op, x->s, &x->branch, &x->branch_len);
	while (r == 0 && peek(x, &st, &len) == T_OR) {
		enum fw_category c;

		take(x, st, len);
		op = x->s;
		r = eval_and(x, &c);
		if (r == 0 && c < *cat) {
			*cat = c;
			if (top)
				trimmed(op, x->s, &x->branch, &x->branch_len);
		}
		if (top)
			x->or_seen = true;
	}
	return r;
}

/* The whole expression, and nothing after it. */
static int spdx_run(struct spdx *x, enum fw_category *cat, const char **syntax)
{
	const char *st;
	size_t len;
	int r;

	*syntax = NULL;
	r = eval_or(x, cat);
	if (r == 0 && peek(x, &st, &len) != T_END) {
		x->err = "trailing garbage in expression";
		r = -EINVAL;
	}
	if (r == -EINVAL)
		*syntax = x->err;
	return r;
}

int fw_spdx_eval(const struct fw_policy *p, const char *expr, enum fw_category *cat,
		 int (*each_id)(void *ctx, const char *id, size_t len), void *ctx,
		 const char **syntax)
{
	struct spdx x = { .p = p, .s = expr, .each_id = each_id, .ctx = ctx, .source = -1 };

	return spdx_run(&x, cat, syntax);
}

int fw_spdx_eval_shipped(const struct fw_policy *p, const char *expr, bool has_source,
			 enum fw_category *cat, const char **syntax, char **branch)
{
	struct spdx x = { .p = p, .s = expr, .source = has_source };
	int r = spdx_run(&x, cat, syntax);

	if (branch) {
		*branch = NULL;
		if (r == 0 && x.or_seen) {
			*branch = fw_strndup(x.branch, x.branch_len);
			if (!*branch)
				return -ENOMEM;
		}
	}
	return r;
}
