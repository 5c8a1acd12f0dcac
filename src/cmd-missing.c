/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist missing: the firmware the hardware present needs, installed or not, and in which package. */
#include <errno.h>
#include <stdio.h>

#include "fwdist.h"
#include "fwsearch.h"
#include "hardware.h"
#include "hwreport.h"
#include "json.h"
#include "util.h"

static const struct fw_cli_opt opts[] = {
	{ "sysfs", 's', false, "DIR",
	  "a saved copy of /sys (or of /sys/devices) instead of\n"
	  "/sys/devices; the kernel log is then read only from\n"
	  "--kernel-log", NULL },
	{ "kernel-release", 'r', false, "R",
	  "resolve against /lib/modules/R (default: the running\n"
	  "kernel's, uname -r)", NULL },
	{ "modules-dir", 'm', false, "DIR",
	  "resolve against the modules directory DIR (depmod's\n"
	  "modules.alias.bin in it)", NULL },
	{ "kernel-log", 'k', false, "FILE",
	  "names that failed to load, from FILE (dmesg's text)\n"
	  "instead of /dev/kmsg: a regular file or the kernel's\n"
	  "/dev/kmsg, at most 64 MiB read", NULL },
	{ "no-kernel-log", 'n', false, NULL,
	  "read no kernel log", NULL },
	{ "destdir", FW_OPT_DESTDIR, false, "DIR",
	  "root the firmware is installed under (default:\n"
	  "$DESTDIR, else none)", NULL },
	{ "firmware-dir", FW_OPT_FWDIR, false, "DIR",
	  "firmware directory below it (default: the root's,\n"
	  "/usr/lib/firmware on a merged-/usr root, where\n"
	  "lib -> usr/lib, else /lib/firmware, then\n"
	  "/usr/lib/firmware)", NULL },
	{ "json", FW_OPT_JSON, false, NULL,
	  "machine-readable output", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist [-C DIR] missing [--sysfs DIR] [--kernel-release R | --modules-dir DIR]\n"
		"                      [--kernel-log FILE | --no-kernel-log] [--destdir DIR]\n"
		"                      [--firmware-dir DIR] [--json]\n"
		"\n"
		"The firmware this machine's hardware needs: every modalias under\n"
		"/sys/devices resolved to the modules that bind it (libkmod, as udev and\n"
		"modprobe do), their dependencies, the firmware names their modinfo lists,\n"
		"and the names the kernel log says failed to load. For each name: installed\n"
		"where the kernel's loader finds it (updates/RELEASE, updates, RELEASE and\n"
		"the firmware directory; plain, .xz or .zst), missing (and the package of\n"
		"the tree to install), or in no package. Names of one module differing only\n"
		"in a version number are alternatives, as for 'fwdist modules'.\n"
		"\n",
	.opts = opts,
	.foot = "\n"
		"Exit status 1 when a name a package provides is not installed (the last\n"
		"line names the packages to install), or when devices, modules or the\n"
		"log could not be read (the answer is then partial).\n",
};

static int option(void *ctx, int c, const char *arg)
{
	return fw_cli_hw_option(ctx, "missing", c, arg);
}

static const char *const status_word[] = { "installed", "missing", "unknown", "alt" };
static const char *const status_json[] = { "installed", "missing", "no-package",
					   "alternative" };

static void json_strs_mods(const struct fw_hw *h, const size_t *v, size_t n)
{
	printf("[");
	for (size_t k = 0; k < n; k++) {
		printf("%s", k ? "," : "");
		fw_json_str(stdout, h->mods.v[v[k]].name);
	}
	printf("]");
}

static void print_json(const struct fw_hw *h, const struct fw_hw_report *rep)
{
	fw_cli_json_begin();
	printf("{\"devices\":[");
	for (size_t i = 0; i < h->ndev; i++) {
		printf("%s{\"path\":", i ? "," : "");
		fw_json_str(stdout, h->dev[i].path);
		printf(",\"modalias\":");
		fw_json_str(stdout, h->dev[i].modalias);
		printf(",\"modules\":");
		json_strs_mods(h, h->dev[i].mods, h->dev[i].nmods);
		printf("}");
	}
	printf("],\"modules\":[");
	for (size_t i = 0; i < h->mods.n; i++) {
		printf("%s{\"name\":", i ? "," : "");
		fw_json_str(stdout, h->mods.v[i].name);
		printf(",\"path\":");
		if (h->mod[i].builtin)
			printf("null");
		else
			fw_json_str(stdout, h->mods.v[i].path);
		printf(",\"bound\":%s,\"builtin\":%s,\"kernel_log_only\":%s,\"depends\":",
		       h->mod[i].bound ? "true" : "false", h->mod[i].builtin ? "true" : "false",
		       h->mod[i].log_only ? "true" : "false");
		json_strs_mods(h, h->mod[i].deps, h->mod[i].ndeps);
		printf("}");
	}
	printf("],\"firmware\":[");
	for (size_t i = 0; i < rep->q.n; i++) {
		const struct fw_fwreq *x = &rep->q.v[i];

		printf("%s{\"name\":", i ? "," : "");
		fw_json_str(stdout, x->name);
		printf(",\"status\":\"%s\",\"package\":", status_json[rep->st[i]]);
		if (rep->pkg[i])
			fw_json_str(stdout, rep->pkg[i]);
		else
			printf("null");
		printf(",\"group\":");
		if (x->group >= 0)
			fw_json_str(stdout, rep->q.g[x->group].pattern);
		else
			printf("null");
		printf(",\"kernel_log\":%s,\"modules\":", fw_hw_in_log(h, x->name) ? "true" : "false");
		json_strs_mods(h, x->mods, x->nmods);
		printf("}");
	}
	printf("],\"install\":[");
	for (size_t k = 0; k < rep->npkgs; k++) {
		printf("%s", k ? "," : "");
		fw_json_str(stdout, rep->pkgs[k]);
	}
	printf("],\"summary\":{\"devices\":%zu,\"modules\":%zu,\"names\":%zu,\"installed\":%zu,"
	       "\"missing\":%zu,\"no_package\":%zu,\"alternatives\":%zu,\"unreadable\":%zu}}\n",
	       h->ndev, h->mods.n, rep->q.n, rep->n[FW_HW_INSTALLED], rep->n[FW_HW_MISSING],
	       rep->n[FW_HW_NOPKG], rep->n[FW_HW_ALT], h->bad);
}

static void print_text(const struct fw_hw *h, const struct fw_hw_report *rep)
{
	size_t bound = 0;

	for (size_t i = 0; i < rep->q.n; i++) {
		const struct fw_fwreq *x = &rep->q.v[i];

		printf("%-9s %s", status_word[rep->st[i]], fw_esc(x->name));
		if (rep->pkg[i] && rep->st[i] != FW_HW_INSTALLED)
			printf(": %s %s", rep->st[i] == FW_HW_MISSING ? "install" : "in", rep->pkg[i]);
		else if (!rep->pkg[i] && rep->st[i] != FW_HW_INSTALLED)
			printf(": in no package");
		printf("  (");
		for (size_t k = 0; k < x->nmods; k++)
			printf("%s%s", k ? " " : "", fw_esc(h->mods.v[x->mods[k]].name));
		printf(")%s\n", fw_hw_in_log(h, x->name) ? " [kernel log]" : "");
	}
	for (size_t g = 0; g < rep->q.ng; g++) {
		const struct fw_fwgroup *x = &rep->q.g[g];
		long by = -1;

		for (size_t k = x->nmembers; k-- > 0;)
			if (rep->st[x->members[k]] == FW_HW_INSTALLED && by < 0)
				by = (long)x->members[k];
		if (by >= 0)
			printf("group     %s: %s: satisfied by %s (%zu alternatives)\n",
			       fw_esc(h->mods.v[x->module].name), fw_esc(x->pattern),
			       fw_esc(rep->q.v[by].name), x->nmembers);
		else
			printf("group     %s: %s: none of %zu alternatives installed\n",
			       fw_esc(h->mods.v[x->module].name), fw_esc(x->pattern), x->nmembers);
	}
	for (size_t i = 0; i < h->ndev; i++)
		bound += h->dev[i].nmods > 0 || h->dev[i].driver;
	printf("%zu devices (%zu bound), %zu modules, %zu firmware names: %zu installed, "
	       "%zu missing, %zu in no package, %zu alternatives\n",
	       h->ndev, bound, h->mods.n, rep->q.n, rep->n[FW_HW_INSTALLED],
	       rep->n[FW_HW_MISSING], rep->n[FW_HW_NOPKG], rep->n[FW_HW_ALT]);
	if (rep->npkgs) {
		printf("to install:");
		for (size_t k = 0; k < rep->npkgs; k++)
			printf(" %s", rep->pkgs[k]);
		printf("\n");
	}
}

int cmd_missing(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("missing");
	struct fw_hw_opts o = { 0 };
	struct fw_diag d = { 0 };
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	struct fw_hw h = { 0 };
	struct fw_hw_report rep = { 0 };
	struct fw_search fs;
	bool failed = false, have_fs = false;
	int ret, r;

	ret = fw_cli_parse(&cli, argc, argv, &help, option, &o);
	if (ret >= 0)
		goto out;
	ret = fw_cli_prepare(&cli, &t, &d, NULL);
	if (ret != EXIT_OK)
		goto out;
	ret = fw_cli_hw_gather("missing", &o, &h, &failed);
	if (ret >= 0)
		goto out;
	/* Where the loader finds each name (the kernel's subdirectories of
	 * the release resolved, each form); nothing installed yet is an
	 * answer, not a failure. */
	r = fw_cli_search_open(&cli, h.release, &fs);
	have_fs = r == 0;
	if (r == 0)
		r = fw_hw_report_build(&rep, &h, &t, &cli.sel, &fs);
	if (r == -ENOMEM) {
		fw_err("missing: out of memory");
		ret = EXIT_FINDING;
		goto out;
	}
	if (r < 0) {
		ret = EXIT_FINDING;
		goto out;
	}
	if (fw_json)
		print_json(&h, &rep);
	else
		print_text(&h, &rep);
	ret = failed || rep.n[FW_HW_MISSING] || d.n ? EXIT_FINDING : EXIT_OK;
out:
	if (have_fs)
		fw_search_close(&fs);
	fw_hw_report_free(&rep);
	fw_hw_free(&h);
	fw_cli_free(&cli);
	fw_tree_free(&t);
	fw_diag_free(&d);
	return ret;
}
