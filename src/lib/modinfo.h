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

#endif
