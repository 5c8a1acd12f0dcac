/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist kconfig: serve a kernel build with blobs of the tree (CONFIG_EXTRA_FIRMWARE), or check a .config. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "fwdist.h"
#include "json.h"
#include "kconfig.h"
#include "modinfo.h"
#include "plan.h"
#include "util.h"

/* Written into a prepared directory: only a directory holding it is ever
 * replaced, so --output cannot wipe a directory fwdist did not make. */
#define KCONFIG_MARK ".fwdist-kconfig"

static void help(void)
{
	printf("Usage: fwdist [-C DIR] kconfig --output DIR [--package P] [--select FILE]\n"
	       "                      [--module FILE.ko]... [--modules-dir DIR] [--json] [NAME...]\n"
	       "       fwdist kconfig --check CONFIG [--json]\n"
	       "\n"
	       "Prepare DIR for a kernel build that embeds firmware: every chosen name as\n"
	       "a plain, uncompressed file under its exact request name (a link becomes a\n"
	       "copy of its target's bytes, verified against the manifest), then print\n"
	       "CONFIG_EXTRA_FIRMWARE=\"...\" and CONFIG_EXTRA_FIRMWARE_DIR=\"DIR\" for the\n"
	       ".config. DIR is built beside itself and renamed into place; an existing\n"
	       "DIR is replaced only if kconfig made it.\n"
	       "\n"
	       "The names: NAME arguments, and the firmware the given modules request that\n"
	       "the tree has; with neither, every name of the selection (--package,\n"
	       "--select; default: all). A name kbuild cannot take (blank, quote,\n"
	       "backslash, '$', '#', ':', ...) is reported and left out.\n"
	       "\n"
	       "  --output DIR       the directory to prepare\n"
	       "  --module FILE      a module whose firmware to embed (repeatable)\n"
	       "  --modules-dir DIR  every module below DIR\n"
	       "  --check CONFIG     report each name of CONFIG's CONFIG_EXTRA_FIRMWARE the\n"
	       "                     tree cannot serve: absent, undistributable, or (in its\n"
	       "                     CONFIG_EXTRA_FIRMWARE_DIR) only compressed\n"
	       "  --json             machine-readable output\n");
}

struct opts {
	const char *output, *check, *modules_dir;
	const char **mods;
	size_t nmods;
};

static int option(void *ctx, int c, const char *arg)
{
	struct opts *o = ctx;
	const char **n;

	switch (c) {
	case 'o':
		o->output = arg;
		return EXIT_OK;
	case 'k':
		o->check = arg;
		return EXIT_OK;
	case 'd':
		o->modules_dir = arg;
		return EXIT_OK;
	case 'm':
		n = realloc(o->mods, (o->nmods + 1) * sizeof(*n));
		if (!n) {
			fw_err("out of memory");
			return EXIT_FINDING;
		}
		o->mods = n;
		o->mods[o->nmods++] = arg;
		return EXIT_OK;
	}
	return EXIT_USAGE;
}

/* Why the tree cannot serve name to a kernel build, or NULL. */
static const char *why_not(const struct fw_tree *t, const struct fw_plan *p, const char *name)
{
	const struct fw_plan_entry *e = fw_plan_find_name(p, name);
	const struct fw_name *x;

	if (e && e->blob)
		return NULL;
	if (e)
		return "a link to a directory, not a file";
	x = fw_tree_find(t, name);
	if (!x || (x->blob < 0 && x->link < 0))
		return "absent: not in the tree";
	if (x->blob >= 0 && t->blobs[x->blob].cat == FW_CAT_UNDISTRIBUTABLE)
		return "undistributable: the tree never ships it";
	if (x->link >= 0 && t->links[x->link].blob >= 0 &&
	    t->blobs[t->links[x->link].blob].cat == FW_CAT_UNDISTRIBUTABLE)
		return "undistributable: the tree never ships its target";
	return "not installable (no package, or a finding of fwdist check)";
}

static int check_config(const struct fw_tree *t, const struct fw_plan *p, const char *config)
{
	struct fw_kconfig k;
	struct fw_diag d = { 0 };
	int dirfd = -1, r;
	size_t nnames = 0, nbad = 0;
	char *copy, *save = NULL;

	r = fw_kconfig_load(&k, config);
	if (r < 0) {
		fw_err("kconfig: %s: cannot read: %s", config, strerror(-r));
		return EXIT_FINDING;
	}
	if (k.extra_fw_dir && *k.extra_fw_dir)
		dirfd = open(k.extra_fw_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	copy = strdup(k.extra_fw ? k.extra_fw : "");
	if (!copy) {
		fw_kconfig_free(&k);
		fw_err("out of memory");
		return EXIT_FINDING;
	}
	if (fw_json)
		printf("{\"config\":");
	if (fw_json) {
		fw_json_str(stdout, config);
		printf(",\"names\":[");
	}
	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		const char *why = why_not(t, p, w);
		int fd;

		nnames++;
		if (!why && dirfd >= 0) {
			/* The build reads CONFIG_EXTRA_FIRMWARE_DIR, not the tree:
			 * a name there only as .xz/.zst cannot be embedded. */
			fd = fw_open_resolve(dirfd, w, O_RDONLY);
			if (fd >= 0) {
				close(fd);
			} else {
				char *xz = fw_asprintf("%s.xz", w), *zst = fw_asprintf("%s.zst", w);
				int fx = xz ? fw_open_resolve(dirfd, xz, O_RDONLY) : -ENOMEM;
				int fz = zst ? fw_open_resolve(dirfd, zst, O_RDONLY) : -ENOMEM;

				why = fx >= 0 || fz >= 0 ? "only compressed in CONFIG_EXTRA_FIRMWARE_DIR" :
							   "not in CONFIG_EXTRA_FIRMWARE_DIR";
				if (fx >= 0)
					close(fx);
				if (fz >= 0)
					close(fz);
				free(xz);
				free(zst);
			}
		}
		if (fw_json) {
			printf("%s{\"name\":", nnames > 1 ? "," : "");
			fw_json_str(stdout, w);
			printf(",\"problem\":");
			if (why)
				fw_json_str(stdout, why);
			else
				printf("null");
			printf("}");
		}
		if (why) {
			nbad++;
			fw_diag_add(&d, config, k.extra_fw_line, "CONFIG_EXTRA_FIRMWARE: %s: %s",
				    fw_esc(w), why);
		}
	}
	if (fw_json)
		printf("],\"served\":%zu,\"problems\":%zu}\n", nnames - nbad, nbad);
	else
		printf("%s: CONFIG_EXTRA_FIRMWARE: %zu names, %zu served by the tree, %zu not\n",
		       config, nnames, nnames - nbad, nbad);
	fw_print_diag(&d);
	fw_diag_free(&d);
	if (dirfd >= 0)
		close(dirfd);
	free(copy);
	fw_kconfig_free(&k);
	return nbad ? EXIT_FINDING : EXIT_OK;
}

/* Copy the bytes of e (a blob, or a link's target) to dirfd/name, checked
 * against the manifest's digest as they are copied. 0 or -errno. */
static int put_file(const struct fw_tree *t, const struct fw_plan_entry *e, int dirfd)
{
	const char *leaf;
	char tmp[PATH_MAX];
	uint8_t dig[FW_SHA256_LEN];
	int pfd, src, fd, r;

	src = fw_open_beneath(t->fwfd, e->blob->e->name, O_RDONLY, 0);
	if (src < 0)
		return src;
	pfd = fw_open_parent(dirfd, e->name, 1, &leaf);
	if (pfd < 0) {
		close(src);
		return pfd;
	}
	fd = fw_tmp_create(pfd, leaf, tmp, sizeof(tmp));
	if (fd < 0) {
		r = fd;
		goto out;
	}
	r = fw_copy_compress(src, fd, FW_COMP_NONE, e->size, dig, NULL);
	if (r == 0 && memcmp(dig, e->sha256, sizeof(dig)) != 0)
		r = -EBADMSG;
	if (r < 0) {
		close(fd);
		unlinkat(pfd, tmp, 0);
		goto out;
	}
	r = fw_tmp_commit(pfd, fd, tmp, leaf, 0644);
	close(fd);
out:
	close(src);
	close(pfd);
	return r;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct fw_plan_entry *x = *(const struct fw_plan_entry *const *)a;
	const struct fw_plan_entry *y = *(const struct fw_plan_entry *const *)b;

	return strcmp(x->name, y->name);
}

/* Build the directory under a temporary name beside out, then rename it
 * into place (exchanging it with an old one kconfig made). */
static int prepare(const struct fw_tree *t, const struct fw_plan_entry **v, size_t n,
		   const char *out, char **abs)
{
	char *dir = strdup(out), *leafp, *base;
	char tmp[PATH_MAX], real[PATH_MAX];
	const char *parent, *leaf;
	struct stat st;
	int pfd = -1, tfd = -1, r = 0;
	FILE *mark = NULL;
	char *mtext = NULL;
	size_t mlen = 0;

	*abs = NULL;
	if (!dir)
		return -ENOMEM;
	while (strlen(dir) > 1 && dir[strlen(dir) - 1] == '/')
		dir[strlen(dir) - 1] = '\0';
	leafp = strrchr(dir, '/');
	if (leafp) {
		*leafp = '\0';
		parent = leafp == dir ? "/" : dir;
		leaf = leafp + 1;
	} else {
		parent = ".";
		leaf = dir;
	}
	if (!*leaf || !strcmp(leaf, ".") || !strcmp(leaf, "..")) {
		fw_err("kconfig: --output %s: name a directory to create", out);
		r = -EINVAL;
		goto out;
	}
	/* The parent is the caller's, taken as given (like DESTDIR); below
	 * it nothing is followed. */
	pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0 || !realpath(parent, real)) {
		r = -errno;
		fw_err("kconfig: %s: %s", parent, strerror(-r));
		goto out;
	}
	base = fw_asprintf("%s%s%s", real, strcmp(real, "/") ? "/" : "", leaf);
	if (!base) {
		r = -ENOMEM;
		goto out;
	}
	*abs = base;
	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			fw_err("kconfig: %s: %s", out, S_ISLNK(st.st_mode) ?
				       "a symlink is in the way; refusing to follow it" :
				       "not a directory");
			r = -EEXIST;
			goto out;
		}
		int ofd = openat(pfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		bool ours = ofd >= 0 && faccessat(ofd, KCONFIG_MARK, F_OK, AT_SYMLINK_NOFOLLOW) == 0;

		if (ofd >= 0)
			close(ofd);
		if (!ours) {
			fw_err("kconfig: %s exists and was not made by fwdist kconfig; refusing to replace it",
			       out);
			r = -EEXIST;
			goto out;
		}
	}
	r = fw_tmp_mkdir(pfd, leaf, tmp, sizeof(tmp));
	if (r < 0) {
		fw_err("kconfig: %s: cannot create a directory beside it: %s", out, strerror(-r));
		goto out;
	}
	tfd = openat(pfd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tfd < 0) {
		r = -errno;
		goto fail;
	}
	/* Its own mark (KCONFIG_MARK) says whose it is, not install's. */
	unlinkat(tfd, FW_STAGE_MARK, 0);
	mark = open_memstream(&mtext, &mlen);
	if (!mark) {
		r = -ENOMEM;
		goto fail;
	}
	fprintf(mark, "# Made by fwdist kconfig for CONFIG_EXTRA_FIRMWARE_DIR; the names:\n");
	for (size_t i = 0; i < n; i++) {
		r = put_file(t, v[i], tfd);
		if (r < 0) {
			fw_err("kconfig: %s: %s", fw_esc(v[i]->name),
			       r == -EBADMSG ? "content differs from manifests/checksums" :
			       r == -ESTALE ? "size differs from manifests/checksums" :
					      strerror(-r));
			goto fail;
		}
		fprintf(mark, "%s\n", v[i]->name);
	}
	if (fclose(mark) != 0) {
		mark = NULL;
		r = -ENOMEM;
		goto fail;
	}
	mark = NULL;
	r = fw_write_atomic(tfd, KCONFIG_MARK, mtext, mlen, 0644);
	if (r < 0)
		goto fail;
	if (fsync(tfd) < 0) {
		r = -errno;
		goto fail;
	}
	/* Publish: a new name is renamed into place; an old directory is
	 * exchanged with the new one in one step, then removed. */
	if (renameat2(pfd, tmp, pfd, leaf, RENAME_NOREPLACE) < 0) {
		if (errno != EEXIST || renameat2(pfd, tmp, pfd, leaf, RENAME_EXCHANGE) < 0) {
			r = -errno;
			goto fail;
		}
		fw_rm_rf_at(pfd, tmp);
	}
	fsync(pfd);
	goto out;
fail:
	if (r < 0 && r != -EBADMSG && r != -ESTALE)
		fw_err("kconfig: %s: %s", out, strerror(-r));
	fw_rm_rf_at(pfd, tmp);
out:
	if (mark)
		fclose(mark);
	free(mtext);
	if (tfd >= 0)
		close(tfd);
	if (pfd >= 0)
		close(pfd);
	free(dir);
	return r;
}

int cmd_kconfig(int argc, char **argv)
{
	static const struct option own[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "check", required_argument, NULL, 'k' },
		{ "module", required_argument, NULL, 'm' },
		{ "modules-dir", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	struct fw_cli cli = FW_CLI_INIT("kconfig", FW_CLI_JSON | FW_CLI_PACKAGE | FW_CLI_SELECT);
	struct opts o = { 0 };
	struct fw_diag d = { 0 }, md = { 0 };
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	struct fw_modset s = { 0 };
	struct fw_plan p = { 0 };
	bool have_plan = false;
	const struct fw_plan_entry **v = NULL;
	size_t n = 0, nbad = 0;
	char *abs = NULL;
	int ret, r;

	cli.takes_args = true;
	ret = fw_cli_parse(&cli, argc, argv, own, "", option, &o, help);
	if (ret >= 0)
		goto out;
	if (o.check && (o.output || cli.nargs || o.nmods || o.modules_dir)) {
		ret = fw_usage("kconfig", "--check CONFIG takes no names, modules or --output");
		goto out;
	}
	if (!o.check && !o.output) {
		ret = fw_usage("kconfig", "give --output DIR (or --check CONFIG)");
		goto out;
	}
	ret = fw_cli_prepare(&cli, &t, &d, NULL);
	if (ret != EXIT_OK)
		goto out;
	struct fw_plan_opts po = { .sel = cli.sel, .comp = FW_COMP_NONE, .no_licences = true };
	if (fw_plan_build(&p, &t, &po, NULL) < 0)
		goto nomem;
	have_plan = true;
	if (o.check) {
		ret = check_config(&t, &p, o.check);
		if (ret == EXIT_OK && d.n)
			ret = EXIT_FINDING;
		goto out;
	}
	r = 0;
	if (o.modules_dir)
		r = fw_modset_add_dir(&s, o.modules_dir, &md);
	for (size_t i = 0; i < o.nmods && r == 0; i++)
		r = fw_modset_add_file(&s, AT_FDCWD, o.mods[i], &md);
	if (r == -ENOMEM)
		goto nomem;
	nbad += s.bad + (r < 0);
	{
		size_t cap = p.nnames + cli.nargs + 1;

		for (size_t i = 0; i < s.n; i++)
			cap += s.v[i].nfirmware;
		v = calloc(cap, sizeof(*v));
	}
	if (!v)
		goto nomem;
	if (cli.nargs || o.nmods || o.modules_dir) {
		/* Names given: each must be served; modules' names the tree
		 * lacks are what `fwdist modules` reports, not an error here. */
		for (size_t i = 0; i < cli.nargs; i++) {
			const char *why = why_not(&t, &p, cli.args[i]);

			if (why) {
				fw_diag_add(&md, cli.args[i], 0, "%s", why);
				nbad++;
				continue;
			}
			v[n++] = fw_plan_find_name(&p, cli.args[i]);
		}
		for (size_t i = 0; i < s.n; i++)
			for (size_t j = 0; j < s.v[i].nfirmware; j++)
				if (!why_not(&t, &p, s.v[i].firmware[j]))
					v[n++] = fw_plan_find_name(&p, s.v[i].firmware[j]);
	} else {
		for (size_t i = 0; i < p.nnames; i++)
			if (p.v[p.by_name[i]].blob)
				v[n++] = &p.v[p.by_name[i]];
	}
	/* Sorted, each name once (several modules may request one). */
	qsort(v, n, sizeof(*v), cmp_entry);
	{
		size_t w = 0;

		for (size_t i = 0; i < n; i++)
			if (!w || v[w - 1] != v[i])
				v[w++] = v[i];
		n = w;
	}
	/* Names kbuild cannot take are left out and reported. */
	{
		size_t w = 0;

		for (size_t i = 0; i < n; i++) {
			const char *why = fw_kconfig_name_problem(v[i]->name);

			if (why) {
				fw_diag_add(&md, v[i]->name, 0,
					    "cannot be in CONFIG_EXTRA_FIRMWARE: it holds %s", why);
				nbad++;
				continue;
			}
			v[w++] = v[i];
		}
		n = w;
	}
	fw_print_diag(&md);
	r = prepare(&t, v, n, o.output, &abs);
	if (r == -ENOMEM)
		goto nomem;
	if (r < 0) {
		ret = EXIT_FINDING;
		goto out;
	}
	if (fw_kconfig_name_problem(abs)) {
		fw_err("kconfig: %s: the path holds %s; kbuild cannot use it", fw_esc(abs),
		       fw_kconfig_name_problem(abs));
		ret = EXIT_FINDING;
		goto out;
	}
	if (fw_json) {
		printf("{\"dir\":");
		fw_json_str(stdout, abs);
		printf(",\"names\":[");
		for (size_t i = 0; i < n; i++) {
			printf("%s", i ? "," : "");
			fw_json_str(stdout, v[i]->name);
		}
		printf("],\"problems\":%zu}\n", nbad);
	} else {
		printf("CONFIG_EXTRA_FIRMWARE=\"");
		for (size_t i = 0; i < n; i++)
			printf("%s%s", i ? " " : "", v[i]->name);
		printf("\"\nCONFIG_EXTRA_FIRMWARE_DIR=\"%s\"\n", abs);
	}
	ret = nbad || d.n ? EXIT_FINDING : EXIT_OK;
	goto out;
nomem:
	fw_err("kconfig: out of memory");
	ret = EXIT_FINDING;
out:
	free(abs);
	free(v);
	free(o.mods);
	if (have_plan)
		fw_plan_free(&p);
	fw_modset_free(&s);
	fw_cli_free(&cli);
	fw_tree_free(&t);
	fw_diag_free(&d);
	fw_diag_free(&md);
	return ret;
}
