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
#include "kbuild.h"
#include "modinfo.h"
#include "plan.h"
#include "util.h"


static const struct fw_cli_opt opts[] = {
	{ "output", 'o', false, "DIR",
	  "the directory to prepare", NULL },
	{ "package", FW_OPT_PACKAGE, false, "P",
	  "only what package P takes (repeatable)", NULL },
	{ "select", FW_OPT_SELECT, false, "FILE",
	  "only the names a selection file selects (as for install)", NULL },
	{ "module", 'm', false, "FILE",
	  "a module whose firmware to embed (repeatable)", NULL },
	{ "modules-dir", 'd', false, "DIR",
	  "every module below DIR", NULL },
	{ "memory-limit", FW_OPT_MEMORY, false, "SIZE",
	  "memory the decoders of .ko.xz/.ko.zst may hold\n"
	  "(as for install)", NULL },
	{ "check", 'k', false, "CONFIG",
	  "report each name of CONFIG's CONFIG_EXTRA_FIRMWARE the\n"
	  "tree cannot serve: absent, undistributable, or (in its\n"
	  "CONFIG_EXTRA_FIRMWARE_DIR) only compressed", NULL },
	{ "json", FW_OPT_JSON, false, NULL,
	  "machine-readable output", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist [-C DIR] kconfig --output DIR [--package P] [--select FILE]\n"
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
		"--select; default: all). kbuild puts each name into make rules, a\n"
		"shell command and assembler labels: a name with any character but\n"
		"A-Z a-z 0-9 _ - . , / is refused with its WHENCE line, and then\n"
		"nothing is written (exit 1). So is a DIR outside that set.\n"
		"\n",
	.opts = opts,
};

struct opts {
	const char *output, *check, *modules_dir;
	const char **mods;
	size_t nmods, cap_mods;
};

static int option(void *ctx, int c, const char *arg)
{
	struct opts *o = ctx;

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
		if (fw_grow(&o->mods, &o->cap_mods, o->nmods, sizeof(*o->mods)) < 0) {
			fw_err("out of memory");
			return EXIT_FINDING;
		}
		o->mods[o->nmods++] = arg;
		return EXIT_OK;
	}
	return EXIT_USAGE;
}

/* --check CONFIG: every name of its CONFIG_EXTRA_FIRMWARE, and why the tree
 * cannot serve it. */
static int check_config(const struct fw_plan *p, const char *config)
{
	struct fw_kbuild_report rep;
	struct fw_diag d = { 0 };
	int r = fw_kbuild_check(p, config, &rep);

	if (r < 0) {
		fw_err("kconfig: %s: cannot read: %s", config, strerror(-r));
		return EXIT_FINDING;
	}
	if (fw_json) {
		fw_cli_json_begin();
		printf("{\"config\":");
		fw_json_str(stdout, config);
		printf(",\"names\":[");
	}
	for (size_t i = 0; i < rep.n; i++) {
		if (fw_json) {
			printf("%s{\"name\":", i ? "," : "");
			fw_json_str(stdout, rep.v[i].name);
			printf(",\"problem\":");
			if (rep.v[i].why)
				fw_json_str(stdout, rep.v[i].why);
			else
				printf("null");
			printf("}");
		}
		if (rep.v[i].why)
			fw_diag_add(&d, config, rep.line, "CONFIG_EXTRA_FIRMWARE: %s: %s",
				    fw_esc(rep.v[i].name), rep.v[i].why);
	}
	if (fw_json)
		printf("],\"served\":%zu,\"problems\":%zu}\n", rep.n - rep.bad, rep.bad);
	else
		printf("%s: CONFIG_EXTRA_FIRMWARE: %zu names, %zu served by the tree, %zu not\n",
		       config, rep.n, rep.n - rep.bad, rep.bad);
	fw_print_diag(&d);
	fw_diag_free(&d);
	r = rep.bad ? EXIT_FINDING : EXIT_OK;
	fw_kbuild_report_free(&rep);
	return r;
}

int cmd_kconfig(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("kconfig");
	struct opts o = { 0 };
	struct fw_diag d = { 0 }, md = { 0 };
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	struct fw_modset s = { 0 };
	struct fw_plan p = { 0 };
	bool have_plan = false;
	const struct fw_plan_entry **v = NULL;
	size_t n = 0, nbad = 0, refused = 0;
	char *abs = NULL;
	int ret, r;

	cli.max_args = (size_t)-1;
	ret = fw_cli_parse(&cli, argc, argv, &help, option, &o);
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
		ret = check_config(&p, o.check);
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
			const char *why = fw_kbuild_why_not(&p, cli.args[i]);

			if (why) {
				fw_diag_add(&md, cli.args[i], 0, "%s", why);
				nbad++;
				continue;
			}
			v[n++] = fw_plan_find_name(&p, cli.args[i]);
		}
		for (size_t i = 0; i < s.n; i++)
			for (size_t j = 0; j < s.v[i].nfirmware; j++)
				if (!fw_kbuild_why_not(&p, s.v[i].firmware[j]))
					v[n++] = fw_plan_find_name(&p, s.v[i].firmware[j]);
	} else {
		for (size_t i = 0; i < p.nnames; i++)
			if (p.v[p.by_name[i]].blob)
				v[n++] = &p.v[p.by_name[i]];
	}
	/* Sorted, each name once (several modules may request one). */
	fw_kbuild_sort(v, &n);
	/* A name kbuild cannot take refuses the whole run before anything is
	 * written: it would reach make and /bin/sh (see kbuild.c), and a
	 * config that silently lacks a name asked for is no better. */
	for (size_t i = 0; i < n; i++) {
		const char *why = fw_kbuild_name_problem(v[i]->name);
		const struct fw_whence_entry *we = fw_kbuild_entry(v[i]);

		if (!why)
			continue;
		fw_diag_add(&md, t.whence.path, we ? we->line : 0,
			    "%s: %s: cannot be in CONFIG_EXTRA_FIRMWARE: it holds %s",
			    we ? fw_entry_kind_name(we->kind) : "File", fw_esc(v[i]->name), why);
		nbad++;
		refused++;
	}
	if (refused) {
		fw_print_diag(&md);
		fw_err("kconfig: %zu name%s kbuild cannot take; nothing written (choose names with NAME..., --package or --select)",
		       refused, refused == 1 ? "" : "s");
		ret = EXIT_FINDING;
		goto out;
	}
	r = fw_kbuild_prepare(&p, v, n, o.output, &abs, &md);
	fw_print_diag(&md);
	if (r == -ENOMEM)
		goto nomem;
	if (r < 0) {
		ret = EXIT_FINDING;
		goto out;
	}
	if (fw_json) {
		fw_cli_json_begin();
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
