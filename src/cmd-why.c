/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist why: the chain from a device present to a firmware name: device, module, name, package. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fwdist.h"
#include "fwsearch.h"
#include "hardware.h"
#include "hwreport.h"
#include "json.h"
#include "util.h"

static const struct fw_cli_opt opts[] = {
	{ "sysfs", 's', false, "DIR",
	  "a saved copy of /sys (or of /sys/devices), as for\n"
	  "missing", NULL },
	{ "kernel-release", 'r', false, "R",
	  "resolve against /lib/modules/R (default: uname -r)", NULL },
	{ "modules-dir", 'm', false, "DIR",
	  "resolve against the modules directory DIR", NULL },
	{ "kernel-log", 'k', false, "FILE",
	  "the kernel log to read instead of /dev/kmsg", NULL },
	{ "no-kernel-log", 'n', false, NULL,
	  "read no kernel log", NULL },
	{ "destdir", FW_OPT_DESTDIR, false, "DIR",
	  "root the firmware is installed under (default:\n"
	  "$DESTDIR, else none)", NULL },
	{ "firmware-dir", FW_OPT_FWDIR, false, "DIR",
	  "firmware directory below it (default: the root's)", NULL },
	{ "json", FW_OPT_JSON, false, NULL,
	  "machine-readable output", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist [-C DIR] why [OPTIONS] NAME\n"
		"\n"
		"Why the hardware present needs the firmware name NAME: one line per\n"
		"chain, the device (its sysfs path and modalias), the module that binds\n"
		"it, the dependencies leading to the module that requests NAME, the name\n"
		"and its package (installed or not); or the kernel log line that says it\n"
		"failed to load. The devices, modules and log are found as for missing.\n"
		"\n",
	.opts = opts,
	.foot = "\n"
		"Exit status 1 when nothing present needs NAME, or when devices, modules\n"
		"or the log could not be read.\n",
};

static int option(void *ctx, int c, const char *arg)
{
	return fw_cli_hw_option(ctx, "why", c, arg);
}

struct why {
	const char *name, *pkg, *state, *json_state;
	size_t chains;
};

static void chain_end(const struct why *w)
{
	if (fw_json)
		return;
	printf(" -> %s -> ", fw_esc(w->name));
	if (w->pkg)
		printf("%s (%s)\n", w->pkg, w->state);
	else
		printf("no package (%s)\n", w->state);
}

static void device_chains(const struct fw_hw *h, const struct fw_fwreq *x, struct why *w)
{
	size_t path[65];

	for (size_t i = 0; i < h->ndev; i++) {
		const struct fw_hw_dev *dv = &h->dev[i];

		for (size_t b = 0; b < dv->nmods; b++) {
			for (size_t k = 0; k < x->nmods; k++) {
				size_t n = fw_hw_dep_path(h, dv->mods[b], x->mods[k], path,
							  FW_ARRAY_SIZE(path));

				if (!n)
					continue;
				if (fw_json) {
					printf("%s{\"device\":", w->chains ? "," : "");
					fw_json_str(stdout, dv->path);
					printf(",\"modalias\":");
					fw_json_str(stdout, dv->modalias);
					printf(",\"modules\":[");
					for (size_t j = 0; j < n; j++) {
						printf("%s", j ? "," : "");
						fw_json_str(stdout, h->mods.v[path[j]].name);
					}
					printf("],\"kernel_log\":null}");
				} else {
					printf("%s (%s)", fw_esc(dv->path), fw_esc(dv->modalias));
					for (size_t j = 0; j < n; j++)
						printf(" -> %s", fw_esc(h->mods.v[path[j]].name));
				}
				chain_end(w);
				w->chains++;
			}
		}
	}
}

static void log_chains(const struct fw_hw *h, struct why *w)
{
	for (size_t i = 0; i < h->nlog; i++) {
		const struct fw_hw_log *g = &h->log[i];

		if (strcmp(g->name, w->name) != 0)
			continue;
		if (fw_json) {
			printf("%s{\"device\":null,\"modalias\":null,\"modules\":[],"
			       "\"kernel_log\":{\"file\":", w->chains ? "," : "");
			fw_json_str(stdout, g->file);
			printf(",\"line\":%u,\"who\":", g->line);
			fw_json_str(stdout, g->who);
			printf("}}");
		} else {
			printf("kernel log %s:%u (%s) failed to load it", fw_esc(g->file), g->line,
			       *g->who ? fw_esc(g->who) : "no device named");
		}
		chain_end(w);
		w->chains++;
	}
}

int cmd_why(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("why");
	struct fw_hw_opts o = { 0 };
	struct fw_diag d = { 0 };
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	struct fw_hw h = { 0 };
	struct fw_hw_report rep = { 0 };
	struct fw_search fs;
	const struct fw_fwreq *x = NULL;
	struct why w = { 0 };
	bool failed = false, have_fs = false;
	long at = -1;
	int ret, r;

	cli.max_args = 1;
	ret = fw_cli_parse(&cli, argc, argv, &help, option, &o);
	if (ret >= 0)
		goto out;
	if (cli.nargs != 1) {
		ret = fw_usage("why", "give the firmware name to explain");
		goto out;
	}
	w.name = cli.args[0];
	ret = fw_cli_prepare(&cli, &t, &d, NULL);
	if (ret != EXIT_OK)
		goto out;
	ret = fw_cli_hw_gather("why", &o, &h, &failed);
	if (ret >= 0)
		goto out;
	r = fw_cli_search_open(&cli, h.release, &fs);
	have_fs = r == 0;
	if (r == 0)
		r = fw_hw_report_build(&rep, &h, &t, &cli.sel, &fs);
	if (r < 0) {
		if (r == -ENOMEM)
			fw_err("why: out of memory");
		ret = EXIT_FINDING;
		goto out;
	}
	for (size_t i = 0; i < rep.q.n; i++) {
		if (strcmp(rep.q.v[i].name, w.name) == 0) {
			x = &rep.q.v[i];
			at = (long)i;
		}
	}
	if (at >= 0) {
		static const char *const state[] = { "installed", "not installed", "not installed",
						     "not installed, an alternative" };
		/* As missing --json says them. */
		static const char *const json_state[] = { "installed", "missing", "no-package",
							  "alternative" };

		w.pkg = rep.pkg[at];
		w.state = state[rep.st[at]];
		w.json_state = json_state[rep.st[at]];
	} else {
		w.pkg = fw_hw_report_package(&rep, w.name);
		w.state = "not needed";
		w.json_state = "not-needed";
	}
	if (fw_json) {
		fw_cli_json_begin();
		printf("{\"name\":");
		fw_json_str(stdout, w.name);
		printf(",\"package\":");
		if (w.pkg)
			fw_json_str(stdout, w.pkg);
		else
			printf("null");
		printf(",\"status\":\"%s\",\"group\":", w.json_state);
		if (x && x->group >= 0)
			fw_json_str(stdout, rep.q.g[x->group].pattern);
		else
			printf("null");
		printf(",\"chains\":[");
	}
	if (x) {
		device_chains(&h, x, &w);
		log_chains(&h, &w);
	}
	if (fw_json)
		printf("]}\n");
	else if (x && x->group >= 0)
		printf("alternatives: %s (%zu names of %s)\n", fw_esc(rep.q.g[x->group].pattern),
		       rep.q.g[x->group].nmembers, fw_esc(h.mods.v[rep.q.g[x->group].module].name));
	if (!w.chains)
		fw_err("why: %s: no device present needs it%s%s", fw_esc(w.name),
		       w.pkg ? "; it is in " : "", w.pkg ? w.pkg : "");
	ret = failed || !w.chains || d.n ? EXIT_FINDING : EXIT_OK;
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
