/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The install record: what fwdist put in a firmware directory, one file per package. */
#ifndef FWDIST_RECORD_H
#define FWDIST_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compress.h"
#include "diag.h"
#include "digest.h"
#include "fsutil.h"

#define FW_RECORD_HEADER "# fwdist install record 1"

enum fw_rec_type {
	FW_REC_FILE,    /* a blob: its content digest and size, and how it is stored */
	FW_REC_LINK,    /* a symlink: Link: or dedup link */
	FW_REC_LICENCE, /* a licence text */
};

/* One line, fields separated by a tab (names hold no control characters):
 *   file     NAME  SHA256  SIZE  none|xz|zstd
 *   link     NAME  TARGET
 *   licence  NAME  SHA256  SIZE
 * NAME is the path installed in the firmware directory (with .xz/.zst);
 * SHA256 and SIZE are of the uncompressed content. Sorted by NAME. */
struct fw_rec_entry {
	enum fw_rec_type type;
	char *name;
	char *target;
	uint8_t sha256[FW_SHA256_LEN];
	uint64_t size;
	enum fw_compress comp;
	unsigned line;
};

/* The newest signed release installed for a package: its serial and the
 * SHA-256 of its manifests/pins, a line of the record after the header:
 *   #release  SERIAL  PINS-SHA256
 * (a comment to a reader that predates it, which then only cannot refuse a
 * downgrade). A signed install sets it; an unsigned one keeps it: a
 * high-water mark, so that running an unsigned install in between does
 * not reopen the way to an older signed release. */
#define FW_RECORD_RELEASE "#release"
struct fw_rec_release {
	bool set;
	uint64_t serial;
	uint8_t pins[FW_SHA256_LEN];
};

/* The record of a Debian package's build (debian/rules: install
 * --packaged), shipped in its .deb: the package's, not fwdist's to change.
 * A line after the header (a comment to a reader that predates it):
 *   #packaged  DEBIAN-PACKAGE
 * install and uninstall leave such a record and its names alone (apt
 * changes them), unless told to take them over (--adopt-packaged) where no
 * dpkg database lists the record; a record without it is fwdist's. */
#define FW_RECORD_PACKAGED "#packaged"
/* A line "#incomplete" after the header: the install that wrote the record
 * failed (a full disk), so a name of its package the record lacks was not
 * left out on purpose; verify reports it missing. The next whole install
 * writes the record without it. */
#define FW_RECORD_INCOMPLETE "#incomplete"

struct fw_record {
	char *package;
	char *packaged; /* the Debian package whose record it is, or NULL */
	struct fw_rec_release release;
	struct fw_rec_entry *v;
	size_t n, cap;
	bool damaged; /* a malformed line or a missing header: fwdist did not write it so */
	bool incomplete; /* FW_RECORD_INCOMPLETE: a failed install's record of what it wrote */
};

struct fw_records {
	struct fw_record *v;
	size_t n, cap;
	size_t foreign; /* entries of .fwdist/ that are no record fwdist writes */
	size_t damaged; /* records with malformed lines */
};

/* Read every .fwdist/<package>.list below fwfd (none: an empty set).
 * Malformed lines, and entries of .fwdist/ that are no record (another
 * name, not a regular file, not a package's name), are findings in d,
 * counted in rs->damaged and rs->foreign: what fwdist did not write is
 * never an order to delete. 0, or -errno when .fwdist/ cannot be read
 * (-ELOOP: a symlink; -ENOTDIR: not a directory). */
int fw_records_load(int fwfd, struct fw_records *rs, struct fw_diag *d);
void fw_records_free(struct fw_records *rs);
/* The entry recording name in any package's record, or NULL. */
const struct fw_rec_entry *fw_records_find(const struct fw_records *rs, const char *name,
					   const char **package);
struct fw_record *fw_records_get(struct fw_records *rs, const char *package);

/* Sort entries by name and write .fwdist/<package>.list atomically. */
int fw_record_write(int fwfd, struct fw_record *r);
/* Remove .fwdist/<package>.list (and .fwdist/ if then empty). */
int fw_record_remove(int fwfd, const char *package);
int fw_record_add(struct fw_record *r, const struct fw_rec_entry *e);

const char *fw_rec_type_name(enum fw_rec_type t);

/* What stands at an entry's name now, compared with what the record says
 * fwdist put there. Never follows a symlink. */
enum fw_rec_state {
	FW_REC_SAME,       /* the type, and the content or link text, recorded */
	FW_REC_GONE,       /* nothing there */
	FW_REC_CHANGED,    /* the recorded type, other bytes or another link text */
	FW_REC_OTHER_TYPE, /* a file where a link was, a directory, a FIFO, ... */
	FW_REC_BLOCKED,    /* a directory of its path is a symlink or no directory */
};
enum fw_rec_state fw_rec_entry_state(int fwfd, const struct fw_rec_entry *e);
/* The same, with the identity of what was looked at in *id (mode 0 when
 * nothing was there): a removal then removes that and nothing else
 * (fw_remove_checked). */
struct fw_ident;
enum fw_rec_state fw_rec_entry_state_id(int fwfd, const struct fw_rec_entry *e, struct fw_ident *id);
/* Words for a state, for "NAME: <words>; kept". */
const char *fw_rec_state_words(enum fw_rec_state s);

#endif
