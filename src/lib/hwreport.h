/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The firmware the hardware present needs, name by name: installed, missing (and its package), in no package. */
#ifndef FWDIST_HWREPORT_H
#define FWDIST_HWREPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "fwsearch.h"
#include "hardware.h"
#include "modinfo.h"
#include "plan.h"

enum fw_hw_status { FW_HW_INSTALLED, FW_HW_MISSING, FW_HW_NOPKG, FW_HW_ALT };

struct fw_hw_report {
	struct fw_fwreqs q;        /* the names, alternatives grouped */
	struct fw_plan p;
	bool have_plan;
	enum fw_hw_status *st;     /* per name of q */
	const char **pkg;          /* per name: its package, or NULL */
	const char **pkgs;         /* the packages of the missing names, sorted */
	size_t npkgs, cap_pkgs;
	size_t n[4];               /* names per status */
};

/* Each name h's modules request (and the kernel log's): installed where
 * fs finds it (the loader's directories, each form: fw_search), else
 * missing when a package of t selected by sel has it, else in no
 * package; the other members of a group one of which is installed are
 * alternatives. 0 or -ENOMEM. */
int fw_hw_report_build(struct fw_hw_report *rep, const struct fw_hw *h, const struct fw_tree *t,
		       const struct fw_selection *sel, const struct fw_search *fs);
/* The package of t that installs name, as rep's plan says, or NULL. */
const char *fw_hw_report_package(const struct fw_hw_report *rep, const char *name);
void fw_hw_report_free(struct fw_hw_report *rep);

/* Each name of q looked up where the loader finds it (modules
 * --installed). */
struct fw_installed {
	char ***files;     /* per name of q: the files fs finds (new strings) */
	size_t *nfiles, *cap;
	bool *unsafe;      /* per name: one the loader could not be asked for
			    * safely (fw_name_problem), not looked up */
	bool *older;       /* per name: with newest, installed and not its group's
			    * newest installed (the loader never reaches it) */
	size_t older_n;    /* how many are */
};
/* Look up each name of q in fs; with newest, mark older the installed
 * members of a group but the newest (fw_hwsel_version_cmp), the one the
 * loader tries first. 0 or -ENOMEM. */
int fw_installed_find(struct fw_installed *in, const struct fw_fwreqs *q, const struct fw_search *fs,
		      bool newest);
void fw_installed_free(struct fw_installed *in, size_t n);

#endif
