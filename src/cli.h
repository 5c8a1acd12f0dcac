/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The front end shared by the subcommands: one table of common options, printing, exit codes. */
#ifndef FWDIST_CLI_H
#define FWDIST_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>

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
/* Global --json (also a shared option of the commands that print reports). */
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

/* The options several commands share, each meaning the same in all. */
enum fw_cli_shared {
	FW_CLI_JSON = 1u << 0,    /* --json */
	FW_CLI_PACKAGE = 1u << 1, /* --package NAME, repeatable */
	FW_CLI_SELECT = 1u << 2,  /* --select FILE */
	FW_CLI_DEST = 1u << 3,    /* --destdir DIR, --firmware-dir DIR */
	FW_CLI_JOBS = 1u << 4,    /* -j, --jobs N: worker threads, 1 to FW_JOBS_MAX */
	FW_CLI_MEMORY = 1u << 5,  /* --memory-limit SIZE: what the codecs may hold (membudget.h) */
	FW_CLI_QUIET = 1u << 6,   /* -q, --quiet: no progress line */
};

struct fw_cli {
	const char *cmd;
	unsigned shared;          /* enum fw_cli_shared bits this command takes */
	const char **pkgs;
	size_t npkgs, cap_pkgs;
	const char *select_file;
	const char *destdir, *fwdir;
	unsigned jobs;            /* --jobs; 0: one per online CPU */
	bool quiet;               /* -q, --quiet */
	/* Resolved against the tree by fw_cli_prepare. */
	bool *pkg, *blob, *link;
	struct fw_selection sel;
	/* Operands after the options: a command that takes them sets
	 * max_args; fw_cli_parse points args at them. */
	size_t max_args, nargs;
	char **args;
};
/* DESTDIR defaults to $DESTDIR; the firmware directory (fwdir NULL) to the
 * root's own: /usr/lib/firmware on a merged-/usr root, else /lib/firmware
 * (fw_default_fwdir). */
#define FW_CLI_INIT(name, which) \
	{ .cmd = (name), .shared = (which), .destdir = getenv("DESTDIR"), .fwdir = NULL }

/* Parse a command's options: the shared ones it takes, its own (own, ending
 * with a NULL name, and their short letters), --help (calls help). Each own
 * option goes to handle(ctx, val, optarg), which returns EXIT_OK or the exit
 * code of a usage error. At most c->max_args operands may follow the
 * options (c->args, c->nargs). Returns -1 to
 * go on, else the exit code to return (EXIT_OK after --help). */
int fw_cli_parse(struct fw_cli *c, int argc, char **argv, const struct option *own,
		 const char *shortopts, int (*handle)(void *ctx, int opt, const char *arg),
		 void *ctx, void (*help)(void));
void fw_cli_free(struct fw_cli *c);
/* Load the tree, and with refuse (what the command does not do then, e.g.
 * "nothing installed") require its model to have no finding, printing them;
 * then resolve --package and --select. EXIT_OK or the exit code; the caller
 * frees t and d in every case. */
int fw_cli_prepare(struct fw_cli *c, struct fw_tree *t, struct fw_diag *d, const char *refuse);
/* Open the destination with the library's one opener (fw_dest_open),
 * creating it with create. Prints why it failed, naming the path met,
 * except -ENOENT without create (the caller says what that means). Returns
 * an fd or -errno; *where is the path (a new string, may be NULL). */
int fw_cli_open_dest(const struct fw_cli *c, bool create, char **where);
struct fw_rec_release;
/* For verify-signature and install --require-signature: EXIT_OK when the
 * tree at fw_tree_root is what cert signed, with the release it is in rel
 * (serial and the digest of the signed pins); prints why not, naming cmd.
 * The signature is checked before anything else of the tree is read; t is
 * loaded only once it holds (the caller owns t and d, as after
 * fw_load_tree), then hashed and compared with the signed pins. */
int fw_cli_require_signature(const char *cmd, const char *cert, struct fw_tree *t,
			     struct fw_diag *d, struct fw_rec_release *rel);
/* Write buf to path: a temporary beside it, fsynced and renamed over it
 * (mode 0644), so a failed run leaves an old file as it was. 0 or -errno. */
int fw_cli_write_file(const char *path, const char *buf, size_t len);
/* A command's output: to standard output without a path, else written to
 * path with fw_cli_write_file. EXIT_OK, or EXIT_FINDING with the reason
 * printed as "CMD: PATH: ...". */
int fw_cli_emit(const char *cmd, const char *path, const char *buf, size_t len);

struct fw_progress;
/* The progress line of a command's long step, on standard error: only
 * when it is a terminal, never with -q (c->quiet) or --json. A thread
 * redraws "CMD: N/TOTAL files, B/TOTAL, RATE/s, M:SS left" (progress.h)
 * every $FWDIST_PROGRESS_INTERVAL milliseconds (1 to 60000; default 200)
 * from p's counters, with a carriage return. Returns p when it draws,
 * else NULL: give the library what it returns, so nothing is counted for
 * nobody. One at a time. */
struct fw_progress *fw_cli_progress_start(const struct fw_cli *c, struct fw_progress *p);
/* Stop drawing and clear the line, before the command prints its output
 * (nothing is drawn after). Does nothing when nothing was started. The
 * messages of fw_err, fw_usage and fw_print_diag clear the line first,
 * whenever they come. */
void fw_cli_progress_stop(void);

#endif
