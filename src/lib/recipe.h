/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifests/build: the recipes that build free blobs from their sources. */
#ifndef FWDIST_RECIPE_H
#define FWDIST_RECIPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

#define FW_RECIPES_HEADER "# fwdist build recipes 1"
/* Limits, each reported when passed (fwdist(1), manifests/build). */
#define FW_RECIPE_NAME_MAX 64     /* bytes of a recipe's name */
#define FW_RECIPES_MAX 4096       /* recipes in the file */
#define FW_RECIPE_ITEMS_MAX 256   /* lines of one key (tool, source, ...) in a recipe */
#define FW_RECIPE_TIMEOUT 300     /* seconds, when a recipe gives no timeout line */
#define FW_RECIPE_TIMEOUT_MAX 3600

/* The package of a tool that is in no Debian package (pack_cis): the
 * recipe cannot be rebuilt on Debian, and says so. */
#define FW_RECIPE_NO_PACKAGE "none"
/* The package of the fwdist that runs the build (`tool fwdist fwdist`):
 * its binary is put into the sandbox, read-only, first on PATH. */
#define FW_RECIPE_SELF_PACKAGE "fwdist"

struct fw_recipe_tool {
	char *package; /* a Debian package name, "none" or "fwdist" */
	char *command; /* the program the commands run, looked up on PATH */
	unsigned line;
};

/* A source, output or run line: its value and where it is. */
struct fw_recipe_item {
	char *text; /* a tree name (below firmware/), or the shell command */
	unsigned line;
};

struct fw_recipe {
	char *name;
	unsigned line; /* its first line */
	struct fw_recipe_tool *tools;
	size_t ntools, cap_tools;
	struct fw_recipe_item *sources, *outputs, *runs;
	size_t nsources, cap_sources, noutputs, cap_outputs, nruns, cap_runs;
	unsigned timeout; /* seconds */
	unsigned timeout_line;
};

struct fw_recipes {
	char *path;
	struct fw_recipe *v;
	size_t n, cap;
};

/* Lines: NAME KEY VALUE..., the lines of one recipe together, keys
 *   tool PACKAGE COMMAND   source NAME   output NAME   run SHELL-COMMAND
 *   timeout SECONDS
 * A line with an error is reported and adds nothing; a recipe left
 * without an output or a run line is reported and dropped. 0 or -ENOMEM. */
int fw_recipes_parse(struct fw_recipes *rs, const char *path, const char *buf, size_t len,
		     struct fw_diag *d);
void fw_recipes_free(struct fw_recipes *rs);
const struct fw_recipe *fw_recipes_find(const struct fw_recipes *rs, const char *name);
/* The recipe writing the blob name, and its output line, or NULL. */
const struct fw_recipe *fw_recipes_output(const struct fw_recipes *rs, const char *name,
					  unsigned *line);
/* A recipe name: [a-z0-9][a-z0-9._+-]*, at most FW_RECIPE_NAME_MAX bytes. */
bool fw_recipe_valid_name(const char *s, size_t n);

/* manifests/build-verdicts: what fwdist build --record found, a line per
 * blob: BLOB VERDICT RECIPE SHA256 WHY, tab-separated ("-" for none). */
#define FW_VERDICTS_HEADER "# fwdist build verdicts 1"

enum fw_build_verdict {
	FW_BV_IDENTICAL,   /* rebuilt-identical: byte for byte the tree's blob */
	FW_BV_DIFFERS,     /* rebuilt-differs: sizes and the first differing offset */
	FW_BV_NOT_REBUILT, /* not-rebuilt: no recipe, a tool missing or in no package */
	FW_BV_FAILED,      /* build-failed: a command failed, or the sandbox refused it */
};
const char *fw_build_verdict_name(enum fw_build_verdict v);
int fw_build_verdict_parse(const char *s, size_t n, enum fw_build_verdict *v);

struct fw_verdict_rec {
	char *blob;
	enum fw_build_verdict v;
	char *recipe;           /* NULL: none */
	uint8_t sha256[32];     /* of the rebuilt output, when built */
	bool built;
	char *why;              /* NULL: none */
	unsigned line;
};

struct fw_verdicts {
	char *path;
	struct fw_verdict_rec *v;
	size_t n, cap;
};

/* Sorted by blob, no duplicates; a bad line is reported and skipped. 0 or -ENOMEM. */
int fw_verdicts_parse(struct fw_verdicts *vs, const char *path, const char *buf, size_t len,
		      struct fw_diag *d);
void fw_verdicts_free(struct fw_verdicts *vs);
const struct fw_verdict_rec *fw_verdicts_find(const struct fw_verdicts *vs, const char *blob);

#endif
