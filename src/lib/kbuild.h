/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Serving a kernel build from the plan: CONFIG_EXTRA_FIRMWARE's directory and its check. */
#ifndef FWDIST_KBUILD_H
#define FWDIST_KBUILD_H

#include <stddef.h>

#include "diag.h"
#include "plan.h"

/* Why the tree cannot serve name to a kernel build (absent, undistributable,
 * a directory link, not installable), or NULL when the plan has its bytes. */
const char *fw_kbuild_why_not(const struct fw_plan *p, const char *name);
/* The first character of name (or of a CONFIG_EXTRA_FIRMWARE_DIR) outside
 * what kbuild takes, A-Z a-z 0-9 _ - . , / (see kbuild.c), described for a
 * message, or NULL. */
const char *fw_kbuild_name_problem(const char *name);
/* The WHENCE entry (File:, RawFile: or Link:) behind a plan entry, or NULL. */
const struct fw_whence_entry *fw_kbuild_entry(const struct fw_plan_entry *e);

/* Every name of a kernel config's CONFIG_EXTRA_FIRMWARE, with why the tree
 * cannot serve it (NULL: it can); with CONFIG_EXTRA_FIRMWARE_DIR set and
 * present, also whether that directory holds it uncompressed. */
struct fw_kbuild_report {
	unsigned line; /* of CONFIG_EXTRA_FIRMWARE in the config, 0 if absent */
	struct {
		char *name;
		const char *why;
	} *v;
	size_t n, cap, bad;
};
int fw_kbuild_check(const struct fw_plan *p, const char *config, struct fw_kbuild_report *rep);
void fw_kbuild_report_free(struct fw_kbuild_report *rep);

/* Sort entries by name, each once. */
void fw_kbuild_sort(const struct fw_plan_entry **v, size_t *n);
/* Make out a plain directory of the entries' bytes under their exact names
 * (a link becomes a copy of its target, checked against the manifest): built
 * under a temporary name beside out and renamed into place, or exchanged
 * with an old directory only if kconfig made it. *abs is out's absolute path
 * (a new string). Problems in d. 0 or -errno (-EBADMSG / -ESTALE: a blob no
 * longer matches the manifest). */
int fw_kbuild_prepare(const struct fw_plan *p, const struct fw_plan_entry **v, size_t n,
		      const char *out, char **abs, struct fw_diag *d);

#endif
