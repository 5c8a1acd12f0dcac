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

#endif
