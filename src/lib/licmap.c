/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifests/licence-map: upstream licence file, wording or id -> SPDX expression and category. */
#include "licmap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "digest.h"
#include "util.h"

char *fw_licmap_normalise(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;
	bool blank = false;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			blank = o != out;
			continue;
		}
		if (blank)
			*o++ = ' ';
		blank = false;
		*o++ = c;
	}
	*o = '\0';
	return out;
}

static const char *const key_kinds[] = { "file:", "text:", "sha256:", "id:" };

int fw_licmap_parse(struct fw_licmap *m, const char *path, const char *buf, size_t len,
		    struct fw_diag *d)
{
	struct fw_lines it;
	const char *ls, *le;

	memset(m, 0, sizeof(*m));
	m->path = strdup(path);
	if (!m->path)
		return -ENOMEM;
	fw_lines_init(&it, buf, len);
	while (fw_lines_next(&it, &ls, &le)) {
		const char *f[4], *fe[4], *p = ls;
		struct fw_licmap_entry ent = { .line = it.line };
		char catbuf[32], *cat = NULL;
		const char *syn = NULL;
		enum fw_category c;
		size_t nf = 0;
		bool kind_ok = false;

		if (!fw_line_start(d, path, it.line, ls, le, FW_LICMAP_HEADER, 2 * FW_LINE_MAX))
			continue;
		if (ls == le || *ls == '#')
			continue;
		while (nf < 4) {
			const char *t = memchr(p, '\t', (size_t)(le - p));

			f[nf] = p;
			fe[nf] = (t && nf < 3) ? t : le;
			nf++;
			if (!t || nf == 4)
				break;
			p = t + 1;
		}
		if (nf != 4 || memchr(f[3], '\t', (size_t)(fe[3] - f[3]))) {
			fw_diag_add(d, path, it.line, "expected KEY<TAB>EXPRESSION<TAB>CATEGORY<TAB>REASON");
			continue;
		}
		for (int i = 0; i < 4; i++)
			if (f[i] == fe[i] || f[i][0] == ' ' || fe[i][-1] == ' ') {
				fw_diag_add(d, path, it.line, "field %d empty or with blanks around it",
					    i + 1);
				goto next;
			}
		ent.key = fw_strndup(f[0], (size_t)(fe[0] - f[0]));
		ent.expr = fw_strndup(f[1], (size_t)(fe[1] - f[1]));
		ent.reason = fw_strndup(f[3], (size_t)(fe[3] - f[3]));
		if (!ent.key || !ent.expr || !ent.reason)
			goto nomem;
		for (size_t k = 0; k < FW_ARRAY_SIZE(key_kinds); k++)
			if (strncmp(ent.key, key_kinds[k], strlen(key_kinds[k])) == 0 &&
			    ent.key[strlen(key_kinds[k])])
				kind_ok = true;
		if (!kind_ok) {
			fw_diag_add(d, path, it.line,
				    "'%s': key is not file:NAME, text:WORDING, sha256:DIGEST or id:ID",
				    fw_esc(ent.key));
			goto bad;
		}
		if (strncmp(ent.key, "sha256:", 7) == 0) {
			uint8_t dig[FW_SHA256_LEN];
			bool lower = true;

			for (const char *q = ent.key + 7; *q; q++)
				lower &= !(*q >= 'A' && *q <= 'F');
			if (!lower || fw_sha256_parse(ent.key + 7, strlen(ent.key + 7), dig) < 0) {
				fw_diag_add(d, path, it.line, "'%s': not 64 lower-case hex digits",
					    fw_esc(ent.key));
				goto bad;
			}
		}
		if (fw_spdx_eval(NULL, ent.expr, &c, NULL, NULL, &syn) < 0) {
			fw_diag_add(d, path, it.line, "'%s': %s", fw_esc(ent.expr),
				    syn ? syn : "bad expression");
			goto bad;
		}
		if (strncmp(ent.key, "id:", 3) == 0 && strcmp(ent.key + 3, ent.expr) != 0) {
			fw_diag_add(d, path, it.line, "%s: the expression of an id: line is the id",
				    fw_esc(ent.key));
			goto bad;
		}
		if ((size_t)(fe[2] - f[2]) >= sizeof(catbuf)) {
			fw_diag_add(d, path, it.line, "unknown category");
			goto bad;
		}
		memcpy(catbuf, f[2], (size_t)(fe[2] - f[2]));
		catbuf[fe[2] - f[2]] = '\0';
		cat = catbuf;
		if (fw_category_parse(cat, &ent.cat) < 0) {
			fw_diag_add(d, path, it.line,
				    "unknown category '%s' (free, copyleft, non-free or undistributable)",
				    fw_esc(cat));
			goto bad;
		}
		if (m->n > 0 && strcmp(m->v[m->n - 1].key, ent.key) >= 0) {
			if (strcmp(m->v[m->n - 1].key, ent.key) == 0)
				fw_diag_add(d, path, it.line, "%s: listed twice (first at line %u)",
					    fw_esc(ent.key), m->v[m->n - 1].line);
			else
				fw_diag_add(d, path, it.line, "%s: out of order (the file is kept sorted)",
					    fw_esc(ent.key));
			goto bad;
		}
		if (fw_grow(&m->v, &m->cap, m->n, sizeof(*m->v)) < 0)
			goto nomem;
		m->v[m->n++] = ent;
		continue;
bad:
		free(ent.key);
		free(ent.expr);
		free(ent.reason);
next:
		continue;
nomem:
		free(ent.key);
		free(ent.expr);
		free(ent.reason);
		return -ENOMEM;
	}
	if (it.line == 0)
		fw_diag_add(d, path, 0, "empty file (missing header line '%s')", FW_LICMAP_HEADER);
	return 0;
}

void fw_licmap_free(struct fw_licmap *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].key);
		free(m->v[i].expr);
		free(m->v[i].reason);
	}
	free(m->v);
	free(m->path);
	memset(m, 0, sizeof(*m));
}

static int cmp_key(const void *key, const void *elem)
{
	return strcmp(key, ((const struct fw_licmap_entry *)elem)->key);
}

const struct fw_licmap_entry *fw_licmap_find(const struct fw_licmap *m, const char *key)
{
	if (!m->n)
		return NULL;
	return bsearch(key, m->v, m->n, sizeof(*m->v), cmp_key);
}

/* The category and reason of an id: its id: line, else a file: or text:
 * line whose expression is exactly the id. */
const struct fw_licmap_entry *fw_licmap_id(const struct fw_licmap *m, const char *id)
{
	char *key = fw_asprintf("id:%s", id);
	const struct fw_licmap_entry *e = key ? fw_licmap_find(m, key) : NULL;

	free(key);
	for (size_t i = 0; !e && i < m->n; i++)
		if (strcmp(m->v[i].expr, id) == 0)
			e = &m->v[i];
	return e;
}

/* Is the token a file name as linux-firmware's Licence: lines give them
 * ("See LICENCE.foo for details.", "See GPL-3 for details.", "See
 * LICENSE.qcom and qcom/NOTICE.txt", "See LICENSES/LicenseRef-x.txt.")?
 * Only these shapes: prose after "see" ("see below") names no file. */
static bool names_a_file(const char *tok)
{
	static const char *const starts[] = { "LICENCE", "LICENSE", "COPYING", "GPL-", "LGPL-",
					      "NOTICE" };

	if (strstr(tok, "://"))
		return false;
	for (size_t i = 0; i < FW_ARRAY_SIZE(starts); i++)
		if (strncmp(tok, starts[i], strlen(starts[i])) == 0)
			return true;
	return strchr(tok, '/') != NULL;
}

/* The token at q: to a blank or quote, without trailing punctuation. */
static const char *token_end(const char *q)
{
	const char *e = q;

	while (*e && *e != ' ' && *e != '`' && *e != '"' && *e != '\'')
		e++;
	while (e > q && strchr(".,;:)", e[-1]))
		e--;
	return e;
}

int fw_licmap_wording_files(const char *s, char ***files, size_t *n)
{
	const char *p;

	*files = NULL;
	*n = 0;
	for (p = s; (p = strcasestr(p, "see ")); p += 4) {
		const char *q = p + 4;

		if (p > s && p[-1] != ' ' && p[-1] != '(' && p[-1] != '.' && p[-1] != ',')
			continue;
		for (;;) {
			const char *e;
			char *tok;

			while (*q == ' ' || *q == '(' || *q == '`' || *q == '"' || *q == '\'')
				q++;
			e = token_end(q);
			tok = fw_strndup(q, (size_t)(e - q));
			if (!tok)
				goto nomem;
			if (!names_a_file(tok)) {
				free(tok);
				break;
			}
			{
				char **v = realloc(*files, (*n + 2) * sizeof(**files));

				if (!v) {
					free(tok);
					goto nomem;
				}
				*files = v;
			}
			(*files)[(*n)++] = tok;
			(*files)[*n] = NULL;
			/* "See A and B", "See A, B and C": the files go on. */
			q = e;
			if (*q == ',')
				q++;
			else if (*q != ' ')
				break;
			while (*q == ' ')
				q++;
			if (strncmp(q, "and ", 4) == 0)
				q += 4;
			else if (*e != ',')
				break;
		}
		if (*n)
			break; /* the first "See" that names files */
	}
	return 0;
nomem:
	for (size_t i = 0; i < *n; i++)
		free((*files)[i]);
	free(*files);
	*files = NULL;
	*n = 0;
	return -ENOMEM;
}
