/* SPDX-License-Identifier: GPL-2.0-or-later */
/* WHENCE parser: linux-firmware's grammar, strict about syntax, silent about prose. */
#include "whence.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *fw_entry_kind_name(enum fw_entry_kind k)
{
	switch (k) {
	case FW_E_FILE: return "File";
	case FW_E_RAWFILE: return "RawFile";
	case FW_E_LINK: return "Link";
	case FW_E_SOURCE: return "Source";
	}
	return "?";
}

static const struct {
	const char *word;
	enum fw_whence_kw kw;
} keywords[] = {
	{ "Driver:", FW_KW_DRIVER },
	{ "File:", FW_KW_FILE },
	{ "RawFile:", FW_KW_RAWFILE },
	{ "Link:", FW_KW_LINK },
	{ "Source:", FW_KW_SOURCE },
	{ "Version:", FW_KW_VERSION },
	{ "Info:", FW_KW_INFO },
	{ "Licence:", FW_KW_LICENCE },
	{ "License:", FW_KW_LICENCE },
	{ "SPDX-License-Identifier:", FW_KW_SPDX },
};

struct parser {
	struct fw_whence *w;
	struct fw_diag *d;
	unsigned line;
	bool in_block;     /* after a Driver: or a keyword line since the last separator */
	bool block_driver; /* current block has its Driver: line */
	unsigned group;    /* current Source group, 0 none yet */
	bool files_pending_src; /* Files since the last Source line */
	unsigned lic;      /* current licence group (1-based), 0 none yet */
	size_t lic_pending; /* entries since the last licence line are [lic_pending, nentries) */
	long last_file;    /* index of the last File/RawFile in the block, -1 none */
};

bool fw_whence_is_sep(const char *s, size_t n)
{
	size_t i = 0;

	/* A line of dashes (upstream uses 74; any run of ten or more counts),
	 * optionally followed by blanks. */
	while (i < n && s[i] == '-')
		i++;
	if (i < 10)
		return false;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i == n;
}

static const char *skip_blank(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

static const char *trim_end(const char *s, const char *e)
{
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	return e;
}

/* The end of a bare name in [s, e): trailing blanks are not part of it, but
 * an escaped space is, so "bar\ " keeps its space. A backslash before the
 * space always escapes it: "\\" is no escape in WHENCE (parse_name refuses
 * it), so no backslash can itself be escaped. */
static const char *trim_end_bare(const char *s, const char *e)
{
	while (e > s && (e[-1] == ' ' || e[-1] == '\t')) {
		if (e[-1] == ' ' && e - 1 > s && e[-2] == '\\')
			break;
		e--;
	}
	return e;
}

/* Parse one name in [s, e): "quoted", or bare with "\ " for spaces. On
 * success *out is a new string and *endp the first byte after the name
 * (for a bare name, e). Returns NULL on success or an error message. */
static const char *parse_name(const char *s, const char *e, char **out, const char **endp,
			      unsigned *flags)
{
	char *buf, *o;

	*out = NULL;
	s = skip_blank(s, e);
	if (s < e && *s == '"') {
		const char *q = memchr(s + 1, '"', (size_t)(e - s - 1));

		if (!q)
			return "unterminated quoted name";
		*out = fw_strndup(s + 1, (size_t)(q - s - 1));
		if (!*out)
			return "out of memory";
		*endp = q + 1;
		return NULL;
	}
	e = trim_end_bare(s, e);
	buf = o = malloc((size_t)(e - s) + 1);
	if (!buf)
		return "out of memory";
	for (const char *p = s; p < e; p++) {
		if (*p == '\\') {
			/* Only "\ " is an escape in WHENCE; anything else
			 * after a backslash is refused rather than guessed. */
			if (p + 1 < e && p[1] == ' ') {
				*o++ = ' ';
				p++;
				continue;
			}
			free(buf);
			return "backslash not followed by a space";
		}
		if (*p == '"') {
			free(buf);
			return "stray quote in name";
		}
		if (*p == ' ' || *p == '\t')
			*flags |= FW_E_UNQUOTED_SPACE;
		*o++ = *p;
	}
	*o = '\0';
	*out = buf;
	*endp = e;
	return NULL;
}

static int add_entry(struct parser *p, struct fw_whence_entry *ent)
{
	struct fw_whence *w = p->w;

	if (fw_grow(&w->entries, &w->cap_entries, w->nentries, sizeof(*w->entries)) < 0)
		return -ENOMEM;
	ent->line = p->line;
	ent->block = (unsigned)(w->nblocks - 1);
	w->entries[w->nentries++] = *ent;
	w->blocks[w->nblocks - 1].count++;
	return 0;
}

static int new_block(struct parser *p)
{
	struct fw_whence *w = p->w;

	if (fw_grow(&w->blocks, &w->cap_blocks, w->nblocks, sizeof(*w->blocks)) < 0)
		return -ENOMEM;
	w->blocks[w->nblocks++] = (struct fw_whence_block){
		.line = p->line,
		.first = (unsigned)w->nentries,
	};
	p->in_block = true;
	p->block_driver = false;
	p->group = 0;
	p->files_pending_src = false;
	p->lic = 0;
	p->lic_pending = w->nentries;
	p->last_file = -1;
	return 0;
}

/* Files listed after the block's last licence line take that licence. */
static void end_block(struct parser *p)
{
	struct fw_whence *w = p->w;

	if (!p->in_block)
		return;
	for (size_t i = p->lic_pending; i < w->nentries; i++)
		w->entries[i].licence = p->lic;
	p->in_block = false;
}

static char *dup_text(const char *s, const char *e)
{
	s = skip_blank(s, e);
	e = trim_end(s, e);
	return fw_strndup(s, (size_t)(e - s));
}

static int licence_line(struct parser *p, enum fw_whence_kw kw, const char *s, const char *e)
{
	struct fw_whence *w = p->w;
	struct fw_whence_licence *l;
	char *text = dup_text(s, e);

	if (!text)
		return -ENOMEM;
	/* Entries listed since the previous licence line take a new licence
	 * group; consecutive licence lines (Licence: then SPDX:) share one. */
	if (p->lic == 0 || p->lic_pending < w->nentries) {
		if (fw_grow(&w->licences, &w->cap_licences, w->nlicences, sizeof(*w->licences)) < 0) {
			free(text);
			return -ENOMEM;
		}
		w->licences[w->nlicences++] = (struct fw_whence_licence){
			.block = (unsigned)(w->nblocks - 1),
		};
		p->lic = (unsigned)w->nlicences;
		for (size_t i = p->lic_pending; i < w->nentries; i++)
			w->entries[i].licence = p->lic;
		p->lic_pending = w->nentries;
	}
	l = &w->licences[p->lic - 1];
	if (kw == FW_KW_LICENCE) {
		if (!l->text) {
			l->text = text;
			l->text_line = p->line;
			return 0;
		}
		free(text); /* further Licence: lines continue the prose */
		return 0;
	}
	if (!*text) {
		fw_diag_add(p->d, w->path, p->line, "SPDX-License-Identifier: empty expression");
		w->errors++;
		free(text);
		return 0;
	}
	if (l->spdx) {
		/* Two expressions for the same files: both apply. */
		char *both = fw_asprintf("(%s) AND (%s)", l->spdx, text);

		free(text);
		if (!both)
			return -ENOMEM;
		free(l->spdx);
		l->spdx = both;
		return 0;
	}
	l->spdx = text;
	l->spdx_line = p->line;
	return 0;
}

enum fw_whence_kw fw_whence_keyword(const char *s, size_t n, size_t *kwlen)
{
	for (size_t i = 0; i < FW_ARRAY_SIZE(keywords); i++) {
		size_t k = strlen(keywords[i].word);

		if (n >= k && memcmp(s, keywords[i].word, k) == 0) {
			if (kwlen)
				*kwlen = k;
			return keywords[i].kw;
		}
	}
	if (kwlen)
		*kwlen = 0;
	return FW_KW_NONE;
}

static int driver_line(struct parser *p, const char *rest, const char *e)
{
	struct fw_whence *w = p->w;

	w->counts.driver++;
	/* A Driver: line opens a block, unless it is the first
	 * keyword line of the block the separator opened. */
	if (!p->in_block || p->block_driver || w->blocks[w->nblocks - 1].count > 0 ||
	    p->lic != 0) {
		/* Several Driver: lines may share one section between
		 * separators with one licence at its end (upstream's
		 * Conexant and qca sections): files of a driver with no
		 * licence line of its own stay pending for the next
		 * licence line of the section. A driver that had one is
		 * closed as before, so no driver inherits another's. */
		bool carry = p->in_block && p->lic == 0;
		size_t lic_pending = p->lic_pending;

		if (!carry)
			end_block(p);
		if (new_block(p) < 0)
			return -ENOMEM;
		if (carry)
			p->lic_pending = lic_pending;
	}
	w->blocks[w->nblocks - 1].driver = dup_text(rest, e);
	if (!w->blocks[w->nblocks - 1].driver)
		return -ENOMEM;
	w->blocks[w->nblocks - 1].line = p->line;
	p->block_driver = true;
	if (!*w->blocks[w->nblocks - 1].driver) {
		fw_diag_add(p->d, w->path, p->line, "Driver: empty driver name");
		w->errors++;
	}
	return 0;
}

/* Version: and Info: belong to the File above them; the first of each counts. */
static int file_detail_line(struct parser *p, enum fw_whence_kw kw, const char *rest, const char *e)
{
	struct fw_whence *w = p->w;

	if (kw == FW_KW_VERSION)
		w->counts.version++;
	else
		w->counts.info++;
	if (p->in_block && p->last_file >= 0) {
		struct fw_whence_entry *f = &w->entries[p->last_file];
		char **slot = kw == FW_KW_VERSION ? &f->version : &f->info;
		unsigned *ln = kw == FW_KW_VERSION ? &f->version_line : &f->info_line;

		if (!*slot) {
			*slot = dup_text(rest, e);
			if (!*slot)
				return -ENOMEM;
			*ln = p->line;
		}
	}
	return 0;
}

/* "NAME -> TARGET" into ent's name and target; NULL, or what is wrong.
 * *after is where the target ended. */
static const char *parse_link(const char *rest, const char *e, struct fw_whence_entry *ent,
			      const char **after)
{
	const char *b = skip_blank(rest, e), *arrow = NULL, *err;

	if (b < e && *b == '"') {
		err = parse_name(b, e, &ent->name, after, &ent->flags);
	} else {
		/* A bare link name ends at the first " -> ". */
		for (const char *q = b; q + 4 <= e && !arrow; q++)
			if (memcmp(q, " -> ", 4) == 0)
				arrow = q;
		if (!arrow)
			err = "expected 'NAME -> TARGET'";
		else
			err = parse_name(b, arrow, &ent->name, after, &ent->flags);
		*after = arrow;
	}
	if (err)
		return err;
	*after = skip_blank(*after, e);
	if (e - *after < 2 || (*after)[0] != '-' || (*after)[1] != '>')
		return "expected 'NAME -> TARGET'";
	return parse_name(*after + 2, e, &ent->target, after, &ent->flags);
}

/* Source lines belong to the files listed since the previous Source
 * line: "File: a / Source: a.S" pairs, and "File: a / File: b /
 * Source: dir/" gives both files that source. */
static void group_sources(struct parser *p, struct fw_whence_entry *ent)
{
	struct fw_whence *w = p->w;

	if (ent->kind == FW_E_SOURCE) {
		if (p->files_pending_src || p->group == 0) {
			p->group++;
			for (size_t i = w->blocks[w->nblocks - 1].first; i < w->nentries; i++) {
				struct fw_whence_entry *f = &w->entries[i];

				if ((f->kind == FW_E_FILE || f->kind == FW_E_RAWFILE) && f->group == 0)
					f->group = p->group;
			}
			p->files_pending_src = false;
		}
		ent->group = p->group;
	} else if (ent->kind != FW_E_LINK) {
		p->files_pending_src = true;
	}
}

/* File, RawFile, Link, Source: one entry, or a finding at its line. */
static int entry_line(struct parser *p, enum fw_entry_kind kind, const char *rest, const char *e)
{
	struct fw_whence *w = p->w;
	struct fw_whence_entry ent = { .kind = kind };
	const char *err, *after;

	/* Outside any block (before the first separator or Driver:) a name
	 * would belong to nobody. */
	if (!p->in_block && new_block(p) < 0)
		return -ENOMEM;
	if (kind == FW_E_LINK)
		err = parse_link(rest, e, &ent, &after);
	else
		err = parse_name(rest, e, &ent.name, &after, &ent.flags);
	if (!err && skip_blank(after, e) != e)
		err = "trailing garbage after the name";
	if (!err && !*ent.name)
		err = "empty name";
	if (!err && kind == FW_E_LINK && !*ent.target)
		err = "empty link target";
	if (err) {
		fw_diag_add(p->d, w->path, p->line, "%s: %s", fw_entry_kind_name(kind), err);
		w->errors++;
		free(ent.name);
		free(ent.target);
		return strcmp(err, "out of memory") == 0 ? -ENOMEM : 0;
	}
	group_sources(p, &ent);
	if (add_entry(p, &ent) < 0) {
		free(ent.name);
		free(ent.target);
		return -ENOMEM;
	}
	if (kind == FW_E_FILE || kind == FW_E_RAWFILE)
		p->last_file = (long)w->nentries - 1;
	return 0;
}

/* ASCII only: a WHENCE keyword is ASCII, and the locale must not matter. */
static char kw_fold(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool kw_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The distance between a and b, case folded, counting an insertion, a
 * deletion, a substitution or a swap of two neighbours as one (optimal
 * string alignment); both at most KW_TOKEN_MAX bytes. */
#define KW_TOKEN_MAX 32
static unsigned kw_distance(const char *a, size_t n, const char *b, size_t m)
{
	unsigned dp[KW_TOKEN_MAX + 1][KW_TOKEN_MAX + 1];

	for (size_t i = 0; i <= n; i++)
		dp[i][0] = (unsigned)i;
	for (size_t j = 0; j <= m; j++)
		dp[0][j] = (unsigned)j;
	for (size_t i = 1; i <= n; i++) {
		for (size_t j = 1; j <= m; j++) {
			unsigned c = kw_fold(a[i - 1]) != kw_fold(b[j - 1]), v;

			v = dp[i - 1][j - 1] + c;
			if (dp[i - 1][j] + 1 < v)
				v = dp[i - 1][j] + 1;
			if (dp[i][j - 1] + 1 < v)
				v = dp[i][j - 1] + 1;
			if (i > 1 && j > 1 && kw_fold(a[i - 1]) == kw_fold(b[j - 2]) &&
			    kw_fold(a[i - 2]) == kw_fold(b[j - 1]) && dp[i - 2][j - 2] + 1 < v)
				v = dp[i - 2][j - 2] + 1;
			dp[i][j] = v;
		}
	}
	return dp[n][m];
}

/* A line that reads as a keyword nobody defined: it opens with a word
 * (letters, digits, '-', '_', inner blanks) and a colon, and that word,
 * blanks dropped and case folded, is at most one edit from a keyword
 * ("Fiel:", "file:", "Raw File:", "Lisence:", "Verison:"), three from the
 * long SPDX-License-Identifier ("SPDX License Identifer:"). Anything else is
 * prose, as upstream's readers take it: "Originates from: ...", "https:",
 * "Origin:", "md5sum:", "Notice:" occur in real WHENCE files and licence
 * texts ("LICENSEES:", two edits from License:, is why seven-letter
 * keywords get one edit, not two), and tests/unit/test-whence.c checks that
 * none of the real WHENCE files gives such a finding. The nearest keyword,
 * or NULL. */
static const char *near_keyword(const char *s, const char *e, size_t *toklen)
{
	char word[KW_TOKEN_MAX];
	const char *q, *best = NULL;
	size_t n = 0;
	unsigned bestd = ~0u;

	if (s == e || !kw_alpha(*s))
		return NULL;
	for (q = s; q < e && *q != ':'; q++) {
		if (*q == ' ' || *q == '\t')
			continue;
		if (!kw_alpha(*q) && !(*q >= '0' && *q <= '9') && *q != '-' && *q != '_')
			return NULL;
		if (n == sizeof(word))
			return NULL;
		word[n++] = *q;
	}
	if (q == e)
		return NULL;
	for (size_t i = 0; i < FW_ARRAY_SIZE(keywords); i++) {
		const char *kw = keywords[i].word;
		size_t k = strlen(kw) - 1; /* without its colon */
		unsigned d = kw_distance(word, n, kw, k);

		if (d < bestd && d <= (k >= 10 ? 3u : 1u)) {
			bestd = d;
			best = kw;
		}
	}
	*toklen = (size_t)(q - s) + 1;
	return best;
}

static int parse_line(struct parser *p, const char *s, const char *e)
{
	struct fw_whence *w = p->w;
	size_t kwlen = 0;
	enum fw_whence_kw kw;
	const char *rest;

	if (fw_whence_is_sep(s, (size_t)(e - s))) {
		end_block(p);
		return 0;
	}
	kw = fw_whence_keyword(s, (size_t)(e - s), &kwlen);
	rest = s + kwlen;
	switch (kw) {
	case FW_KW_NONE: {
		/* Prose, unless it reads as a misspelt keyword: a "Fiel:" line
		 * silently dropped would leave its blob unlisted, and the first
		 * finding then blames the blob, not the line. */
		size_t toklen = 0;
		const char *near = near_keyword(s, e, &toklen);

		if (near) {
			char *tok = fw_strndup(s, toklen);

			if (!tok)
				return -ENOMEM;
			fw_diag_add(p->d, w->path, p->line, "unknown keyword '%s'; did you mean '%s'?",
				    fw_esc(tok), near);
			w->errors++;
			free(tok);
		}
		return 0;
	}
	case FW_KW_DRIVER:
		return driver_line(p, rest, e);
	case FW_KW_FILE:
		w->counts.file++;
		return entry_line(p, FW_E_FILE, rest, e);
	case FW_KW_RAWFILE:
		w->counts.rawfile++;
		return entry_line(p, FW_E_RAWFILE, rest, e);
	case FW_KW_LINK:
		w->counts.link++;
		return entry_line(p, FW_E_LINK, rest, e);
	case FW_KW_SOURCE:
		w->counts.source++;
		return entry_line(p, FW_E_SOURCE, rest, e);
	case FW_KW_VERSION:
	case FW_KW_INFO:
		return file_detail_line(p, kw, rest, e);
	case FW_KW_LICENCE:
	case FW_KW_SPDX:
		if (kw == FW_KW_LICENCE)
			w->counts.licence++;
		else
			w->counts.spdx++;
		if (!p->in_block && new_block(p) < 0)
			return -ENOMEM;
		return licence_line(p, kw, rest, e);
	}
	return 0;
}

int fw_whence_parse(struct fw_whence *w, const char *path, const char *buf, size_t len,
		    struct fw_diag *d)
{
	struct parser p = { .w = w, .d = d, .last_file = -1 };
	const char *s = buf, *end = buf + len;

	memset(w, 0, sizeof(*w));
	w->path = strdup(path);
	if (!w->path)
		return -ENOMEM;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		int r;

		p.line++;
		/* A WHENCE saved with CRLF line ends (an editor, a checkout
		 * with autocrlf) means what the LF file means: drop one '\r'
		 * before anything looks at the line, so a separator still
		 * separates and no name, target or keyword value keeps a
		 * '\r'. Only one: any other '\r' stays in the line, where
		 * the name check refuses it as a control character. */
		if (e > s && e[-1] == '\r')
			e--;
		if ((size_t)(e - s) > FW_LINE_MAX) {
			fw_diag_add(d, path, p.line, "line too long (%zu bytes, limit %d)",
				    (size_t)(e - s), FW_LINE_MAX);
			w->errors++;
		} else if (memchr(s, '\0', (size_t)(e - s))) {
			fw_diag_add(d, path, p.line, "NUL byte in line");
			w->errors++;
		} else {
			r = parse_line(&p, s, e);
			if (r < 0)
				return r;
		}
		s = nl ? nl + 1 : end;
	}
	end_block(&p);
	return 0;
}

int fw_whence_load(struct fw_whence *w, int dirfd, const char *path, const char *display,
		   struct fw_diag *d)
{
	char *buf;
	size_t len;
	int r = fw_read_text(dirfd, path, &buf, &len);

	if (r < 0) {
		memset(w, 0, sizeof(*w));
		return r;
	}
	r = fw_whence_parse(w, display, buf, len, d);
	free(buf);
	return r;
}

void fw_whence_free(struct fw_whence *w)
{
	for (size_t i = 0; i < w->nentries; i++) {
		free(w->entries[i].name);
		free(w->entries[i].target);
		free(w->entries[i].version);
		free(w->entries[i].info);
	}
	for (size_t i = 0; i < w->nblocks; i++)
		free(w->blocks[i].driver);
	for (size_t i = 0; i < w->nlicences; i++) {
		free(w->licences[i].text);
		free(w->licences[i].spdx);
	}
	free(w->entries);
	free(w->blocks);
	free(w->licences);
	free(w->path);
	memset(w, 0, sizeof(*w));
}
