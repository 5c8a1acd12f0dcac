/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by main() and the subcommands: option handling, printing, exit codes. */
#ifndef FWDIST_TOOL_H
#define FWDIST_TOOL_H

#include <stdbool.h>

#include "diag.h"
#include "tree.h"

#define FWDIST_VERSION "0.1.0"

enum {
	EXIT_OK = 0,
	EXIT_FINDING = 1, /* a finding or a failure */
	EXIT_USAGE = 2,
};

/* Set by main() from -C/--tree; "." by default. */
extern const char *fw_tree_root;
/* Global --json. */
extern bool fw_json;

/* Print "fwdist: FILE:LINE: text" for each message, to stderr. */
void fw_print_diag(const struct fw_diag *d);
/* Print "fwdist: message" to stderr. */
void fw_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A usage error: message, hint, returns EXIT_USAGE. */
int fw_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Load the tree at fw_tree_root; print load errors; EXIT_OK or EXIT_FINDING.
 * On success the caller owns t and d (parse findings stay in d, printed). */
int fw_load_tree(struct fw_tree *t, struct fw_diag *d);

/* --package NAME (repeatable) and --select FILE, shared by the commands
 * that act on part of the tree. */
struct fw_cli_select {
	const char **pkgs;
	size_t npkgs;
	const char *file;
	bool *pkg, *blob, *link;
	struct fw_selection sel;
};
int fw_cli_add_package(struct fw_cli_select *s, const char *name);

/* Where install, verify and uninstall work: DESTDIR (default $DESTDIR) and
 * the firmware directory below it (default /lib/firmware). */
struct fw_cli_dest {
	const char *destdir, *fwdir;
};
#define FW_CLI_DEST_INIT { getenv("DESTDIR"), "/lib/firmware" }
/* Open DESTDIR/FIRMWAREDIR as it is (never creating it): an fd or -errno.
 * *root receives the path (a new string, also on failure; NULL on ENOMEM). */
int fw_cli_dest_open(const struct fw_cli_dest *dest, char **root);
/* Handle --destdir ('d'), --firmware-dir ('f') and --package ('p'), the
 * options install, verify and uninstall share: 1 if c was one of them,
 * 0 if not, -1 when out of memory (reported). */
int fw_cli_dest_opt(int c, const char *arg, struct fw_cli_dest *dest, struct fw_cli_select *cs);
/* Resolve against t: EXIT_OK, EXIT_USAGE for an unknown package, or
 * EXIT_FINDING for an unreadable selection file or one whose lines select
 * nothing (printed as FILE:LINE: ...). */
int fw_cli_build_selection(struct fw_cli_select *s, const struct fw_tree *t, const char *cmd);
void fw_cli_select_free(struct fw_cli_select *s);
/* Load the tree, and with refuse (what the command does not do then, e.g.
 * "nothing installed") require its model to have no finding, printing them;
 * then resolve the selection. EXIT_OK or the exit code; the caller frees t,
 * d and s in every case (t is always in a state fw_tree_free accepts). */
int fw_cli_prepare(struct fw_tree *t, struct fw_diag *d, struct fw_cli_select *s,
		   const char *cmd, const char *refuse);

int cmd_check(int argc, char **argv);
int cmd_manifest(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_licenses(int argc, char **argv);
int cmd_install(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_uninstall(int argc, char **argv);

#endif
