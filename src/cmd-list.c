/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist list: the blobs and links of the tree (or one package), or the entries of any WHENCE. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "build.h"
#include "fwdist.h"
#include "json.h"
#include "plan.h"
#include "util.h"

static const struct fw_cli_opt opts[] = {
	{ "package", FW_OPT_PACKAGE, false, "P",
	  "only what package P of manifests/packages takes (repeatable)", NULL },
	{ "select", FW_OPT_SELECT, false, "FILE",
	  "only the names a selection file selects (as for install)", NULL },
	{ "whence", 'w', false, "FILE",
	  "parse FILE instead of the tree's WHENCE", NULL },
	{ "summary", 's', false, NULL,
	  "with --whence: counts of Driver:, File:, RawFile:, Link:,\n"
	  "Source:, Licence:/License:, SPDX-License-Identifier:,\n"
	  "Version: and Info: lines, and the number of errors", NULL },
	{ "sha256sum", 'S', false, NULL,
	  "print what each installed request name must load as, in\n"
	  "sha256sum's format: every installable blob and link", NULL },
	{ "json", FW_OPT_JSON, false, NULL,
	  "machine-readable output", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist [-C DIR] list [--package P] [--select FILE] [--sha256sum] [--json]\n"
		"       fwdist list --whence FILE [--summary] [--json]\n"
		"\n"
		"List every blob and link of the tree: kind, category, package, name (and a\n"
		"link's target); with --json also whether it is refused, its verdict (the\n"
		"category and why, as licenses gives it), a dual licence's branch and, for\n"
		"a free blob, how its freeness was established (freeness: rebuilt-identical,\n"
		"own-preferred-form or source-not-rebuilt, and freeness_why). With\n"
		"--whence, read FILE alone (any upstream WHENCE) and\n"
		"list its entries, or with --summary count its keyword lines.\n"
		"\n",
	.opts = opts,
};

static int list_whence(const char *file, int summary)
{
	struct fw_diag d = { 0 };
	struct fw_whence w;
	const struct fw_whence_counts *c = &w.counts;
	int r = fw_whence_load(&w, AT_FDCWD, file, file, &d);

	if (r < 0) {
		fw_err("%s: cannot read: %s", file, strerror(-r));
		return EXIT_FINDING;
	}
	fw_print_diag(&d);
	if (summary && fw_json) {
		fw_cli_json_begin();
		printf("{\"file\":");
		fw_json_str(stdout, file);
		printf(",\"errors\":%u,\"Driver\":%u,\"File\":%u,\"RawFile\":%u,\"Link\":%u,"
		       "\"Source\":%u,\"Licence\":%u,\"SPDX-License-Identifier\":%u,\"Version\":%u,"
		       "\"Info\":%u}\n",
		       w.errors, c->driver, c->file, c->rawfile, c->link, c->source, c->licence,
		       c->spdx, c->version, c->info);
	} else if (summary) {
		printf("Driver: %u\nFile: %u\nRawFile: %u\nLink: %u\nSource: %u\nLicence: %u\n"
		       "SPDX-License-Identifier: %u\nVersion: %u\nInfo: %u\nerrors: %u\n",
		       c->driver, c->file, c->rawfile, c->link, c->source, c->licence, c->spdx,
		       c->version, c->info, w.errors);
	} else {
		if (fw_json) {
			fw_cli_json_begin();
			printf("[");
		}
		for (size_t i = 0; i < w.nentries; i++) {
			const struct fw_whence_entry *e = &w.entries[i];
			const char *drv = w.blocks[e->block].driver;
			const struct fw_whence_licence *l = e->licence ? &w.licences[e->licence - 1] : NULL;

			if (fw_json) {
				printf("%s{\"kind\":\"%s\",\"name\":", i ? "," : "",
				       fw_entry_kind_name(e->kind));
				fw_json_str(stdout, e->name);
				if (e->target) {
					printf(",\"target\":");
					fw_json_str(stdout, e->target);
				}
				printf(",\"line\":%u,\"driver\":", e->line);
				if (drv)
					fw_json_str(stdout, drv);
				else
					printf("null");
				printf(",\"spdx\":");
				if (l && l->spdx)
					fw_json_str(stdout, l->spdx);
				else
					printf("null");
				printf("}");
			} else if (e->target) {
				printf("%-7s %s -> %s\n", fw_entry_kind_name(e->kind), fw_esc(e->name),
				       fw_esc(e->target));
			} else {
				printf("%-7s %s\n", fw_entry_kind_name(e->kind), fw_esc(e->name));
			}
		}
		if (fw_json)
			printf("]\n");
	}
	r = w.errors || d.n ? EXIT_FINDING : EXIT_OK;
	fw_whence_free(&w);
	fw_diag_free(&d);
	return r;
}

static void json_opt(const char *key, const char *val)
{
	printf(",\"%s\":", key);
	if (val)
		fw_json_str(stdout, val);
	else
		printf("null");
}

struct opts {
	const char *whence;
	bool sums, summary;
};

static int option(void *ctx, int c, const char *arg)
{
	struct opts *o = ctx;

	switch (c) {
	case 'w':
		o->whence = arg;
		return EXIT_OK;
	case 's':
		o->summary = true;
		return EXIT_OK;
	case 'S':
		o->sums = true;
		return EXIT_OK;
	}
	return EXIT_USAGE;
}

/* Request names the kernel can load after an install, each with the digest
 * of the bytes it must receive (links: their target's): the plan's. */
static int print_sums(const struct fw_tree *t, const struct fw_selection *sel)
{
	struct fw_plan_opts po = { .sel = *sel, .comp = FW_COMP_NONE, .no_licences = true };
	struct fw_plan p;
	int r = fw_plan_build(&p, t, &po, NULL);

	if (r < 0) {
		fw_err("list: %s", strerror(-r));
		return EXIT_FINDING;
	}
	for (size_t i = 0; i < p.nnames; i++) {
		const struct fw_plan_entry *e = &p.v[p.by_name[i]];
		char hex[FW_SHA256_HEX + 1];

		if (!e->blob)
			continue; /* a directory link */
		fw_sha256_hex(e->sha256, hex);
		printf("%s  %s\n", hex, e->name);
	}
	fw_plan_free(&p);
	return EXIT_OK;
}

int cmd_list(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("list");
	struct opts o = { 0 };
	struct fw_diag d = { 0 };
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	const struct fw_selection *sel = &cli.sel;
	int ret, first = 1;

	ret = fw_cli_parse(&cli, argc, argv, &help, option, &o);
	if (ret >= 0)
		goto out;
	if (o.summary && !o.whence) {
		ret = fw_usage("list", "--summary goes with --whence FILE");
		goto out;
	}
	/* Its lines are sha256sum's text: under --json they would break the
	 * promise of one JSON value. */
	if (o.sums && fw_json) {
		ret = fw_usage("list", "--sha256sum prints sha256sum's text, not JSON: not with --json");
		goto out;
	}
	if (o.whence && (cli.npkgs || cli.select_file)) {
		ret = fw_usage("list", "--package and --select need the tree, not --whence");
		goto out;
	}
	if (o.whence) {
		ret = list_whence(o.whence, o.summary);
		goto out;
	}
	ret = fw_cli_prepare(&cli, &t, &d, NULL);
	if (ret != EXIT_OK)
		goto out;
	if (o.sums) {
		ret = print_sums(&t, sel);
		if (ret == EXIT_OK && d.n)
			ret = EXIT_FINDING;
		goto out;
	}
	if (fw_json) {
		fw_cli_json_begin();
		printf("[");
	}
	for (size_t i = 0; i < t.nindex; i++) {
		const struct fw_name *x = &t.index[i];
		const struct fw_blob *b = NULL;
		const struct fw_link *l = NULL;
		const char *pname;

		if (x->blob >= 0)
			b = &t.blobs[x->blob];
		else if (x->link >= 0 && t.links[x->link].state == FW_LINK_OK &&
			 t.links[x->link].blob >= 0)
			l = &t.links[x->link], b = &t.blobs[l->blob];
		else if (x->link >= 0)
			l = &t.links[x->link];
		else
			continue; /* Source: is not installed */
		pname = b ? fw_blob_package(&t, b) : NULL;
		/* With --package or --select: what they take (a link goes
		 * with its target's package, and is selected by its name). */
		if ((sel->pkg || sel->blob) && !b)
			continue;
		if (sel->pkg && (b->pkg < 0 || !sel->pkg[b->pkg]))
			continue;
		if (l ? sel->link && !sel->link[l - t.links] : sel->blob && !sel->blob[b - t.blobs])
			continue;
		if (fw_json) {
			printf("%s{\"name\":", first ? "" : ",");
			fw_json_str(stdout, x->name);
			printf(",\"kind\":\"%s\"", fw_entry_kind_name(x->e->kind));
			if (l)
				json_opt("target", l->e->target);
			printf(",\"category\":\"%s\"", b ? fw_category_name(b->cat) : "unknown");
			json_opt("package", pname);
			json_opt("licence", b && b->lic ? b->lic->spdx : NULL);
			/* The verdict, as check and licenses give it: shipped
			 * or refused, why, and a dual licence's branch. */
			if (b) {
				char *v = fw_blob_verdict_text(&t, b);

				if (!v) {
					fw_err("out of memory");
					ret = EXIT_FINDING;
					goto out;
				}
				printf(",\"refused\":%s",
				       b->cat == FW_CAT_FREE || b->cat == FW_CAT_NONFREE ? "false" : "true");
				json_opt("licence_used", b->branch);
				json_opt("verdict", v);
				free(v);
			}
			/* A free blob: how its freeness was established, as
			 * licenses says it (a build verdict, its own preferred
			 * form, or its source not rebuilt and why). */
			if (!l && b && b->cat == FW_CAT_FREE) {
				enum fw_freeness how;
				char *why = fw_blob_freeness(&t, b, &how);

				if (!why) {
					fw_err("out of memory");
					ret = EXIT_FINDING;
					goto out;
				}
				json_opt("freeness", fw_freeness_name(how));
				json_opt("freeness_why", why);
				free(why);
			}
			if (!l && b && b->sum) {
				char hex[FW_SHA256_HEX + 1];

				fw_sha256_hex(b->sum->sha256, hex);
				printf(",\"sha256\":\"%s\",\"size\":%llu", hex,
				       (unsigned long long)b->sum->size);
			}
			printf(",\"line\":%u}", x->e->line);
		} else if (l) {
			printf("%-7s %-15s %-20s %s -> %s\n", "Link",
			       b ? fw_category_name(b->cat) : "-", pname ? pname : "-", fw_esc(x->name),
			       fw_esc(l->e->target));
		} else {
			printf("%-7s %-15s %-20s %s\n", fw_entry_kind_name(x->e->kind),
			       fw_category_name(b->cat), pname ? pname : "-", fw_esc(x->name));
		}
		first = 0;
	}
	if (fw_json)
		printf("]\n");
	ret = d.n ? EXIT_FINDING : EXIT_OK;
out:
	fw_cli_free(&cli);
	fw_tree_free(&t);
	fw_diag_free(&d);
	return ret;
}
