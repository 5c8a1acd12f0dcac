/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Install's preflight: what stands at each name it writes, and the directory switches planned. */
#include "install-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "util.h"

static const struct fw_rec_entry *recorded(const struct ctx *c, const char *name)
{
	return fw_records_find(&c->rec, name, NULL);
}

struct found {
	const struct fw_rec_entry **v;
	char **rel;
	size_t n, cap;
};

/* Does the directory at path hold only what a record names (or what a
 * killed install left), and at least one such entry? The entries found
 * are collected in f, their names kept for the message. */
static bool tree_recorded(const struct ctx *c, int dfd, const char *path, int depth,
			  struct found *f)
{
	char **names;
	size_t n;
	bool ok = true;

	if (depth > 64 || fw_read_dir_sorted(dfd, &names, &n) < 0)
		return false;
	for (size_t i = 0; ok && i < n; i++) {
		struct stat st;
		char *rel;

		if (fw_is_stale_tmp(dfd, names[i]) || strcmp(names[i], FW_STAGE_MARK) == 0)
			continue; /* cleaned up with it */
		rel = fw_asprintf("%s/%s", path, names[i]);
		if (!rel || fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			ok = false;
		} else if (S_ISDIR(st.st_mode)) {
			int sub = openat(dfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			ok = sub >= 0 && tree_recorded(c, sub, rel, depth + 1, f);
			if (sub >= 0)
				close(sub);
		} else {
			const struct fw_rec_entry *e = recorded(c, rel);
			size_t cap = f->cap; /* both arrays grow alike from f->cap */

			ok = e && fw_grow(&f->v, &cap, f->n, sizeof(*f->v)) == 0 &&
			     fw_grow(&f->rel, &f->cap, f->n, sizeof(*f->rel)) == 0;
			if (ok) {
				f->v[f->n] = e;
				f->rel[f->n++] = rel;
				rel = NULL;
			}
		}
		free(rel);
	}
	fw_free_strv(names, n);
	return ok;
}

/* Does any record name something below path? */
static bool recorded_below(const struct ctx *c, const char *path)
{
	for (size_t i = 0; i < c->rec.n; i++)
		for (size_t j = 0; j < c->rec.v[i].n; j++)
			if (inst_under(c->rec.v[i].v[j].name, path))
				return true;
	return false;
}

/* A directory of the old install that a file or link replaces: ours to
 * swap out only if it holds nothing but recorded entries, each still as
 * installed (else *changed names the first that is not). One that holds
 * none any more is ours only if the record names something below it: an
 * install killed while removing the old names left it empty (the record
 * is written after the removals), and removing it loses nothing; an empty
 * directory the record knows nothing of is someone's. */
static bool dir_is_ours(const struct ctx *c, int dfd, const char *path, char **changed)
{
	struct found f = { 0 };
	enum fw_rec_state *st;
	bool ok = tree_recorded(c, dfd, path, 0, &f) && (f.n > 0 || recorded_below(c, path));

	st = ok ? calloc(f.n + 1, sizeof(*st)) : NULL;
	if (ok && !st)
		ok = false;
	if (ok) {
		inst_rec_states(c, f.v, f.n, st);
		for (size_t i = 0; i < f.n && ok; i++)
			if (st[i] != FW_REC_SAME) {
				ok = false;
				*changed = strdup(f.rel[i]);
			}
	}
	free(st);
	free(f.v);
	fw_free_strv(f.rel, f.n);
	return ok;
}

/* A file fwdist did not record, with the content it is about to install,
 * is adopted; with other content it is someone else's. A symlink is
 * adopted when it is the link the plan makes. */
static bool same_as_planned(int pfd, const char *leaf, const struct fw_plan_entry *pe)
{
	struct stat st;
	bool same;
	int fd;

	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	if (S_ISLNK(st.st_mode))
		return pe->kind == FW_PLAN_LINK && fw_symlink_is(pfd, leaf, pe->target);
	if (pe->kind == FW_PLAN_LINK || !S_ISREG(st.st_mode))
		return false;
	fd = openat(pfd, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	same = fw_fd_holds(fd, fw_comp_of_name(leaf), pe->sha256, pe->size, NULL);
	close(fd);
	return same;
}

/* The file entry a recorded link served, following recorded links. */
static const struct fw_rec_entry *recorded_end(const struct ctx *c, const struct fw_rec_entry *e)
{
	for (unsigned hop = 0; e && e->type == FW_REC_LINK && hop < 40; hop++) {
		bool outside;
		char *next = fw_link_resolve(e->name, e->target, &outside);

		e = next ? recorded(c, next) : NULL;
		free(next);
	}
	return e && e->type != FW_REC_LINK ? e : NULL;
}

/* A file where the record has a link, holding the very bytes that link
 * served: what materialize() made of it before a killed install could
 * put the new content there. Ours, and rewritten. */
static bool materialized(const struct ctx *c, int pfd, const char *leaf, const struct fw_rec_entry *e)
{
	const struct fw_rec_entry *end = e->type == FW_REC_LINK ? recorded_end(c, e) : NULL;
	bool same;
	int fd;

	if (!end)
		return false;
	fd = openat(pfd, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	same = fw_fd_holds(fd, end->comp, end->sha256, end->size, NULL);
	close(fd);
	return same;
}

static int add_stage(struct ctx *c, const char *final, const struct stat *st)
{
	for (size_t i = 0; i < c->nstages; i++)
		if (strcmp(c->stages[i].final, final) == 0)
			return 0;
	if (fw_grow(&c->stages, &c->cap_stages, c->nstages, sizeof(*c->stages)) < 0)
		return -ENOMEM;
	c->stages[c->nstages] = (struct stage){ .final = strdup(final) };
	if (!c->stages[c->nstages].final)
		return -ENOMEM;
	/* Only this file or link is switched for the directory. */
	fw_ident_of(&c->stages[c->nstages].was, st);
	c->nstages++;
	return 0;
}

/* A component of the name's path that is a file or a symlink: a planted
 * symlink is refused; one the record says we installed (the old tree had a
 * link or a file where the new one has a directory) is switched. */
int inst_check_parents(struct ctx *c, struct item *it)
{
	const char *final = it->pe->final, *p = final, *slash, *owner;
	int cur = c->destfd, r = 0;

	while ((slash = strchr(p, '/'))) {
		char comp[256];
		size_t n = (size_t)(slash - p);
		struct stat st;
		int next;

		if (n >= sizeof(comp))
			break;
		memcpy(comp, p, n);
		comp[n] = '\0';
		next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next >= 0) {
			if (cur != c->destfd)
				close(cur);
			cur = next;
			p = slash + 1;
			continue;
		}
		if (errno == ENOENT)
			break;
		if (fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode)) {
			char *prefix = fw_strndup(final, (size_t)(slash - final));
			const struct fw_rec_entry *e = prefix ? recorded(c, prefix) : NULL;

			if (!prefix) {
				r = -ENOMEM;
				break;
			}
			if ((owner = fw_dpkg_owner(c->o->dpkg, prefix))) {
				/* A symlink (or file) a Debian package put there:
				 * the names below it are that package's to serve,
				 * and even --force does not switch it. */
				it->dpkg = true;
				it->ok = 1;
				it->owner = owner;
				fw_dpkg_tally_add(&c->tally, owner, final, false);
			} else if (c->o->force || (e && fw_rec_entry_state(c->destfd, e) == FW_REC_SAME))
				r = add_stage(c, prefix, &st);
			else if (e)
				inst_fail(it, "%s: %s is %s (--force replaces it)", fw_esc(final),
					  fw_esc(prefix),
					  fw_rec_state_words(fw_rec_entry_state(c->destfd, e)));
			else
				inst_fail(it, "%s: %s", fw_esc(final),
					  inst_parent_error(S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR));
			free(prefix);
		} else {
			inst_fail(it, "%s: %s", fw_esc(final), strerror(errno));
		}
		break;
	}
	if (cur != c->destfd)
		close(cur);
	return r;
}

/* What stands at one name the install writes (the final name, or one of
 * its other variants): ours as recorded, the same as planned, or someone
 * else's, which only --force replaces. */
static void check_name(struct ctx *c, struct item *it, int pfd, const char *leaf, const char *name,
		       bool final, enum fw_compress comp)
{
	const struct fw_rec_entry *e = recorded(c, name);
	struct stat st;

	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	/* What is judged below, by this first look: whatever stands there
	 * later (a file dpkg or anyone renamed there since) is another's,
	 * never replaced or removed, --force or not. A look at the content
	 * below reads what is there then: if that is another file already,
	 * the final step finds it is not this one and keeps it. */
	fw_ident_of(&it->seen[comp], &st);
	if (c->o->force) {
		it->exchange = final && S_ISDIR(st.st_mode);
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		int sub;
		char *changed = NULL;

		sub = openat(pfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0 && dir_is_ours(c, sub, name, &changed)) {
			/* The final name is swapped; a directory at another
			 * variant goes with the old names it holds. */
			it->exchange = final;
		} else if (!final && !changed)
			inst_fail(it, "%s: a directory is in the way at %s (--force replaces it)",
				  fw_esc(it->pe->final), fw_esc(name));
		else if (changed)
			inst_fail(it,
				  "%s: the directory in the way holds %s, changed since fwdist installed it "
				  "(--force replaces it)", fw_esc(name), fw_esc(changed));
		else
			inst_fail(it, "%s: a directory fwdist did not install is in the way "
				  "(--force replaces it)", fw_esc(name));
		free(changed);
		if (sub >= 0)
			close(sub);
		return;
	}
	if (e && final) {
		/* The final name is rewritten (a changed copy is repaired, and
		 * an unchanged one is read once, by the copy): only its type
		 * must still be the recorded one. A recorded dedup link that an
		 * interrupted install turned into a copy (materialize) holds
		 * the planned bytes, or those the link served. */
		bool same_type = e->type == FW_REC_LINK ? S_ISLNK(st.st_mode) : S_ISREG(st.st_mode);

		if (!same_type && !same_as_planned(pfd, leaf, it->pe) &&
		    !(S_ISREG(st.st_mode) && materialized(c, pfd, leaf, e)))
			inst_fail(it, "%s: %s; kept (--force replaces it)", fw_esc(name),
				  fw_rec_state_words(FW_REC_OTHER_TYPE));
		return;
	}
	if (e) {
		/* Another variant is removed, so it must still be ours. */
		enum fw_rec_state s = fw_rec_entry_state(c->destfd, e);

		if (s != FW_REC_SAME && s != FW_REC_GONE)
			inst_fail(it, "%s: %s; kept (--force replaces it)", fw_esc(name),
				  fw_rec_state_words(s));
		return;
	}
	if (same_as_planned(pfd, leaf, it->pe))
		return;
	inst_fail(it, "%s: %s fwdist did not install is in the way (--force replaces it)", fw_esc(name),
		  S_ISREG(st.st_mode) ? "a file" : S_ISLNK(st.st_mode) ? "a symlink" : "a special file");
}

void inst_check_final(struct ctx *c, struct item *it)
{
	const struct fw_plan_entry *pe = it->pe;
	const char *leaf;
	int pfd = fw_open_parent(c->destfd, pe->final, 0, &leaf);
	const struct fw_rec_entry *e = recorded(c, pe->final);
	size_t baselen;

	if (e && pe->kind != FW_PLAN_LINK && e->type != FW_REC_LINK && e->size == pe->size &&
	    e->comp == pe->comp && memcmp(e->sha256, pe->sha256, FW_SHA256_LEN) == 0)
		it->recorded_same = true;
	if (pfd < 0)
		return; /* nothing there yet, or a parent that check_parents handles */
	check_name(c, it, pfd, leaf, pe->final, true, pe->comp);
	/* The other variants of the name are removed at the end: the same
	 * rule applies to them. */
	baselen = strlen(leaf) - strlen(fw_compress_suffix(pe->comp));
	for (size_t i = 0; i < FW_ARRAY_SIZE(inst_all_comp) && !it->err && !inst_is_licence(it); i++) {
		char buf[512], *vname;

		if (inst_all_comp[i] == pe->comp)
			continue;
		snprintf(buf, sizeof(buf), "%.*s%s", (int)baselen, leaf,
			 fw_compress_suffix(inst_all_comp[i]));
		vname = fw_asprintf("%.*s%s", (int)(strlen(pe->final) - strlen(leaf) + baselen),
				    pe->final, fw_compress_suffix(inst_all_comp[i]));
		if (!vname) {
			inst_fail(it, "out of memory");
			break;
		}
		check_name(c, it, pfd, buf, vname, false, inst_all_comp[i]);
		free(vname);
	}
	if (pfd != c->destfd)
		close(pfd);
}

/* Create each stage's directory and write the names below it there. */
int inst_prepare_stages(struct ctx *c)
{
	for (size_t s = 0; s < c->nstages; s++) {
		struct stage *st = &c->stages[s];
		char tmp[320];
		const char *leaf, *slash;
		int pfd, r;
		bool nested = false;

		for (size_t o = 0; o < c->nstages && !nested; o++)
			nested = o != s && inst_under(st->final, c->stages[o].final);
		if (nested)
			continue; /* written inside the outer stage instead */
		pfd = fw_open_parent(c->destfd, st->final, 1, &leaf);
		if (pfd < 0)
			return pfd;
		r = fw_tmp_mkdir(pfd, leaf, tmp, sizeof(tmp));
		if (pfd != c->destfd)
			close(pfd);
		if (r < 0)
			return r;
		slash = strrchr(st->final, '/');
		st->tmp = slash ? fw_asprintf("%.*s/%s", (int)(slash - st->final), st->final, tmp) :
				  strdup(tmp);
		if (!st->tmp)
			return -ENOMEM;
		for (size_t i = 0; i < c->nitems; i++) {
			struct item *it = &c->items[i];
			char *nd;

			if (!inst_under(it->pe->final, st->final))
				continue;
			nd = fw_asprintf("%s%s", st->tmp, it->pe->final + strlen(st->final));
			if (!nd)
				return -ENOMEM;
			free(it->dest);
			it->dest = nd;
			/* A new directory: nothing stands at any name there. */
			memset(it->seen, 0, sizeof(it->seen));
		}
	}
	return 0;
}
