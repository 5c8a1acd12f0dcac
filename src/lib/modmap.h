/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifests/modules: firmware name -> kernel modules and their modaliases (for AppStream). */
#ifndef FWDIST_MODMAP_H
#define FWDIST_MODMAP_H

#include <stddef.h>

#include "diag.h"

#define FW_MODMAP_HEADER "# fwdist module map 2"
#define FW_TREE_MODMAP "manifests/modules"

/* One line: FIRMWARE<TAB>MODULE[<TAB>ALIAS[ ALIAS...]]. Lines sorted by
 * firmware name, then module, in byte order. A module's modaliases are the
 * union of the alias fields of its lines: the writer gives them once, on
 * the module's first line, continued on further lines of the same pair so
 * that none is longer than FW_LINE_MAX (amdgpu has over a thousand: one
 * line per name would repeat 25 KB for each of its 468 names). In memory,
 * consecutive lines of one pair are one entry. */
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
 * of printable ASCII without blanks separated by single spaces, none
 * over-broad (fw_modalias_broad), lines in
 * order (a pair's lines one after another); each refusal is a finding at
 * path:line in d. 0 or -ENOMEM. */
int fw_modmap_parse(struct fw_modmap *m, const char *path, const char *buf, size_t len,
		    struct fw_diag *d);
/* Why the modalias pattern a is over-broad (a phrase), or NULL: it names
 * no bus, or matches every device of its bus (two devices that share no
 * field value both match), so fixes no vendor, device, class or name. */
const char *fw_modalias_broad(const char *a);
/* Load manifests/modules below rootfd when it exists (m empty otherwise),
 * its findings into d (one that cannot be read is one too). 0, -EINVAL (a
 * finding), or -ENOMEM. */
int fw_modmap_load(struct fw_modmap *m, int rootfd, struct fw_diag *d);
/* Sort m's lines and write the file's text (a new buffer). Lines with the
 * same firmware and module are merged; each module's aliases go once, on
 * its first line and continuation lines. 0, -ENOMEM, or -E2BIG for an
 * alias that no line of FW_LINE_MAX can hold. */
int fw_modmap_format(struct fw_modmap *m, char **buf, size_t *len);
/* Add a pair (copies the strings). 0 or -ENOMEM. */
int fw_modmap_add(struct fw_modmap *m, const char *firmware, const char *module,
		  char *const *alias, size_t nalias);
/* The modaliases of module: the union of its lines' (pointers into m),
 * sorted, each once, into *out (a new array; *n counting). 0 or -ENOMEM. */
int fw_modmap_module_aliases(const struct fw_modmap *m, const char *module, const char ***out,
			     size_t *n);
void fw_modmap_free(struct fw_modmap *m);

#endif
