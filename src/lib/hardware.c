/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The hardware present: sysfs modaliases -> kernel modules (libkmod) -> firmware names. */
#include "hardware.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libkmod.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "util.h"

/* ---- the walk ---- */

/* The directories entered, by device and inode: one met again (a bind
 * mount of an ancestor, or of a directory walked already) is not entered
 * twice, so no cycle makes the walk endless. Open addressing, grown at
 * half full. */
struct seen {
	struct { dev_t dev; ino_t ino; bool used; } *v;
	size_t n, cap;
};

static size_t seen_hash(dev_t dev, ino_t ino, size_t cap)
{
	uint64_t x = ((uint64_t)dev * 0x9e3779b97f4a7c15u) ^ (uint64_t)ino;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9u;
	return (size_t)(x ^ (x >> 32)) & (cap - 1);
}

/* 1 when added, 0 when there already, -ENOMEM. */
static int seen_add(struct seen *s, dev_t dev, ino_t ino)
{
	size_t i;

	if (2 * (s->n + 1) > s->cap) {
		struct seen b = { .cap = s->cap ? 2 * s->cap : 256 };

		b.v = calloc(b.cap, sizeof(*b.v));
		if (!b.v)
			return -ENOMEM;
		for (size_t k = 0; k < s->cap; k++) {
			if (!s->v[k].used)
				continue;
			for (i = seen_hash(s->v[k].dev, s->v[k].ino, b.cap); b.v[i].used;
			     i = (i + 1) & (b.cap - 1))
				;
			b.v[i] = s->v[k];
		}
		b.n = s->n;
		free(s->v);
		*s = b;
	}
	for (i = seen_hash(dev, ino, s->cap); s->v[i].used; i = (i + 1) & (s->cap - 1))
		if (s->v[i].dev == dev && s->v[i].ino == ino)
			return 0;
	s->v[i].dev = dev;
	s->v[i].ino = ino;
	s->v[i].used = true;
	s->n++;
	return 1;
}

/* Read dfd/modalias (path, for messages) into *out: a regular file, read
 * FW_HW_MODALIAS_MAX + 1 bytes at most, one trailing newline dropped,
 * printable ASCII without blanks. 0, -ENOMEM, -ENOENT (gone since the
 * directory was read: no finding), or -EINVAL with a finding. */
static int read_modalias(int dfd, const char *path, char **out, struct fw_diag *d)
{
	char buf[FW_HW_MODALIAS_MAX + 1];
	size_t len = 0;
	struct stat st;
	int fd, r = 0;

	*out = NULL;
	/* O_NONBLOCK: a FIFO planted in a copy must not hang the walk. */
	fd = openat(dfd, "modalias", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return -ENOENT;
	if (fd < 0) {
		fw_diag_add(d, fw_esc(path), 0, "cannot open: %s",
			    errno == ELOOP ? "a symlink; not followed" : strerror(errno));
		return -EINVAL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		fw_diag_add(d, fw_esc(path), 0, "not a regular file");
		close(fd);
		return -EINVAL;
	}
	/* sysfs gives a page-sized st_size whatever the content: read until
	 * the end, and never more than one byte past the bound. */
	while (len < sizeof(buf)) {
		ssize_t k = read(fd, buf + len, sizeof(buf) - len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			fw_diag_add(d, fw_esc(path), 0, "cannot read: %s", strerror(errno));
			r = -EINVAL;
			break;
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}
	close(fd);
	if (r < 0)
		return r;
	if (len > FW_HW_MODALIAS_MAX) {
		fw_diag_add(d, fw_esc(path), 0, "longer than %u bytes: not a modalias", FW_HW_MODALIAS_MAX);
		return -EINVAL;
	}
	if (len && buf[len - 1] == '\n')
		len--;
	if (len == 0) {
		fw_diag_add(d, fw_esc(path), 0, "empty: no modalias");
		return -EINVAL;
	}
	for (size_t i = 0; i < len; i++) {
		if (buf[i] <= ' ' || buf[i] > '~') {
			fw_diag_add(d, fw_esc(path), 0,
				    "not a modalias: byte 0x%02x at offset %zu (printable ASCII only)",
				    (unsigned char)buf[i], i);
			return -EINVAL;
		}
	}
	*out = fw_strndup(buf, len);
	return *out ? 0 : -ENOMEM;
}

/* The last component of the target of the symlink dfd/name, or NULL
 * (no such link; -ENOMEM in *r). */
static char *link_base(int dfd, const char *name, int *r)
{
	char buf[4096], *b;
	ssize_t n = readlinkat(dfd, name, buf, sizeof(buf) - 1);

	*r = 0;
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	b = strrchr(buf, '/');
	b = b ? b + 1 : buf;
	if (!*b)
		return NULL;
	b = strdup(b);
	if (!b)
		*r = -ENOMEM;
	return b;
}

/* The module of the driver bound to the device dfd: sysfs links a bound
 * device's driver, and a driver its module (built in or not), by name;
 * a saved copy may lack the second. readlinkat only reads the links'
 * text (driver/module goes through the driver link to read it). NULL
 * when no driver is bound. */
static char *driver_of(int dfd, int *r)
{
	char *m = link_base(dfd, "driver/module", r);

	if (m || *r < 0)
		return m;
	m = link_base(dfd, "driver", r);
	for (char *c = m; c && *c; c++)
		if (*c == '-')
			*c = '_';
	return m;
}

static int add_dev(struct fw_hw *h, const char *path, char *modalias, char *driver)
{
	char *p = strdup(path);

	if (!p || fw_grow(&h->dev, &h->cap_dev, h->ndev, sizeof(*h->dev)) < 0) {
		free(p);
		free(modalias);
		free(driver);
		return -ENOMEM;
	}
	h->dev[h->ndev++] = (struct fw_hw_dev){ .path = p, .modalias = modalias, .driver = driver };
	return 0;
}

/* Walk dfd (named path), depth first, entries in byte order. Paths in
 * findings are escaped (fw_esc): a directory name of a saved copy may
 * hold terminal escapes. The entry
 * types come from readdir (sysfs and local file systems give them): no
 * stat of the dozens of attribute files and links of each device, only
 * where the type is unknown. A directory's device and inode, for the
 * loop check, are those of the descriptor opened to walk it. */
static int walk(struct fw_hw *h, struct seen *seen, int dfd, const char *path, unsigned depth,
		struct fw_diag *d)
{
	char **names = NULL;
	unsigned char *types = NULL;
	size_t n = 0;
	int r;

	if (depth > FW_HW_DEPTH_MAX) {
		fw_diag_add(d, fw_esc(path), 0, "directories nested deeper than %u; not walked further",
			    FW_HW_DEPTH_MAX);
		h->bad++;
		return 0;
	}
	r = fw_read_dir_typed(dfd, &names, &types, &n);
	if (r < 0) {
		fw_diag_add(d, fw_esc(path), 0, "cannot read directory: %s", strerror(-r));
		h->bad++;
		return r == -ENOMEM ? r : 0;
	}
	for (size_t i = 0; i < n && r == 0; i++) {
		unsigned char type = types[i];
		bool modalias = strcmp(names[i], "modalias") == 0;
		struct stat st;
		char *sub;
		int cfd;

		/* Only a modalias file or a real directory matters: subsystem,
		 * driver, firmware_node and the like are symlinks back into
		 * the tree. */
		if (type == DT_LNK || (type != DT_UNKNOWN && type != DT_DIR && !modalias))
			continue;
		if (type == DT_UNKNOWN) {
			if (fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue; /* gone meanwhile: sysfs changes as devices come and go */
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
			if (type == DT_LNK)
				continue;
		}
		if (modalias) {
			char *alias;

			sub = fw_asprintf("%s/modalias", path);
			if (!sub) {
				r = -ENOMEM;
				break;
			}
			r = read_modalias(dfd, sub, &alias, d);
			free(sub);
			if (r == -EINVAL) {
				h->bad++;
				r = 0;
			} else if (r == -ENOENT) {
				r = 0; /* gone meanwhile, as a directory below */
			} else if (r == 0) {
				char *drv = driver_of(dfd, &r);

				r = r < 0 ? (free(alias), r) : add_dev(h, path, alias, drv);
			}
			continue;
		}
		if (type != DT_DIR)
			continue;
		sub = fw_asprintf("%s/%s", path, names[i]);
		if (!sub) {
			r = -ENOMEM;
			break;
		}
		cfd = openat(dfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0) {
			/* Gone meanwhile is no finding: sysfs changes as devices
			 * come and go. */
			if (errno != ENOENT) {
				fw_diag_add(d, fw_esc(sub), 0, "cannot open directory: %s", strerror(errno));
				h->bad++;
			}
		} else if (fstat(cfd, &st) < 0) {
			fw_diag_add(d, fw_esc(sub), 0, "cannot read directory: %s", strerror(errno));
			h->bad++;
		} else if ((r = seen_add(seen, st.st_dev, st.st_ino)) == 0) {
			fw_diag_add(d, fw_esc(sub), 0, "directory met before (a bind mount?); not walked again");
			h->bad++;
		} else if (r > 0) {
			r = walk(h, seen, cfd, sub, depth + 1, d);
		}
		if (cfd >= 0)
			close(cfd);
		free(sub);
	}
	fw_free_strv(names, n);
	free(types);
	return r;
}

static int cmp_dev(const void *a, const void *b)
{
	return strcmp(((const struct fw_hw_dev *)a)->path, ((const struct fw_hw_dev *)b)->path);
}

int fw_hw_scan(struct fw_hw *h, const char *dir, struct fw_diag *d)
{
	struct seen seen = { 0 };
	struct stat st;
	char *top = NULL;
	int dfd, sub, r;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		r = -errno;
		fw_diag_add(d, dir, 0, "cannot open directory: %s", strerror(-r));
		return r;
	}
	/* A copy of /sys: its devices/ (bus/, class/ beside it only link
	 * into it). */
	sub = openat(dfd, "devices", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub >= 0) {
		close(dfd);
		dfd = sub;
		top = fw_asprintf("%s%sdevices", dir,
				  *dir && dir[strlen(dir) - 1] == '/' ? "" : "/");
	} else {
		top = strdup(dir);
	}
	if (!top) {
		close(dfd);
		return -ENOMEM;
	}
	if (fstat(dfd, &st) < 0)
		r = -errno;
	else
		r = seen_add(&seen, st.st_dev, st.st_ino);
	if (r >= 0)
		r = walk(h, &seen, dfd, top, 0, d);
	/* A device before those below it (the walk meets a directory's
	 * subdirectories before its own modalias when they sort first). */
	if (h->ndev > 1)
		qsort(h->dev, h->ndev, sizeof(*h->dev), cmp_dev);
	close(dfd);
	free(top);
	free(seen.v);
	return r;
}

/* ---- modules ---- */

long fw_hw_find_mod(const struct fw_hw *h, const char *name)
{
	for (size_t i = 0; i < h->mods.n; i++)
		if (strcmp(h->mods.v[i].name, name) == 0)
			return (long)i;
	return -1;
}

static bool needs(const struct fw_hw *h, size_t b, size_t m, unsigned depth)
{
	if (b == m)
		return true;
	/* depmod refuses dependency cycles; the bound is for a broken index. */
	if (depth > 64)
		return false;
	for (size_t k = 0; k < h->mod[b].ndeps; k++)
		if (needs(h, h->mod[b].deps[k], m, depth + 1))
			return true;
	return false;
}

bool fw_hw_needs(const struct fw_hw *h, size_t b, size_t m)
{
	return needs(h, b, m, 0);
}

/* Append s; the caller drops repeats once the list is whole
 * (fw_strv_uniq): a scan per name was quadratic in a module's names. */
static int push_str(char ***v, size_t *n, size_t *cap, const char *s)
{
	char *x;

	if (fw_grow(v, cap, *n, sizeof(**v)) < 0)
		return -ENOMEM;
	x = strdup(s);
	if (!x)
		return -ENOMEM;
	(*v)[(*n)++] = x;
	return 0;
}

static int push_idx(size_t **v, size_t *n, size_t x)
{
	size_t cap = *n;

	for (size_t i = 0; i < *n; i++)
		if ((*v)[i] == x)
			return 0;
	/* Exact growth: these lists are short (a device's modules, a
	 * module's dependencies). */
	if (fw_grow(v, &cap, *n, sizeof(**v)) < 0)
		return -ENOMEM;
	(*v)[(*n)++] = x;
	return 0;
}

static int add_deps(struct fw_hw *h, size_t i, struct kmod_list *deps, unsigned depth,
		    struct fw_diag *d);

/* The module mod in h (added with its firmware and, recursively, its
 * dependencies when new): its index in *at. 0, -ENOMEM. */
static int add_mod(struct fw_hw *h, struct kmod_module *mod, size_t *at, unsigned depth,
		   struct fw_diag *d)
{
	const char *name = kmod_module_get_name(mod), *path = kmod_module_get_path(mod);
	struct kmod_list *info = NULL, *deps, *l;
	struct fw_modinfo m = { 0 };
	long found = fw_hw_find_mod(h, name);
	size_t i;
	int r;

	if (found >= 0) {
		*at = (size_t)found;
		return 0;
	}
	m.name = strdup(name);
	m.path = strdup(path ? path : "(builtin)");
	if (!m.name || !m.path || fw_grow(&h->mods.v, &h->mods.cap, h->mods.n, sizeof(*h->mods.v)) < 0 ||
	    fw_grow(&h->mod, &h->cap_mod, h->mods.n, sizeof(*h->mod)) < 0) {
		fw_modinfo_free(&m);
		return -ENOMEM;
	}
	i = h->mods.n++;
	h->mods.v[i] = m;
	h->mod[i] = (struct fw_hw_mod){ .builtin = !path };
	*at = i;
	/* modinfo's own reader: the module's .modinfo, or for one built in
	 * modules.builtin.modinfo. */
	r = kmod_module_get_info(mod, &info);
	if (r < 0) {
		fw_diag_add(d, h->mods.v[i].path, 0, "cannot read the module's information: %s",
			    strerror(-r));
		h->bad++;
		h->mods.bad++;
	}
	r = 0;
	kmod_list_foreach(l, info) {
		if (strcmp(kmod_module_info_get_key(l), "firmware") == 0)
			r = push_str(&h->mods.v[i].firmware, &h->mods.v[i].nfirmware,
				     &h->mods.v[i].firmware_cap, kmod_module_info_get_value(l));
		if (r < 0)
			break;
	}
	kmod_module_info_free_list(info);
	if (r == 0 && fw_strv_uniq(h->mods.v[i].firmware, &h->mods.v[i].nfirmware) < 0)
		r = -ENOMEM;
	if (r < 0 || depth > 64)
		return r;
	/* What modprobe loads with it: its dependencies, then the modules
	 * its softdep configuration names (r8169's realtek). */
	deps = kmod_module_get_dependencies(mod);
	r = add_deps(h, i, deps, depth, d);
	kmod_module_unref_list(deps);
	if (r == 0) {
		struct kmod_list *pre = NULL, *post = NULL;

		if (kmod_module_get_softdeps(mod, &pre, &post) == 0) {
			r = add_deps(h, i, pre, depth, d);
			if (r == 0)
				r = add_deps(h, i, post, depth, d);
		}
		kmod_module_unref_list(pre);
		kmod_module_unref_list(post);
	}
	return r;
}

static int add_deps(struct fw_hw *h, size_t i, struct kmod_list *deps, unsigned depth,
		    struct fw_diag *d)
{
	struct kmod_list *l;
	int r = 0;

	kmod_list_foreach(l, deps) {
		struct kmod_module *dm = kmod_module_get_module(l);
		size_t k;

		r = add_mod(h, dm, &k, depth + 1, d);
		kmod_module_unref(dm);
		if (r == 0 && k != i)
			r = push_idx(&h->mod[i].deps, &h->mod[i].ndeps, k);
		if (r < 0)
			break;
	}
	return r;
}

static bool has_file(const char *dir, const char *name)
{
	char *p = fw_asprintf("%s/%s", dir, name);
	bool r = p && access(p, F_OK) == 0;

	free(p);
	return r;
}

/* A kernel with no loadable modules: each device's driver is a module
 * built into it, bound to the device, and its firmware= entries are those
 * of modules.builtin.modinfo ("MODULE.firmware=NAME", NUL-terminated;
 * kbuild writes it beside modules.builtin), when moddir holds it. */
static int add_builtin(struct fw_hw *h, const char *moddir, struct fw_diag *d)
{
	char *info = NULL, *path = fw_asprintf("%s/modules.builtin.modinfo", moddir);
	size_t len = 0;
	int r;

	if (!path)
		return -ENOMEM;
	r = fw_read_text(AT_FDCWD, path, &info, &len);
	if (r < 0 && r != -ENOENT && r != -ENOTDIR) {
		fw_diag_add(d, path, 0, "cannot read: %s", strerror(-r));
		h->bad++;
	}
	r = r == -ENOMEM ? r : 0;
	for (size_t i = 0; i < h->ndev && r == 0; i++) {
		struct fw_hw_dev *dv = &h->dev[i];
		long k;

		if (!dv->driver)
			continue;
		k = fw_hw_find_mod(h, dv->driver);
		if (k < 0) {
			struct fw_modinfo m = { .name = strdup(dv->driver), .path = strdup("(builtin)") };
			size_t nl = strlen(dv->driver);

			if (!m.name || !m.path ||
			    fw_grow(&h->mods.v, &h->mods.cap, h->mods.n, sizeof(*h->mods.v)) < 0 ||
			    fw_grow(&h->mod, &h->cap_mod, h->mods.n, sizeof(*h->mod)) < 0) {
				fw_modinfo_free(&m);
				r = -ENOMEM;
				break;
			}
			k = (long)h->mods.n++;
			h->mods.v[k] = m;
			h->mod[k] = (struct fw_hw_mod){ .builtin = true, .bound = true };
			for (const char *e = info; e && r == 0 && e < info + len; e += strlen(e) + 1) {
				if (strncmp(e, dv->driver, nl) == 0 && strncmp(e + nl, ".firmware=", 10) == 0 &&
				    e[nl + 10])
					r = push_str(&h->mods.v[k].firmware, &h->mods.v[k].nfirmware,
						     &h->mods.v[k].firmware_cap, e + nl + 10);
			}
			if (r == 0 && fw_strv_uniq(h->mods.v[k].firmware, &h->mods.v[k].nfirmware) < 0)
				r = -ENOMEM;
		}
		if (r == 0)
			r = push_idx(&dv->mods, &dv->nmods, (size_t)k);
	}
	free(info);
	free(path);
	return r;
}

/* libkmod prints its errors to stderr by default; the library never does. */
static void kmod_quiet(void *data, int priority, const char *file, int line, const char *fn,
		       const char *format, va_list args)
{
	(void)data, (void)priority, (void)file, (void)line, (void)fn, (void)format, (void)args;
}

int fw_hw_resolve(struct fw_hw *h, const char *moddir, struct fw_diag *d)
{
	struct kmod_ctx *ctx;
	char *idx = fw_asprintf("%s/modules.alias.bin", moddir);
	int r = 0;

	if (!idx)
		return -ENOMEM;
	free(h->release);
	h->release = fw_dir_basename(moddir);
	if (!h->release) {
		free(idx);
		return -ENOMEM;
	}
	/* Without depmod's index every lookup finds nothing: say so, rather
	 * than report hardware that needs no module. */
	if (access(idx, R_OK) < 0) {
		r = -errno;
		/* No depmod output: a kernel without loadable modules, if
		 * the directory is there (modules.builtin alone), or if it
		 * is not and the running kernel cannot load modules at all
		 * (no /proc/modules, CONFIG_MODULES=n). A directory that is
		 * simply absent on a kernel that loads modules is a wrong
		 * --modules-dir or a release not installed: an error, not a
		 * plausible answer from the driver links alone. */
		struct stat st;
		bool isdir = stat(moddir, &st) == 0 && S_ISDIR(st.st_mode);

		if (r == -ENOENT && !has_file(moddir, "modules.dep") &&
		    !has_file(moddir, "modules.dep.bin") &&
		    (isdir || access("/proc/modules", F_OK) < 0)) {
			free(idx);
			h->no_modules = true;
			return add_builtin(h, moddir, d);
		}
		fw_diag_add(d, idx, 0, "%s: modaliases cannot be resolved (run depmod for this kernel)",
			    strerror(-r));
		free(idx);
		return r;
	}
	free(idx);
	ctx = kmod_new(moddir, NULL);
	if (!ctx)
		return -ENOMEM;
	kmod_set_log_fn(ctx, kmod_quiet, NULL);
	/* Every index at once when they are there; a lookup opens the one it
	 * needs otherwise. */
	(void)kmod_load_resources(ctx);
	for (size_t i = 0; i < h->ndev && r == 0; i++) {
		struct kmod_list *list = NULL, *l;
		struct fw_hw_dev *dv = &h->dev[i];

		r = kmod_module_new_from_lookup(ctx, dv->modalias, &list);
		if (r < 0) {
			fw_diag_add(d, fw_esc(dv->path), 0, "modalias %s: lookup failed: %s",
				    dv->modalias, strerror(-r));
			h->bad++;
			r = r == -ENOMEM ? r : 0;
			continue;
		}
		kmod_list_foreach(l, list) {
			struct kmod_module *mod = kmod_module_get_module(l);
			size_t k;

			r = add_mod(h, mod, &k, 0, d);
			kmod_module_unref(mod);
			if (r == 0) {
				h->mod[k].bound = true;
				r = push_idx(&dv->mods, &dv->nmods, k);
			}
			if (r < 0)
				break;
		}
		kmod_module_unref_list(list);
	}
	kmod_unref(ctx);
	return r;
}

/* ---- the kernel log ---- */

#define FW_LOAD_MSG "Direct firmware load for "
#define FW_LOAD_END " failed"

bool fw_hw_log_parse(const char *msg, size_t len, const char **name, size_t *nlen,
		     const char **who, size_t *wlen)
{
	const char *p = memmem(msg, len, FW_LOAD_MSG, strlen(FW_LOAD_MSG)), *n, *e, *w = msg;
	size_t rest;

	if (!p)
		return false;
	n = p + strlen(FW_LOAD_MSG);
	rest = len - (size_t)(n - msg);
	e = memmem(n, rest, FW_LOAD_END, strlen(FW_LOAD_END));
	if (!e || e == n)
		return false;
	/* dmesg's "[   12.345678] " before the device. */
	if (w < p && *w == '[') {
		const char *c = memchr(w, ']', (size_t)(p - w));

		if (c) {
			w = c + 1;
			while (w < p && *w == ' ')
				w++;
		}
	}
	*name = n;
	*nlen = (size_t)(e - n);
	*who = w;
	*wlen = (size_t)(p - w);
	if (*wlen >= 2 && w[*wlen - 2] == ':' && w[*wlen - 1] == ' ')
		*wlen -= 2;
	return true;
}

static int log_line(struct fw_hw *h, const char *msg, size_t len, const char *file,
		    unsigned line, struct fw_diag *d)
{
	const char *name, *who, *why;
	size_t nlen, wlen;
	char *n, *w, *f;

	if (!fw_hw_log_parse(msg, len, &name, &nlen, &who, &wlen))
		return 0;
	n = fw_strndup(name, nlen);
	if (!n)
		return -ENOMEM;
	why = memchr(n, '\0', nlen) ? "a NUL byte" : fw_name_problem(n);
	if (why) {
		fw_diag_add(d, file, line, "firmware name %s: %s; skipped", fw_esc(n), why);
		free(n);
		return 0;
	}
	for (size_t i = 0; i < h->nlog; i++) {
		if (strcmp(h->log[i].name, n) == 0) {
			free(n);
			return 0;
		}
	}
	w = fw_strndup(who, wlen);
	f = strdup(file);
	if (!w || !f || fw_grow(&h->log, &h->cap_log, h->nlog, sizeof(*h->log)) < 0) {
		free(n), free(w), free(f);
		return -ENOMEM;
	}
	h->log[h->nlog++] = (struct fw_hw_log){ .name = n, .who = w, .file = f, .line = line };
	return 0;
}

/* /dev/kmsg, as drivers/char/mem.c registers it. */
#define KMSG_MAJOR 1
#define KMSG_MINOR 11

static bool is_kmsg(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == KMSG_MAJOR &&
	       minor(st->st_rdev) == KMSG_MINOR;
}

static const char log_kinds[] = "not a regular file or the kernel's /dev/kmsg (character "
				"device 1:11), which may never end; not read";

int fw_hw_open_log(const char *file, bool *kmsg, struct fw_diag *d)
{
	struct stat st;
	int fd, r;

	*kmsg = false;
	if (stat(file, &st) < 0) {
		r = -errno;
		fw_diag_add(d, file, 0, "cannot open: %s", strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode) && !is_kmsg(&st)) {
		fw_diag_add(d, file, 0, "%s", log_kinds);
		return -EINVAL;
	}
	/* O_NONBLOCK: what was checked may have been swapped for a FIFO
	 * since; its open must not wait for a writer, and fstat refuses it. */
	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		fw_diag_add(d, file, 0, "cannot open: %s", strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0 || (!S_ISREG(st.st_mode) && !is_kmsg(&st))) {
		fw_diag_add(d, file, 0, "%s", log_kinds);
		close(fd);
		return -EINVAL;
	}
	*kmsg = !S_ISREG(st.st_mode);
	return fd;
}

static int log_too_long(const char *file, unsigned line, struct fw_diag *d)
{
	fw_diag_add(d, file, line, "kernel log longer than %u MiB; the rest not read",
		    FW_HW_LOG_MAX >> 20);
	return -EFBIG;
}

/* /dev/kmsg: one record per read(), "PRI,SEQ,TIME,FLAGS;MESSAGE\n" and
 * continuation lines; EAGAIN at the end, EPIPE when the ring overwrote
 * the next record (the reader moves on). */
static int read_kmsg(struct fw_hw *h, int fd, const char *file, struct fw_diag *d)
{
	char buf[FW_HW_LOG_LINE_MAX];
	unsigned rec = 0;
	uint64_t total = 0;
	int r = 0;

	for (;;) {
		ssize_t k = read(fd, buf, sizeof(buf));
		const char *msg, *end;

		if (k < 0 && (errno == EINTR || errno == EPIPE))
			continue;
		if (k < 0 && errno == EAGAIN)
			return 0;
		if (k < 0) {
			r = -errno;
			fw_diag_add(d, file, 0, "cannot read: %s", strerror(-r));
			return r;
		}
		if (k == 0)
			return 0;
		/* Records written as fast as they are read would never let
		 * the ring run dry. */
		total += (uint64_t)k;
		if (total > FW_HW_LOG_MAX)
			return log_too_long(file, rec, d);
		rec++;
		msg = memchr(buf, ';', (size_t)k);
		if (!msg)
			continue;
		msg++;
		end = memchr(msg, '\n', (size_t)(buf + k - msg));
		r = log_line(h, msg, (size_t)((end ? end : buf + k) - msg), file, rec, d);
		if (r < 0)
			return r;
	}
}

int fw_hw_read_log(struct fw_hw *h, int fd, const char *file, bool kmsg, struct fw_diag *d)
{
	char *buf;
	size_t len = 0;
	unsigned line = 1;
	uint64_t total = 0;
	bool skipping = false;
	int r = 0;

	if (kmsg)
		return read_kmsg(h, fd, file, d);
	/* One line at a time in a fixed buffer: a log of any size costs
	 * FW_HW_LOG_LINE_MAX bytes. */
	buf = malloc(FW_HW_LOG_LINE_MAX);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t k = read(fd, buf + len, FW_HW_LOG_LINE_MAX - len);
		size_t start = 0;

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			r = -errno;
			fw_diag_add(d, file, line, "cannot read: %s", strerror(-r));
			break;
		}
		if (k == 0) {
			if (len && !skipping)
				r = log_line(h, buf, len, file, line, d);
			break;
		}
		total += (uint64_t)k;
		if (total > FW_HW_LOG_MAX) {
			r = log_too_long(file, line, d);
			break;
		}
		len += (size_t)k;
		for (;;) {
			char *nl = memchr(buf + start, '\n', len - start);

			if (!nl)
				break;
			if (!skipping)
				r = log_line(h, buf + start, (size_t)(nl - buf - start), file, line, d);
			skipping = false;
			line++;
			start = (size_t)(nl - buf) + 1;
			if (r < 0)
				break;
		}
		if (r < 0)
			break;
		memmove(buf, buf + start, len - start);
		len -= start;
		if (len == FW_HW_LOG_LINE_MAX) {
			if (!skipping)
				fw_diag_add(d, file, line, "line longer than %u bytes; skipped",
					    FW_HW_LOG_LINE_MAX);
			skipping = true;
			len = 0;
		}
	}
	free(buf);
	return r;
}

int fw_hw_add_log_names(struct fw_hw *h)
{
	for (size_t i = 0; i < h->nlog; i++) {
		const struct fw_hw_log *g = &h->log[i];
		size_t wl = strcspn(g->who, " ");
		char *drv = wl ? fw_strndup(g->who, wl) : strdup("(kernel log)");
		struct fw_modinfo *m;
		long k;
		int r;

		if (!drv)
			return -ENOMEM;
		for (char *c = drv; *c; c++)
			if (*c == '-')
				*c = '_';
		k = fw_hw_find_mod(h, drv);
		if (k < 0) {
			struct fw_modinfo nm = { .name = drv, .path = strdup(g->file) };

			drv = NULL;
			if (!nm.path || fw_grow(&h->mods.v, &h->mods.cap, h->mods.n, sizeof(*h->mods.v)) < 0 ||
			    fw_grow(&h->mod, &h->cap_mod, h->mods.n, sizeof(*h->mod)) < 0) {
				fw_modinfo_free(&nm);
				return -ENOMEM;
			}
			k = (long)h->mods.n++;
			h->mods.v[k] = nm;
			h->mod[k] = (struct fw_hw_mod){ .log_only = true };
		}
		free(drv);
		m = &h->mods.v[k];
		r = push_str(&m->firmware, &m->nfirmware, &m->firmware_cap, g->name);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < h->mods.n; i++)
		if (fw_strv_uniq(h->mods.v[i].firmware, &h->mods.v[i].nfirmware) < 0)
			return -ENOMEM;
	return 0;
}

/* ---- all of it ---- */

/* The kernel log of o into h: --kernel-log FILE, else /dev/kmsg when the
 * devices are this machine's. 0 or -ENOMEM. */
static int gather_log(struct fw_hw *h, const struct fw_hw_opts *o, struct fw_diag *d)
{
	const char *file = o->log ? o->log : "/dev/kmsg";
	struct fw_diag ld = { 0 };
	bool kmsg;
	int fd, r;

	if (o->no_log || (!o->log && o->sysfs))
		return 0;
	fd = fw_hw_open_log(file, &kmsg, o->log ? d : &ld);
	fw_diag_free(&ld);
	if (fd < 0) {
		/* /dev/kmsg may be closed to us: a note, not a failure; a
		 * file asked for is one. */
		if (!o->log)
			h->log_error = fd;
		else
			h->partial = true;
		return fd == -ENOMEM ? fd : 0;
	}
	r = fw_hw_read_log(h, fd, file, kmsg, d);
	close(fd);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		h->partial = true;
	return 0;
}

int fw_hw_gather(struct fw_hw *h, const struct fw_hw_opts *o, struct fw_diag *d)
{
	struct utsname u;
	int r;

	h->partial = false;
	h->log_error = 0;
	if (o->moddir)
		h->moddir = strdup(o->moddir);
	else if (o->release)
		h->moddir = fw_asprintf("/lib/modules/%s", o->release);
	else if (uname(&u) == 0)
		h->moddir = fw_asprintf("/lib/modules/%s", u.release);
	else
		return -errno;
	if (!h->moddir)
		return -ENOMEM;
	r = fw_hw_scan(h, o->sysfs ? o->sysfs : "/sys/devices", d);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		h->partial = true;
	r = fw_hw_resolve(h, h->moddir, d);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		h->partial = true;
	r = gather_log(h, o, d);
	if (r == 0)
		r = fw_hw_add_log_names(h);
	if (r < 0)
		return -ENOMEM;
	if (h->bad || d->nomem)
		h->partial = true;
	return 0;
}

bool fw_hw_in_log(const struct fw_hw *h, const char *name)
{
	for (size_t i = 0; i < h->nlog; i++)
		if (strcmp(h->log[i].name, name) == 0)
			return true;
	return false;
}

static size_t dep_path(const struct fw_hw *h, size_t b, size_t m, size_t *path, size_t depth,
		       size_t max)
{
	if (depth >= max)
		return 0;
	path[depth] = b;
	if (b == m)
		return depth + 1;
	for (size_t k = 0; k < h->mod[b].ndeps; k++) {
		size_t n = dep_path(h, h->mod[b].deps[k], m, path, depth + 1, max);

		if (n)
			return n;
	}
	return 0;
}

size_t fw_hw_dep_path(const struct fw_hw *h, size_t b, size_t m, size_t *path, size_t max)
{
	return dep_path(h, b, m, path, 0, max);
}

void fw_hw_free(struct fw_hw *h)
{
	free(h->release);
	free(h->moddir);
	for (size_t i = 0; i < h->ndev; i++) {
		free(h->dev[i].path);
		free(h->dev[i].modalias);
		free(h->dev[i].driver);
		free(h->dev[i].mods);
	}
	free(h->dev);
	for (size_t i = 0; i < h->mods.n; i++)
		free(h->mod[i].deps);
	free(h->mod);
	fw_modset_free(&h->mods);
	for (size_t i = 0; i < h->nlog; i++) {
		free(h->log[i].name);
		free(h->log[i].who);
		free(h->log[i].file);
	}
	free(h->log);
	memset(h, 0, sizeof(*h));
}
