/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private to install*.c: one install's state, shared by the driver, the copies, the preflight and the records. */
#ifndef FWDIST_INSTALL_INT_H
#define FWDIST_INSTALL_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fsutil.h"
#include "install.h"
#include "record.h"

/* One entry of the plan as it is carried out: the plan says what, this
 * says how it went. items[i] is plan->v[i] (copies, then links). */
struct item {
	const struct fw_plan_entry *pe;
	char *dest;              /* where it is written: final, or below a staged directory */
	bool exchange;           /* a directory of the old install is at final: swap it out */
	bool recorded_same;      /* the record has final with this content and storage */
	bool unchanged;          /* found in place with the right content: not rewritten */
	int ok;
	bool keep_old;           /* a link to it failed: keep its old variants */
	bool dpkg;               /* a Debian package's: left alone (ok, never written) */
	const char *owner;       /* that package (dpkg's database, or a record's mark) */
	bool owner_marked;       /* named by a record's mark only */
	bool made;               /* renamed into place by this install, */
	unsigned made_epoch;     /* after this many settles */
	char *err;               /* why it failed */
	/* What the preflight found at each storage of the name (indexed by
	 * enum fw_compress; mode 0: nothing): only that is replaced or
	 * removed (fw_replace_checked, fw_unlink_checked). */
	struct fw_ident seen[3];
	uint64_t in, out;
};

/* A directory of the new tree where the old install has a file or a link:
 * built under a temporary name, then swapped in whole. */
struct stage {
	char *final; /* the directory's name */
	char *tmp;   /* its temporary name, in the same parent */
	struct fw_ident was; /* the file or link at final when it was checked */
};

struct ctx {
	const struct fw_plan *p;
	const struct fw_tree *t;
	const struct fw_install_opts *o;
	int destfd, fwfd;
	struct item *items;
	size_t nitems, ncopies;
	struct stage *stages;
	size_t nstages, cap_stages;
	struct fw_records rec;
	struct fw_dpkg_tally tally; /* the names left to Debian packages */
	atomic_size_t next;    /* the workers' next index into order */
	pthread_mutex_t lock;
	size_t *order;         /* copies, largest first: the workers' order; or NULL */
	size_t batch_max;      /* copies a worker writes back and renames together */
	atomic_bool unsynced;  /* changed since the last syncfs (settle) */
	unsigned epoch;        /* settles so far */
	int settle_err;        /* the first syncfs that failed: nothing is recorded */
	struct fw_diag *d;
};

/* Every storage of a name: NAME, NAME.xz, NAME.zst. */
extern const enum fw_compress inst_all_comp[3];

static inline bool inst_is_licence(const struct item *it)
{
	return it->pe->kind == FW_PLAN_LICENCE;
}

/* name is below the directory dir. */
static inline bool inst_under(const char *name, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(name, dir, n) == 0 && name[n] == '/';
}

/* ---- install.c: the driver and the steps after the copies ---- */

/* Record why it failed (the first reason only). */
void inst_fail(struct item *it, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Why a destination path could not be opened, in words. */
const char *inst_parent_error(int r);
/* Something below destfd changed since the last syncfs. */
void inst_changed(struct ctx *c);
/* Put tmp in place of leaf in pfd, swapping out a directory (exchange),
 * only if what stands there is what was checked (was). */
int inst_replace(int pfd, const char *tmp, const char *leaf, bool exchange, struct fw_diag *d,
		 pthread_mutex_t *lock, const char *final, const struct fw_ident *was);
/* Why inst_replace failed, in words (the name not included). */
const char *inst_replace_error(int r);

/* ---- install-copy.c: the verified copies ---- */

/* Replace a dedup link of an earlier install at it->dest by a copy of the
 * bytes it leads to now, before anything it leads to is replaced. */
void inst_materialize(int destfd, struct item *it);
/* The workers' order: the largest copies first (c->order). */
void inst_order_copies(struct ctx *c);
/* Copy, verify and rename into place every copy of the plan, on the workers. */
void inst_run_workers(struct ctx *c);

/* ---- install-preflight.c: what stands at each name now ---- */

/* A file or a link in the name's path: refused, or (recorded, --force)
 * a directory switch planned (c->stages). 0 or -ENOMEM. */
int inst_check_parents(struct ctx *c, struct item *it);
/* What stands at the final name and its other variants: ours, the same
 * as planned, or someone else's (it->err). */
void inst_check_final(struct ctx *c, struct item *it);
/* Create each planned switch's directory and point the names below it
 * there (it->dest). 0 or -errno. */
int inst_prepare_stages(struct ctx *c);

/* ---- install-records.c: install's side of the record ---- */

/* The states of n recorded entries (fw_rec_entry_state) into out, on the workers. */
void inst_rec_states(const struct ctx *c, const struct fw_rec_entry **v, size_t n,
		     enum fw_rec_state *out);
/* Read the records into c->rec before anything is written; -ECANCELED
 * (reported in c->d) when one is not fwdist's to act on. */
int inst_load_records(struct ctx *c);
/* The Debian package whose record rec is (*marked: by its #packaged mark
 * only, no database lists it), or NULL when it is fwdist's. */
const char *inst_rec_owner(const struct ctx *c, const struct fw_record *rec, bool *marked);
/* Leave alone (it->dpkg, counted in c->tally) each item a Debian package
 * owns: a name dpkg lists, any name of a package whose record is one's. */
void inst_dpkg_mark(struct ctx *c);
/* The packages whose records this install rewrites: touched[split.npkgs]
 * (none whose record is a Debian package's). */
void inst_mark_touched(const struct ctx *c, bool *touched);
/* A signed release older than a touched package's record, or of its
 * serial with other pins: -ECANCELED (reported), unless allow_downgrade. */
int inst_check_release(struct ctx *c, const bool *touched);
/* After a complete install: remove the old names, keep the changed ones,
 * write the records. */
int inst_finish_records(struct ctx *c, struct fw_install_result *res);
/* After a failed install that wrote something: the records list every
 * name it put in place (as the plan's package's) besides what they listed
 * and is still there, so that uninstall removes what fwdist wrote and
 * neither it nor verify calls it changed. No old name is removed, no
 * release raised. Nothing written: the records are not touched. */
int inst_record_written(struct ctx *c);

#endif
