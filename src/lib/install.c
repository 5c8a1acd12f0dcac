/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The executor of an install plan: staging, links, switches, old variants (copies: install-copy.c, records: install-records.c). */
#include "install-int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "record.h"
#include "util.h"

const enum fw_compress inst_all_comp[3] = { FW_COMP_NONE, FW_COMP_XZ, FW_COMP_ZSTD };

void inst_fail(struct item *it, const char *fmt, ...)
{
	va_list ap;

	if (it->err)
		return;
	va_start(ap, fmt);
	if (vasprintf(&it->err, fmt, ap) < 0)
		it->err = NULL;
	va_end(ap);
	if (!it->err)
		it->err = strdup("out of memory");
}

/* Why a destination path could not be opened, in words. */
const char *inst_parent_error(int r)
{
	if (r == -ELOOP)
		return "a symlink is in its path in the destination; refusing to follow it";
	if (r == -ENOTDIR)
		return "a non-directory is in its path in the destination";
	return strerror(-r);
}

/* Remove stale temporary files from each directory the plan writes to and
 * their ancestors (a staged directory lives beside the one it replaces). */
static void clean_stale(const struct ctx *c)
{
	const struct fw_plan *p = c->p;
	int fd = openat(c->destfd, FW_RECORD_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	fw_clean_tmp_in(c->destfd);
	if (fd >= 0) {
		fw_clean_tmp_in(fd);
		close(fd);
	}
	for (size_t i = 0; i < p->n; i++) {
		if (p->v[i].kind != FW_PLAN_DIR)
			continue;
		fd = fw_open_beneath(c->destfd, p->v[i].final, O_RDONLY | O_DIRECTORY, 0);
		if (fd >= 0) {
			fw_clean_tmp_in(fd);
			close(fd);
		}
	}
}

/* ---- durability: what a crash leaves ----
 *
 * A name is published by a rename (a copy, or a symlink made under a
 * temporary name), and only once what it names is on disk. Neither is made
 * durable one name at a time: an fsync of each copy and of its directory
 * after each rename cost a journal commit and a disk cache flush each
 * (5,009 fsyncs for 2,365 blobs, 2.5 times a cp -a). Instead syncfs(2)
 * writes back the whole destination filesystem at a few points: for each
 * batch of copies before they are renamed (commit_batch), and (settle)
 * after the renames before anything that relies on them: a link to a
 * name, the switch of a directory, the removal of an old variant, and the
 * record. A crash at any moment leaves each name old or new. syncfs also
 * writes back what other programs have pending on that filesystem; it
 * reports a write-back error of the filesystem (Linux 5.8 and later). */

/* Something below destfd changed since the last syncfs. */
void inst_changed(struct ctx *c)
{
	atomic_store(&c->unsynced, true);
}

/* Make every change so far durable. A failure is kept (settle_err): what
 * the install wrote may not be on disk, so nothing that relies on it (old
 * variants' removal, the record) follows. */
static int settle(struct ctx *c)
{
	if (!atomic_exchange(&c->unsynced, false))
		return c->settle_err;
	if (syncfs(c->destfd) < 0 && !c->settle_err)
		c->settle_err = -errno;
	c->epoch++;
	return c->settle_err;
}

/* After NAME.xz is in place, NAME and NAME.zst (from an install with
 * another compression) go: the kernel would serve NAME first. Whatever is
 * there was checked before (check_final): ours, or --force. */
static int remove_variants(struct ctx *c, int pfd, const char *leaf, size_t baselen,
			   enum fw_compress keep)
{
	char buf[512];
	bool removed = false;

	for (size_t i = 0; i < FW_ARRAY_SIZE(inst_all_comp); i++) {
		struct stat st;

		if (inst_all_comp[i] == keep)
			continue;
		if (snprintf(buf, sizeof(buf), "%.*s%s", (int)baselen, leaf,
			     fw_compress_suffix(inst_all_comp[i])) >= (int)sizeof(buf))
			continue;
		if (fstatat(pfd, buf, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISDIR(st.st_mode))
			continue;
		if (unlinkat(pfd, buf, 0) < 0)
			return -errno;
		removed = true;
	}
	if (removed)
		inst_changed(c);
	return 0;
}

/* Put tmp in place of leaf. Where an old directory stands at leaf, swap
 * the two atomically (RENAME_EXCHANGE: readers see the old tree or the new
 * name, never nothing) and remove the old tree; where the filesystem cannot
 * swap, move the directory aside first and say so.
 *
 * The old directory is marked as ours (fw_stage_mark) before the swap, not
 * after: the swap gives it a temporary name, and a kill at any moment from
 * then until its removal ends leaves a marked directory of that name, which
 * the next install or uninstall removes (fw_clean_tmp_in) and verify names
 * as such. Marked after the swap, a kill in between left an unmarked copy of
 * the old blobs that no run may remove, since it is not known to be ours. A
 * kill before the swap leaves the mark in the directory still in place,
 * which the next run swaps out again or cleans. */
int inst_replace(int pfd, const char *tmp, const char *leaf, bool exchange, struct fw_diag *d,
		 pthread_mutex_t *lock, const char *final)
{
	struct stat st;
	bool dir;
	int r;

	if (!exchange)
		return renameat(pfd, tmp, pfd, leaf) < 0 ? -errno : 0;
	dir = fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
	if (dir && (r = fw_stage_mark(pfd, leaf)) < 0)
		return r;
	if (renameat2(pfd, tmp, pfd, leaf, RENAME_EXCHANGE) == 0)
		return fw_rm_rf_at(pfd, tmp);
	if (errno != EINVAL && errno != ENOSYS) {
		r = -errno;
		if (dir)
			fw_stage_unmark(pfd, leaf);
		return r;
	}
	{
		char aside[320];

		/* Aside under a temporary name of its own (marked, if a
		 * directory): what a kill leaves here is cleaned up too. */
		r = fw_tmp_rename(pfd, leaf, leaf, aside, sizeof(aside));
		if (r < 0) {
			if (dir)
				fw_stage_unmark(pfd, leaf);
			return r;
		}
		r = renameat(pfd, tmp, pfd, leaf) < 0 ? -errno : 0;
		if (r < 0) {
			renameat(pfd, aside, pfd, leaf);
			if (dir)
				fw_stage_unmark(pfd, leaf);
			return r;
		}
		fw_rm_rf_at(pfd, aside);
		if (lock)
			pthread_mutex_lock(lock);
		fw_diag_add(d, "", 0,
			    "%s: the filesystem cannot swap a directory atomically "
			    "(RENAME_EXCHANGE); replaced in two steps", fw_esc(final));
		if (lock)
			pthread_mutex_unlock(lock);
		return 0;
	}
}

/* A directory link is switched only once everything the plan puts below
 * its target is in place: otherwise the names the old directory serves
 * would be lost with it (a failed copy, a full disk). */
static const struct item *dir_link_blocker(const struct ctx *c, const struct item *it)
{
	const char *dir = it->pe->dir_target;

	if (!dir)
		return NULL;
	for (size_t i = 0; i < c->nitems; i++)
		if (&c->items[i] != it && inst_under(c->items[i].pe->final, dir) && !c->items[i].ok)
			return &c->items[i];
	return NULL;
}

static void do_link(struct ctx *c, struct item *it)
{
	const struct fw_plan_entry *pe = it->pe;
	const struct item *blocker;
	const char *leaf;
	char tmp[320];
	int pfd, r;

	if (pe->needs >= 0 && !c->items[pe->needs].ok) {
		inst_fail(it, "%s: not linked: its target %s was not installed", fw_esc(pe->final),
			  fw_esc(c->items[pe->needs].pe->name));
		return;
	}
	if ((blocker = dir_link_blocker(c, it))) {
		inst_fail(it, "%s: not linked: %s below its target was not installed; the old %s stays",
			  fw_esc(pe->final), fw_esc(blocker->pe->final), fw_esc(pe->final));
		return;
	}
	/* A link to a link made by this install: that one on disk first,
	 * or a crash could leave this one new and dangling. (Copies are
	 * settled before any link is made.) */
	if (pe->needs >= 0 && c->items[pe->needs].made && c->items[pe->needs].made_epoch == c->epoch)
		settle(c);
	pfd = fw_open_parent(c->destfd, it->dest, 1, &leaf);
	if (pfd < 0) {
		inst_fail(it, "%s: %s", fw_esc(pe->final), inst_parent_error(pfd));
		if (pe->needs >= 0)
			c->items[pe->needs].keep_old = true; /* the old link may use them */
		return;
	}
	if (fw_symlink_is(pfd, leaf, pe->target)) {
		r = 0; /* already right: leave it, and its mtime, alone */
	} else {
		/* A new symlink under a temporary name renamed over the old
		 * entry: readers see the old or the new link, never none. */
		r = fw_tmp_symlink(pfd, leaf, pe->target, tmp, sizeof(tmp));
		if (r == 0) {
			r = inst_replace(pfd, tmp, leaf, it->exchange, c->d, NULL, pe->final);
			if (r < 0)
				unlinkat(pfd, tmp, 0);
		}
		if (r == 0) {
			inst_changed(c);
			it->made = true;
			it->made_epoch = c->epoch;
		}
	}
	if (r < 0) {
		inst_fail(it, "%s: %s; not linked", fw_esc(pe->final),
			  r == -EISDIR ? "a directory is in the way in the destination" : strerror(-r));
		if (pe->needs >= 0)
			c->items[pe->needs].keep_old = true; /* the old link may use them */
	} else {
		it->ok = 1; /* its old variants go at the end, as a blob's do */
	}
	if (pfd != c->destfd)
		close(pfd);
}

/* ---- preflight: what stands at each name now ---- */

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

static int add_stage(struct ctx *c, const char *final)
{
	for (size_t i = 0; i < c->nstages; i++)
		if (strcmp(c->stages[i].final, final) == 0)
			return 0;
	if (fw_grow(&c->stages, &c->cap_stages, c->nstages, sizeof(*c->stages)) < 0)
		return -ENOMEM;
	c->stages[c->nstages] = (struct stage){ .final = strdup(final) };
	if (!c->stages[c->nstages].final)
		return -ENOMEM;
	c->nstages++;
	return 0;
}

/* A component of the name's path that is a file or a symlink: a planted
 * symlink is refused; one the record says we installed (the old tree had a
 * link or a file where the new one has a directory) is switched. */
static int check_parents(struct ctx *c, struct item *it)
{
	const char *final = it->pe->final, *p = final, *slash;
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
			if (c->o->force || (e && fw_rec_entry_state(c->destfd, e) == FW_REC_SAME))
				r = add_stage(c, prefix);
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
		       bool final)
{
	const struct fw_rec_entry *e = recorded(c, name);
	struct stat st;

	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
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

static void check_final(struct ctx *c, struct item *it)
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
	check_name(c, it, pfd, leaf, pe->final, true);
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
		check_name(c, it, pfd, buf, vname, false);
		free(vname);
	}
	if (pfd != c->destfd)
		close(pfd);
}

/* Create each stage's directory and write the names below it there. */
static int prepare_stages(struct ctx *c)
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
		}
	}
	return 0;
}

/* Swap each staged directory in for the file or link the old tree had,
 * only when everything below it is in place. */
static void finish_stages(struct ctx *c)
{
	for (size_t s = 0; s < c->nstages; s++) {
		struct stage *st = &c->stages[s];
		const char *leaf, *tleaf;
		bool bad = false;
		int pfd;

		if (!st->tmp)
			continue;
		for (size_t i = 0; i < c->nitems && !bad; i++)
			bad = inst_under(c->items[i].pe->final, st->final) && !c->items[i].ok;
		pfd = fw_open_parent(c->destfd, st->final, 0, &leaf);
		if (pfd < 0) {
			bad = true;
		} else {
			tleaf = strrchr(st->tmp, '/');
			tleaf = tleaf ? tleaf + 1 : st->tmp;
			if (bad) {
				/* Keep the old entry: half a new directory is worse. */
				fw_rm_rf_at(pfd, tleaf);
			} else {
				int r = inst_replace(pfd, tleaf, leaf, true, c->d, NULL, st->final);
				int sfd;

				if (r < 0)
					bad = true;
				fsync(pfd);
				/* Swapped in: it is no stage any more. */
				sfd = r < 0 ? -1 : openat(pfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
							  O_CLOEXEC);
				if (sfd >= 0) {
					unlinkat(sfd, FW_STAGE_MARK, 0);
					close(sfd);
				}
			}
			if (pfd != c->destfd)
				close(pfd);
		}
		if (!bad)
			continue;
		for (size_t i = 0; i < c->nitems; i++)
			if (inst_under(c->items[i].pe->final, st->final) && c->items[i].ok) {
				c->items[i].ok = 0;
				inst_fail(&c->items[i],
					  "%s: not installed: %s could not be switched to a directory",
					  fw_esc(c->items[i].pe->final), fw_esc(st->final));
			}
	}
}

/* Only now the old variants go (NAME once NAME.xz is in place): a link of
 * the old install (NAME -> blob) points at the old blob until its new link
 * (NAME.xz -> blob.xz) has replaced it, and a link may point at a dedup
 * link. Links go first (the items end with them), so that an old link
 * never outlives the old blob it points at. */
static void drop_old_variants(struct ctx *c)
{
	for (size_t i = c->nitems; i-- > 0;) {
		struct item *it = &c->items[i];
		const struct fw_plan_entry *pe = it->pe;
		const char *leaf;
		int pfd, rv;

		if (!it->ok || it->keep_old || inst_is_licence(it))
			continue;
		pfd = fw_open_parent(c->destfd, pe->final, 0, &leaf);
		rv = pfd < 0 ? pfd :
		     remove_variants(c, pfd, leaf, strlen(leaf) - strlen(fw_compress_suffix(pe->comp)),
				     pe->comp);
		if (pfd >= 0 && pfd != c->destfd)
			close(pfd);
		if (rv < 0) {
			inst_fail(it, "%s: cannot remove the old variants: %s", fw_esc(pe->final),
				  strerror(-rv));
			it->ok = 0;
		}
	}
}

static void count(const struct ctx *c, struct fw_install_result *res)
{
	if (c->settle_err) {
		/* The names may be in place but not on disk: no record. */
		fw_diag_add(c->d, "", 0, "cannot write the install to disk (syncfs): %s; not recorded",
			    strerror(-c->settle_err));
		res->failed++;
	}
	for (size_t i = 0; i < c->nitems; i++) {
		const struct item *it = &c->items[i];
		const struct fw_plan_entry *pe = it->pe;

		if (it->err) {
			fw_diag_add(c->d, "", 0, "%s", it->err);
			res->failed++;
			continue;
		}
		if (it->unchanged)
			res->unchanged++;
		if (pe->kind == FW_PLAN_LICENCE) {
			res->licences++;
		} else if (pe->kind == FW_PLAN_FILE) {
			res->blobs++;
			res->bytes_in += it->in;
			res->bytes_out += it->out;
		} else if (!pe->link) {
			res->dedup_links++;
		} else {
			res->links++;
		}
	}
}

int fw_install(const struct fw_plan *p, int fwfd, const struct fw_install_opts *o,
	       struct fw_install_result *res, struct fw_diag *d)
{
	struct ctx c = { .p = p, .t = p->t, .o = o, .destfd = fwfd, .d = d };
	int r = 0;

	memset(res, 0, sizeof(*res));
	res->failed = p->unsummed;
	pthread_mutex_init(&c.lock, NULL);
	c.nitems = p->ncopies + p->nlinks;
	c.ncopies = p->ncopies;
	c.items = calloc(c.nitems + 1, sizeof(*c.items));
	if (!c.items) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < c.nitems; i++) {
		c.items[i].pe = &p->v[i];
		c.items[i].dest = strdup(p->v[i].final);
		if (!c.items[i].dest) {
			r = -ENOMEM;
			goto out;
		}
	}
	if (p->t->fwfd < 0) {
		fw_diag_add(d, FW_TREE_FIRMWARE "/", 0, "cannot open: %s; nothing installed",
			    strerror(-p->t->fw_err));
		res->failed++;
		goto out;
	}
	/* One install at a time per destination: a second one would take
	 * the first one's temporary files for stale ones. */
	if (flock(fwfd, LOCK_EX) < 0) {
		r = -errno;
		goto out;
	}
	r = inst_load_records(&c);
	if (r == 0) {
		bool *touched = calloc(p->t->split.npkgs + 1, sizeof(*touched));

		if (!touched) {
			r = -ENOMEM;
			goto out;
		}
		inst_mark_touched(&c, touched);
		r = inst_check_release(&c, touched);
		free(touched);
	}
	if (r == -ECANCELED) {
		res->failed++;
		r = 0;
		goto out;
	}
	if (r < 0)
		goto out;
	clean_stale(&c);
	for (size_t i = 0; i < c.nitems && r == 0; i++)
		r = check_parents(&c, &c.items[i]);
	for (size_t i = 0; i < c.nitems && r == 0; i++)
		if (!c.items[i].err)
			check_final(&c, &c.items[i]);
	/* A link that cannot be replaced keeps the old link, and so the old
	 * variants of its target that the old link may point at. */
	for (size_t i = c.ncopies; i < c.nitems; i++)
		if (c.items[i].err && c.items[i].pe->needs >= 0)
			c.items[c.items[i].pe->needs].keep_old = true;
	if (r == 0)
		r = prepare_stages(&c);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < c.nitems; i++)
		if (!c.items[i].err && strcmp(c.items[i].dest, c.items[i].pe->final) == 0)
			inst_materialize(fwfd, &c.items[i]);
	inst_order_copies(&c);
	inst_run_workers(&c);
	/* File links first, then directory links: a directory is switched
	 * only when everything below its new target, links too, is in place,
	 * and on disk (settle). */
	for (int pass = 0; pass < 2; pass++) {
		settle(&c);
		for (size_t i = c.ncopies; i < c.nitems; i++)
			if (!c.items[i].err && !c.items[i].pe->dir_target == !pass)
				do_link(&c, &c.items[i]);
	}
	settle(&c);
	finish_stages(&c);
	/* The old variants go only once the names replacing them are on
	 * disk; the record is written only once the removals are too. */
	if (settle(&c) == 0)
		drop_old_variants(&c);
	settle(&c);
	count(&c, res);
	/* The record changes only after a complete install: a failed one
	 * keeps the old record, and the next run adopts what this one wrote
	 * (its content matches) and finishes the job. */
	if (res->failed == 0) {
		r = inst_finish_records(&c, res);
		if (r < 0) {
			fw_diag_add(d, FW_RECORD_DIR, 0, "cannot write the install record: %s",
				    strerror(-r));
			res->failed++;
			r = 0;
		}
		res->failed += res->kept;
	}
out:
	for (size_t i = 0; c.items && i < c.nitems; i++) {
		free(c.items[i].dest);
		free(c.items[i].err);
	}
	for (size_t i = 0; i < c.nstages; i++) {
		free(c.stages[i].final);
		free(c.stages[i].tmp);
	}
	free(c.stages);
	free(c.items);
	fw_records_free(&c.rec);
	free(c.order);
	pthread_mutex_destroy(&c.lock);
	return r;
}
