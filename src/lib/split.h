/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifests/packages: which binary packages exist and which blobs each takes. */
#ifndef FWDIST_SPLIT_H
#define FWDIST_SPLIT_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "policy.h"

#define FW_SPLIT_HEADER "# fwdist package split 1"

enum fw_sel_kind {
	FW_SEL_CATEGORY, /* category:free */
	FW_SEL_PATH,     /* path:GLOB, fnmatch on the request name; '*' crosses '/' */
	FW_SEL_DRIVER,   /* driver:GLOB on the block's Driver: text (its first word) */
	FW_SEL_LICENCE,  /* licence:ID, an id the blob's SPDX expression names */
	FW_SEL_EMPTY,    /* empty:yes, an empty blob (zero bytes) */
	FW_SEL_REST,     /* rest:yes, the line takes only what no other line takes */
};

struct fw_selector {
	enum fw_sel_kind kind;
	bool negate; /* "!path:..." */
	char *value;
	enum fw_category cat;
};

struct fw_split_rule {
	unsigned pkg; /* index into pkgs */
	unsigned line;
	struct fw_selector *sel;
	size_t nsel;
	bool rest; /* a rest:yes line: tried only on blobs no other line takes */
};

struct fw_package {
	char *name;
	char *section; /* main, contrib, non-free, non-free-firmware */
	unsigned line; /* first line naming it */
};

/* A line "PACKAGE COMPONENT dropped": a package the split had in an
 * earlier release that takes nothing now. It is no package of the split
 * (nothing is built for it); the metapackage Breaks it, so that an upgrade
 * removes what the previous release installed. */
struct fw_dropped {
	char *name;
	char *section;
	unsigned line;
};

struct fw_split {
	char *path;
	struct fw_package *pkgs;
	size_t npkgs, cap_pkgs;
	struct fw_split_rule *rules;
	size_t nrules, cap_rules;
	struct fw_dropped *dropped;
	size_t ndropped, cap_dropped;
};

/* Lines: PACKAGE SECTION SELECTOR... ; all selectors of a line must match,
 * several lines for one package add up; or PACKAGE SECTION dropped (alone
 * on its line, once per package: see struct fw_dropped). A line with an error is reported
 * and adds nothing: no rule, and no package if no good line names it. */
int fw_split_parse(struct fw_split *s, const char *path, const char *buf, size_t len,
		   struct fw_diag *d);
void fw_split_free(struct fw_split *s);
int fw_split_find(const struct fw_split *s, const char *name);
/* The dropped line of name, or -1. */
int fw_split_find_dropped(const struct fw_split *s, const char *name);

/* What a rule needs to know about a blob. */
struct fw_blob_facts {
	const char *name;
	const char *driver;
	const char *spdx;
	enum fw_category cat;
	bool empty; /* zero bytes (its checksum line, or the file as found) */
};
/* An empty blob matches only a rule that names it with empty:yes: the
 * kernel refuses empty firmware, so shipping one (as upstream ships
 * ath11k/WCN6750/hw1.0/wpss.b08) is a decision the split states. */
bool fw_rule_matches(const struct fw_split_rule *r, const struct fw_blob_facts *f);
/* The rule that gives a blob its package: the first line that matches it,
 * else the first rest:yes line that does (-1: none). tree.c does the same
 * faster, and also records every further match (a blob two packages take). */
int fw_split_first(const struct fw_split *s, const struct fw_blob_facts *f);
/* A Debian package name (policy 5.6.1): lower case letters, digits, '+',
 * '-', '.'; at least two characters, starting with a letter or digit. */
bool fw_valid_package(const char *s, size_t n);
/* Section a category may go to: main takes only free blobs. */
bool fw_section_allows(const char *section, enum fw_category cat);

#endif
