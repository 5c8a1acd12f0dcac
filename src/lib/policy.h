/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Licence policy (manifests/licenses) and SPDX expressions evaluated against it. */
#ifndef FWDIST_POLICY_H
#define FWDIST_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"

/* Ordered so that combining is max (AND) and min (OR). */
enum fw_category {
	FW_CAT_FREE = 1,           /* DFSG-free, and every file of the block has its source */
	FW_CAT_COPYLEFT,           /* a policy category only: DFSG-free, and shipping a blob
				    * requires its source (GPL, LGPL, MPL); a blob is free
				    * with a Source: in its block, undistributable without */
	FW_CAT_NONFREE,            /* redistributable, binary only */
	FW_CAT_UNDISTRIBUTABLE,    /* refused: never installed, never packaged */
	FW_CAT_UNKNOWN,            /* not in the policy */
};

struct fw_policy_entry {
	char *id;       /* SPDX id or LicenseRef-*; its text is LICENSES/<id>.txt */
	enum fw_category cat;
	bool accept;    /* "non-free+accept": installing needs the user's acceptance */
	char *reason;
	unsigned line;
};

struct fw_policy {
	char *path;
	struct fw_policy_entry *v; /* sorted by id (the file is kept sorted) */
	size_t n, cap;
};

int fw_policy_parse(struct fw_policy *p, const char *path, const char *buf, size_t len,
		    struct fw_diag *d);
void fw_policy_free(struct fw_policy *p);
const struct fw_policy_entry *fw_policy_find(const struct fw_policy *p, const char *id);

const char *fw_category_name(enum fw_category c);
int fw_category_parse(const char *s, enum fw_category *c);

/* Evaluate an SPDX expression (ids, AND, OR, WITH, parentheses) against the
 * policy: AND takes the stricter category, OR the more permissive one, an id
 * the policy lacks counts as FW_CAT_UNKNOWN. Every id met is passed to
 * each_id (if non-NULL). Returns 0, -EINVAL with *syntax set for a malformed
 * expression, or a negative value returned by each_id. */
int fw_spdx_eval(const struct fw_policy *p, const char *expr, enum fw_category *cat,
		 int (*each_id)(void *ctx, const char *id, size_t len), void *ctx,
		 const char **syntax);
/* The category a blob under expr takes, given whether its block ships its
 * source (a Source: line): each id is mapped first, a free id to non-free
 * without source (binary only), a copyleft id to free with source and to
 * undistributable without (GPL without its source may not be shipped);
 * then AND and OR combine as above. A dual licence (A OR B) ships under
 * the branch most favourable to shipping: with branch non-NULL and a
 * top-level OR in expr, *branch is that operand's text (a new string; the
 * first of equally good ones), else NULL. */
int fw_spdx_eval_shipped(const struct fw_policy *p, const char *expr, bool has_source,
			 enum fw_category *cat, const char **syntax, char **branch);

#endif
