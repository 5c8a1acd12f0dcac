/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The driver of an install plan (fw_install) and its steps after the copies: links, switches, old variants. */
#include "install-int.h"

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
 * reports a write-back error of the filesystem (Linux 5.8 and later).
 * (inst_changed, in install-util.c, notes that something changed.) */

/* Make every change so far durable. A failure is kept (settle_err): what
 * the install wrote may not be on disk, so nothing that relies on it (old
 * variants' removal, the record) follows. */
static int settle(struct ctx *c)
{
	if (!atomic_exchange(&c->unsynced, false))
		return c->settle_err;
	/* --packaged: a package's build tree; dpkg syncs what it unpacks. */
	if (!c->o->packaged && syncfs(c->destfd) < 0 && !c->settle_err)
		c->settle_err = -errno;
	c->epoch++;
	return c->settle_err;
}

/* After NAME.xz is in place, NAME and NAME.zst (from an install with
 * another compression) go: the kernel would serve NAME first. What is
 * removed is what was checked before (check_final: ours, or --force), and
 * only that (fw_unlink_checked): a variant another writer put or renamed
 * there since is kept, and the item fails naming it. */
static int remove_variants(struct ctx *c, struct item *it, int pfd, const char *leaf,
			   size_t baselen, enum fw_compress keep)
{
	char buf[512], aside[320];
	bool removed = false;
	int r = 0;

	for (size_t i = 0; i < FW_ARRAY_SIZE(inst_all_comp) && r == 0; i++) {
		const struct fw_ident *was = &it->seen[inst_all_comp[i]];
		struct stat st;

		if (inst_all_comp[i] == keep)
			continue;
		if (snprintf(buf, sizeof(buf), "%.*s%s", (int)baselen, leaf,
			     fw_compress_suffix(inst_all_comp[i])) >= (int)sizeof(buf))
			continue;
		if (fstatat(pfd, buf, &st, AT_SYMLINK_NOFOLLOW) < 0 || (S_ISDIR(st.st_mode) && was->mode))
			continue;
		r = was->mode ? fw_unlink_checked(pfd, buf, was, aside, sizeof(aside)) : -EEXIST;
		if (r == 0) {
			removed = true;
			continue;
		}
		inst_fail(it, "%s: cannot remove its old variant %.*s%s: %s", fw_esc(it->pe->final),
			  (int)(strlen(it->pe->final) - strlen(leaf) + baselen), it->pe->final,
			  fw_compress_suffix(inst_all_comp[i]),
			  r == -EADDRINUSE ? "replaced twice during the install (another writer); "
					     "what replaced it first is left beside it under a temporary name" :
			  r == -EEXIST || r == -ESTALE ? inst_replace_error(r) : strerror(-r));
	}
	if (removed)
		inst_changed(c);
	return r;
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
			r = inst_replace(pfd, tmp, leaf, it->exchange, c->d, NULL, pe->final,
					 &it->seen[pe->comp]);
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
		inst_fail(it, "%s: %s; not linked", fw_esc(pe->final), inst_replace_error(r));
		if (pe->needs >= 0)
			c->items[pe->needs].keep_old = true; /* the old link may use them */
	} else {
		it->ok = 1; /* its old variants go at the end, as a blob's do */
	}
	if (pfd != c->destfd)
		close(pfd);
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
				int r = inst_replace(pfd, tleaf, leaf, true, c->d, NULL, st->final,
						     &st->was);
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

		if (!it->ok || it->keep_old || inst_is_licence(it) || it->dpkg)
			continue;
		pfd = fw_open_parent(c->destfd, pe->final, 0, &leaf);
		rv = pfd < 0 ? pfd :
		     remove_variants(c, it, pfd, leaf,
				     strlen(leaf) - strlen(fw_compress_suffix(pe->comp)), pe->comp);
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
		if (it->dpkg)
			continue; /* counted once per Debian package */
		if (c->o->in_place)
			c->o->in_place[pe - c->p->v] = true;
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
	if (r == 0)
		inst_dpkg_mark(&c);
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
		if (!c.items[i].dpkg)
			r = inst_check_parents(&c, &c.items[i]);
	for (size_t i = 0; i < c.nitems && r == 0; i++)
		if (!c.items[i].err && !c.items[i].dpkg)
			inst_check_final(&c, &c.items[i]);
	/* A link that cannot be replaced keeps the old link, and so the old
	 * variants of its target that the old link may point at. */
	for (size_t i = c.ncopies; i < c.nitems; i++)
		if (c.items[i].err && c.items[i].pe->needs >= 0)
			c.items[c.items[i].pe->needs].keep_old = true;
	if (r == 0)
		r = inst_prepare_stages(&c);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < c.nitems; i++)
		if (!c.items[i].err && !c.items[i].dpkg &&
		    strcmp(c.items[i].dest, c.items[i].pe->final) == 0)
			inst_materialize(fwfd, &c.items[i]);
	if (o->progress) {
		uint64_t bytes = 0;

		for (size_t i = 0; i < c.ncopies; i++)
			bytes += c.items[i].pe->size;
		fw_progress_total(o->progress, c.ncopies, bytes);
	}
	inst_order_copies(&c);
	inst_run_workers(&c);
	/* File links first, then directory links: a directory is switched
	 * only when everything below its new target, links too, is in place,
	 * and on disk (settle). */
	for (int pass = 0; pass < 2; pass++) {
		settle(&c);
		for (size_t i = c.ncopies; i < c.nitems; i++)
			if (!c.items[i].err && !c.items[i].dpkg && !c.items[i].pe->dir_target == !pass)
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
	/* The old names go, and the release is raised, only after a
	 * complete install; a failed one records what it wrote (below), and
	 * the next run reads it back as unchanged and finishes the job. */
	if (res->failed == 0) {
		r = inst_finish_records(&c, res);
		if (r < 0) {
			fw_diag_add(d, FW_RECORD_DIR, 0, "cannot write the install record: %s",
				    strerror(-r));
			res->failed++;
			r = 0;
		}
		res->failed += res->kept;
	} else if (!c.settle_err) {
		/* A failed install is not undone (each name is old or new,
		 * and what it put in place serves): what it wrote is recorded,
		 * so that uninstall removes it and verify knows it as fwdist's.
		 * (Not when syncfs failed: what is on disk cannot be told.) */
		int rr = inst_record_written(&c);

		if (rr < 0) {
			fw_diag_add(d, FW_RECORD_DIR, 0, "cannot write the install record: %s",
				    strerror(-rr));
			res->failed++;
		}
	}
out:
	/* Said even when nothing else was done: why those names stay. */
	res->dpkg = fw_dpkg_tally_report(&c.tally, d);
	fw_dpkg_tally_free(&c.tally);
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
