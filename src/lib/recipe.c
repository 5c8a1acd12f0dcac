/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifests/build: the recipes that build free blobs from their sources. */
#include "recipe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lines.h"
#include "split.h"
#include "util.h"

bool fw_recipe_valid_name(const char *s, size_t n)
{
	if (n == 0 || n > FW_RECIPE_NAME_MAX)
		return false;
	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9')))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '+' || c == '-'))
			return false;
	}
	return true;
}

/* A command the sandbox finds on PATH: one plain word, no '/' (a path
 * would name a file outside /usr/bin and /bin, which the check of the
 * tools could not vouch for). */
static bool valid_command(const char *s, size_t n)
{
	if (n == 0 || n > 255 || (n <= 2 && s[0] == '.'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '/' || (unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return false;
	return true;
}

const struct fw_recipe *fw_recipes_find(const struct fw_recipes *rs, const char *name)
{
	for (size_t i = 0; i < rs->n; i++)
		if (strcmp(rs->v[i].name, name) == 0)
			return &rs->v[i];
	return NULL;
}

const struct fw_recipe *fw_recipes_output(const struct fw_recipes *rs, const char *name,
					  unsigned *line)
{
	for (size_t i = 0; i < rs->n; i++)
		for (size_t j = 0; j < rs->v[i].noutputs; j++)
			if (strcmp(rs->v[i].outputs[j].text, name) == 0) {
				if (line)
					*line = rs->v[i].outputs[j].line;
				return &rs->v[i];
			}
	return NULL;
}

static void recipe_free(struct fw_recipe *r)
{
	for (size_t i = 0; i < r->ntools; i++) {
		free(r->tools[i].package);
		free(r->tools[i].command);
	}
	for (size_t i = 0; i < r->nsources; i++)
		free(r->sources[i].text);
	for (size_t i = 0; i < r->noutputs; i++)
		free(r->outputs[i].text);
	for (size_t i = 0; i < r->nruns; i++)
		free(r->runs[i].text);
	free(r->tools);
	free(r->sources);
	free(r->outputs);
	free(r->runs);
	free(r->name);
	memset(r, 0, sizeof(*r));
}

void fw_recipes_free(struct fw_recipes *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		recipe_free(&rs->v[i]);
	free(rs->v);
	free(rs->path);
	memset(rs, 0, sizeof(*rs));
}

static bool has_item(const struct fw_recipe_item *v, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(v[i].text) == len && memcmp(v[i].text, s, len) == 0)
			return true;
	return false;
}

static int add_item(struct fw_recipe_item **v, size_t *n, size_t *cap, const char *s,
		    size_t len, unsigned line)
{
	char *t = fw_strndup(s, len);

	if (!t || fw_grow(v, cap, *n, sizeof(**v)) < 0) {
		free(t);
		return -ENOMEM;
	}
	(*v)[*n].text = t;
	(*v)[(*n)++].line = line;
	return 0;
}

/* The recipe just ended: keep it if it can run, else say why and drop it. */
static void finish(struct fw_recipes *rs, const char *path, struct fw_diag *d)
{
	struct fw_recipe *r;

	if (!rs->n)
		return;
	r = &rs->v[rs->n - 1];
	if (r->noutputs && r->nruns)
		return;
	fw_diag_add(d, path, r->line, "recipe %s: no %s line: recipe ignored", r->name,
		    r->noutputs ? "run" : "output");
	recipe_free(r);
	rs->n--;
}

static int parse_line(struct fw_recipes *rs, const char *path, unsigned line, const char *ls,
		      const char *le, struct fw_diag *d, char **last)
{
	const char *q = ls, *name, *key, *f;
	size_t namelen, keylen, flen;
	struct fw_recipe *r;
	char tmp[4097];

	name = fw_field(&q, le, &namelen);
	key = fw_field(&q, le, &keylen);
	if (!fw_recipe_valid_name(name, namelen)) {
		fw_diag_add(d, path, line,
			    "'%.*s': not a recipe name ([a-z0-9][a-z0-9._+-]*, at most %d bytes)",
			    (int)(namelen > 80 ? 80 : namelen), name, FW_RECIPE_NAME_MAX);
		return 0;
	}
	if (!keylen) {
		fw_diag_add(d, path, line, "%.*s: no key (tool, source, output, run, timeout)",
			    (int)namelen, name);
		return 0;
	}
	/* A new recipe, or the next line of the last one: a recipe's lines
	 * stay together, so that a reader sees all of it in one place. */
	r = rs->n ? &rs->v[rs->n - 1] : NULL;
	if (!r || strlen(r->name) != namelen || memcmp(r->name, name, namelen) != 0) {
		char *nm = fw_strndup(name, namelen);
		const struct fw_recipe *old;

		if (!nm)
			return -ENOMEM;
		old = fw_recipes_find(rs, nm);
		if (old || (*last && strcmp(*last, nm) == 0)) {
			/* Not in the list but the last named: a recipe past
			 * the limit, reported at its first line; its other
			 * lines add nothing. */
			if (old)
				fw_diag_add(d, path, line,
					    "recipe %s: its lines must be together (it began at line %u)",
					    nm, old->line);
			free(nm);
			return 0;
		}
		finish(rs, path, d);
		free(*last);
		*last = strdup(nm);
		if (!*last) {
			free(nm);
			return -ENOMEM;
		}
		if (rs->n >= FW_RECIPES_MAX) {
			fw_diag_add(d, path, line, "more than %d recipes", FW_RECIPES_MAX);
			free(nm);
			return 0;
		}
		if (fw_grow(&rs->v, &rs->cap, rs->n, sizeof(*rs->v)) < 0) {
			free(nm);
			return -ENOMEM;
		}
		r = &rs->v[rs->n++];
		memset(r, 0, sizeof(*r));
		r->name = nm;
		r->line = line;
		r->timeout = FW_RECIPE_TIMEOUT;
	}

#define KEY(k) (keylen == strlen(k) && memcmp(key, k, keylen) == 0)
	if (KEY("run")) {
		/* The rest of the line, as /bin/sh -c gets it. */
		if (q == le) {
			fw_diag_add(d, path, line, "recipe %s: run: no command", r->name);
			return 0;
		}
		if (r->nruns >= FW_RECIPE_ITEMS_MAX)
			goto toomany;
		return add_item(&r->runs, &r->nruns, &r->cap_runs, q, (size_t)(le - q), line);
	}
	if (KEY("tool")) {
		const char *pkg = fw_field(&q, le, &flen);
		size_t pkglen = flen, clen;
		const char *cmd = fw_field(&q, le, &clen);
		struct fw_recipe_tool *t;

		if (!pkglen || !clen || q != le) {
			fw_diag_add(d, path, line, "recipe %s: tool takes PACKAGE COMMAND", r->name);
			return 0;
		}
		if (!fw_valid_package(pkg, pkglen)) {
			fw_diag_add(d, path, line, "recipe %s: '%.*s': not a Debian package name",
				    r->name, (int)(pkglen > 80 ? 80 : pkglen), pkg);
			return 0;
		}
		if (!valid_command(cmd, clen)) {
			fw_diag_add(d, path, line,
				    "recipe %s: '%.*s': not a command name (one word, no '/')",
				    r->name, (int)(clen > 80 ? 80 : clen), cmd);
			return 0;
		}
		if (pkglen == strlen(FW_RECIPE_SELF_PACKAGE) &&
		    memcmp(pkg, FW_RECIPE_SELF_PACKAGE, pkglen) == 0 &&
		    !(clen == 6 && memcmp(cmd, "fwdist", 6) == 0)) {
			fw_diag_add(d, path, line, "recipe %s: package fwdist gives only the command fwdist",
				    r->name);
			return 0;
		}
		for (size_t i = 0; i < r->ntools; i++)
			if (strlen(r->tools[i].command) == clen &&
			    memcmp(r->tools[i].command, cmd, clen) == 0) {
				fw_diag_add(d, path, line, "recipe %s: tool %.*s also at line %u",
					    r->name, (int)clen, cmd, r->tools[i].line);
				return 0;
			}
		if (r->ntools >= FW_RECIPE_ITEMS_MAX)
			goto toomany;
		if (fw_grow(&r->tools, &r->cap_tools, r->ntools, sizeof(*r->tools)) < 0)
			return -ENOMEM;
		t = &r->tools[r->ntools];
		t->package = fw_strndup(pkg, pkglen);
		t->command = fw_strndup(cmd, clen);
		t->line = line;
		if (!t->package || !t->command) {
			free(t->package);
			free(t->command);
			return -ENOMEM;
		}
		r->ntools++;
		return 0;
	}
	if (KEY("source") || KEY("output")) {
		bool src = KEY("source");
		const char *problem;

		f = fw_field(&q, le, &flen);
		if (!flen || q != le) {
			fw_diag_add(d, path, line, "recipe %s: %s takes one name below firmware/",
				    r->name, src ? "source" : "output");
			return 0;
		}
		memcpy(tmp, f, flen);
		tmp[flen] = '\0';
		/* Names are copied into and read back from the scratch
		 * directory: never absolute, never "..", never empty. */
		problem = fw_name_problem(tmp);
		if (problem) {
			fw_diag_add(d, path, line, "recipe %s: %s %s: %s", r->name,
				    src ? "source" : "output", fw_esc(tmp), problem);
			return 0;
		}
		if (has_item(r->sources, r->nsources, f, flen) ||
		    has_item(r->outputs, r->noutputs, f, flen)) {
			fw_diag_add(d, path, line, "recipe %s: %s named twice", r->name, fw_esc(tmp));
			return 0;
		}
		if ((src ? r->nsources : r->noutputs) >= FW_RECIPE_ITEMS_MAX)
			goto toomany;
		if (src)
			return add_item(&r->sources, &r->nsources, &r->cap_sources, f, flen, line);
		return add_item(&r->outputs, &r->noutputs, &r->cap_outputs, f, flen, line);
	}
	if (KEY("timeout")) {
		uint64_t v;

		f = fw_field(&q, le, &flen);
		if (!flen || q != le || fw_parse_u64(f, flen, &v) < 0 || v == 0 ||
		    v > FW_RECIPE_TIMEOUT_MAX) {
			fw_diag_add(d, path, line, "recipe %s: timeout takes seconds, 1 to %d",
				    r->name, FW_RECIPE_TIMEOUT_MAX);
			return 0;
		}
		if (r->timeout_line) {
			fw_diag_add(d, path, line, "recipe %s: timeout also at line %u", r->name,
				    r->timeout_line);
			return 0;
		}
		r->timeout = (unsigned)v;
		r->timeout_line = line;
		return 0;
	}
#undef KEY
	fw_diag_add(d, path, line, "recipe %s: unknown key '%.*s' (tool, source, output, run, timeout)",
		    r->name, (int)(keylen > 80 ? 80 : keylen), key);
	return 0;
toomany:
	fw_diag_add(d, path, line, "recipe %s: more than %d lines of one key", r->name,
		    FW_RECIPE_ITEMS_MAX);
	return 0;
}

int fw_recipes_parse(struct fw_recipes *rs, const char *path, const char *buf, size_t len,
		     struct fw_diag *d)
{
	struct fw_lines it;
	const char *ls, *le;
	char *last = NULL;
	int r = 0;

	memset(rs, 0, sizeof(*rs));
	rs->path = strdup(path);
	if (!rs->path)
		return -ENOMEM;
	fw_lines_init(&it, buf, len);
	while (fw_lines_next(&it, &ls, &le)) {
		if (!fw_line_start(d, path, it.line, ls, le, FW_RECIPES_HEADER, FW_LINE_MAX))
			continue;
		/* Trailing blanks are no part of a command. */
		while (le > ls && (le[-1] == ' ' || le[-1] == '\t' || le[-1] == '\r'))
			le--;
		if (ls == le || *ls == '#')
			continue;
		r = parse_line(rs, path, it.line, ls, le, d, &last);
		if (r < 0)
			break;
	}
	free(last);
	if (r < 0)
		return r;
	finish(rs, path, d);
	if (it.line == 0)
		fw_diag_add(d, path, 0, "empty file (missing header line '%s')", FW_RECIPES_HEADER);
	return 0;
}

static const char *const verdict_names[] = {
	[FW_BV_IDENTICAL] = "rebuilt-identical",
	[FW_BV_DIFFERS] = "rebuilt-differs",
	[FW_BV_NOT_REBUILT] = "not-rebuilt",
	[FW_BV_FAILED] = "build-failed",
};

const char *fw_build_verdict_name(enum fw_build_verdict v)
{
	return (size_t)v < FW_ARRAY_SIZE(verdict_names) ? verdict_names[v] : "?";
}

int fw_build_verdict_parse(const char *s, size_t n, enum fw_build_verdict *v)
{
	for (size_t i = 0; i < FW_ARRAY_SIZE(verdict_names); i++)
		if (strlen(verdict_names[i]) == n && memcmp(verdict_names[i], s, n) == 0) {
			*v = (enum fw_build_verdict)i;
			return 0;
		}
	return -EINVAL;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Next tab-separated field of [*p, e). */
static const char *tab_field(const char **p, const char *e, size_t *len)
{
	const char *s = *p, *t = memchr(s, '\t', (size_t)(e - s));

	if (!t)
		t = e;
	*len = (size_t)(t - s);
	*p = t < e ? t + 1 : e;
	return s;
}

static void rec_free(struct fw_verdict_rec *r)
{
	free(r->blob);
	free(r->recipe);
	free(r->why);
}

void fw_verdicts_free(struct fw_verdicts *vs)
{
	for (size_t i = 0; i < vs->n; i++)
		rec_free(&vs->v[i]);
	free(vs->v);
	free(vs->path);
	memset(vs, 0, sizeof(*vs));
}

const struct fw_verdict_rec *fw_verdicts_find(const struct fw_verdicts *vs, const char *blob)
{
	size_t lo = 0, hi = vs->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(vs->v[mid].blob, blob);

		if (c == 0)
			return &vs->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static char *dash_none(const char *s, size_t n)
{
	return n == 1 && *s == '-' ? NULL : fw_strndup(s, n);
}

int fw_verdicts_parse(struct fw_verdicts *vs, const char *path, const char *buf, size_t len,
		      struct fw_diag *d)
{
	struct fw_lines it;
	const char *ls, *le;

	memset(vs, 0, sizeof(*vs));
	vs->path = strdup(path);
	if (!vs->path)
		return -ENOMEM;
	fw_lines_init(&it, buf, len);
	while (fw_lines_next(&it, &ls, &le)) {
		struct fw_verdict_rec r = { .line = it.line };
		const char *q = ls, *f[5];
		size_t fl[5], nf = 0;
		char tmp[4097];
		const char *problem;

		if (!fw_line_start(d, path, it.line, ls, le, FW_VERDICTS_HEADER, FW_LINE_MAX))
			continue;
		if (ls == le || *ls == '#')
			continue;
		while (nf < 5 && q < le) {
			f[nf] = tab_field(&q, le, &fl[nf]);
			nf++;
		}
		if (nf != 5 || q < le || memchr(ls, '\t', (size_t)(le - ls)) == NULL ||
		    (le[-1] == '\t')) {
			fw_diag_add(d, path, it.line, "not BLOB VERDICT RECIPE SHA256 WHY, tab-separated");
			continue;
		}
		memcpy(tmp, f[0], fl[0]);
		tmp[fl[0]] = '\0';
		problem = fl[0] ? fw_name_problem(tmp) : "empty name";
		if (problem) {
			fw_diag_add(d, path, it.line, "%s: %s", fw_esc(tmp), problem);
			continue;
		}
		if (fw_build_verdict_parse(f[1], fl[1], &r.v) < 0) {
			fw_diag_add(d, path, it.line, "%s: unknown verdict '%.*s'", fw_esc(tmp),
				    (int)(fl[1] > 40 ? 40 : fl[1]), f[1]);
			continue;
		}
		if (!(fl[2] == 1 && *f[2] == '-') && !fw_recipe_valid_name(f[2], fl[2])) {
			fw_diag_add(d, path, it.line, "%s: not a recipe name", fw_esc(tmp));
			continue;
		}
		if (!(fl[3] == 1 && *f[3] == '-')) {
			bool ok = fl[3] == 64;

			for (size_t i = 0; ok && i < 32; i++) {
				int hi = hexval(f[3][2 * i]), lo = hexval(f[3][2 * i + 1]);

				ok = hi >= 0 && lo >= 0;
				if (ok)
					r.sha256[i] = (uint8_t)(hi << 4 | lo);
			}
			if (!ok) {
				fw_diag_add(d, path, it.line, "%s: not a SHA-256 in lower-case hex",
					    fw_esc(tmp));
				continue;
			}
			r.built = true;
		}
		if (vs->n && strcmp(vs->v[vs->n - 1].blob, tmp) >= 0) {
			fw_diag_add(d, path, it.line, "%s: %s", fw_esc(tmp),
				    strcmp(vs->v[vs->n - 1].blob, tmp) ? "not sorted by blob"
								      : "listed twice");
			continue;
		}
		r.blob = strdup(tmp);
		r.recipe = dash_none(f[2], fl[2]);
		r.why = dash_none(f[4], fl[4]);
		if (!r.blob || (!r.recipe && !(fl[2] == 1 && *f[2] == '-')) ||
		    (!r.why && !(fl[4] == 1 && *f[4] == '-')) ||
		    fw_grow(&vs->v, &vs->cap, vs->n, sizeof(*vs->v)) < 0) {
			rec_free(&r);
			return -ENOMEM;
		}
		vs->v[vs->n++] = r;
	}
	if (it.line == 0)
		fw_diag_add(d, path, 0, "empty file (missing header line '%s')", FW_VERDICTS_HEADER);
	return 0;
}
