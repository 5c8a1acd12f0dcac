/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist debian: write debian/control, debian/copyright, a package's AppStream metainfo, debconf templates or substitution variables. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debian.h"
#include "fwdist.h"
#include "replaces.h"
#include "util.h"

static const struct fw_cli_opt opts[] = {
	{ "package", FW_OPT_PACKAGE, false, "P",
	  "the package (metainfo, templates, substvars)", NULL },
	{ "suite", 'S', false, "SUITE",
	  "substvars: the Debian release built for (bookworm, trixie, forky)", NULL },
	{ "version", 'V', false, "V",
	  "substvars: the version of the packages built (debian/changelog's)", NULL },
	{ "output", 'o', true, "FILE",
	  "write FILE (atomically) instead of standard output", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist [-C DIR] debian control|copyright [-o FILE]\n"
		"       fwdist [-C DIR] debian metainfo|templates --package P [-o FILE]\n"
		"       fwdist [-C DIR] debian substvars --package P --suite SUITE --version V\n"
		"                                [-o FILE]\n"
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
		"`fwdist check` reports a committed debian/control or debian/copyright that is\n"
		"not what this command writes. A tree with findings gets nothing.\n"
		"\n",
	.opts = opts,
};

struct opts {
	const char *output, *suite, *version;
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
	else
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

static int substvars(const struct fw_tree *t, const char *pkg, const struct opts *o,
		     struct fw_diag *d, char **buf, size_t *len)
{
	struct fw_replaces rp;
	FILE *f;
	int r = fw_replaces_load(&rp, &t->split, t->rootfd, d);

	if (r < 0)
		return r;
	f = open_memstream(buf, len);
	if (!f) {
		r = -errno;
	} else {
		fw_replaces_substvars(f, &rp, &t->split, (unsigned)fw_split_find(&t->split, pkg),
				      o->suite, o->version);
		if (fclose(f) != 0)
			r = -ENOMEM;
	}
	fw_replaces_free(&rp);
	return r;
}

static int metainfo(const struct fw_cli *cli, const struct fw_tree *t, struct fw_diag *d,
		    bool templates, char **buf, size_t *len)
{
	struct fw_plan p = { 0 };
	FILE *f;
	int pkg = fw_split_find(&t->split, cli->pkgs[0]);
	int r = fw_plan_build(&p, t, &(struct fw_plan_opts){ .sel = cli->sel, .comp = FW_COMP_NONE,
							      .no_licences = true }, d);

	if (r == 0 && d->n)
		r = -EINVAL;
	if (r == 0) {
		f = open_memstream(buf, len);
		if (!f)
			r = -errno;
		else {
			r = templates ? fw_debian_templates(f, &p, pkg, d) :
					fw_debian_metainfo(f, &p, pkg, d);
			if (fclose(f) != 0 && r == 0)
				r = -ENOMEM;
		}
	}
	fw_plan_free(&p);
	return r;
}

int cmd_debian(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("debian");
	struct opts o = { 0 };
	struct fw_diag d = { 0 };
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	const char *what;
	bool per_pkg, subst;
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
	per_pkg = strcmp(what, "metainfo") == 0 || strcmp(what, "templates") == 0 || subst;
	if (strcmp(what, "control") && strcmp(what, "copyright") && !per_pkg) {
		ret = fw_usage("debian", "say control, copyright, metainfo, templates or substvars");
		goto out;
	}
	if (per_pkg != (cli.npkgs == 1)) {
		ret = fw_usage("debian",
			       cli.npkgs ? "--package goes with metainfo, templates or substvars, once" :
					   "%s needs --package P", what);
		goto out;
	}
	if (!subst && (o.suite || o.version)) {
		ret = fw_usage("debian", "--suite and --version go with substvars");
		goto out;
	}
	if (subst && (!o.suite || !o.version)) {
		ret = fw_usage("debian", "substvars needs --suite SUITE and --version V");
		goto out;
	}
	if (subst && !fw_suite_known(o.suite)) {
		ret = fw_usage("debian", "--suite %s: not bookworm, trixie or forky", o.suite);
		goto out;
	}
	if (subst && !valid_version(o.version)) {
		ret = fw_usage("debian", "--version %s: not a Debian version", o.version);
		goto out;
	}
	if (o.output && !*o.output) {
		ret = fw_usage("debian", "-o takes a file name");
		goto out;
	}
	ret = fw_cli_prepare(&cli, &t, &d, "nothing written");
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_FINDING;
	if (subst)
		r = substvars(&t, cli.pkgs[0], &o, &d, &buf, &len);
	else if (per_pkg)
		r = metainfo(&cli, &t, &d, strcmp(what, "templates") == 0, &buf, &len);
	else
		r = fw_debian_generate(&t, strcmp(what, "control") == 0 ? FW_DEB_CONTROL : FW_DEB_COPYRIGHT,
				       &buf, &len, &d);
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
