/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Uninstall: exactly what the record lists, or the tree's own content where there is no record. */
#include "uninstall.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "record.h"
#include "util.h"

static const enum fw_compress all_comp[] = { FW_COMP_NONE, FW_COMP_XZ, FW_COMP_ZSTD };

/* Name the component of name's path that could not be opened. */
/* A removal that found another's file at the name (fw_remove_checked):
 * said, naming it. The checks read every byte, and dpkg and other
 * writers do not take fwdist's lock: what was renamed there since is not
 * what was checked, and is kept. */
static void raced(const char *name, int r, const char *aside, struct fw_diag *d)
{
	if (r == -EADDRINUSE)
		fw_diag_add(d, "", 0, "%s: replaced twice during the uninstall (another writer); what "
			    "replaced it first is left beside it as %s", fw_esc(name), fw_esc(aside));
	else
		fw_diag_add(d, "", 0, "%s: replaced during the uninstall by what fwdist did not check "
			    "(another writer); kept", fw_esc(name));
}

static void blocked(const char *name, int r, struct fw_uninstall_result *res, struct fw_diag *d)
{
	fw_diag_add(d, "", 0, "%s: %s", fw_esc(name),
		    r == -ELOOP ? "a symlink is in its path in the destination; refusing to follow it" :
		    r == -ENOTDIR ? "a non-directory is in its path in the destination" : strerror(-r));
	res->failed++;
}

static void note(enum fw_rec_type type, const char *name, struct fw_uninstall_result *res)
{
	char *s = strdup(name);

	if (!s || fw_grow(&res->v, &res->cap, res->n, sizeof(*res->v)) < 0) {
		free(s);
		res->lost = true;
		return;
	}
	res->v[res->n].type = type;
	res->v[res->n++].name = s;
}

void fw_uninstall_result_free(struct fw_uninstall_result *res)
{
	for (size_t i = 0; i < res->n; i++)
		free(res->v[i].name);
	free(res->v);
	res->v = NULL;
	res->n = res->cap = 0;
}

static void removed(enum fw_rec_type type, struct fw_uninstall_result *res)
{
	if (type == FW_REC_LICENCE)
		res->licences++;
	else if (type == FW_REC_LINK)
		res->links++; /* a Link: entry or a dedup link */
	else
		res->blobs++;
}

/* The request name of a recorded entry (its suffix off), to match it with
 * the plan whatever compression the install used. */
static const struct fw_plan_entry *planned(const struct fw_plan *p, const struct fw_rec_entry *e)
{
	const struct fw_plan_entry *pe;
	char buf[4096];
	size_t n = strlen(e->name);

	if (e->type == FW_REC_LICENCE)
		return fw_plan_find(p, e->name);
	pe = fw_plan_find_name(p, e->name);
	if (pe)
		return pe;
	for (size_t i = 1; i < FW_ARRAY_SIZE(all_comp); i++) {
		const char *suf = fw_compress_suffix(all_comp[i]);
		size_t sl = strlen(suf);

		if (n > sl && n - sl < sizeof(buf) && strcmp(e->name + n - sl, suf) == 0) {
			memcpy(buf, e->name, n - sl);
			buf[n - sl] = '\0';
			if ((pe = fw_plan_find_name(p, buf)))
				return pe;
		}
	}
	return NULL;
}

/* Remove what one package's record lists (whole) or what of it the plan
 * selects; what stays is compacted in rec. */
static void by_record(const struct fw_plan *p, int fwfd, struct fw_record *rec, bool whole,
		      const struct fw_uninstall_opts *o, struct fw_uninstall_result *res,
		      struct fw_diag *d, struct fw_dirset *cl, struct fw_dirset *touched,
		      struct fw_dpkg_tally *tally)
{
	size_t w = 0, n = rec->n;
	int r;

	for (size_t j = 0; j < n; j++) {
		struct fw_rec_entry *e = &rec->v[j];
		const struct fw_plan_entry *pe = planned(p, e);
		const char *owner;
		enum fw_rec_state s;
		struct fw_ident id;
		char aside[320];

		/* With --select, the licence texts stay while any name of the
		 * package that needs them does: they go with the last one. */
		if (!whole && (!pe || e->type == FW_REC_LICENCE)) {
			rec->v[w++] = *e;
			continue;
		}
		if ((owner = fw_dpkg_owner(o->dpkg, e->name))) {
			/* A Debian package's file now: never removed, and no
			 * longer fwdist's to record. */
			fw_dpkg_tally_add(tally, owner, e->name, false);
			free(e->name);
			free(e->target);
			continue;
		}
		fw_clean_tmp_near(fwfd, e->name, cl);
		s = fw_rec_entry_state_id(fwfd, e, &id);
		if (s == FW_REC_GONE) {
			/* An install or uninstall killed while removing may
			 * have left its directory empty: it goes if so. */
			fw_dirset_add(touched, fw_dir_of(e->name));
			free(e->name);
			free(e->target);
			continue;
		}
		if (s == FW_REC_BLOCKED) {
			const char *leaf;
			int pfd = fw_open_parent(fwfd, e->name, 0, &leaf);

			blocked(e->name, pfd < 0 ? pfd : -EIO, res, d);
			if (pfd >= 0 && pfd != fwfd)
				close(pfd);
			rec->v[w++] = *e;
			continue;
		}
		if (s != FW_REC_SAME && !(o->force && s == FW_REC_CHANGED)) {
			fw_diag_add(d, "", 0, "%s: %s; kept (%s)", fw_esc(e->name), fw_rec_state_words(s),
				    s == FW_REC_CHANGED ? "--force removes it" : "not fwdist's to remove");
			res->kept++;
			rec->v[w++] = *e;
			continue;
		}
		r = fw_remove_checked(fwfd, e->name, &id, touched, aside, sizeof(aside));
		if (r == -ESTALE || r == -EADDRINUSE) {
			raced(e->name, r, aside, d);
			res->kept++;
			rec->v[w++] = *e;
			continue;
		}
		if (r < 0) {
			fw_diag_add(d, "", 0, "%s: cannot remove: %s", fw_esc(e->name), strerror(-r));
			res->failed++;
			rec->v[w++] = *e;
			continue;
		}
		removed(e->type, res);
		note(e->type, e->name, res);
		free(e->name);
		free(e->target);
	}
	rec->n = w;
}

/* Is the variant at vname (in pfd as leaf) the tree's: the content of the
 * planned entry, or the link text it plans? */
static bool variant_is_tree(int fwfd, int pfd, const char *leaf, const char *vname,
			    const struct fw_plan_entry *pe, enum fw_compress c, struct fw_ident *id)
{
	struct stat st;
	bool same = false;
	int fd;

	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	/* What is removed if it is the tree's: this link, or the file read
	 * below (fw_remove_checked). */
	fw_ident_of(id, &st);
	if (S_ISLNK(st.st_mode) && pe->link) {
		char *want = fw_asprintf("%s%s", pe->link->e->target, fw_compress_suffix(c));

		same = want && fw_symlink_is(pfd, leaf, want);
		free(want);
		if (same || !pe->blob)
			return same;
	}
	if (!pe->blob && pe->kind != FW_PLAN_LICENCE)
		return false;
	/* A dedup link leads to a copy of the same bytes: follow it, inside. */
	fd = S_ISLNK(st.st_mode) ? fw_open_resolve(fwfd, vname, O_RDONLY | O_NONBLOCK) :
	     S_ISREG(st.st_mode) ? openat(pfd, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
	if (fd < 0)
		return false;
	same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	       fw_fd_holds(fd, c, pe->sha256, pe->size, NULL);
	if (!S_ISLNK(id->mode))
		fw_ident_of(id, &st);
	close(fd);
	return same;
}

/* No record (an install by an older fwdist, files unpacked from packages):
 * every variant of the plan's names of package k that holds the tree's
 * content goes; anything else is kept. */
static void by_plan(const struct fw_plan *p, int fwfd, int k, const struct fw_dpkg *db,
		    struct fw_uninstall_result *res, struct fw_diag *d, struct fw_dirset *cl,
		    struct fw_dirset *touched, struct fw_dpkg_tally *tally)
{
	for (size_t i = 0; i < p->ncopies + p->nlinks; i++) {
		const struct fw_plan_entry *pe = &p->v[i];
		bool licence = pe->kind == FW_PLAN_LICENCE, any = false;
		const char *leaf;
		int pfd, r;

		/* With --select, the texts may still be needed by the rest. */
		if (pe->pkg != k || (licence && !fw_plan_covers(p, k)))
			continue;
		pfd = fw_open_parent(fwfd, pe->name, 0, &leaf);
		if (pfd == -ENOENT)
			continue;
		if (pfd < 0) {
			blocked(pe->name, pfd, res, d);
			continue;
		}
		fw_clean_tmp_near(fwfd, pe->name, cl);
		for (size_t v = 0; v < (licence ? 1 : FW_ARRAY_SIZE(all_comp)); v++) {
			const char *suf = fw_compress_suffix(all_comp[v]);
			char buf[512], *vname;
			const char *owner;
			struct stat st;
			struct fw_ident id;
			char aside[320];

			if (snprintf(buf, sizeof(buf), "%s%s", leaf, suf) >= (int)sizeof(buf) ||
			    fstatat(pfd, buf, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			vname = fw_asprintf("%s%s", pe->name, suf);
			if (!vname) {
				res->failed++;
				continue;
			}
			if ((owner = fw_dpkg_owner(db, vname)))
				fw_dpkg_tally_add(tally, owner, vname, false); /* side by side with Debian's */
			else if (S_ISDIR(st.st_mode) ||
				 !variant_is_tree(fwfd, pfd, buf, vname, pe, all_comp[v], &id)) {
				fw_diag_add(d, "", 0, "%s: not the tree's %s; kept", fw_esc(vname),
					    S_ISDIR(st.st_mode) ? "file (a directory)" :
					    pe->link ? "link" : "content");
				res->kept++;
			} else if ((r = fw_remove_checked(fwfd, vname, &id, touched, aside,
							  sizeof(aside))) == -ESTALE || r == -EADDRINUSE) {
				raced(vname, r, aside, d);
				res->kept++;
			} else if (r < 0) {
				fw_diag_add(d, "", 0, "%s: cannot remove: %s", fw_esc(vname), strerror(-r));
				res->failed++;
			} else {
				any = true;
				note(licence ? FW_REC_LICENCE : pe->kind == FW_PLAN_LINK ? FW_REC_LINK :
				     FW_REC_FILE, vname, res);
			}
			free(vname);
		}
		if (any)
			removed(licence ? FW_REC_LICENCE : pe->kind == FW_PLAN_LINK ? FW_REC_LINK :
				FW_REC_FILE, res);
		if (pfd != fwfd)
			close(pfd);
	}
}

int fw_uninstall(const struct fw_plan *p, int fwfd, const struct fw_uninstall_opts *o,
		 struct fw_uninstall_result *res, struct fw_diag *d)
{
	const struct fw_tree *t = p->t;
	struct fw_records rec;
	bool *touched = calloc(t->split.npkgs + 1, sizeof(*touched)), used_plan = false;
	struct fw_dirset cl = { 0 }, touched_dirs = { 0 };
	struct fw_dpkg_tally tally = { 0 };
	bool refused = false;
	int r;

	memset(res, 0, sizeof(*res));
	if (!touched)
		return -ENOMEM;
	if (flock(fwfd, LOCK_EX) < 0) {
		free(touched);
		return -errno;
	}
	r = fw_records_load(fwfd, &rec, d);
	if (r == -ELOOP || r == -ENOTDIR) {
		fw_diag_add(d, "", 0, "%s: %s; nothing removed", FW_RECORD_DIR,
			    r == -ELOOP ? "a symlink is in the way; refusing to follow it" :
					  "not a directory (install keeps its record there)");
		res->failed++;
		free(touched);
		return 0;
	}
	if (r < 0) {
		free(touched);
		return r;
	}
	if ((rec.damaged || rec.foreign) && !o->force) {
		fw_diag_add(d, "", 0, "%s/ holds what fwdist did not write (see above); nothing removed "
			    "(fix or remove it, or --force to go on without it)", FW_RECORD_DIR);
		res->failed++;
		goto out;
	}
	for (size_t i = 0; i < p->ncopies + p->nlinks; i++)
		if (p->v[i].pkg >= 0)
			touched[p->v[i].pkg] = true;
	/* A Debian package's record (its .deb ships it): what it lists is
	 * dpkg's, and apt removes it; nothing is removed here, of any
	 * package, so that the refusal leaves the root as it was. */
	for (size_t k = 0; k < t->split.npkgs; k++) {
		const char *name = t->split.pkgs[k].name, *owner;
		struct fw_record *pr = fw_records_get(&rec, name);
		char *path;

		if (!pr || (!touched[k] && !fw_plan_covers(p, (int)k)))
			continue;
		path = fw_asprintf("%s/%s.list", FW_RECORD_DIR, name);
		if (!path) {
			r = -ENOMEM;
			goto out;
		}
		owner = fw_dpkg_owner(o->dpkg, path);
		if (owner) {
			fw_diag_add(d, "", 0, "%s: belongs to dpkg package %s, and so does what it lists; "
				    "nothing removed (apt remove %s, or apt purge %s)", path,
				    fw_esc(owner), fw_esc(owner), fw_esc(owner));
			refused = true;
		} else if (pr->packaged && !o->adopt_packaged) {
			fw_diag_add(d, "", 0, "%s: marked as the record of Debian package %s, which no dpkg "
				    "database here lists; nothing removed (apt removes an installed "
				    "package; --adopt-packaged removes a copied tree as fwdist's)", path,
				    fw_esc(pr->packaged));
			refused = true;
		}
		free(path);
	}
	if (refused) {
		res->failed++;
		goto out;
	}
	for (size_t k = 0; k < t->split.npkgs && r == 0; k++) {
		struct fw_record *pr = fw_records_get(&rec, t->split.pkgs[k].name);

		if (!touched[k] && !fw_plan_covers(p, (int)k))
			continue;
		if (pr) {
			size_t before = pr->n, names = 0;
			bool whole = fw_plan_covers(p, (int)k);

			by_record(p, fwfd, pr, whole, o, res, d, &cl, &touched_dirs, &tally);
			for (size_t j = 0; j < pr->n; j++)
				names += pr->v[j].type != FW_REC_LICENCE;
			/* The last names of the package went: its texts go too. */
			if (!whole && names == 0)
				by_record(p, fwfd, pr, true, o, res, d, &cl, &touched_dirs, &tally);
			fw_settle_dirs(fwfd, &touched_dirs);
			/* What could not be removed, or was not selected, stays
			 * recorded. */
			if (pr->n != before || pr->n == 0)
				r = pr->n ? fw_record_write(fwfd, pr) : fw_record_remove(fwfd, pr->package);
		} else {
			by_plan(p, fwfd, (int)k, o->dpkg, res, d, &cl, &touched_dirs, &tally);
			fw_settle_dirs(fwfd, &touched_dirs);
			used_plan = true;
		}
	}
	/* Without a record, the directories a failed install made and left
	 * empty go too: deepest first (the plan's are sorted), and only
	 * while empty. */
	for (size_t i = p->n; used_plan && r == 0 && i-- > 0;)
		if (p->v[i].kind == FW_PLAN_DIR && !fw_dpkg_owner(o->dpkg, p->v[i].final))
			fw_remove_empty_dir(fwfd, p->v[i].final); /* dpkg lists its directories too */
	for (size_t i = 0; i < rec.n; i++)
		if (fw_split_find(&t->split, rec.v[i].package) < 0)
			fw_diag_add(d, "", 0, "%s/%s.list: a record of package %s, which %s does not "
				    "have: left alone", FW_RECORD_DIR, fw_esc(rec.v[i].package),
				    fw_esc(rec.v[i].package), FW_TREE_SPLIT);
out:
	res->dpkg = fw_dpkg_tally_report(&tally, d);
	fw_dpkg_tally_free(&tally);
	fw_dirset_free(&cl);
	fw_dirset_free(&touched_dirs);
	fw_records_free(&rec);
	free(touched);
	return r;
}
