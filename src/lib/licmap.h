/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifests/licence-map: upstream licence file, wording or id -> SPDX expression and category. */
#ifndef FWDIST_LICMAP_H
#define FWDIST_LICMAP_H

#include <stddef.h>

#include "diag.h"
#include "policy.h"

#define FW_LICMAP_HEADER "# fwdist licence map 1"
#define FW_TREE_LICMAP "manifests/licence-map"

/* One line of manifests/licence-map: KEY<TAB>EXPRESSION<TAB>CATEGORY<TAB>REASON.
 * KEY is "file:NAME" (an upstream licence file), "text:WORDING" (an inline
 * licence: the whole text from the Licence: line to the next keyword line
 * or separator, whitespace-normalised), "sha256:DIGEST" (the SHA-256 of
 * such a wording, for long ones) or "id:ID" (an SPDX id or LicenseRef-*
 * that upstream's SPDX identifier lines name; its expression is ID). */
struct fw_licmap_entry {
	char *key;
	char *expr;
	enum fw_category cat;
	char *reason;
	unsigned line;
};

struct fw_licmap {
	char *path;
	struct fw_licmap_entry *v; /* sorted by key (the file is kept sorted) */
	size_t n, cap;
};

/* Strict: header, four tab-separated fields, known key kind, a category of
 * the policy, an expression that parses, sorted and unique keys. Errors go
 * to d as path:line. 0 or -ENOMEM. */
int fw_licmap_parse(struct fw_licmap *m, const char *path, const char *buf, size_t len,
		    struct fw_diag *d);
void fw_licmap_free(struct fw_licmap *m);
const struct fw_licmap_entry *fw_licmap_find(const struct fw_licmap *m, const char *key);
/* Collapse every run of blanks (space, tab, CR, LF) to one space and trim:
 * the key form of an inline licence's wording. New string or NULL. */
char *fw_licmap_normalise(const char *s, size_t n);
/* The category and reason of an id: its id: line, else a file: or text:
 * line whose expression is exactly the id. NULL if none. */
const struct fw_licmap_entry *fw_licmap_id(const struct fw_licmap *m, const char *id);

/* The files a licence wording names: after its first "See" that names one,
 * each of "See A", "See A and B", "See A, B and C" (LICENCE*, LICENSE*,
 * COPYING*, GPL-*, LGPL-*, NOTICE*, or a path with '/'), trailing
 * punctuation off. *files is a new NULL-terminated array of *n new
 * strings (NULL, 0: none). 0 or -ENOMEM. */
int fw_licmap_wording_files(const char *s, char ***files, size_t *n);

#endif
