/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The subcommands main() dispatches to. */
#ifndef FWDIST_TOOL_H
#define FWDIST_TOOL_H

#include "cli.h"

int cmd_check(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_sign(int argc, char **argv);
int cmd_verify_signature(int argc, char **argv);
int cmd_manifest(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_licenses(int argc, char **argv);
int cmd_install(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_sbom(int argc, char **argv);
int cmd_debian(int argc, char **argv);
int cmd_uninstall(int argc, char **argv);
int cmd_modules(int argc, char **argv);
int cmd_kconfig(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_unpack(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_missing(int argc, char **argv);
int cmd_why(int argc, char **argv);

/* What missing and why share (cmd-missing.c): the hardware options, the
 * gathering of devices, modules and kernel log, and each name's status. */
#include "fwsearch.h"
#include "hardware.h"
#include "modinfo.h"
#include "plan.h"

struct fw_hw_opts {
	const char *sysfs, *release, *moddir, *log;
	bool no_log;
};
/* The options --sysfs (s), --kernel-release (r), --modules-dir (m),
 * --kernel-log (k), --no-kernel-log (n): EXIT_OK or a usage error. */
int fw_hw_option(struct fw_hw_opts *o, const char *cmd, int c, const char *arg);
/* Walk the devices, resolve them, read the log, printing the findings;
 * *failed when something could not be read (the answer is partial).
 * -1 to go on, else the exit code. */
int fw_hw_gather(const char *cmd, const struct fw_hw_opts *o, struct fw_hw *h, bool *failed);

enum fw_hw_status { FW_HW_INSTALLED, FW_HW_MISSING, FW_HW_NOPKG, FW_HW_ALT };
struct fw_hw_report {
	struct fw_fwreqs q;        /* the names, alternatives grouped */
	struct fw_plan p;
	bool have_plan;
	enum fw_hw_status *st;     /* per name of q */
	const char **pkg;          /* per name: its package, or NULL */
	const char **pkgs;         /* the packages of the missing names, sorted */
	size_t npkgs, cap_pkgs;
	size_t n[4];               /* names per status */
	struct fw_search fs;       /* where the loader finds a name (have_fs) */
	bool have_fs;
};
/* Each name's status under the destination of cli, its package in t.
 * 0, -ENOMEM, or -errno when the destination cannot be opened (printed). */
int fw_hw_report_build(struct fw_hw_report *rep, const struct fw_hw *h, const struct fw_cli *cli,
		       const struct fw_tree *t);
void fw_hw_report_free(struct fw_hw_report *rep);
/* Did the kernel log name name? */
bool fw_hw_in_log(const struct fw_hw *h, const char *name);

#endif
