/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The front end shared by the subcommands: one table of common options, printing, exit codes. */
#ifndef FWDIST_CLI_H
#define FWDIST_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "diag.h"
#include "dpkg-lock.h"
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
struct fw_diag;
/* The findings of d as check --json writes them, {"ok":...,"findings":[...]},
 * with ,"exit":1 before the closing brace when with_exit: what a command
 * stopped by the tree's findings writes under --json. */
void fw_cli_findings_json(const struct fw_diag *d, bool with_exit);
/* Under --json a command writes one JSON value on standard output on
 * every path (fwdist(1), JSON OUTPUT). It calls fw_cli_json_begin as it
 * starts writing its own (fw_cli_findings_json does); main() then calls
 * fw_cli_json_end with the exit code, which for a command that took --json
 * and wrote nothing (it failed first: a usage error, a destination it
 * cannot open, ...) writes check's object of the messages said on
 * standard error (file and line where they had one) and the exit:
 * {"ok":false,"findings":[...],"exit":N}. */
void fw_cli_json_begin(void);
void fw_cli_json_end(int exit_code);

/* Print "fwdist: FILE:LINE: text" for each message, to stderr. */
void fw_print_diag(const struct fw_diag *d);
/* Print "fwdist: message" to stderr. */
void fw_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A usage error: message, hint, returns EXIT_USAGE. */
int fw_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Load the tree at fw_tree_root; print load errors; EXIT_OK or EXIT_FINDING.
 * On success the caller owns t and d (parse findings stay in d, printed). */
int fw_load_tree(struct fw_tree *t, struct fw_diag *d);

/* The options several commands share, each meaning the same in all: a
 * command's table (struct fw_cli_opt) names them with these values and
 * fw_cli_parse handles them. */
enum fw_cli_shared {
	FW_OPT_JSON = 0x100, /* --json */
	FW_OPT_PACKAGE,      /* --package NAME, repeatable */
	FW_OPT_SELECT,       /* --select FILE */
	FW_OPT_DESTDIR,      /* --destdir DIR */
	FW_OPT_FWDIR,        /* --firmware-dir DIR */
	FW_OPT_MEMORY,       /* --memory-limit SIZE: what the codecs may hold (membudget.h) */
	FW_OPT_JOBS = 'j',   /* -j, --jobs N: worker threads, 1 to FW_JOBS_MAX */
	FW_OPT_QUIET = 'q',  /* -q, --quiet (c->quiet): no progress line; install, uninstall: no summary */
};

/* One option of a command: the one table its parser reads and its --help,
 * --list-options and the test of the manual are made from, so that they
 * cannot drift apart. A table ends with an entry whose name and help are
 * both NULL; an entry with a help and no name is a heading, printed as is. */
struct fw_cli_opt {
	const char *name;  /* the long name, without "--" */
	int val;           /* handed to the command's handler, or FW_OPT_* */
	bool letter;       /* val is also its short option, -val */
	const char *arg;   /* the argument's name, NULL for none; "=X" prints --name=X */
	const char *help;  /* its help: lines, '\n' between them, no final one */
	const char *alias; /* a second long name meaning the same, or NULL */
};
#define FW_CLI_HEADING(text) { NULL, 0, false, NULL, (text), NULL }
#define FW_CLI_END { NULL, 0, false, NULL, NULL, NULL }

/* A command's --help: its usage and description (head), the options of its
 * table, then foot (or NULL). */
struct fw_cli_help {
	const char *head;
	const struct fw_cli_opt *opts;
	const char *foot;
};

struct fw_cli {
	const char *cmd;
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
	struct fw_dpkg_lock dpkg_lock; /* fw_cli_dpkg_lock's, released by fw_cli_free */
};
/* DESTDIR defaults to $DESTDIR; the firmware directory (fwdir NULL) to the
 * root's own: /usr/lib/firmware on a merged-/usr root, else /lib/firmware
 * (fw_default_fwdir). */
#define FW_CLI_INIT(name) \
	{ .cmd = (name), .destdir = getenv("DESTDIR"), .fwdir = NULL, .dpkg_lock = FW_DPKG_LOCK_INIT }

/* Parse a command's options, those of its table h->opts: the shared ones
 * (FW_OPT_*) here, each of its own to handle(ctx, val, optarg), which
 * returns EXIT_OK or the exit code of a usage error. Options and operands
 * come in any order ("why NAME --json"), as GNU getopt_long permutes
 * them, whatever POSIXLY_CORRECT says; "--" ends the options. A value
 * missing at the end ("--destdir") or empty ("--destdir ''") is a usage
 * error naming the option. --help prints the help
 * made from h, --list-options each spelling of each option of the table
 * ("--name=" for one whose arg starts with '='),
 * one a line (for shell completion). A global --json (fw_json, set before
 * the command's name) is refused as an unknown option by a command whose
 * table has no --json. At most c->max_args operands (c->args, c->nargs, in
 * their order; argv is rearranged). Returns -1 to go on, else the exit code to return
 * (EXIT_OK after --help). */
int fw_cli_parse(struct fw_cli *c, int argc, char **argv, const struct fw_cli_help *h,
		 int (*handle)(void *ctx, int opt, const char *arg), void *ctx);
/* Write the messages of d as a JSON array of {"file","line","message"}
 * (file null when none, line null when 0) to f. */
void fw_cli_json_diag(FILE *f, const struct fw_diag *d);
/* Print the help of h (usage, description, the options, foot) to f. */
void fw_cli_print_help(FILE *f, const struct fw_cli_help *h);
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
/* The lookup of installed names under c's destination (fw_search_open:
 * the root's firmware directories, release's subdirectories), a failure
 * said on stderr as fw_cli_open_dest says it. 0 or -errno. */
struct fw_search;
int fw_cli_search_open(const struct fw_cli *c, const char *release, struct fw_search *s);
struct fw_hw;
struct fw_hw_opts;
/* The hardware options of missing, why and install --hardware, shared so
 * that each is parsed and refused alike: --sysfs (s), --kernel-release
 * (r), --modules-dir (m), --kernel-log (k), --no-kernel-log (n) into o.
 * EXIT_OK or a usage error (said). */
int fw_cli_hw_option(struct fw_hw_opts *o, const char *cmd, int c, const char *arg);
/* What fw_hw_gather said of the modules directory moddir: its notes
 * (no_modules, log_error), then its findings d. */
void fw_cli_hw_said(const char *cmd, const char *moddir, bool no_modules, int log_error,
		    const struct fw_diag *d);
/* The hardware present (fw_hw_gather) into h, its notes and findings
 * printed; *failed when something could not be read (the answer is
 * partial). -1 to go on, else the exit code (a usage error, the running
 * kernel unknown, out of memory: said). */
int fw_cli_hw_gather(const char *cmd, const struct fw_hw_opts *o, struct fw_hw *h, bool *failed);
struct fw_dpkg;
/* Read dpkg's database of the destination's root (DESTDIR, else /) for its
 * firmware directory (dpkg.h): EXIT_OK (no database: db->present false),
 * or EXIT_FINDING with why printed, naming the command and what it then
 * does not do (refuse, "nothing installed"): what dpkg owns must be known
 * before anything is written or removed. */
int fw_cli_dpkg_load(const struct fw_cli *c, struct fw_dpkg *db, const char *refuse);
/* Take dpkg's locks of the destination's root (DESTDIR, else /) when it
 * has a dpkg database (dpkg-lock.h), held until fw_cli_free: before the
 * database is read (fw_cli_dpkg_load) and anything is written. EXIT_OK, or
 * EXIT_FINDING with why printed (the lock's path and its holder's pid),
 * naming the command and what it then does not do (refuse). */
int fw_cli_dpkg_lock(struct fw_cli *c, const char *refuse);
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
