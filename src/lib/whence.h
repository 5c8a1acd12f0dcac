/* SPDX-License-Identifier: GPL-2.0-or-later */
/* WHENCE: linux-firmware's provenance manifest, parsed into blocks, entries and licence groups. */
#ifndef FWDIST_WHENCE_H
#define FWDIST_WHENCE_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"

enum fw_entry_kind {
	FW_E_FILE,    /* File: installable, may be compressed */
	FW_E_RAWFILE, /* RawFile: installed as is, never compressed */
	FW_E_LINK,    /* Link: name -> target (relative to the link's directory) */
	FW_E_SOURCE,  /* Source: shipped source of a free blob */
};

#define FW_E_UNQUOTED_SPACE 0x1u /* name had a bare space (neither quoted nor "\ ") */

struct fw_whence_entry {
	enum fw_entry_kind kind;
	char *name;       /* unquoted, unescaped */
	char *target;     /* Link only: as written */
	unsigned line;
	unsigned block;   /* index into blocks */
	unsigned licence; /* 1-based index into licences; 0: none follows or precedes it */
	unsigned group;   /* File/RawFile/Source: Source group within the block; 0 none */
	unsigned flags;
	char *version;    /* File/RawFile: Version: lines belong to the file above them */
	unsigned version_line;
	char *info;
	unsigned info_line;
};

/* A Licence:/License: text and SPDX-License-Identifier: expression that
 * apply to the files listed before them in the block (since the previous
 * licence), or, for files after the last one, to the files after it. */
struct fw_whence_licence {
	unsigned block;
	char *text;   /* first Licence:/License: line's text, or NULL */
	unsigned text_line;
	char *spdx;   /* SPDX-License-Identifier: expression, or NULL */
	unsigned spdx_line;
};

struct fw_whence_block {
	char *driver; /* NULL if the block has no Driver: line */
	unsigned line; /* Driver: line, or the block's first keyword line */
	unsigned first, count; /* its entries */
};

struct fw_whence_counts {
	unsigned driver, file, rawfile, link, source, licence, spdx, version, info;
};

struct fw_whence {
	char *path; /* for diagnostics */
	struct fw_whence_block *blocks;
	size_t nblocks, cap_blocks;
	struct fw_whence_entry *entries;
	size_t nentries, cap_entries;
	struct fw_whence_licence *licences;
	size_t nlicences, cap_licences;
	struct fw_whence_counts counts;
	unsigned errors; /* syntax errors reported to the diagnostics */
};

/* The lexer, for the readers of WHENCE text beside the parser (import
 * rewrites upstream's lines): a keyword line starts with one of these. */
enum fw_whence_kw {
	FW_KW_NONE, /* prose */
	FW_KW_DRIVER,
	FW_KW_FILE,
	FW_KW_RAWFILE,
	FW_KW_LINK,
	FW_KW_SOURCE,
	FW_KW_VERSION,
	FW_KW_INFO,
	FW_KW_LICENCE, /* Licence: or License: */
	FW_KW_SPDX,
};

/* A block separator: a run of ten or more dashes, then only blanks. */
bool fw_whence_is_sep(const char *s, size_t n);
/* The keyword the line [s, s + n) starts with, its length in *kwlen (0 for
 * prose; kwlen may be NULL). */
enum fw_whence_kw fw_whence_keyword(const char *s, size_t n, size_t *kwlen);

/* Parse buf (len bytes); lines end in "\n" or "\r\n". Syntax errors go to d
 * as "path:line: ..."; parsing goes on after them so one run reports all.
 * Returns 0 or -ENOMEM. */
int fw_whence_parse(struct fw_whence *w, const char *path, const char *buf, size_t len,
		    struct fw_diag *d);
/* Read and parse dirfd/path; display is the name used in diagnostics. */
int fw_whence_load(struct fw_whence *w, int dirfd, const char *path, const char *display,
		   struct fw_diag *d);
void fw_whence_free(struct fw_whence *w);

const char *fw_entry_kind_name(enum fw_entry_kind k);

#endif
