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

#endif
