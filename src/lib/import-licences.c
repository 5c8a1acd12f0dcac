/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist import: licences: classifying upstream's licence groups by the map, finding their texts, writing them. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "licmap.h"
#include "import-int.h"
#include "manifest.h"
#include "util.h"

/* --vouch: the installed tree's wording classified as FW_IMPORT_VOUCHED,
 * unless the map classifies it itself. Kept sorted. 0 or -ENOMEM. */
int imp_licmap_vouch(struct fw_licmap *m)
{
	static const char key[] = "text:" FW_IMPORT_INSTALLED_WORDING;
	struct fw_licmap_entry e = { .cat = FW_CAT_NONFREE };
	size_t at = 0;

	if (fw_licmap_find(m, key))
		return 0;
	e.key = strdup(key);
	e.expr = strdup(FW_IMPORT_VOUCHED);
	e.reason = strdup("an installed tree its importer vouches for (import --vouch); "
			  "its licence is not classified");
	if (!e.key || !e.expr || !e.reason || fw_grow(&m->v, &m->cap, m->n, sizeof(*m->v)) < 0) {
		free(e.key);
		free(e.expr);
		free(e.reason);
		return -ENOMEM;
	}
	while (at < m->n && strcmp(m->v[at].key, e.key) < 0)
		at++;
	memmove(&m->v[at + 1], &m->v[at], (m->n - at) * sizeof(*m->v));
	m->v[at] = e;
	m->n++;
	return 0;
}


struct ids_ctx {
	struct imp *im;
	const char *unknown; /* first id the map lacks */
	char unk[256];
};

static int each_id(void *ctx, const char *id, size_t len)
{
	struct ids_ctx *c = ctx;
	struct idinfo *x;
	int r = imp_add_id(c->im, id, len, &x);

	if (r < 0)
		return r;
	if (!x->map)
		x->map = fw_licmap_id(&c->im->map, x->id);
	if (!x->map && !c->unknown) {
		snprintf(c->unk, sizeof(c->unk), "%s", x->id);
		c->unknown = c->unk;
	}
	return 0;
}

/* The first file an inline wording points at ("See LICENCE.foo for
 * details."), or NULL: fw_licmap_wording_files, as check reads it. */
char *imp_wording_file(const char *s)
{
	char **files, *first;
	size_t n;

	if (fw_licmap_wording_files(s, &files, &n) < 0 || !n)
		return NULL;
	first = files[0];
	for (size_t k = 1; k < n; k++)
		free(files[k]);
	free(files);
	return first;
}

/* Further SPDX lines of the group whose first is at line ln (upstream's
 * ib_qib block has two): the parser joins them with AND into the first
 * one's expression, so that line gets the whole expression and these
 * become prose; left as they are, a refusal or a normalised id on the
 * first line would leave them naming a licence of their own. Returns how
 * many, or -ENOMEM. */
static int further_spdx_lines(struct imp *im, unsigned ln)
{
	int n = 0;

	for (unsigned i = ln + 1; i <= im->nlines; i++) {
		const char *s = im->lines[i];
		size_t len = im->lens[i];
		enum fw_whence_kw kw = fw_whence_keyword(s, len, NULL);

		/* The group ends at a separator or an entry's line. */
		if (fw_whence_is_sep(s, len) || kw == FW_KW_DRIVER || kw == FW_KW_FILE ||
		    kw == FW_KW_RAWFILE || kw == FW_KW_LINK || kw == FW_KW_SOURCE)
			break;
		if (kw != FW_KW_SPDX)
			continue;
		if (imp_set_replace(im, i, fw_asprintf("# fwdist import: joined to the SPDX line above: %.*s",
						   (int)len, s)) < 0)
			return -ENOMEM;
		n++;
	}
	return n;
}

/* A group's wording: its Licence: paragraph, to the next keyword line or
 * separator, normalised as the map keys it; where the paragraph ends. */
static int group_wording(struct imp *im, const struct fw_whence_licence *l, struct group *gr)
{
	size_t cap = 0, n = 0;
	char *all = NULL;
	unsigned ln = l->text_line;
	const char *s = im->lines[ln];
	size_t k = strncmp(s, "Licence:", 8) == 0 || strncmp(s, "License:", 8) == 0 ? 8 : 0;

	for (; ln <= im->nlines; ln++) {
		const char *ls = im->lines[ln] + (ln == l->text_line ? k : 0);
		size_t len = im->lens[ln] - (ln == l->text_line ? k : 0);

		if (ln > l->text_line &&
		    (fw_whence_keyword(im->lines[ln], im->lens[ln], NULL) != FW_KW_NONE ||
		     fw_whence_is_sep(im->lines[ln], im->lens[ln])))
			break;
		if (imp_add_line(&all, &n, &cap, ls, len) < 0) {
			free(all);
			return -ENOMEM;
		}
		for (size_t j = 0; j < im->lens[ln]; j++)
			if (im->lines[ln][j] != ' ' && im->lines[ln][j] != '\t') {
				gr->para_end = ln;
				break;
			}
	}
	gr->wording = fw_licmap_normalise(all ? all : "", n);
	free(all);
	return gr->wording ? 0 : -ENOMEM;
}

/* The map's entry for a group's wording: its text: key, else the
 * SHA-256 of it (hex into hex), else the file: key of the file it names
 * ("See LICENCE.foo"). *inline_hit: by the wording itself. */
static int wording_entry(struct imp *im, const struct group *gr, char *hex,
			 const struct fw_licmap_entry **out, bool *inline_hit)
{
	char *key = fw_asprintf("text:%s", gr->wording), *file = NULL;
	const struct fw_licmap_entry *e;
	uint8_t dig[FW_SHA256_LEN];
	struct fw_sha256 h;
	int r;

	if (!key)
		return -ENOMEM;
	e = fw_licmap_find(&im->map, key);
	free(key);
	/* Long wordings are keyed by their digest (the map then holds no
	 * third-party text, and still matches exactly). */
	r = fw_sha256_init(&h);
	if (r == 0)
		r = fw_sha256_update(&h, gr->wording, strlen(gr->wording));
	if (r == 0)
		r = fw_sha256_final(&h, dig);
	fw_sha256_free(&h);
	if (r < 0)
		return r;
	fw_sha256_hex(dig, hex);
	if (!e) {
		key = fw_asprintf("sha256:%s", hex);
		if (!key)
			return -ENOMEM;
		e = fw_licmap_find(&im->map, key);
		free(key);
	}
	*inline_hit = e != NULL;
	if (!e && (file = imp_wording_file(gr->wording))) {
		key = fw_asprintf("file:%s", file);
		e = key ? fw_licmap_find(&im->map, key) : NULL;
		free(key);
	}
	free(file);
	*out = e;
	return 0;
}

struct has_id {
	const char *id;
	bool found;
};

static bool same_text(const char *a, const char *b);

static int covers(void *ctx, const char *id, size_t len)
{
	struct has_id *c = ctx;
	char buf[256];

	if (len < sizeof(buf)) {
		memcpy(buf, id, len);
		buf[len] = '\0';
		if (same_text(buf, c->id))
			c->found = true;
	}
	return 0;
}

struct named_ctx {
	struct imp *im;
	struct group *gr;
	const struct fw_whence_licence *l;
	const char *file;
	int changed;
};

/* An id of the map's expression for a file the wording names: kept when
 * the group's expression has it (or its text: GPL-2.0-only for
 * GPL-2.0-or-later), added with AND when it is a text of its own (a
 * LicenseRef: a vendor's notice shipped with the licence); a standard
 * licence the group's does not name ("GPLv2 or later. See GPL-2 and
 * GPL-3") is the wording's reading aid, not a term of its own. */
static int named_id(void *ctx, const char *id, size_t len)
{
	struct named_ctx *c = ctx;
	struct has_id h = { 0 };
	char *idz = fw_strndup(id, len), *x;

	if (!idz)
		return -ENOMEM;
	h.id = idz;
	fw_spdx_eval(NULL, c->gr->expr, &(enum fw_category){ 0 }, covers, &h, &(const char *){ NULL });
	if (h.found || strncmp(idz, "LicenseRef-", 11) != 0) {
		free(idz);
		return 0;
	}
	x = strstr(c->gr->expr, " OR ") ? fw_asprintf("(%s) AND %s", c->gr->expr, idz) :
					  fw_asprintf("%s AND %s", c->gr->expr, idz);
	if (!x ||
	    imp_strv_take(&c->im->rep->notes,
			  fw_asprintf("WHENCE:%u: %s, which its wording names, ships with its blobs: %s",
				      c->l->text_line, fw_esc(c->file), x)) < 0) {
		free(idz);
		free(x);
		return -ENOMEM;
	}
	free(idz);
	free(c->gr->expr);
	c->gr->expr = x;
	c->changed = 1;
	return 0;
}

/* Every file a classified group's wording names ("See A and B") is
 * shipped with its blobs, under LICENSES/ as the id the map gives it: its
 * id joins the expression when it is not there. A file the map has no
 * file: line for refuses the group (its text could not be found through
 * LICENSES/). */
static int named_files(struct imp *im, struct group *gr, const struct fw_whence_licence *l)
{
	char **files;
	size_t n;
	int r, changed = 0;

	if (!gr->wording || !gr->expr)
		return 0;
	r = fw_licmap_wording_files(gr->wording, &files, &n);
	for (size_t k = 0; k < n; k++) {
		char *key = r == 0 ? fw_asprintf("file:%s", files[k]) : NULL;
		const struct fw_licmap_entry *e = key ? fw_licmap_find(&im->map, key) : NULL;
		struct named_ctx c = { .im = im, .gr = gr, .l = l, .file = files[k] };

		if (r == 0 && !key)
			r = -ENOMEM;
		free(key);
		if (r == 0 && !e && !gr->refused) {
			gr->refused = true;
			gr->why = "its wording names a licence file the licence map has no file: line for";
			gr->cause = IMP_REFUSED_UNKNOWN;
			r = imp_strv_take(&im->rep->unknown,
					  fw_asprintf("WHENCE:%u: file:%s", l->text_line, fw_esc(files[k])));
		} else if (r == 0 && e && !gr->refused) {
			struct idinfo *x;

			r = fw_spdx_eval(NULL, e->expr, &(enum fw_category){ 0 }, named_id, &c,
					 &(const char *){ NULL });
			changed |= c.changed;
			/* The report names a missing text by the file the
			 * wording names ("add LICENCE.foo"). */
			if (r == 0 && !strchr(e->expr, ' '))
				r = imp_add_id(im, e->expr, strlen(e->expr), &x);
			if (r == 0 && !strchr(e->expr, ' ') && !x->named_as &&
			    !(x->named_as = strdup(files[k])))
				r = -ENOMEM;
		}
		free(files[k]);
	}
	free(files);
	if (r < 0)
		return r;
	if (gr->refused) {
		free(gr->expr);
		gr->expr = NULL;
		return 0;
	}
	if (changed && l->spdx_line) {
		free(im->replace[l->spdx_line]);
		im->replace[l->spdx_line] = NULL;
		r = imp_set_replace(im, l->spdx_line,
				    fw_asprintf("SPDX-License-Identifier: %s", gr->expr));
	}
	if (r == 0 && changed) {
		struct ids_ctx c = { .im = im };

		r = fw_spdx_eval(NULL, gr->expr, &(enum fw_category){ 0 }, each_id, &c,
				 &(const char *){ NULL });
		if (r == 0 && c.unknown) {
			gr->refused = true;
			gr->why = "an id of its map expression has no category in the map";
			gr->cause = IMP_REFUSED_UNKNOWN;
			free(gr->expr);
			gr->expr = NULL;
			r = imp_strv_take(&im->rep->unknown,
					  fw_asprintf("WHENCE:%u: id:%s", l->text_line, c.unknown));
		}
	}
	return r;
}

/* Where a group has an SPDX line, it decides; its wording, classified by
 * the map, is a cross-check: a disagreement is said, not settled (the
 * files the wording names ship all the same, named_files). */
static int cross_check(struct imp *im, const struct group *gr, const struct fw_whence_licence *l)
{
	const struct fw_licmap_entry *e;
	char hex[FW_SHA256_HEX + 1];
	bool inl;
	int r;

	if (!gr->wording || !gr->expr)
		return 0;
	r = wording_entry(im, gr, hex, &e, &inl);
	if (r < 0 || !e || strcmp(e->expr, gr->expr) == 0)
		return r;
	{
		struct has_id h = { .id = e->expr };

		/* One id the SPDX line names too (its text the same). */
		if (!strchr(e->expr, ' ')) {
			fw_spdx_eval(NULL, gr->expr, &(enum fw_category){ 0 }, covers, &h,
				     &(const char *){ NULL });
			if (h.found)
				return 0;
		}
	}
	r = imp_strv_take(&im->rep->notes,
			  fw_asprintf("WHENCE:%u: the SPDX line says %s, the Licence: wording %s "
				      "(%s:%u): the SPDX line decides, the files the wording "
				      "names ship too; settle it upstream or in the map",
				      l->spdx_line, gr->expr, e->expr, im->map.path, e->line));
	return r;
}

/* Classify every licence group: its own SPDX line, else the wording, else
 * the file the wording names. */
int imp_classify(struct imp *im)
{
	struct fw_whence *w = &im->w;

	im->groups = calloc(w->nlicences + 1, sizeof(*im->groups));
	if (!im->groups)
		return -ENOMEM;
	for (size_t g = 0; g < w->nlicences; g++) {
		const struct fw_whence_licence *l = &w->licences[g];
		struct group *gr = &im->groups[g];
		struct ids_ctx c = { .im = im };
		const char *syn;
		int r;

		if (l->text_line && group_wording(im, l, gr) < 0)
			return -ENOMEM;
		if (l->spdx) {
			/* SPDX ids are letters, digits, '.' and '-'; upstream's
			 * LicenseRef-LICENCE.foo_bar become LicenseRef-LICENCE.foo-bar. */
			char *norm = strdup(l->spdx);

			if (!norm)
				return -ENOMEM;
			for (char *q = norm; *q; q++)
				if (*q == '_')
					*q = '-';
			r = further_spdx_lines(im, l->spdx_line);
			if (r < 0 ||
			    ((strcmp(norm, l->spdx) != 0 || r > 0) &&
			     imp_set_replace(im, l->spdx_line,
					 fw_asprintf("SPDX-License-Identifier: %s", norm)) < 0)) {
				free(norm);
				return -ENOMEM;
			}
			r = fw_spdx_eval(NULL, norm, &(enum fw_category){ 0 }, each_id, &c, &syn);
			if (r == -ENOMEM)
				return r;
			if (r < 0) {
				gr->refused = true;
				gr->why = "bad SPDX expression";
				gr->cause = IMP_REFUSED_UNKNOWN;
			} else if (c.unknown) {
				gr->refused = true;
				gr->why = "licence not in the licence map";
				gr->cause = IMP_REFUSED_UNKNOWN;
				if (imp_strv_take(&im->rep->unknown,
					      fw_asprintf("WHENCE:%u: id:%s", l->spdx_line, c.unknown)) < 0)
					return -ENOMEM;
			} else {
				gr->expr = norm;
				norm = NULL;
			}
			free(norm);
			r = cross_check(im, gr, l);
			if (r >= 0)
				r = named_files(im, gr, l);
			if (r < 0)
				return r;
			continue;
		}
		if (!gr->wording) {
			gr->refused = true;
			gr->why = "no licence";
			gr->cause = IMP_REFUSED_NO_LICENCE;
			continue;
		}
		{
			const struct fw_licmap_entry *e;
			char hex[FW_SHA256_HEX + 1];
			bool inl;

			r = wording_entry(im, gr, hex, &e, &inl);
			if (r < 0)
				return r;
			if (e && inl)
				gr->inline_id = e->expr;
			if (!e) {
				gr->refused = true;
				gr->why = "licence not in the licence map";
				gr->cause = IMP_REFUSED_UNKNOWN;
				if (imp_strv_take(&im->rep->unknown,
					      fw_asprintf("WHENCE:%u: sha256:%s text:%s", l->text_line, hex,
							  fw_esc(gr->wording))) < 0)
					return -ENOMEM;
				continue;
			}
			r = fw_spdx_eval(NULL, e->expr, &(enum fw_category){ 0 }, each_id, &c, &syn);
			if (r == -ENOMEM)
				return r;
			if (c.unknown) {
				gr->refused = true;
				gr->why = "an id of its map expression has no category in the map";
				gr->cause = IMP_REFUSED_UNKNOWN;
				if (imp_strv_take(&im->rep->unknown,
					      fw_asprintf("WHENCE:%u: id:%s", l->text_line, c.unknown)) < 0)
					return -ENOMEM;
				continue;
			}
			gr->expr = strdup(e->expr);
			if (!gr->expr)
				return -ENOMEM;
			r = named_files(im, gr, l);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* A text that is not UTF-8 is taken as ISO-8859-1 (upstream's LICENCE.NXP
 * and LICENCE.open-ath9k-htc-firmware are): into UTF-8, into a new buffer.
 * A control byte no text has (C0 but tab, LF, FF, CR; DEL; C1) makes it
 * neither: -EILSEQ. */
static int latin1_to_utf8(const char *b, size_t n, char **out, size_t *outlen)
{
	size_t extra = 0;
	char *o, *p;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)b[i];

		if ((c < 0x20 && c != '\t' && c != '\n' && c != '\f' && c != '\r') ||
		    (c >= 0x7f && c < 0xa0))
			return -EILSEQ;
		extra += c >= 0x80;
	}
	o = malloc(n + extra + 1);
	if (!o)
		return -ENOMEM;
	p = o;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)b[i];

		if (c < 0x80) {
			*p++ = (char)c;
		} else {
			*p++ = (char)(0xc0 | c >> 6);
			*p++ = (char)(0x80 | (c & 0x3f));
		}
	}
	*p = '\0';
	*out = o;
	*outlen = (size_t)(p - o);
	return 0;
}

/* Read a licence text found at dirfd/name (never out of dirfd): LF line
 * ends, no NUL, not empty, UTF-8 (an ISO-8859-1 text converted: *latin1,
 * and the SHA-256 of the bytes as they were into orig when orig is not
 * NULL). -EILSEQ: neither UTF-8 nor ISO-8859-1 text. */
int imp_read_licence(int dirfd, const char *name, char **buf, size_t *len, bool *crlf,
		     bool *latin1, uint8_t *orig)
{
	int fd = fw_open_resolve(dirfd, name, O_RDONLY | O_NONBLOCK);
	char *b, *o;
	size_t n;
	int r;

	if (fd < 0)
		return fd;
	close(fd);
	/* fw_read_text does not follow a final symlink: read what resolved. */
	fd = fw_open_resolve(dirfd, name, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	{
		struct stat st;
		ssize_t got;

		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)FW_TEXT_MAX ||
		    st.st_size == 0) {
			close(fd);
			return -EINVAL;
		}
		b = malloc((size_t)st.st_size + 1);
		if (!b) {
			close(fd);
			return -ENOMEM;
		}
		n = 0;
		while (n < (size_t)st.st_size &&
		       (got = read(fd, b + n, (size_t)st.st_size - n)) != 0) {
			if (got < 0) {
				if (errno == EINTR)
					continue;
				r = -errno;
				free(b);
				close(fd);
				return r;
			}
			n += (size_t)got;
		}
		close(fd);
	}
	if (memchr(b, '\0', n)) {
		free(b);
		return -EILSEQ;
	}
	b[n] = '\0';
	*latin1 = !fw_utf8_valid(b);
	if (*latin1) {
		char *c;
		size_t cn;

		if (orig) {
			struct fw_sha256 h;

			r = fw_sha256_init(&h);
			if (r == 0)
				r = fw_sha256_update(&h, b, n);
			if (r == 0)
				r = fw_sha256_final(&h, orig);
			fw_sha256_free(&h);
			if (r < 0) {
				free(b);
				return r;
			}
		}
		r = latin1_to_utf8(b, n, &c, &cn);
		free(b);
		if (r < 0)
			return r;
		b = c;
		n = cn;
	}
	*crlf = false;
	o = b;
	for (size_t i = 0; i < n; i++) {
		if (b[i] == '\r' && i + 1 < n && b[i + 1] == '\n') {
			*crlf = true;
			continue;
		}
		*o++ = b[i];
	}
	*o = '\0';
	*buf = b;
	*len = (size_t)(o - b);
	return 0;
}

/* "GPL-2.0-or-later" and "GPL-2.0-only" share one text. */
static bool same_text(const char *a, const char *b)
{
	size_t la, lb;

	if (strcmp(a, b) == 0)
		return true;
	la = strcspn(a, "+");
	lb = strcspn(b, "+");
	if (strlen(a) > 9 && strcmp(a + strlen(a) - 9, "-or-later") == 0)
		la = strlen(a) - 9;
	else if (strlen(a) > 5 && strcmp(a + strlen(a) - 5, "-only") == 0)
		la = strlen(a) - 5;
	if (strlen(b) > 9 && strcmp(b + strlen(b) - 9, "-or-later") == 0)
		lb = strlen(b) - 9;
	else if (strlen(b) > 5 && strcmp(b + strlen(b) - 5, "-only") == 0)
		lb = strlen(b) - 5;
	return la == lb && memcmp(a, b, la) == 0;
}

static int try_text(struct imp *im, struct idinfo *x, int dirfd, const char *dir, const char *name)
{
	char *path = fw_asprintf("%s%s", dir, name);
	bool crlf = false, latin1 = false;
	int r;

	if (!path)
		return -ENOMEM;
	r = fw_name_problem(path) ? -EINVAL : imp_read_licence(dirfd, path, &x->text, &x->len, &crlf,
							      &latin1, x->orig);
	if (r == 0 && crlf)
		r = imp_strv_take(&im->rep->notes,
			      fw_asprintf("licence text %s: CRLF line ends converted", fw_esc(path)));
	if (r == 0 && latin1) {
		x->latin1 = true;
		r = imp_strv_take(&im->rep->notes,
			      fw_asprintf("%s: converted from ISO-8859-1", fw_esc(path)));
	}
	if (r == 0 && dirfd == im->srcfd && !(x->found = strdup(path)))
		r = -ENOMEM;
	if (r == -EILSEQ && !x->bad) {
		x->bad = path;
		path = NULL;
	}
	free(path);
	return r == -ENOMEM ? r : 0;
}

int imp_text_names(const struct imp *im, const struct idinfo *x, struct fw_strv *names)
{
	int r = 0;

	for (size_t k = 0; k < im->map.n && r == 0; k++)
		if (strncmp(im->map.v[k].key, "file:", 5) == 0 &&
		    same_text(im->map.v[k].expr, x->id) && !imp_strv_has(names, im->map.v[k].key + 5))
			r = imp_strv_take(names, strdup(im->map.v[k].key + 5));
	if (r == 0)
		r = imp_strv_take(names, fw_asprintf("%s.txt", x->id));
	if (r == 0)
		r = imp_strv_take(names, strdup(x->id));
	return r;
}

/* Find the text of every id in use: the licence files the map names for
 * it, then ID and ID.txt, at the top of SRC, in SRC/LICENSES/ and in each
 * --licence-dir; else, for an id an inline wording defines, the wording. */
int imp_find_texts(struct imp *im)
{
	for (size_t i = 0; i < im->nids; i++) {
		struct idinfo *x = &im->ids[i];
		struct fw_strv names = { 0 };
		int r = 0;

		if (!x->used || strcmp(x->id, FW_IMPORT_REFUSED) == 0)
			continue;
		r = imp_text_names(im, x, &names);
		for (size_t k = 0; k < names.n && r == 0 && !x->text; k++) {
			r = try_text(im, x, im->srcfd, "", names.v[k]);
			if (r == 0 && !x->text)
				r = try_text(im, x, im->srcfd, "LICENSES/", names.v[k]);
			for (size_t j = 0; j < im->o->nlicence_dirs && r == 0 && !x->text; j++)
				if (im->licfds[j] >= 0)
					r = try_text(im, x, im->licfds[j], "", names.v[k]);
		}
		fw_strv_free(&names);
		if (r < 0)
			return r;
		if (x->text)
			continue;
		/* An inline licence is its own text. */
		for (size_t g = 0; g < im->w.nlicences && !x->text; g++) {
			const struct fw_whence_licence *l = &im->w.licences[g];
			size_t n = 0, cap = 0;
			char *t = NULL;

			if (!im->groups[g].inline_id || strcmp(im->groups[g].inline_id, x->id) != 0)
				continue;
			if (im->groups[g].wording &&
			    strncmp(im->groups[g].wording, DEP5_WORDING, strlen(DEP5_WORDING)) == 0) {
				const char *nm = im->groups[g].wording + strlen(DEP5_WORDING);

				for (size_t k = 0; k < im->dep5.ntexts && !x->text; k++)
					if (strcmp(im->dep5.names[k], nm) == 0) {
						x->text = strdup(im->dep5.texts[k]);
						if (!x->text)
							return -ENOMEM;
						x->len = strlen(x->text);
					}
				if (x->text)
					break;
			}
			for (unsigned ln = l->text_line; ln <= im->groups[g].para_end; ln++) {
				const char *s = im->lines[ln];
				size_t len = im->lens[ln];

				if (ln == l->text_line) {
					s += 8;
					len -= 8;
					while (len && (*s == ' ' || *s == '\t'))
						s++, len--;
					if (!len)
						continue;
				}
				if (imp_add_line(&t, &n, &cap, s, len) < 0)
					return -ENOMEM;
			}
			x->text = t;
			x->len = n;
		}
	}
	return 0;
}

/* The texts the report names as missing: of the ids a group with entries
 * left wanted (not those of a group whose files are all absent, nor again
 * those of a group refused already because the licence file its wording
 * names is missing, which is reported by that name). */
int imp_report_no_text(struct imp *im)
{
	for (size_t i = 0; i < im->nids; i++) {
		const struct idinfo *x = &im->ids[i];

		if (x->wanted && !x->text &&
		    imp_strv_take(&im->rep->no_text,
			      x->named_as ? fw_asprintf("%s (a licence file WHENCE names)",
							fw_esc(x->named_as)) :
			      x->map ? fw_asprintf("%s (map: %s:%u)", x->id, im->map.path, x->map->line)
				     : strdup(x->id)) < 0)
			return -ENOMEM;
	}
	return 0;
}

int imp_notext_id(void *ctx, const char *id, size_t len)
{
	struct notext_ctx *c = ctx;

	for (size_t i = 0; i < c->im->nids; i++)
		if (strlen(c->im->ids[i].id) == len && memcmp(c->im->ids[i].id, id, len) == 0 &&
		    !c->im->ids[i].text) {
			c->missing = true;
			c->im->ids[i].wanted = true;
		}
	return 0;
}


int imp_write_policy(struct imp *im)
{
	char **lines = calloc(im->nids + 1, sizeof(*lines));
	size_t n = 0, total = 0;
	char *buf, *p;
	int r = 0;

	if (!lines)
		return -ENOMEM;
	for (size_t i = 0; i < im->nids; i++) {
		const struct idinfo *x = &im->ids[i];

		if (!x->used)
			continue;
		if (strcmp(x->id, FW_IMPORT_REFUSED) == 0)
			lines[n] = fw_asprintf("%-36s %-16s %s\n", x->id, "undistributable",
					       "refused at import: licence not classified or text not found");
		else if (x->text)
			lines[n] = fw_asprintf("%-36s %-16s %s\n", x->id,
					       fw_category_name(x->map->cat), x->map->reason);
		else
			continue;
		if (!lines[n]) {
			r = -ENOMEM;
			goto out;
		}
		total += strlen(lines[n++]);
	}
	if (n > 1)
		qsort(lines, n, sizeof(*lines), fw_strcmp_ptr);
	buf = malloc(total + 256);
	if (!buf) {
		r = -ENOMEM;
		goto out;
	}
	p = buf + sprintf(buf, "# fwdist licence policy 1\n# Written by fwdist import from %s.\n",
			  FW_TREE_LICMAP);
	for (size_t i = 0; i < n; i++)
		p = stpcpy(p, lines[i]);
	r = fw_write_atomic(im->stagefd, FW_TREE_POLICY, buf, (size_t)(p - buf), 0644);
	free(buf);
out:
	fw_free_strv(lines, n);
	return r;
}

static const char refused_text[] =
	"Refused at import by fwdist.\n"
	"\n"
	"The blobs under this identifier were listed by the upstream tree, but\n"
	"their licence is not classified by manifests/licence-map, or its text\n"
	"was not found. They are listed in WHENCE for the record and are neither\n"
	"copied nor installed nor packaged until the licence is classified.\n";

int imp_write_texts(struct imp *im)
{
	int r = fw_mkdirat(im->stagefd, FW_TREE_LICENSES, 0755);

	if (r < 0 && r != -EEXIST)
		return r;
	for (size_t i = 0; i < im->nids; i++) {
		const struct idinfo *x = &im->ids[i];
		char *path;

		if (!x->used)
			continue;
		if (!x->text && strcmp(x->id, FW_IMPORT_REFUSED) != 0)
			continue;
		if (fw_name_problem(x->id) || strchr(x->id, '/'))
			continue;
		path = fw_asprintf("%s/%s.txt", FW_TREE_LICENSES, x->id);
		if (!path)
			return -ENOMEM;
		r = x->text ? fw_write_atomic(im->stagefd, path, x->text, x->len, 0644) :
			      fw_write_atomic(im->stagefd, path, refused_text, sizeof(refused_text) - 1,
					      0644);
		free(path);
		if (r < 0)
			return r;
	}
	return 0;
}
