/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The firmware the hardware present needs, name by name: installed, missing (and its package), in no package. */
#include "hwreport.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "hwselect.h"
#include "util.h"

const char *fw_hw_report_package(const struct fw_hw_report *rep, const char *name)
{
	const struct fw_plan_entry *e = fw_plan_find_name(&rep->p, name);

	if (e && (e->blob || e->kind == FW_PLAN_FILE))
		return fw_plan_package(&rep->p, e);
	return NULL;
}

int fw_hw_report_build(struct fw_hw_report *rep, const struct fw_hw *h, const struct fw_tree *t,
		       const struct fw_selection *sel, const struct fw_search *fs)
{
	struct fw_plan_opts po = { .sel = *sel, .comp = FW_COMP_NONE, .no_licences = true };
	int r;

	if (fw_fwreqs_build(&rep->q, &h->mods) < 0 || fw_plan_build(&rep->p, t, &po, NULL) < 0)
		return -ENOMEM;
	rep->have_plan = true;
	rep->st = calloc(rep->q.n ? rep->q.n : 1, sizeof(*rep->st));
	rep->pkg = calloc(rep->q.n ? rep->q.n : 1, sizeof(*rep->pkg));
	if (!rep->st || !rep->pkg)
		return -ENOMEM;
	for (size_t i = 0; i < rep->q.n; i++) {
		char **files = NULL;
		size_t nfiles = 0, cap = 0;

		rep->pkg[i] = fw_hw_report_package(rep, rep->q.v[i].name);
		r = fw_search_find(fs, rep->q.v[i].name, &files, &nfiles, &cap);
		fw_free_strv(files, nfiles);
		if (r < 0)
			return r;
		if (nfiles)
			rep->st[i] = FW_HW_INSTALLED;
		else
			rep->st[i] = rep->pkg[i] ? FW_HW_MISSING : FW_HW_NOPKG;
	}
	/* A group with one member installed is satisfied: the others are
	 * alternatives the driver does not need. */
	for (size_t g = 0; g < rep->q.ng; g++) {
		const struct fw_fwgroup *x = &rep->q.g[g];
		bool sat = false;

		for (size_t k = 0; k < x->nmembers; k++)
			sat |= rep->st[x->members[k]] == FW_HW_INSTALLED;
		if (sat)
			for (size_t k = 0; k < x->nmembers; k++)
				if (rep->st[x->members[k]] != FW_HW_INSTALLED)
					rep->st[x->members[k]] = FW_HW_ALT;
	}
	for (size_t i = 0; i < rep->q.n; i++) {
		rep->n[rep->st[i]]++;
		if (rep->st[i] == FW_HW_MISSING) {
			bool seen = false;

			for (size_t k = 0; k < rep->npkgs; k++)
				seen |= strcmp(rep->pkgs[k], rep->pkg[i]) == 0;
			if (!seen) {
				if (fw_grow(&rep->pkgs, &rep->cap_pkgs, rep->npkgs, sizeof(*rep->pkgs)) < 0)
					return -ENOMEM;
				rep->pkgs[rep->npkgs++] = rep->pkg[i];
			}
		}
	}
	if (rep->npkgs > 1)
		qsort(rep->pkgs, rep->npkgs, sizeof(*rep->pkgs), fw_strcmp_ptr);
	return 0;
}

void fw_hw_report_free(struct fw_hw_report *rep)
{
	if (rep->have_plan)
		fw_plan_free(&rep->p);
	fw_fwreqs_free(&rep->q);
	free(rep->st);
	free(rep->pkg);
	free(rep->pkgs);
	memset(rep, 0, sizeof(*rep));
}

int fw_installed_find(struct fw_installed *in, const struct fw_fwreqs *q, const struct fw_search *fs,
		      bool newest)
{
	size_t n = q->n ? q->n : 1;

	in->files = calloc(n, sizeof(*in->files));
	in->nfiles = calloc(n, sizeof(*in->nfiles));
	in->cap = calloc(n, sizeof(*in->cap));
	in->unsafe = calloc(n, sizeof(*in->unsafe));
	in->older = calloc(n, sizeof(*in->older));
	in->older_n = 0;
	if (!in->files || !in->nfiles || !in->cap || !in->unsafe || !in->older)
		return -ENOMEM;
	for (size_t i = 0; i < q->n; i++) {
		/* A name the loader could not be asked for safely (a control
		 * character, "..") is no file of ours. */
		if (fw_name_problem(q->v[i].name)) {
			in->unsafe[i] = true;
			continue;
		}
		if (fw_search_find(fs, q->v[i].name, &in->files[i], &in->nfiles[i], &in->cap[i]) < 0)
			return -ENOMEM;
	}
	/* The loader tries the newest member of a group first. */
	for (size_t g = 0; newest && g < q->ng; g++) {
		const struct fw_fwgroup *x = &q->g[g];
		long best = -1;

		for (size_t k = 0; k < x->nmembers; k++) {
			size_t m = x->members[k];

			if (in->nfiles[m] &&
			    (best < 0 || fw_hwsel_version_cmp(q->v[m].name, q->v[best].name) > 0))
				best = (long)m;
		}
		for (size_t k = 0; k < x->nmembers; k++)
			if (in->nfiles[x->members[k]] && (long)x->members[k] != best)
				in->older[x->members[k]] = true, in->older_n++;
	}
	return 0;
}

void fw_installed_free(struct fw_installed *in, size_t n)
{
	for (size_t i = 0; in->files && in->nfiles && i < n; i++)
		fw_free_strv(in->files[i], in->nfiles[i]);
	free(in->files);
	free(in->nfiles);
	free(in->cap);
	free(in->unsafe);
	free(in->older);
	memset(in, 0, sizeof(*in));
}
