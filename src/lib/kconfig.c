/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What compression a kernel's firmware loader accepts, read from its .config. */
#include "kconfig.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "plan.h"
#include "util.h"

static const struct {
	const char *sym;
	size_t off_val, off_line;
} syms[] = {
	{ "CONFIG_FW_LOADER_COMPRESS", offsetof(struct fw_kconfig, compress),
	  offsetof(struct fw_kconfig, compress_line) },
	{ "CONFIG_FW_LOADER_COMPRESS_XZ", offsetof(struct fw_kconfig, xz),
	  offsetof(struct fw_kconfig, xz_line) },
	{ "CONFIG_FW_LOADER_COMPRESS_ZSTD", offsetof(struct fw_kconfig, zstd),
	  offsetof(struct fw_kconfig, zstd_line) },
};

static void set(struct fw_kconfig *k, const char *name, size_t n, char val, unsigned line)
{
	for (size_t i = 0; i < FW_ARRAY_SIZE(syms); i++)
		if (strlen(syms[i].sym) == n && memcmp(syms[i].sym, name, n) == 0) {
			*((char *)k + syms[i].off_val) = val;
			*(unsigned *)((char *)k + syms[i].off_line) = line;
		}
}

/* A string symbol: SYM="..." with \" and \\ escapes, as kconfig writes it. */
static int string_sym(struct fw_kconfig *k, const char *ls, const char *eq, const char *le,
		      unsigned line)
{
	static const char fw[] = "CONFIG_EXTRA_FIRMWARE", dir[] = "CONFIG_EXTRA_FIRMWARE_DIR";
	size_t n = (size_t)(eq - ls);
	char **dst;
	unsigned *dline;
	char *v, *w;

	if (n == sizeof(fw) - 1 && memcmp(ls, fw, n) == 0)
		dst = &k->extra_fw, dline = &k->extra_fw_line;
	else if (n == sizeof(dir) - 1 && memcmp(ls, dir, n) == 0)
		dst = &k->extra_fw_dir, dline = &k->extra_fw_dir_line;
	else
		return 0;
	v = fw_strndup(eq + 1, (size_t)(le - eq - 1));
	if (!v)
		return -ENOMEM;
	w = v;
	if (*v == '"') {
		for (const char *p = v + 1; *p && *p != '"'; p++) {
			if (*p == '\\' && p[1])
				p++;
			*w++ = *p;
		}
		*w = '\0';
	}
	free(*dst);
	*dst = v;
	*dline = line;
	return 0;
}

int fw_kconfig_load(struct fw_kconfig *k, const char *path)
{
	struct fw_lines it;
	const char *ls, *le;
	char *buf;
	size_t len;
	int r;

	memset(k, 0, sizeof(*k));
	r = fw_read_text(AT_FDCWD, path, &buf, &len);
	if (r < 0)
		return r;
	k->path = strdup(path);
	if (!k->path) {
		free(buf);
		return -ENOMEM;
	}
	fw_lines_init(&it, buf, len);
	while (fw_lines_next(&it, &ls, &le)) {
		size_t n = (size_t)(le - ls);
		const char *eq;

		if (n > 2 && ls[0] == '#' && ls[1] == ' ' && n > 13 &&
		    memcmp(le - 11, " is not set", 11) == 0) {
			set(k, ls + 2, n - 13, 'n', it.line);
			continue;
		}
		eq = memchr(ls, '=', n);
		if (!eq || ls[0] == '#')
			continue;
		if (string_sym(k, ls, eq, le, it.line) < 0) {
			free(buf);
			fw_kconfig_free(k);
			return -ENOMEM;
		}
		if (le - eq == 2 && (eq[1] == 'y' || eq[1] == 'm'))
			set(k, ls, (size_t)(eq - ls), eq[1], it.line);
		else
			set(k, ls, (size_t)(eq - ls), 'n', it.line);
	}
	free(buf);
	return 0;
}

void fw_kconfig_free(struct fw_kconfig *k)
{
	free(k->path);
	free(k->extra_fw);
	free(k->extra_fw_dir);
	memset(k, 0, sizeof(*k));
}

bool fw_kconfig_accepts(const struct fw_kconfig *k, enum fw_compress c)
{
	switch (c) {
	case FW_COMP_NONE:
		return true;
	case FW_COMP_XZ:
		/* Before 5.19 FW_LOADER_COMPRESS alone meant xz: no sub-options. */
		return k->compress == 'y' && (k->xz == 'y' || (!k->xz && !k->zstd));
	case FW_COMP_ZSTD:
		return k->compress == 'y' && k->zstd == 'y';
	}
	return false;
}

enum fw_compress fw_kconfig_best(const struct fw_kconfig *k)
{
	if (fw_kconfig_accepts(k, FW_COMP_ZSTD))
		return FW_COMP_ZSTD;
	if (fw_kconfig_accepts(k, FW_COMP_XZ))
		return FW_COMP_XZ;
	return FW_COMP_NONE;
}

void fw_kconfig_explain(const struct fw_kconfig *k, enum fw_compress c, struct fw_diag *d)
{
	const char *sym = c == FW_COMP_XZ ? "CONFIG_FW_LOADER_COMPRESS_XZ" :
					    "CONFIG_FW_LOADER_COMPRESS_ZSTD";
	char val = c == FW_COMP_XZ ? k->xz : k->zstd;
	unsigned line = c == FW_COMP_XZ ? k->xz_line : k->zstd_line;
	const char *suf = fw_compress_suffix(c);

	if (k->compress != 'y') {
		if (k->compress_line)
			fw_diag_add(d, k->path, k->compress_line,
				    "CONFIG_FW_LOADER_COMPRESS is not set: this kernel loads no %s firmware",
				    suf);
		else
			fw_diag_add(d, k->path, 0,
				    "no CONFIG_FW_LOADER_COMPRESS=y: this kernel loads no %s firmware", suf);
	} else if (line) {
		fw_diag_add(d, k->path, line, "%s %s: this kernel cannot load %s firmware", sym,
			    val == 'm' ? "=m is not usable" : "is not set", suf);
	} else {
		fw_diag_add(d, k->path, 0, "no %s=y: this kernel cannot load %s firmware", sym, suf);
	}
}

int fw_plan_kernel_compress(const char *config, const char *release, bool autosel, bool force,
			    enum fw_compress *comp, char **path, struct fw_diag *d)
{
	struct fw_kconfig k;
	struct utsname u;
	int r;

	*path = NULL;
	if (!config && !release && !autosel)
		return 0; /* nothing says which kernel: staging builds */
	if (config) {
		*path = strdup(config);
	} else {
		if (!release) {
			if (uname(&u) < 0)
				return -errno;
			release = u.release;
		}
		*path = fw_asprintf("/boot/config-%s", release);
	}
	if (!*path)
		return -ENOMEM;
	r = fw_kconfig_load(&k, *path);
	if (r < 0)
		return r;
	if (autosel) {
		*comp = fw_kconfig_best(&k);
	} else if (!fw_kconfig_accepts(&k, *comp) && !force) {
		fw_kconfig_explain(&k, *comp, d);
		r = -EPERM;
	}
	fw_kconfig_free(&k);
	return r;
}
