/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist import: walking SRC, for what no WHENCE entry lists and for --no-whence's WHENCE of an installed tree. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import-int.h"
#include "util.h"

/* ---- the walk ---- */

#define WALK_INTO 1 /* a visitor's answer: descend into this directory */

/* Visit each entry below dfd, in byte order, without following anything:
 * names starting with '.' are skipped, and so is what cannot be looked
 * at; at most 64 levels, so that a deep tree cannot exhaust the stack.
 * visit gets the entry's leaf in dfd, its path from the top and its
 * lstat; it returns -errno to stop, WALK_INTO to descend into a directory,
 * or 0. */
static int walk(int dfd, const char *rel, int depth,
		int (*visit)(void *ctx, int dfd, const char *leaf, const char *path,
			     const struct stat *st),
		void *ctx)
{
	char **names;
	size_t n;
	int r;

	if (depth > 64)
		return 0;
	r = fw_read_dir_sorted(dfd, &names, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n && r == 0; i++) {
		char *path = *rel ? fw_asprintf("%s/%s", rel, names[i]) : strdup(names[i]);
		struct stat st;

		if (!path) {
			r = -ENOMEM;
			break;
		}
		if (names[i][0] == '.' || fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			free(path);
			continue;
		}
		r = visit(ctx, dfd, names[i], path, &st);
		if (r == WALK_INTO) {
			int sub = openat(dfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			r = 0;
			if (sub >= 0) {
				r = walk(sub, path, depth + 1, visit, ctx);
				close(sub);
			}
		}
		free(path);
	}
	fw_free_strv(names, n);
	return r;
}

/* ---- unlisted files ---- */

static bool top_level_known(const char *name)
{
	static const char *const pre[] = { "LICENCE", "LICENSE", "GPL-", "LGPL-", "COPYING", "README",
					   "NOTICE", "WHENCE", "Makefile", "MIT" };

	for (size_t i = 0; i < FW_ARRAY_SIZE(pre); i++)
		if (strncmp(name, pre[i], strlen(pre[i])) == 0)
			return true;
	return strcmp(name, "LICENSES") == 0 || strstr(name, ".sh") || strstr(name, ".py");
}

/* A link's target is read into TARGET_MAX + 1 bytes: one that fills them
 * is past the tree's path limit (4095 bytes), and may be cut short. */
#define TARGET_MAX FW_LINE_MAX

/* A link's target into buf (TARGET_MAX + 1 bytes), "" when it cannot be
 * read: its length, or -1. */
static ssize_t read_target(int dfd, const char *leaf, char *buf)
{
	ssize_t k = readlinkat(dfd, leaf, buf, TARGET_MAX);

	buf[k > 0 ? k : 0] = '\0';
	return k;
}

/* Why a link target cannot be written in a Link: line or read back, or NULL. */
static const char *target_refusal(const char *t)
{
	if (strlen(t) >= TARGET_MAX)
		return "link target longer than 4095 bytes";
	for (const char *c = t; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return "control character in the link target";
		else if (*c == '\\' || *c == '"')
			return "backslash or quote in the link target";
	return fw_utf8_valid(t) ? NULL : "link target is not valid UTF-8";
}

static bool needs_quotes(const char *name)
{
	return strpbrk(name, " \t\"") != NULL;
}

/* The WHENCE line --no-whence writes for a file (target NULL) or a link,
 * without its newline; synth_line_len is its length, unwritten. */
static char *synth_line(const char *path, const char *target)
{
	if (!target)
		return fw_asprintf(needs_quotes(path) ? "File: \"%s\"" : "File: %s", path);
	return fw_asprintf(needs_quotes(path) || needs_quotes(target) ? "Link: \"%s\" -> \"%s\"" :
			   "Link: %s -> %s", path, target);
}

static size_t synth_line_len(const char *path, const char *target)
{
	if (!target)
		return strlen("File: ") + strlen(path) + (needs_quotes(path) ? 2 : 0);
	return strlen("Link: ") + strlen(path) + strlen(" -> ") + strlen(target) +
	       (needs_quotes(path) || needs_quotes(target) ? 4 : 0);
}

/* Why --no-whence leaves out a file or a link (NULL: it is imported; a
 * message in buf or a static one). Its name as check takes it, and no
 * quote (a WHENCE line cannot hold one); a link's target (read into
 * target, TARGET_MAX + 1 bytes) as a Link: line can hold it; then every
 * line the entry gives the tree (its WHENCE line; a file's checksum and
 * split lines) within what that file's reader takes, with the reader's
 * message, so that one entry too long is refused alone, never the whole
 * import. *by_name: refused for its name alone (said without the target).
 * Directories and other types are not entries: NULL. */
static const char *synth_refusal(int dfd, const char *leaf, const char *path,
				 const struct stat *st, char *target, bool *by_name, char *buf,
				 size_t n)
{
	bool link = S_ISLNK(st->st_mode);
	const char *why;

	target[0] = '\0';
	*by_name = true;
	if (!S_ISREG(st->st_mode) && !link)
		return NULL;
	why = imp_name_refusal(path);
	if (!why && strchr(path, '"'))
		why = "quote in name";
	if (why)
		return why;
	*by_name = false;
	/* A link that cannot be read is no entry (reported unlisted). */
	if (link && (read_target(dfd, leaf, target) <= 0 || (why = target_refusal(target))))
		return why;
	why = imp_line_limit(FW_TREE_WHENCE, synth_line_len(path, link ? target : NULL), buf, n);
	if (!why && !link)
		why = imp_blob_limits(path, st->st_size == 0, buf, n);
	return why;
}

/* What --no-whence leaves out (reported as not imported, not as
 * unlisted): what synth_refusal refuses. */
static bool synth_refused(int dfd, const char *leaf, const char *path, const struct stat *st)
{
	char target[TARGET_MAX + 1], buf[128];
	bool by_name;

	return synth_refusal(dfd, leaf, path, st, target, &by_name, buf, sizeof(buf)) != NULL;
}

struct unlisted {
	struct imp *im;
	char **listed;         /* the names WHENCE lists, sorted */
	size_t nlisted;
};

static int visit_unlisted(void *ctx, int dfd, const char *leaf, const char *path,
			  const struct stat *st)
{
	struct unlisted *c = ctx;

	if (!strchr(path, '/') && top_level_known(leaf))
		return 0;
	/* A licence text the import took (wfx/LICENCE.wf200) is no stray. */
	for (size_t i = 0; i < c->im->nids; i++)
		if (c->im->ids[i].found && strcmp(c->im->ids[i].found, path) == 0)
			return 0;
	/* Listed; or, in an installed tree, refused (reported with why it
	 * was not imported). */
	if (bsearch(&path, c->listed, c->nlisted, sizeof(*c->listed), fw_strcmp_ptr) ||
	    (c->im->o->no_whence && synth_refused(dfd, leaf, path, st)))
		return 0;
	if (S_ISDIR(st->st_mode))
		return WALK_INTO;
	if (S_ISLNK(st->st_mode)) {
		char target[TARGET_MAX + 1];

		read_target(dfd, leaf, target);
		return imp_strv_take(&c->im->rep->unlisted,
				     fw_asprintf("%s -> %s (a symlink no Link: names%s)", fw_esc(path),
						 fw_esc(target),
						 target[0] == '/' ? "; out of the tree, not imported" : ""));
	}
	return imp_strv_take(&c->im->rep->unlisted, fw_asprintf("%s", fw_esc(path)));
}

int imp_report_unlisted(struct imp *im)
{
	char **listed = calloc(im->w.nentries + 1, sizeof(*listed));
	size_t n = 0;
	int r;

	if (!listed)
		return -ENOMEM;
	for (size_t i = 0; i < im->w.nentries; i++)
		listed[n++] = im->w.entries[i].name;
	qsort(listed, n, sizeof(*listed), fw_strcmp_ptr);
	r = walk(im->srcfd, "", 0, visit_unlisted,
		 &(struct unlisted){ .im = im, .listed = listed, .nlisted = n });
	free(listed);
	return r;
}

/* ---- --no-whence: a WHENCE for an installed tree ---- */

struct synth {
	char *buf;
	size_t n, cap;
};

static int synth_add(struct synth *s, const char *text)
{
	size_t len = strlen(text);

	while (s->n + len + 1 > s->cap)
		if (fw_grow(&s->buf, &s->cap, s->cap, 1) < 0)
			return -ENOMEM;
	memcpy(s->buf + s->n, text, len + 1);
	s->n += len;
	return 0;
}

struct synth_walk {
	struct synth *files, *links;
	struct fw_strv *names_out;     /* the files by name instead of File: lines */
	struct fw_strv *refused;
};

static int visit_synth(void *ctx, int dfd, const char *leaf, const char *path,
		       const struct stat *st)
{
	struct synth_walk *c = ctx;
	char target[TARGET_MAX + 1], buf[128], *line = NULL;
	const char *why;
	bool by_name;
	int r = 0;

	if (S_ISDIR(st->st_mode))
		return WALK_INTO;
	/* What --no-whence refuses is reported and left out; the rest imports. */
	why = synth_refusal(dfd, leaf, path, st, target, &by_name, buf, sizeof(buf));
	if (why && (by_name || !S_ISLNK(st->st_mode)))
		return imp_strv_take(c->refused, fw_asprintf("%s: %s: %s",
							     S_ISLNK(st->st_mode) ? "Link" : "File",
							     fw_esc(path), why));
	if (why)
		return imp_strv_take(c->refused, fw_asprintf("Link: %s -> %s: %s", fw_esc(path),
							     fw_esc(target), why));
	if (S_ISREG(st->st_mode) && c->names_out) {
		r = imp_strv_take(c->names_out, strdup(path));
	} else if (S_ISREG(st->st_mode) || (S_ISLNK(st->st_mode) && target[0])) {
		line = synth_line(path, S_ISLNK(st->st_mode) ? target : NULL);
		r = line ? synth_add(S_ISLNK(st->st_mode) ? c->links : c->files, line) : -ENOMEM;
		if (r == 0)
			r = synth_add(S_ISLNK(st->st_mode) ? c->links : c->files, "\n");
	}
	free(line);
	return r;
}

struct lic_name {
	const char *lic; /* DEP-5 licence, NULL none */
	const char *name;
};

static int cmp_lic_name(const void *a, const void *b)
{
	const struct lic_name *x = a, *y = b;

	/* By licence, files without one last; then by name. */
	if (!x->lic != !y->lic)
		return x->lic ? -1 : 1;
	if (x->lic && strcmp(x->lic, y->lic))
		return strcmp(x->lic, y->lic);
	return strcmp(x->name, y->name);
}

static bool same_lic(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

#define SYNTH_SEP "--------------------------------------------------------------------------\n\n"
#define SYNTH_UNKNOWN "Licence: " FW_IMPORT_INSTALLED_WORDING "\n\n"


/* Every regular file a File:, every symlink a Link:. Without DEP-5 files,
 * in one block whose licence is the wording SYNTH_UNKNOWN (the map decides
 * what it is); with them, one block per licence DEP-5 assigns, worded
 * "Debian copyright: NAME" (again for the map to classify). */
int imp_synth_whence(struct imp *im)
{
	struct synth f = { 0 }, l = { 0 }, all = { 0 };
	struct fw_strv names = { 0 };
	bool dep5 = im->o->debian_copyright;
	int r = walk(im->srcfd, "", 0, visit_synth,
		     &(struct synth_walk){ &f, &l, dep5 ? &names : NULL, &im->rep->dropped });

	if (r == 0)
		r = synth_add(&all, "Imported by fwdist import --no-whence from an installed tree.\n\n" SYNTH_SEP);
	if (r == 0 && dep5) {
		struct lic_name *v = calloc(names.n + 1, sizeof(*v));
		const char *cur = NULL;
		struct owners ow = { 0 };

		if (!v)
			r = -ENOMEM;
		if (r == 0)
			r = imp_owners_load(&ow, im->rootfd >= 0 ? im->rootfd : im->srcfd);
		for (size_t i = 0; r == 0 && i < names.n; i++)
			v[i] = (struct lic_name){ imp_dep5_licence(&im->dep5, &ow, names.v[i]), names.v[i] };
		if (r == 0 && names.n > 1)
			qsort(v, names.n, sizeof(*v), cmp_lic_name);
		for (size_t i = 0; r == 0 && i < names.n; i++) {
			char *line;

			if (i == 0 || !same_lic(v[i].lic, cur)) {
				if (i > 0)
					r = synth_add(&all, "");
				cur = v[i].lic;
				line = cur ? fw_asprintf("Driver: debian - files Debian's copyright gives %s\n\n", cur) :
					     strdup("Driver: installed - files no copyright file covers\n\n");
				if (r == 0)
					r = line ? synth_add(&all, line) : -ENOMEM;
				free(line);
			}
			line = synth_line(v[i].name, NULL);
			r = r ? r : line ? synth_add(&all, line) : -ENOMEM;
			if (r == 0)
				r = synth_add(&all, "\n");
			free(line);
			if (r == 0 && (i + 1 == names.n || !same_lic(v[i + 1].lic, cur))) {
				line = cur ? fw_asprintf("\nLicence: " DEP5_WORDING "%s\n\n" SYNTH_SEP, cur) :
					     strdup("\n" SYNTH_UNKNOWN SYNTH_SEP);
				r = line ? synth_add(&all, line) : -ENOMEM;
				free(line);
			}
		}
		free(v);
		imp_owners_free(&ow);
		if (r == 0 && l.buf)
			r = synth_add(&all, "Driver: links - the symlinks of the installed tree\n\n");
		if (r == 0 && l.buf)
			r = synth_add(&all, l.buf);
		if (r == 0 && l.buf)
			r = synth_add(&all, "\n" SYNTH_SEP);
	} else if (r == 0) {
		r = synth_add(&all, "Driver: installed - every file of an installed firmware tree\n\n");
		if (r == 0 && f.buf)
			r = synth_add(&all, f.buf);
		if (r == 0 && l.buf)
			r = synth_add(&all, l.buf);
		if (r == 0)
			r = synth_add(&all, "\n" SYNTH_UNKNOWN SYNTH_SEP);
	}
	fw_strv_free(&names);
	free(f.buf);
	free(l.buf);
	if (r < 0) {
		free(all.buf);
		return r;
	}
	im->wbuf = all.buf;
	im->wlen = all.n;
	return 0;
}
