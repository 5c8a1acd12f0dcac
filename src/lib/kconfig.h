/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What compression a kernel's firmware loader accepts, read from its .config. */
#ifndef FWDIST_KCONFIG_H
#define FWDIST_KCONFIG_H

#include <stdbool.h>

#include "compress.h"
#include "diag.h"

struct fw_kconfig {
	char *path;
	/* Each symbol: 'y', 'm', 'n' (is not set), or 0 if absent; and its line. */
	char compress, xz, zstd;
	unsigned compress_line, xz_line, zstd_line;
	/* CONFIG_EXTRA_FIRMWARE and _DIR, unquoted (kconfig's \" and \\), or
	 * NULL when absent; and their lines. */
	char *extra_fw, *extra_fw_dir;
	unsigned extra_fw_line, extra_fw_dir_line;
};

/* Read a kernel config (the /boot/config-* format). 0 or -errno. */
int fw_kconfig_load(struct fw_kconfig *k, const char *path);
void fw_kconfig_free(struct fw_kconfig *k);
bool fw_kconfig_accepts(const struct fw_kconfig *k, enum fw_compress c);
/* --compress=auto: zstd if the loader takes it, else xz, else none. */
enum fw_compress fw_kconfig_best(const struct fw_kconfig *k);
/* Why c cannot be loaded, as "FILE:LINE: ..." or "FILE: ...", into d. */
void fw_kconfig_explain(const struct fw_kconfig *k, enum fw_compress c, struct fw_diag *d);

#endif
