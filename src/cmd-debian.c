/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist debian: write debian/control, debian/copyright, a package's AppStream metainfo, debconf templates or substitution variables, or fill debian/PACKAGE of every firmware package at once. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compress.h"
#include "debian.h"
#include "fsutil.h"
#include "fwdist.h"
#include "install.h"
#include "plan.h"
#include "replaces.h"
#include "util.h"
#include "verify.h"

static const struct fw_cli_opt opts[] = {
	{ "package", FW_OPT_PACKAGE, false, "P",
	  "the package (metainfo, templates, substvars); install:\n"
	  "one of the packages (repeatable; default every one)", NULL },
	{ "suite", 'S', false, "SUITE",
	  "substvars, install: the Debian release built for\n"
	  "(bookworm, trixie, forky)", NULL },
	{ "version", 'V', false, "V",
	  "substvars, install: the version of the packages built\n"
	  "(debian/changelog's)", NULL },
	{ "compress", 'c', false, "=none|xz|zstd",
	  "install: how File: blobs are stored (default none)", NULL },
	{ "no-dedup", 'N', false, NULL,
	  "install: every blob a file of its own (default: the\n"
	  "identical blobs of one package become relative symlinks\n"
	  "to one copy, as fwdist install --dedup)", NULL },
	{ "jobs", FW_OPT_JOBS, true, "N",
	  "install: worker threads (default: one per CPU)", NULL },
	{ "output", 'o', true, "FILE",
	  "write FILE (atomically) instead of standard output", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist [-C DIR] debian control|copyright [-o FILE]\n"
		"       fwdist [-C DIR] debian metainfo|templates --package P [-o FILE]\n"
		"       fwdist [-C DIR] debian substvars --package P --suite SUITE --version V\n"
		"                                [-o FILE]\n"
		"       fwdist [-C DIR] debian install --suite SUITE --version V\n"
		"                              [--compress=none|xz|zstd] [--no-dedup]\n"
		"                              [--package P]...\n"
		"       fwdist [-C DIR] debian version\n"
		"\n"
		"Write the generated parts of the Debian packaging from WHENCE, manifests/\n"
		"and LICENSES/, through the plan of an install:\n"
		"  control    debian/control.in, then one binary package stanza per package\n"
		"             of manifests/packages (Section kernel, or COMPONENT/kernel)\n"
		"  copyright  debian/copyright.in, then one DEP-5 Files stanza per WHENCE\n"
		"             licence group (its blobs and sources) and every licence text\n"
		"  metainfo   AppStream metainfo of package P: component type firmware, one\n"
		"             <firmware type=\"runtime\"> per installed name, <modalias> entries\n"
		"             from manifests/modules when it exists, the homepage of\n"
		"             debian/control.in's Homepage: field; its file is\n"
		"             /usr/share/metainfo/ID.metainfo.xml, ID org.fwdist.P with '_' for '-'\n"
		"  templates  debconf templates of package P when a licence of its blobs\n"
		"             demands acceptance (policy category non-free+accept), else\n"
		"             nothing: PKG/license/accepted and PKG/license/error\n"
		"  substvars  dpkg-gencontrol's variables of package P for SUITE at version V,\n"
		"             from manifests/replaces (the Debian packages it takes files\n"
		"             over from): fwdist:Replaces (D (<< V) per takes:D, D per\n"
		"             provides:D), fwdist:Provides (D (= V)), fwdist:Conflicts (D),\n"
		"             fwdist:Pre-Depends (Q (= V) for each package Q of the split\n"
		"             that takes:P, so that Q holds the names before P drops them);\n"
		"             each empty when nothing gives it a value\n"
		"  install    what debian/rules does for each firmware package P, in one\n"
		"             process (the tree is read once): `fwdist install --packaged`\n"
		"             into debian/P (firmware directory /lib/firmware for bookworm,\n"
		"             /usr/lib/firmware from trixie on), `fwdist verify` of it, the\n"
		"             metainfo into debian/P/usr/share/metainfo/, debian/P.templates\n"
		"             (removed when there are none) and the substvars into\n"
		"             debian/P.substvars (its other variables kept), below DIR;\n"
		"             a line per package on standard output. The identical blobs\n"
		"             of one package are installed once, the others relative\n"
		"             symlinks to it (never across packages; --no-dedup: copies).\n"
		"             Stops at the first package that fails, naming it\n"
		"  version    the version of the firmware packages and the metapackage:\n"
		"             RELEASE+fwdistN when manifests/imported records the upstream\n"
		"             release (line \"release YYYYMMDD\", written by fwdist import),\n"
		"             N from its line \"revision N\" (default 1: add one to rebuild\n"
		"             a release with new packaging); else debian/changelog's\n"
		"             version, which the package fwdist always has\n"
		"`fwdist check` reports a committed debian/control or debian/copyright that is\n"
		"not what this command writes. A tree with findings gets nothing.\n"
		"\n",
	.opts = opts,
};

struct opts {
	const char *output, *suite, *version;
	enum fw_compress comp;
	bool comp_set, no_dedup;
};

static int option(void *ctx, int c, const char *arg)
{
	struct opts *o = ctx;

	if (c == 'o')
		o->output = arg;
	else if (c == 'S')
		o->suite = arg;
	else if (c == 'V')
		o->version = arg;
	else if (c == 'N')
		o->no_dedup = true;
	else if (c == 'c') {
		if (fw_compress_parse(arg, &o->comp) < 0)
			return fw_usage("debian", "--compress takes none, xz or zstd, not '%s'", arg);
		o->comp_set = true;
	} else
		return EXIT_USAGE;
	return EXIT_OK;
}

/* Debian policy 5.6.12: [epoch:]upstream[-revision], the upstream part
 * starting with a digit; letters, digits and . + ~ - : only. */
static bool valid_version(const char *v)
{
	if (!(*v >= '0' && *v <= '9'))
		return false;
	for (; *v; v++)
		if (!((*v >= '0' && *v <= '9') || (*v >= 'a' && *v <= 'z') ||
		      (*v >= 'A' && *v <= 'Z') || strchr(".+~-:", *v)))
			return false;
	return true;
}

/* The substvars of package pkg for o's suite and version, from rp (its
 * tree's manifests/replaces), into *buf. 0 or -errno. */
static int substvars(const struct fw_replaces *rp, const struct fw_tree *t, unsigned pkg,
		     const struct opts *o, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);

	if (!f)
		return -errno;
	fw_replaces_substvars(f, rp, &t->split, pkg, o->suite, o->version);
	return fclose(f) != 0 ? -ENOMEM : 0;
}

/* The plan metainfo and templates are made from: an uncompressed install of
 * sel without licence texts. 0, -EINVAL (a blob without checksum, in d)
 * or -ENOMEM. */
static int meta_plan(struct fw_plan *p, const struct fw_tree *t, struct fw_selection sel,
		     struct fw_diag *d)
{
	int r = fw_plan_build(p, t, &(struct fw_plan_opts){ .sel = sel, .comp = FW_COMP_NONE,
							      .no_licences = true }, d);

	return r == 0 && d->n ? -EINVAL : r;
}

/* The metainfo, or with templates the debconf templates, of package pkg
 * from p (meta_plan's), into *buf. */
static int render(const struct fw_plan *p, int pkg, bool templates, struct fw_diag *d, char **buf,
		  size_t *len)
{
	FILE *f = open_memstream(buf, len);
	int r;

	if (!f)
		return -errno;
	r = templates ? fw_debian_templates(f, p, pkg, d) : fw_debian_metainfo(f, p, pkg, d);
	if (fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	return r;
}

/* The firmware directory of a package built for suite: Debian's firmware
 * packages ship under /usr/lib/firmware from trixie on (nothing under the
 * /lib alias), under /lib/firmware for bookworm. */
static const char *suite_fwdir(const char *suite)
{
	return strcmp(suite, "bookworm") == 0 ? "/lib/firmware" : "/usr/lib/firmware";
}

/* debian/P.substvars with its fwdist:* lines replaced by add: a rerun of
 * the install step leaves one of each, and what debhelper wrote stays. */
static int write_substvars(int debfd, const char *leaf, const char *add, size_t addlen)
{
	uint8_t *old = NULL;
	size_t oldlen = 0, n = 0;
	char *buf;
	int fd = openat(debfd, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), r = 0;

	if (fd >= 0) {
		r = fw_read_fd(fd, 1 << 20, &old, &oldlen);
		close(fd);
	} else if (errno != ENOENT) {
		r = -errno;
	}
	if (r < 0)
		return r;
	buf = malloc(oldlen + addlen + 1);
	if (!buf) {
		free(old);
		return -ENOMEM;
	}
	for (size_t i = 0; i < oldlen;) {
		const uint8_t *nl = memchr(old + i, '\n', oldlen - i);
		size_t l = nl ? (size_t)(nl - (old + i)) + 1 : oldlen - i;

		if (!(l >= 7 && memcmp(old + i, "fwdist:", 7) == 0)) {
			memcpy(buf + n, old + i, l);
			n += l;
			if (!nl)
				buf[n++] = '\n';
		}
		i += l;
	}
	memcpy(buf + n, add, addlen);
	r = fw_write_leaf(debfd, leaf, buf, n + addlen, 0644);
	free(buf);
	free(old);
	return r;
}

static void print_problems(const struct fw_verify_result *res)
{
	for (size_t i = 0; i < res->n; i++)
		fw_err("%s: %s%s%s", res->v[i].kind, fw_esc(res->v[i].name), res->v[i].detail ? ": " : "",
		       res->v[i].detail ? res->v[i].detail : "");
}

/* One package of debian install: its blobs, links and licence texts into
 * debian/P, their verification, its metainfo, templates and substvars.
 * EXIT_OK or EXIT_FINDING (said on stderr, naming the package). */
static int install_one(const struct fw_cli *cli, const struct fw_tree *t, const struct opts *o,
		       const struct fw_replaces *rp, int debfd, const char *debdir, unsigned pkg)
{
	const char *name = t->split.pkgs[pkg].name, *fwdir = suite_fwdir(o->suite);
	bool *only = calloc(t->split.npkgs, sizeof(*only));
	struct fw_selection sel = { .pkg = only };
	struct fw_plan plan = { 0 }, meta = { 0 };
	struct fw_install_result res = { 0 };
	struct fw_verify_result vres = { 0 };
	struct fw_diag d = { 0 };
	char *dest = fw_asprintf("%s/%s", debdir, name), *where = NULL, *leaf = NULL, *id = NULL;
	char *buf = NULL;
	size_t len = 0;
	int fd = -1, mfd = -1, r, ret = EXIT_FINDING;

	if (!only || !dest) {
		fw_err("debian: install: out of memory");
		goto out;
	}
	only[pkg] = true;
	/* Identical blobs of the package become links to one copy: a real
	 * release has hundreds (amdgpu's per-chip copies), tens of MB. The
	 * plan is of this package alone, so no link crosses packages. */
	r = fw_plan_build(&plan, t,
			  &(struct fw_plan_opts){ .sel = sel, .comp = o->comp, .dedup = !o->no_dedup }, &d);
	if (r == 0)
		r = meta_plan(&meta, t, sel, &d);
	if (r < 0)
		goto failed;
	fd = fw_dest_open(dest, fwdir, true, &where);
	if (fd < 0) {
		fw_err("debian: install: %s: %s", where ? fw_esc(where) : name, fw_path_error(fd));
		goto out;
	}
	r = fw_install(&plan, fd, &(struct fw_install_opts){ .jobs = cli->jobs, .packaged = true }, &res,
		       &d);
	if (r < 0 || res.failed || d.n)
		goto failed;
	r = fw_verify(&plan, fd, &(struct fw_verify_opts){ .jobs = cli->jobs }, &vres);
	if (r < 0)
		goto failed;
	if (vres.n) {
		print_problems(&vres);
		fw_err("debian: install: %s: %zu problem%s in %zu names", fw_esc(where), vres.n,
		       vres.n == 1 ? "" : "s", vres.checked);
		goto out;
	}
	/* The metainfo, then the templates, then the substvars, each written
	 * whole or not at all. */
	r = render(&meta, (int)pkg, false, &d, &buf, &len);
	if (r < 0)
		goto failed;
	{
		char *mwhere = NULL;

		mfd = fw_dest_open(dest, "/usr/share/metainfo", true, &mwhere);
		if (mfd < 0)
			fw_err("debian: install: %s: %s", mwhere ? fw_esc(mwhere) : name,
			       fw_path_error(mfd));
		free(mwhere);
		if (mfd < 0)
			goto out;
	}
	id = fw_debian_metainfo_id(name);
	leaf = id ? fw_asprintf("%s.metainfo.xml", id) : NULL;
	r = leaf ? fw_write_leaf(mfd, leaf, buf, len, 0644) : -ENOMEM;
	if (r < 0)
		goto failed;
	free(buf);
	buf = NULL;
	r = render(&meta, (int)pkg, true, &d, &buf, &len);
	free(leaf);
	leaf = fw_asprintf("%s.templates", name);
	if (!leaf)
		r = -ENOMEM;
	if (r == 0 && len)
		r = fw_write_leaf(debfd, leaf, buf, len, 0644);
	else if (r == 0 && unlinkat(debfd, leaf, 0) < 0 && errno != ENOENT)
		r = -errno;
	if (r < 0)
		goto failed;
	free(buf);
	buf = NULL;
	r = substvars(rp, t, pkg, o, &buf, &len);
	free(leaf);
	leaf = fw_asprintf("%s.substvars", name);
	if (!leaf)
		r = -ENOMEM;
	if (r == 0)
		r = write_substvars(debfd, leaf, buf, len);
	if (r < 0)
		goto failed;
	if (!cli->quiet)
		printf("debian install: %s: %s: %zu names (%s), verified\n", name,
		       fw_esc(where ? where : dest), vres.checked, fw_compress_name(o->comp));
	ret = EXIT_OK;
	goto out;
failed:
	fw_print_diag(&d);
	if (r < 0 && !(r == -EINVAL && d.n))
		fw_err("debian: install: %s: %s", name, strerror(-r));
out:
	if (ret != EXIT_OK)
		fw_err("debian: install: %s failed; the packages after it were not installed", name);
	if (fd >= 0)
		close(fd);
	if (mfd >= 0)
		close(mfd);
	free(buf);
	free(leaf);
	free(id);
	free(where);
	free(dest);
	free(only);
	fw_verify_result_free(&vres);
	fw_plan_free(&plan);
	fw_plan_free(&meta);
	fw_diag_free(&d);
	return ret;
}

/* debian install: every package of the split, or those of --package, in
 * the split's order. */
static int debian_install(const struct fw_cli *cli, const struct fw_tree *t, const struct opts *o)
{
	char *debdir = strcmp(fw_tree_root, ".") == 0 ? strdup("debian")
						      : fw_asprintf("%s/debian", fw_tree_root);
	struct fw_replaces rp;
	struct fw_diag d = { 0 };
	int debfd, ret = EXIT_FINDING, r;

	if (!debdir) {
		fw_err("debian: install: out of memory");
		return EXIT_FINDING;
	}
	/* manifests/replaces once, for every package's substvars. */
	r = fw_replaces_load(&rp, &t->split, t->rootfd, &d);
	if (r < 0) {
		fw_print_diag(&d);
		if (r != -EINVAL || !d.n)
			fw_err("debian: install: %s", strerror(-r));
		fw_err("debian: install: nothing installed");
		fw_diag_free(&d);
		free(debdir);
		return EXIT_FINDING;
	}
	debfd = open(debdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (debfd < 0) {
		fw_err("debian: install: %s: %s", fw_esc(debdir), strerror(errno));
	} else {
		ret = EXIT_OK;
		for (size_t i = 0; i < t->split.npkgs && ret == EXIT_OK; i++)
			if (!cli->pkg || cli->pkg[i])
				ret = install_one(cli, t, o, &rp, debfd, debdir, (unsigned)i);
		close(debfd);
	}
	fw_replaces_free(&rp);
	fw_diag_free(&d);
	free(debdir);
	return ret;
}

/* debian version: read from two files, no tree loaded (debian/rules asks
 * for it at every make invocation). */
static int print_version(const struct fw_cli *cli, const struct opts *o)
{
	struct fw_diag d = { 0 };
	const char *from = NULL;
	char *v = NULL;
	int fd, r, ret = EXIT_FINDING;

	if (cli->npkgs || o->suite || o->version || o->output)
		return fw_usage("debian", "debian version takes no option but -C");
	fd = open(fw_tree_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fw_err("debian: version: %s: %s", fw_esc(fw_tree_root), strerror(errno));
		return EXIT_FINDING;
	}
	r = fw_debian_version(fd, &v, &from, &d);
	close(fd);
	fw_print_diag(&d);
	if (r == -ENOENT)
		fw_err("debian: version: neither %s nor %s", FW_TREE_IMPORTED, FW_DEBIAN_CHANGELOG);
	else if (r < 0 && !(r == -EINVAL && d.n))
		fw_err("debian: version: %s", strerror(-r));
	else if (r == 0 && !valid_version(v))
		fw_err("debian: version: %s gives '%s': not a Debian version", from, fw_esc(v));
	else if (r == 0) {
		printf("%s\n", v);
		ret = EXIT_OK;
	}
	free(v);
	fw_diag_free(&d);
	return ret;
}

int cmd_debian(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("debian");
	struct opts o = { 0 };
	struct fw_diag d = { 0 };
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	const char *what;
	bool per_pkg, subst, inst;
	char *buf = NULL;
	size_t len = 0;
	int ret, r;

	/* The file to write comes first, as git's subcommands of subcommands
	 * do (options then follow it, operands never). */
	what = argc > 1 && argv[1][0] != '-' ? argv[1] : "";
	if (*what) {
		argc--;
		argv++;
	}
	ret = fw_cli_parse(&cli, argc, argv, &help, option, &o);
	if (ret >= 0)
		goto out;
	subst = strcmp(what, "substvars") == 0;
	inst = strcmp(what, "install") == 0;
	per_pkg = strcmp(what, "metainfo") == 0 || strcmp(what, "templates") == 0 || subst;
	if (strcmp(what, "control") && strcmp(what, "copyright") && strcmp(what, "version") && !per_pkg &&
	    !inst) {
		ret = fw_usage("debian",
			       "say control, copyright, metainfo, templates, substvars, install or version");
		goto out;
	}
	if ((o.comp_set || cli.jobs || o.no_dedup) && !inst) {
		ret = fw_usage("debian", "--compress, --no-dedup and --jobs go with install");
		goto out;
	}
	if (inst && o.output) {
		ret = fw_usage("debian", "debian install writes below debian/, not to -o");
		goto out;
	}
	if (strcmp(what, "version") == 0) {
		ret = print_version(&cli, &o);
		goto out;
	}
	if (!inst && per_pkg != (cli.npkgs == 1)) {
		ret = fw_usage("debian",
			       cli.npkgs ? "--package goes with metainfo, templates or substvars, once" :
					   "%s needs --package P", what);
		goto out;
	}
	if (!subst && !inst && (o.suite || o.version)) {
		ret = fw_usage("debian", "--suite and --version go with substvars or install");
		goto out;
	}
	if ((subst || inst) && (!o.suite || !o.version)) {
		ret = fw_usage("debian", "%s needs --suite SUITE and --version V", what);
		goto out;
	}
	if ((subst || inst) && !fw_suite_known(o.suite)) {
		ret = fw_usage("debian", "--suite %s: not bookworm, trixie or forky", o.suite);
		goto out;
	}
	if ((subst || inst) && !valid_version(o.version)) {
		ret = fw_usage("debian", "--version %s: not a Debian version", o.version);
		goto out;
	}
	if (o.output && !*o.output) {
		ret = fw_usage("debian", "-o takes a file name");
		goto out;
	}
	ret = fw_cli_prepare(&cli, &t, &d, inst ? "nothing installed" : "nothing written");
	if (ret != EXIT_OK)
		goto out;
	if (inst) {
		ret = debian_install(&cli, &t, &o);
		goto out;
	}
	ret = EXIT_FINDING;
	if (subst) {
		struct fw_replaces rp;

		r = fw_replaces_load(&rp, &t.split, t.rootfd, &d);
		if (r == 0) {
			r = substvars(&rp, &t, (unsigned)fw_split_find(&t.split, cli.pkgs[0]), &o, &buf,
				      &len);
			fw_replaces_free(&rp);
		}
	} else if (per_pkg) {
		struct fw_plan p = { 0 };

		r = meta_plan(&p, &t, cli.sel, &d);
		if (r == 0)
			r = render(&p, fw_split_find(&t.split, cli.pkgs[0]), strcmp(what, "templates") == 0,
				   &d, &buf, &len);
		fw_plan_free(&p);
	} else {
		r = fw_debian_generate(&t, strcmp(what, "control") == 0 ? FW_DEB_CONTROL : FW_DEB_COPYRIGHT,
				       &buf, &len, &d);
	}
	if (r == 0 && d.n)
		r = -EINVAL;
	if (r < 0) {
		fw_print_diag(&d);
		if (r == -ENOENT)
			fw_err("debian: %s: the tree has no debian/%s.in", what, what);
		else if (r != -EINVAL || !d.n)
			fw_err("debian: %s", strerror(-r));
		fw_err("debian: nothing written");
		goto out;
	}
	ret = fw_cli_emit("debian", o.output, buf, len);
out:
	free(buf);
	fw_cli_free(&cli);
	fw_diag_free(&d);
	fw_tree_free(&t);
	return ret;
}
