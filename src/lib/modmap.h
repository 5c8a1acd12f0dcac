/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifests/modules: firmware name -> kernel modules and their modaliases (for AppStream). */
#ifndef FWDIST_MODMAP_H
#define FWDIST_MODMAP_H

#include <stddef.h>

#include "diag.h"

#define FW_MODMAP_HEADER "# fwdist module map 1"
#define FW_TREE_MODMAP "manifests/modules"

/* One line: FIRMWARE<TAB>MODULE[<TAB>ALIAS[ ALIAS...]]. Lines sorted by
 * firmware name, then module, in byte order; each pair once. */
struct fw_modmap_line {
	char *firmware;
	char *module;
	char **alias;
	size_t nalias;
	unsigned line;
};

struct fw_modmap {
	char *path;
	struct fw_modmap_line *v;
	size_t n, cap;
};

/* Parse strictly: the header, three tab-separated fields at most, a safe
 * firmware name (fw_name_problem), a module name of [A-Za-z0-9_-], aliases
 * of printable ASCII without blanks separated by single spaces, lines in
 * order and each pair once; each refusal is a finding at path:line in d.
 * 0 or -ENOMEM. */
int fw_modmap_parse(struct fw_modmap *m, const char *path, const char *buf, size_t len,
		    struct fw_diag *d);
/* Sort m's lines and write the file's text (a new buffer). Lines with the
 * same firmware and module are merged. 0 or -ENOMEM. */
int fw_modmap_format(struct fw_modmap *m, char **buf, size_t *len);
/* Add a pair (copies the strings). 0 or -ENOMEM. */
int fw_modmap_add(struct fw_modmap *m, const char *firmware, const char *module,
		  char *const *alias, size_t nalias);
void fw_modmap_free(struct fw_modmap *m);

#endif
