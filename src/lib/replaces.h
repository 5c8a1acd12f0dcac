/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifests/replaces: which Debian packages each package of the split takes files over from, per suite. */
#ifndef FWDIST_REPLACES_H
#define FWDIST_REPLACES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diag.h"
#include "split.h"

#define FW_TREE_REPLACES "manifests/replaces"
#define FW_REPLACES_HEADER "# fwdist replaces 1"

/* One word of a line: takes:D (the package ships names that Debian's D
 * ships in that suite) or provides:D (it ships every name of D: D is
 * replaced whole, under another name). */
struct fw_replace {
	unsigned pkg;  /* index into the split's packages */
	char *suite;   /* bookworm, trixie, forky, or "*" for every suite */
	char *debian;  /* D */
	bool provides;
	unsigned line;
};

struct fw_replaces {
	struct fw_replace *v;
	size_t n, cap;
};

/* The suites fwdist builds for (debian/rules, scripts/build-repo). */
bool fw_suite_known(const char *suite);

/* Lines: PACKAGE SUITE WORD... with WORD takes:D or provides:D. PACKAGE is
 * a package of s, SUITE a known suite or '*'. Each problem is a finding in
 * d naming path and line, and that line adds nothing: a bad package name,
 * a package the split does not have, an unknown suite, a line with no
 * word, a word that is neither, D not a valid Debian package name, D the
 * package itself, provides: of a package the split has (it would conflict
 * with itself), D not a Debian firmware package (firmware-* or a few
 * others) or one of fwdist's own (fwdist, the metapackage, firmware-free,
 * firmware-nonfree), a takes: that gives a package in main a Pre-Depends
 * on one outside main, two packages providing one D in a suite, and a
 * cycle of takes: between packages of the split (each Pre-Depends on the
 * one that takes its names: a cycle cannot be unpacked; the word that
 * closes it is reported, as if each were checked as it is read). Linear in
 * the file, but for one more reading per line that closes a cycle. 0 or
 * -ENOMEM. */
int fw_replaces_parse(struct fw_replaces *r, const struct fw_split *s, const char *path,
		      const char *buf, size_t len, struct fw_diag *d);

/* manifests/replaces of the tree at rootfd, when there is one (none: an
 * empty r, 0). 0, -EINVAL (findings in d) or -errno; on an error r holds
 * nothing (fw_replaces_free is harmless on it all the same). */
int fw_replaces_load(struct fw_replaces *r, const struct fw_split *s, int rootfd,
		     struct fw_diag *d);
void fw_replaces_free(struct fw_replaces *r);

/* The substitution variables of package pkg of s for suite at version
 * (dpkg-gencontrol's debian/PKG.substvars lines):
 *   fwdist:Replaces     D (<< VERSION) for each takes:D, D for provides:D
 *   fwdist:Provides     D (= VERSION) for each provides:D
 *   fwdist:Conflicts    D for each provides:D
 *   fwdist:Pre-Depends  Q (= VERSION) for each package Q of the split that
 *                       takes:PKG (PKG is also Debian's name): Q holds those
 *                       names before this package's new version drops them
 * Each variable is written, empty when nothing gives it a value. Breaks is
 * never generated: Debian's own pattern (Replaces and Breaks: D (<< V))
 * has apt upgrade D before the package that takes the names, and the names
 * are missing in between (measured in tests/debian/real). */
void fw_replaces_substvars(FILE *f, const struct fw_replaces *r, const struct fw_split *s,
			   unsigned pkg, const char *suite, const char *version);

#endif
