/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The hardware's firmware as an install selection: the names the present devices' modules request, marked in the tree. */
#ifndef FWDIST_HWSELECT_H
#define FWDIST_HWSELECT_H

#include <stdbool.h>
#include <stddef.h>

#include "hardware.h"
#include "tree.h"

/* What one kernel's resolution gave (fw_hwsel_add). */
struct fw_hwsel_counts {
	size_t devices, bound, modules, names;
	size_t selected;   /* names selected (the tree installs each) */
	size_t older;      /* --newest: alternatives left out for a newer one */
	size_t alt_absent; /* alternatives the tree lacks, another of the group selected */
	size_t absent;     /* needs the tree cannot meet (a name, or a whole group) */
};

/* One kernel fw_hwsel_resolve resolved the hardware against. */
struct fw_hwsel_kernel {
	char *moddir;            /* its modules directory */
	struct fw_hwsel_counts c;
	struct fw_diag d;        /* the findings of its resolution (fw_hw_gather) */
	bool no_modules, partial; /* and its notes, as fw_hw_gather's struct fw_hw has them */
	int log_error;
};

/* The union over the kernels resolved. */
struct fw_hwsel {
	bool newest;
	struct fw_hwsel_kernel *k; /* fw_hwsel_resolve's kernels */
	size_t nk;
	bool *blob, *link;         /* fw_hwsel_resolve's selection: [t->nblobs], [t->nlinks] */
	char **selected;   /* names selected, sorted and each once after fw_hwsel_done */
	size_t nselected, cap_selected;
	char **absent;     /* "NAME (MODULE)" or "PATTERN (MODULE, no alternative)" */
	size_t nabsent, cap_absent;
};

/* Mark in blob_sel[t->nblobs] and link_sel[t->nlinks] the firmware that
 * h's modules request and t installs (fw_select_request: links they go
 * through and the blobs they lead to). A name no alternative group holds
 * is needed: one t lacks (or never installs) is absent. Of a group (names
 * of a module differing only in a version, as `fwdist modules` groups
 * them), every member t has; with s->newest only the newest t has, the one
 * the kernel's loader tries first and so the only one it loads; a group of
 * which t has none is absent. c gets this resolution's counts. 0 or
 * -ENOMEM. */
int fw_hwsel_add(struct fw_hwsel *s, const struct fw_hw *h, const struct fw_tree *t,
		 bool *blob_sel, bool *link_sel, struct fw_hwsel_counts *c);
/* The modules directories --hardware resolves against, into *kernels
 * (new strings, *nk of them): o->moddir, ROOT/lib/modules/R of
 * o->release, else each directory of ROOT/lib/modules (the kernels
 * installed on root, "" for /) in version order, *top then its path (a
 * new string; NULL otherwise). 0 (*nk 0: no kernel under *top), -ENOMEM
 * (*top NULL), or -errno when *top cannot be read (*top set). */
int fw_hwsel_kernels(const char *root, const struct fw_hw_opts *o, char ***kernels, size_t *nk,
		     char **top);
/* The hardware present (fw_hw_gather with o) against each kernel of
 * fw_hwsel_kernels (root, o; *top as it says), in version order, into
 * s->k: what each needs fw_hwsel_add'ed into s->blob and s->link, the
 * selection an install of t is planned with, and the names sorted
 * (fw_hwsel_done). The kernel log is the running kernel's: read with the
 * first kernel only. A kernel whose resolution is partial (some device,
 * module or the log not read) ends the run: it is the last of s->k,
 * partial set, and nothing should be installed. 0 (s->nk 0: no kernel
 * under *top), -ENOMEM (*top NULL; s->k holds the kernels resolved so
 * far, the last one's findings too), or -errno when *top cannot be read. */
int fw_hwsel_resolve(struct fw_hwsel *s, const char *root, const struct fw_hw_opts *o,
		     const struct fw_tree *t, char **top);
/* Sort the names and drop repeats (kernels share most). 0. */
int fw_hwsel_done(struct fw_hwsel *s);
void fw_hwsel_free(struct fw_hwsel *s);

/* Compare the versions of two names of one group: the number before the
 * extension, numerically ("-9" < "-72"). */
int fw_hwsel_version_cmp(const char *a, const char *b);

#endif
