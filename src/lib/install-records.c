/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Install's side of the record: read it first, remove or keep the old names, write it last. */
#include "install-int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "util.h"

/* The states of n recorded entries (fw_rec_entry_state), computed by the
 * install's workers: checking what is about to be removed or swapped out
 * reads every byte of it, and both cores share that. */
struct states {
	int fwfd;
	const struct fw_rec_entry **v;
	enum fw_rec_state *out;
};

static void state_one(void *arg, size_t i)
{
	struct states *s = arg;

	s->out[i] = fw_rec_entry_state(s->fwfd, s->v[i]);
}

void inst_rec_states(const struct ctx *c, const struct fw_rec_entry **v, size_t n,
		     enum fw_rec_state *out)
{
	struct states s = { .fwfd = c->destfd, .v = v, .out = out };

	fw_parallel_for(n, c->o->jobs, state_one, &s);
}

static int record_item(struct fw_record *r, const struct item *it)
{
	const struct fw_plan_entry *pe = it->pe;
	struct fw_rec_entry e = { .name = pe->final, .size = pe->size, .comp = pe->comp };

	if (pe->kind == FW_PLAN_LINK) {
		e.type = FW_REC_LINK;
		e.target = pe->target;
	} else {
		e.type = pe->kind == FW_PLAN_LICENCE ? FW_REC_LICENCE : FW_REC_FILE;
		memcpy(e.sha256, pe->sha256, FW_SHA256_LEN);
	}
	return fw_record_add(r, &e);
}

/* An old name the plan no longer has: removed if it is still what the
 * record says fwdist put there (its directory joins dirs, settled once
 * before any record is written); kept and reported if it changed since
 * (unless --force); forgotten if it is gone. true: it stays recorded. */
static bool remove_checked(struct ctx *c, const struct fw_rec_entry *e, enum fw_rec_state s,
			   struct fw_dirset *dirs, struct fw_install_result *res)
{
	/* Looked at again, with its identity, just before it goes: the
	 * states were taken long before (all at once), and dpkg or another
	 * writer may have put its own file at the name since. The removal
	 * then moves the name aside first and unlinks only what it checked
	 * (fw_remove_checked), so a file renamed over it in between stays. */
	char aside[300];
	struct fw_ident id;
	enum fw_rec_state now = fw_rec_entry_state_id(c->destfd, e, &id);
	int r;

	if (now == FW_REC_GONE) {
		fw_dirset_add(dirs, fw_dir_of(e->name));
		return false;
	}
	if (now != s) {
		fw_diag_add(c->d, "", 0, "%s: changed during the install (another writer); kept",
			    fw_esc(e->name));
		res->kept++;
		return true;
	}
	r = fw_remove_checked(c->destfd, e->name, &id, dirs, aside, sizeof(aside));
	if (r == -ESTALE || r == -EADDRINUSE) {
		if (r == -EADDRINUSE)
			fw_diag_add(c->d, "", 0, "%s: replaced twice during the install (another "
				    "writer); what replaced it first is left beside it as %s",
				    fw_esc(e->name), fw_esc(aside));
		else
			fw_diag_add(c->d, "", 0, "%s: replaced during the install by what fwdist did "
				    "not check (another writer); kept", fw_esc(e->name));
		res->kept++;
		return true;
	}
	if (r < 0) {
		/* Still there, and still fwdist's: it stays recorded, so
		 * that uninstall or the next install removes it. */
		fw_diag_add(c->d, "", 0, "%s: cannot remove: %s; kept", fw_esc(e->name), strerror(-r));
		res->kept++;
		return true;
	}
	res->removed++;
	return false;
}

static bool remove_old(struct ctx *c, const struct fw_rec_entry *e, enum fw_rec_state s,
		       struct fw_dirset *dirs, struct fw_dirset *cl, struct fw_install_result *res)
{
	/* The exact name: another storage of it beside dpkg's is fwdist's
	 * old one, removed as any other (the kernel would serve it too). */
	const char *o = fw_dpkg_owner(c->o->dpkg, e->name);

	if (o) {
		/* A Debian package put its own file there since: it is that
		 * package's now, and no longer fwdist's to record. */
		fw_dpkg_tally_add(&c->tally, o, e->name, false);
		return false;
	}
	/* A kill between a checked removal's two steps (aside, then
	 * unlink) leaves the temporary in a directory the new release may
	 * no longer write to: removed here. */
	fw_clean_tmp_near(c->destfd, e->name, cl);
	if (s == FW_REC_GONE) {
		/* Its directory may be what an install killed while removing
		 * the old names left empty: removed with the others if so. */
		fw_dirset_add(dirs, fw_dir_of(e->name));
		return false;
	}
	if (s == FW_REC_BLOCKED) {
		/* Its directory was replaced (by a link, a file): it went with
		 * the old directory, or it is not ours to reach. */
		return false;
	}
	if (s != FW_REC_SAME && !(c->o->force && s != FW_REC_OTHER_TYPE)) {
		fw_diag_add(c->d, "", 0, "%s: %s; kept (%s)", fw_esc(e->name), fw_rec_state_words(s),
			    s == FW_REC_OTHER_TYPE ? "not fwdist's to remove" : "--force removes it");
		res->kept++;
		return true;
	}
	return remove_checked(c, e, s, dirs, res);
}

/* The packages whose records this install rewrites: those it puts a name
 * of, and those its plan covers. touched[split.npkgs]. */
void inst_mark_touched(const struct ctx *c, bool *touched)
{
	for (size_t i = 0; i < c->nitems; i++)
		if (c->items[i].pe->pkg >= 0)
			touched[c->items[i].pe->pkg] = true;
	for (size_t k = 0; k < c->t->split.npkgs; k++) {
		const struct fw_record *rec = fw_records_get((struct fw_records *)&c->rec,
							     c->t->split.pkgs[k].name);
		bool marked;

		touched[k] |= fw_plan_covers(c->p, (int)k);
		/* A Debian package's record is apt's to change. */
		if (rec && inst_rec_owner(c, rec, &marked))
			touched[k] = false;
	}
}

const char *inst_rec_owner(const struct ctx *c, const struct fw_record *rec, bool *marked)
{
	/* On the stack: out of memory must not read as "fwdist's". A
	 * record's name is one directory entry (at most 255 bytes). */
	char path[300];
	const char *o = NULL;

	if (snprintf(path, sizeof(path), "%s/%s.list", FW_RECORD_DIR, rec->package) <
	    (int)sizeof(path))
		o = fw_dpkg_owner(c->o->dpkg, path);
	*marked = false;
	if (o)
		return o;
	/* Marked, and no database here lists it (a package's tree copied by
	 * hand, or its own build): the package's all the same, unless the
	 * caller takes it over or builds that package. */
	if (rec->packaged && !c->o->adopt_packaged && !c->o->packaged) {
		*marked = true;
		return rec->packaged;
	}
	return NULL;
}

void inst_dpkg_mark(struct ctx *c)
{
	for (size_t i = 0; i < c->nitems; i++) {
		struct item *it = &c->items[i];
		const struct fw_plan_entry *pe = it->pe;
		const struct fw_record *rec = pe->pkg < 0 ? NULL :
			fw_records_get(&c->rec, c->t->split.pkgs[pe->pkg].name);
		bool marked = false;
		const char *o = rec ? inst_rec_owner(c, rec, &marked) : NULL;

		/* Every storage of a name: NAME.xz beside dpkg's NAME would
		 * be served after it, and installing it removes NAME. */
		if (!o)
			o = inst_is_licence(it) ? fw_dpkg_owner(c->o->dpkg, pe->final) :
						  fw_dpkg_owner_any(c->o->dpkg, pe->final);
		if (!o)
			continue;
		it->dpkg = true;
		it->ok = 1; /* in place, as far as a link to it goes */
		it->owner = o;
		it->owner_marked = marked;
		fw_dpkg_tally_add(&c->tally, o, pe->final, marked);
	}
	/* A link to a name left to a Debian package is left with it: the
	 * package decides what stands at its target (it may not be there at
	 * all under this install's compression, nor stay there); a link to
	 * such a link too (until no more change: at most one pass a link). */
	for (bool again = true; again;) {
		again = false;
		for (size_t i = c->ncopies; i < c->nitems; i++) {
			struct item *it = &c->items[i];
			const struct item *to = it->pe->needs < 0 ? NULL : &c->items[it->pe->needs];

			if (it->dpkg || !to || !to->dpkg)
				continue;
			it->dpkg = true;
			it->ok = 1;
			it->owner = to->owner;
			it->owner_marked = to->owner_marked;
			fw_dpkg_tally_add(&c->tally, it->owner, it->pe->final, it->owner_marked);
			again = true;
		}
	}
}

/* Remove what the old record of each covered package has and the plan
 * does not; take over entries other packages' records held; write the
 * records, last. A package the plan covers only in part (--select) keeps
 * its other entries. */
int inst_finish_records(struct ctx *c, struct fw_install_result *res)
{
	const struct fw_plan *p = c->p;
	const struct fw_tree *t = c->t;
	bool *touched = calloc(t->split.npkgs + 1, sizeof(*touched));
	struct fw_record *keep = calloc(t->split.npkgs + 1, sizeof(*keep));
	struct fw_dirset dirs = { 0 }, cl = { 0 };
	const struct fw_rec_entry **old = NULL;
	enum fw_rec_state *state = NULL;
	size_t nold = 0, iold = 0, cap = 0;
	int r = 0;

	if (!touched || !keep) {
		r = -ENOMEM;
		goto out;
	}
	inst_mark_touched(c, touched);
	/* The old names to remove, checked all at once (rec_states). */
	for (size_t i = 0; i < c->rec.n && r == 0; i++) {
		const struct fw_record *rec = &c->rec.v[i];
		bool marked;

		if (!fw_plan_covers(p, fw_split_find(&t->split, rec->package)) ||
		    inst_rec_owner(c, rec, &marked))
			continue;
		for (size_t j = 0; j < rec->n && r == 0; j++) {
			if (fw_plan_find(p, rec->v[j].name))
				continue;
			if (fw_grow(&old, &cap, nold, sizeof(*old)) < 0)
				r = -ENOMEM;
			else
				old[nold++] = &rec->v[j];
		}
	}
	state = calloc(nold + 1, sizeof(*state));
	if (r == 0 && !state)
		r = -ENOMEM;
	if (r == 0)
		inst_rec_states(c, old, nold, state);
	for (size_t i = 0; i < c->rec.n && r == 0; i++) {
		struct fw_record *rec = &c->rec.v[i];
		int k = fw_split_find(&t->split, rec->package);
		bool covered = fw_plan_covers(p, k), marked;
		size_t w = 0, n = rec->n;

		if (inst_rec_owner(c, rec, &marked))
			continue; /* a Debian package's: apt's to change, as it is */
		if (k < 0)
			fw_diag_add(c->d, "", 0,
				    "%s/%s.list: a record of package %s, which %s does not have: its "
				    "names are left alone (uninstall them with the tree that installed "
				    "them, or remove the record)", FW_RECORD_DIR, fw_esc(rec->package),
				    fw_esc(rec->package), FW_TREE_SPLIT);
		for (size_t j = 0; j < n && r == 0; j++) {
			struct fw_rec_entry *e = &rec->v[j];
			/* A name the plan has, as a file, a link or a directory
			 * it switched to: the plan's package records it now. */
			bool planned = fw_plan_find(p, e->name) != NULL;
			bool stays;

			if (planned) {
				stays = false; /* the plan's package records it now */
			} else if (covered) {
				stays = remove_old(c, e, state[iold++], &dirs, &cl, res);
			} else {
				stays = true;
			}
			if (stays && k >= 0 && touched[k]) {
				/* Rewritten below with the plan's entries. */
				r = fw_record_add(&keep[k], e);
				stays = false;
			}
			if (stays) {
				rec->v[w++] = *e;
				continue;
			}
			free(e->name);
			free(e->target);
		}
		rec->n = w;
		if (r == 0 && k < 0 && w != n)
			r = w ? fw_record_write(c->destfd, rec) : fw_record_remove(c->destfd, rec->package);
		else if (r == 0 && k >= 0 && !touched[k] && w != n)
			/* Taken over by an installed package: one path, one package. */
			r = w ? fw_record_write(c->destfd, rec) : fw_record_remove(c->destfd, rec->package);
	}
	/* The removals reach the disk, and the directories they emptied go,
	 * before the records that no longer list them are written. */
	fw_settle_dirs(c->destfd, &dirs);
	for (size_t k = 0; k < t->split.npkgs && r == 0; k++) {
		struct fw_record *nr = &keep[k];

		if (!touched[k])
			continue;
		nr->package = t->split.pkgs[k].name;
		/* The newest signed release: this one (check_release let it
		 * through), else what the old record had. */
		if (c->o->release && c->o->release->set) {
			nr->release = *c->o->release;
		} else {
			const struct fw_record *was = fw_records_get(&c->rec, nr->package);

			if (was)
				nr->release = was->release;
		}
		if (c->o->packaged)
			nr->packaged = nr->package; /* the Debian package of that name */
		for (size_t i = 0; i < c->nitems && r == 0; i++)
			if (c->items[i].pe->pkg == (int)k && c->items[i].ok && !c->items[i].dpkg)
				r = record_item(nr, &c->items[i]);
		if (r == 0)
			r = nr->n ? fw_record_write(c->destfd, nr) : fw_record_remove(c->destfd, nr->package);
	}
out:
	for (size_t k = 0; keep && k < t->split.npkgs; k++) {
		for (size_t i = 0; i < keep[k].n; i++) {
			free(keep[k].v[i].name);
			free(keep[k].v[i].target);
		}
		free(keep[k].v);
	}
	free(keep);
	free(touched);
	free(old);
	free(state);
	fw_dirset_free(&dirs);
	fw_dirset_free(&cl);
	return r;
}

/* Did this install put the item in place itself (a copy written, a
 * symlink made), rather than find it there or leave it to dpkg? */
static bool written(const struct item *it)
{
	if (!it->ok || it->dpkg)
		return false;
	return it->pe->kind == FW_PLAN_LINK ? it->made : !it->unchanged;
}

/* The item in place at name (the plan's entry of that final name). */
static const struct item *item_at(const struct ctx *c, const char *name)
{
	const struct fw_plan_entry *pe = fw_plan_find(c->p, name);
	size_t i = pe ? (size_t)(pe - c->p->v) : c->nitems;

	if (i >= c->nitems || !c->items[i].ok || c->items[i].dpkg)
		return NULL;
	return &c->items[i];
}

/* Is there still something at the entry's name, reached without a
 * symlink? (Not its content: an entry kept is checked when it is acted
 * on, as after any install.) */
static bool still_there(int fwfd, const struct fw_rec_entry *e)
{
	const char *leaf;
	struct stat st;
	int pfd = fw_open_parent(fwfd, e->name, 0, &leaf);
	bool there;

	if (pfd < 0)
		return false;
	there = fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (pfd != fwfd)
		close(pfd);
	return there;
}

int inst_record_written(struct ctx *c)
{
	const struct fw_tree *t = c->t;
	struct fw_record *nr = calloc(t->split.npkgs + 1, sizeof(*nr));
	bool *dirty = calloc(t->split.npkgs + 1, sizeof(*dirty)), any = false;
	int r = 0;

	for (size_t i = 0; i < c->nitems && !any; i++)
		any = written(&c->items[i]);
	if (!nr || !dirty) {
		r = -ENOMEM;
		goto out;
	}
	if (!any)
		goto out; /* nothing written: the records stay exactly as they were */
	/* Each record not a Debian package's: what it lists, but a name this
	 * install put in place (recorded below, as the plan's package's), and
	 * a name no longer there (an old variant this install removed, the
	 * old entry where it switched a directory; a complete install
	 * forgets those too). Nothing else is removed: the old names stay
	 * recorded, and the next complete install (or uninstall) removes them. */
	for (size_t i = 0; i < c->rec.n && r == 0; i++) {
		struct fw_record *rec = &c->rec.v[i];
		size_t w = 0, n = rec->n;
		bool marked;

		if (inst_rec_owner(c, rec, &marked))
			continue;
		for (size_t j = 0; j < n; j++) {
			struct fw_rec_entry *e = &rec->v[j];

			if (!item_at(c, e->name) && still_there(c->destfd, e)) {
				rec->v[w++] = *e;
				continue;
			}
			free(e->name);
			free(e->target);
		}
		rec->n = w;
		if (w != n) {
			int k = fw_split_find(&t->split, rec->package);

			if (k >= 0)
				dirty[k] = true;
			else
				r = w ? fw_record_write(c->destfd, rec) :
					fw_record_remove(c->destfd, rec->package);
		}
	}
	for (size_t i = 0; i < c->nitems && r == 0; i++) {
		const struct item *it = &c->items[i];

		if (it->ok && !it->dpkg && it->pe->pkg >= 0) {
			r = record_item(&nr[it->pe->pkg], it);
			dirty[it->pe->pkg] = true;
		}
	}
	for (size_t k = 0; k < t->split.npkgs && r == 0; k++) {
		struct fw_record *was = fw_records_get(&c->rec, t->split.pkgs[k].name);

		if (!dirty[k])
			continue;
		nr[k].package = t->split.pkgs[k].name;
		for (size_t j = 0; was && j < was->n && r == 0; j++)
			r = fw_record_add(&nr[k], &was->v[j]);
		/* The release is not raised: this one is not installed whole.
		 * (A rerun of it passes check_release all the same.) */
		if (was)
			nr[k].release = was->release;
		/* What a name it lacks means: not installed, not left out. */
		nr[k].incomplete = true;
		if (c->o->packaged)
			nr[k].packaged = nr[k].package;
		if (r == 0)
			r = nr[k].n ? fw_record_write(c->destfd, &nr[k]) :
				      fw_record_remove(c->destfd, nr[k].package);
	}
out:
	for (size_t k = 0; nr && k < t->split.npkgs; k++) {
		for (size_t i = 0; i < nr[k].n; i++) {
			free(nr[k].v[i].name);
			free(nr[k].v[i].target);
		}
		free(nr[k].v);
	}
	free(nr);
	free(dirty);
	return r;
}

/* The record is read before anything is written: one that fwdist did not
 * write (damaged, foreign files in .fwdist/) is never acted on. */
int inst_load_records(struct ctx *c)
{
	int r = fw_records_load(c->destfd, &c->rec, c->d);

	if (r == -ELOOP || r == -ENOTDIR) {
		fw_diag_add(c->d, "", 0, "%s: %s; nothing installed", FW_RECORD_DIR,
			    r == -ELOOP ? "a symlink is in the way; refusing to follow it" :
					  "not a directory (install keeps its record there)");
		return -ECANCELED;
	}
	if (r < 0) {
		fw_diag_add(c->d, "", 0, "%s: cannot read the install record: %s; nothing installed",
			    FW_RECORD_DIR, strerror(-r));
		return -ECANCELED;
	}
	if ((c->rec.damaged || c->rec.foreign) && !c->o->force) {
		fw_diag_add(c->d, "", 0,
			    "%s/ holds what fwdist did not write (see above); nothing installed "
			    "(fix or remove it, or --force to go on without it)", FW_RECORD_DIR);
		return -ECANCELED;
	}
	return 0;
}

/* Before anything is written: a signed release may not replace a newer
 * one, nor another release of the same serial, in any package it installs.
 * An old signature stays valid forever, so without this anyone who kept a
 * copy of an older signed tree (with a since-fixed blob) could bring it
 * back with a valid signature. */
int inst_check_release(struct ctx *c, const bool *touched)
{
	const struct fw_rec_release *nr = c->o->release;
	bool refused = false;

	if (!nr || !nr->set)
		return 0;
	for (size_t i = 0; i < c->rec.n; i++) {
		const struct fw_record *rec = &c->rec.v[i];
		const struct fw_rec_release *old = &rec->release;
		int k = fw_split_find(&c->t->split, rec->package);

		if (k < 0 || !touched[k] || !old->set)
			continue;
		if (nr->serial > old->serial ||
		    (nr->serial == old->serial && !memcmp(nr->pins, old->pins, FW_SHA256_LEN)))
			continue;
		if (nr->serial < old->serial)
			fw_diag_add(c->d, "", 0, "%s/%s.list: a downgrade from serial %" PRIu64 " to serial "
				    "%" PRIu64 "%s", FW_RECORD_DIR, rec->package, old->serial, nr->serial,
				    c->o->allow_downgrade ? " (--allow-downgrade)" : "");
		else
			fw_diag_add(c->d, "", 0, "%s/%s.list: serial %" PRIu64 " is installed from other "
				    "signed pins: two releases with one serial are a forgery or a mistake%s",
				    FW_RECORD_DIR, rec->package, old->serial,
				    c->o->allow_downgrade ? " (--allow-downgrade)" : "");
		refused = true;
	}
	if (!refused || c->o->allow_downgrade)
		return 0;
	fw_diag_add(c->d, "", 0, "nothing installed (--allow-downgrade installs it all the same)");
	return -ECANCELED;
}
