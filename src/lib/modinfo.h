/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The .modinfo section of a kernel module (.ko, .ko.xz, .ko.zst): a bounded ELF reader. */
#ifndef FWDIST_MODINFO_H
#define FWDIST_MODINFO_H

#include <stddef.h>

#include "diag.h"

/* Largest module read, decompressed: the biggest in-tree modules are tens
 * of MiB; this bounds what a hostile file costs. */
#define FW_MODINFO_MAX (512u << 20)

struct fw_modinfo {
	char *path;       /* as given */
	char *name;       /* the name= entry, else from the file name ('-' -> '_') */
	char **firmware;  /* firmware= values, in order, without repeats */
	size_t nfirmware;
	char **alias;     /* alias= values, in order, without repeats */
	size_t nalias;
	size_t firmware_cap, alias_cap;
};

/* Parse an ELF object held in buf (32- or 64-bit, either byte order): find
 * the section named .modinfo through the section header string table and
 * collect its firmware= and alias= entries. Every offset and size is checked
 * against len. A malformed object returns -EBADMSG with the reason, naming
 * path, in d; no .modinfo section is -ENOENT (also in d). 0 or -ENOMEM. */
int fw_modinfo_parse(struct fw_modinfo *m, const char *path, const unsigned char *buf,
		     size_t len, struct fw_diag *d);
/* Read the module at path (dirfd-relative; a final symlink is not followed),
 * decompressing .xz and .zst by its suffix, and parse it. Read errors are
 * -errno with the reason in d as well. */
int fw_modinfo_load(struct fw_modinfo *m, int dirfd, const char *path, struct fw_diag *d);
/* Call in every case, after a failure too. */
void fw_modinfo_free(struct fw_modinfo *m);

/* A module file name: ends in .ko, .ko.xz or .ko.zst. */
int fw_modinfo_is_module(const char *name);

/* The modules of one run: files and directories walked. */
struct fw_modset {
	struct fw_modinfo *v;
	size_t n, cap;
	size_t bad;       /* files that could not be read or parsed (findings in d) */
};
/* Read one module file; a malformed or unreadable one is counted in bad
 * and reported in d. 0 or -ENOMEM. */
int fw_modset_add_file(struct fw_modset *s, int dirfd, const char *path, struct fw_diag *d);
/* Read every .ko, .ko.xz and .ko.zst below dir, in byte order, following
 * no symlink (/lib/modules/R/build and source are symlinks). 0, -ENOMEM,
 * or -errno when dir cannot be opened (also in d). */
int fw_modset_add_dir(struct fw_modset *s, const char *dir, struct fw_diag *d);
void fw_modset_free(struct fw_modset *s);

/* One firmware name the modules request. */
struct fw_fwreq {
	const char *name;  /* points into a module's list */
	size_t *mods;      /* indexes into the modset, ascending */
	size_t nmods;
	long group;        /* its alternative group, or -1: a name a driver needs */
};
/* Names of one module that differ only in the number before the extension
 * after a '-' ("iwlwifi-cc-a0-72.ucode", "...-71.ucode": pattern
 * "iwlwifi-cc-a0-*.ucode") are alternatives: the driver loads the newest it
 * finds, and one of them is enough. A group has two members at least. */
struct fw_fwgroup {
	size_t module;     /* index into the modset */
	char *pattern;
	size_t *members;   /* indexes into the requests, ascending */
	size_t nmembers;
};
struct fw_fwreqs {
	struct fw_fwreq *v;     /* sorted by name, each name once */
	size_t n;
	struct fw_fwgroup *g;   /* sorted by pattern, then module */
	size_t ng;
};
/* The requests of s and their alternative groups. 0 or -ENOMEM. */
int fw_fwreqs_build(struct fw_fwreqs *r, const struct fw_modset *s);
void fw_fwreqs_free(struct fw_fwreqs *r);
/* The alternative pattern of a name, or NULL (new string; NULL also on ENOMEM). */
char *fw_fw_pattern(const char *name);
/* The digits that end just before the extension of name's last component
 * (where the version of "iwlwifi-cc-a0-77.ucode" is): their start, with
 * *base the last component and *dot its extension's dot (or its end). */
const char *fw_fw_digits(const char *name, const char **base, const char **dot);

#endif
