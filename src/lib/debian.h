/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Debian packaging generated from the plan and the model: control stanzas, DEP-5 copyright, AppStream metainfo. */
#ifndef FWDIST_DEBIAN_H
#define FWDIST_DEBIAN_H

#include <stdio.h>

#include "diag.h"
#include "plan.h"
#include "tree.h"

/* The committed generated files and their hand-kept heads: a tree packaged
 * this way has debian/<file>.in (source stanza and the tools package for
 * control; header and the project's own Files: stanzas for copyright), and
 * debian/<file> is that head followed by what the model gives. */
#define FW_DEBIAN_CONTROL "debian/control"
#define FW_DEBIAN_COPYRIGHT "debian/copyright"
/* The metapackage that depends on every non-free package of the split, as
 * Debian's firmware-linux-nonfree does: "fwdist" in its name, which no
 * Debian package has, so that it cannot clash with Debian's (a system may
 * have both archives) nor with a split that follows Debian's names. */
#define FW_DEBIAN_META "firmware-fwdist-nonfree"

enum fw_debian_file {
	FW_DEB_CONTROL,
	FW_DEB_COPYRIGHT,
};

/* One binary package stanza per package of the split, in split order:
 * Section from its component (main: kernel, else COMPONENT/kernel),
 * Architecture all, a description naming the drivers its plan entries come
 * from, and Pre-Depends, Provides, Conflicts and Replaces from the
 * fwdist:* substitution variables (fw_replaces_substvars, per suite). p must be a plan of every package. 0 or -EINVAL (finding in d). */
int fw_debian_control(FILE *f, const struct fw_plan *p, struct fw_diag *d);

/* The debconf templates of package pkg when a licence of its blobs demands
 * acceptance (policy "non-free+accept"): PKG/license/accepted (boolean,
 * default false, the licence texts) and PKG/license/error; nothing for
 * any other package. The control stanza of such a package Pre-Depends on
 * debconf. 0, -EINVAL (finding in d), or -ENOMEM. */
int fw_debian_templates(FILE *f, const struct fw_plan *p, int pkg, struct fw_diag *d);

/* DEP-5 Files stanzas, one per WHENCE licence group with a blob in p (its
 * blobs and their Source: files, below firmware/), then one License
 * paragraph per licence text of LICENSES/ (the text, indented; for a
 * licence Debian keeps in /usr/share/common-licenses, a reference there),
 * tabs expanded. head (hlen bytes) is the hand-kept part the output follows
 * (debian/copyright.in): a licence its Files paragraphs name gets a License
 * paragraph too, from LICENSES/ or, without a text there, a reference to
 * common-licenses. 0, -EINVAL (finding in d: a name DEP-5 cannot carry, a
 * head licence with no text anywhere), or -ENOMEM. */
int fw_debian_copyright(FILE *f, const struct fw_plan *p, const char *head, size_t hlen,
			struct fw_diag *d);

/* AppStream metainfo of package pkg: component type firmware, one
 * <firmware type="runtime"> per request name p installs for it (files and
 * links), and a <modalias> for each alias the plan's tree's
 * manifests/modules (when it has one) gives one of those names. 0 or
 * -EINVAL (finding in d: also a damaged manifests/modules), -ENOMEM or
 * -errno. */
int fw_debian_metainfo(FILE *f, const struct fw_plan *p, int pkg, struct fw_diag *d);
/* The AppStream id of package pkg's metainfo, org.fwdist.PKG with each '-'
 * written '_' (its file is /usr/share/metainfo/ID.metainfo.xml), as a new
 * string; NULL when out of memory. */
char *fw_debian_metainfo_id(const char *pkg);

/* The whole committed file: debian/<file>.in of t's root, then the
 * generated part. *buf is a new string. -ENOENT when the tree has no
 * debian/<file>.in, -EINVAL (finding in d), or -errno. */
int fw_debian_generate(const struct fw_tree *t, enum fw_debian_file which, char **buf,
		       size_t *len, struct fw_diag *d);

/* The version of the firmware packages and the metapackage built from the
 * tree at rootfd: RELEASE+fwdistN when manifests/imported records the
 * upstream release ("release YYYYMMDD", fwdist import), N its "revision N"
 * line or 1; else debian/changelog's version (the tools package's, which
 * it always keeps). *out is a new string; *from FW_TREE_IMPORTED or
 * FW_DEBIAN_CHANGELOG. 0, -ENOENT (neither file), -EINVAL (finding in d),
 * -ENOMEM or -errno. */
#define FW_DEBIAN_CHANGELOG "debian/changelog"
int fw_debian_version(int rootfd, char **out, const char **from, struct fw_diag *d);

/* For fwdist check: each committed generated file of a tree that has its
 * .in must be exactly what fw_debian_generate gives; a finding otherwise.
 * 0 or -errno on a fatal error. */
int fw_debian_check(const struct fw_tree *t, struct fw_diag *d);

#endif
