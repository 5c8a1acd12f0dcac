/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist build: rebuild the free blobs from their sources in a sandbox, a verdict per blob. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build.h"
#include "fsutil.h"
#include "fwdist.h"
#include "json.h"
#include "util.h"

enum { OPT_RECIPE = 'r', OPT_WRITE = 'w', OPT_RECORD = 0x200 };

static const struct fw_cli_opt opts[] = {
	{ "recipe", OPT_RECIPE, false, "NAME",
	  "only recipe NAME of manifests/build (repeatable)", NULL },
	{ "write", OPT_WRITE, false, NULL,
	  "put each rebuilt output into firmware/ (make firmware)", NULL },
	{ "record", OPT_RECORD, false, NULL,
	  "write every recipe's verdicts to " FW_TREE_VERDICTS " (licenses reads it; not with --recipe)", NULL },
	{ "json", FW_OPT_JSON, false, NULL, "machine-readable output", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist [-C DIR] build [--recipe NAME]... [--write] [--record] [--json]\n"
		"\n"
		"Run each recipe of manifests/build in a sandbox (new mount, network and PID\n"
		"namespaces; a read-only root of /usr /bin /lib /lib64 /sbin /etc; the\n"
		"declared sources alone in the scratch directory /build; LC_ALL=C, TZ=UTC,\n"
		"SOURCE_DATE_EPOCH, PATH=/usr/bin:/bin, no HOME; a time limit) and compare\n"
		"each output with the tree's blob (with its checksum line when the blob is\n"
		"absent). A verdict per blob: rebuilt-identical, rebuilt-differs (sizes, first\n"
		"differing offset), not-rebuilt (why: a tool missing and its Debian package,\n"
		"a tool in no package, a source absent), build-failed (the command's status and\n"
		"its last lines of output); then every free blob without a recipe, not-rebuilt.\n"
		"Exit 0 when every recipe rebuilt identical, else 1; a recipe with a tool in\n"
		"no Debian package (tool none) is said, not counted. Without the privilege\n"
		"for the namespaces (root, or a user namespace) nothing is built.\n"
		"\n",
	.opts = opts,
};

struct opts {
	const char **recipes;
	size_t nrecipes, cap;
	bool write, record;
};

static int option(void *ctx, int c, const char *arg)
{
	struct opts *o = ctx;

	switch (c) {
	case OPT_RECIPE:
		if (fw_grow(&o->recipes, &o->cap, o->nrecipes, sizeof(*o->recipes)) < 0) {
			fw_err("out of memory");
			return EXIT_FINDING;
		}
		o->recipes[o->nrecipes++] = arg;
		return EXIT_OK;
	case OPT_WRITE:
		o->write = true;
		return EXIT_OK;
	case OPT_RECORD:
		o->record = true;
		return EXIT_OK;
	}
	return EXIT_USAGE;
}

static bool wanted(const struct opts *o, const char *name)
{
	if (!o->nrecipes)
		return true;
	for (size_t i = 0; i < o->nrecipes; i++)
		if (strcmp(o->recipes[i], name) == 0)
			return true;
	return false;
}

static void print_result(const struct fw_build_result *r, bool json, bool *first)
{
	if (json) {
		printf("%s{\"blob\":", *first ? "" : ",");
		fw_json_str(stdout, r->blob);
		printf(",\"recipe\":");
		if (r->recipe)
			fw_json_str(stdout, r->recipe->name);
		else
			printf("null");
		printf(",\"verdict\":\"%s\",\"why\":", fw_build_verdict_name(r->v));
		if (r->why)
			fw_json_str(stdout, r->why);
		else
			printf("null");
		if (r->built) {
			char hex[2 * FW_SHA256_LEN + 1];

			fw_sha256_hex(r->sha256, hex);
			printf(",\"size\":%" PRIu64 ",\"sha256\":\"%s\"", r->built_size, hex);
		}
		if (r->v == FW_BV_DIFFERS) {
			printf(",\"tree_size\":%" PRIu64 ",\"first_difference\":", r->tree_size);
			if (r->first_diff >= 0)
				printf("%" PRId64, r->first_diff);
			else
				printf("null");
		}
		if (r->log) {
			printf(",\"log\":");
			fw_json_str(stdout, r->log);
		}
		printf("}");
		*first = false;
		return;
	}
	printf("%s: %s", fw_esc(r->blob), fw_build_verdict_name(r->v));
	if (r->recipe)
		printf(" (recipe %s)", r->recipe->name);
	if (r->why)
		printf(": %s", r->why);
	printf("\n");
	if (r->log && *r->log) {
		const char *p = r->log, *e;

		while (*p) {
			e = strchr(p, '\n');
			if (!e)
				e = p + strlen(p);
			printf("  | %.*s\n", (int)(e - p), p);
			p = *e ? e + 1 : e;
		}
	}
}

int cmd_build(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("build");
	struct fw_diag d = { 0 };
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	struct opts o = { 0 };
	struct fw_build_opts bo = { .log_lines = 10 };
	struct fw_build_result *res = NULL;
	size_t nres = 0, cap = 0;
	unsigned counts[4] = { 0 };
	size_t nrecipe_out = 0, nrecipe_ok = 0;
	char self[4096];
	ssize_t n;
	bool first = true;
	int ret;

	ret = fw_cli_parse(&cli, argc, argv, &help, option, &o);
	if (ret >= 0)
		goto out;
	if (o.record && o.nrecipes) {
		/* The record is every recipe's verdicts: one recipe's alone
		 * would drop the others'. */
		ret = fw_usage("build", "--record writes every recipe's verdicts: not with --recipe");
		goto out;
	}
	ret = fw_load_tree(&t, &d);
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_FINDING;
	for (size_t i = 0; i < o.nrecipes; i++)
		if (!fw_recipes_find(&t.recipes, o.recipes[i])) {
			ret = fw_usage("build", "no recipe '%s' in %s", o.recipes[i], FW_TREE_RECIPES);
			goto out;
		}
	/* The recipes as check holds them to the tree: an output that is no
	 * blob of WHENCE is never built (--write would put it in firmware/),
	 * a source no Source: names never copied in. */
	fw_tree_check_recipes(&t, &d);
	if (d.n) {
		fw_print_diag(&d);
		/* A recipe the file got wrong is not built by guesswork. */
		fw_err("build: the tree has findings (above); nothing built");
		goto out;
	}
	/* tool fwdist: this very binary, as the kernel knows it. */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		bo.self = self;
	}
	bo.epoch = fw_build_epoch(&t);
	bo.write = o.write;
	for (size_t i = 0; i < t.recipes.n; i++) {
		const struct fw_recipe *r = &t.recipes.v[i];
		int e;

		if (!wanted(&o, r->name))
			continue;
		if (fw_grow(&res, &cap, nres + r->noutputs, sizeof(*res)) < 0) {
			fw_err("out of memory");
			goto out;
		}
		e = fw_build_recipe(&t, r, &bo, res + nres);
		if (e < 0) {
			fw_err("build: recipe %s: %s", r->name, strerror(-e));
			goto out;
		}
		nres += r->noutputs;
	}
	/* Every free blob without a recipe (a whole run only). */
	for (size_t i = 0; !o.nrecipes && i < t.nblobs; i++) {
		const struct fw_blob *b = &t.blobs[i];

		if (b->duplicate || b->cat != FW_CAT_FREE ||
		    fw_recipes_output(&t.recipes, b->e->name, NULL))
			continue;
		if (fw_grow(&res, &cap, nres + 1, sizeof(*res)) < 0) {
			fw_err("out of memory");
			goto out;
		}
		memset(&res[nres], 0, sizeof(res[nres]));
		res[nres].blob = b->e->name;
		res[nres].v = FW_BV_NOT_REBUILT;
		res[nres].first_diff = -1;
		res[nres].why = strdup(b->self_source ? "no recipe: the blob is its own preferred form"
						      : "no recipe in " FW_TREE_RECIPES);
		if (!res[nres++].why) {
			fw_err("out of memory");
			goto out;
		}
	}
	if (fw_json) {
		fw_cli_json_begin();
		printf("{\"blobs\":[");
	}
	for (size_t i = 0; i < nres; i++) {
		print_result(&res[i], fw_json, &first);
		counts[res[i].v]++;
		/* A tool in no Debian package is a declared gap, said in
		 * the verdict: no install would close it. */
		if (res[i].recipe && !res[i].no_package) {
			nrecipe_out++;
			nrecipe_ok += res[i].v == FW_BV_IDENTICAL;
		}
	}
	if (fw_json)
		printf("],\"identical\":%u,\"differs\":%u,\"not_rebuilt\":%u,\"failed\":%u}\n",
		       counts[FW_BV_IDENTICAL], counts[FW_BV_DIFFERS], counts[FW_BV_NOT_REBUILT],
		       counts[FW_BV_FAILED]);
	else
		printf("%zu blob%s: %u rebuilt identical, %u rebuilt differing, %u not rebuilt, "
		       "%u failed\n",
		       nres, nres == 1 ? "" : "s", counts[FW_BV_IDENTICAL], counts[FW_BV_DIFFERS],
		       counts[FW_BV_NOT_REBUILT], counts[FW_BV_FAILED]);
	if (o.record) {
		char *buf = NULL;
		size_t len = 0;
		int e = fw_verdicts_format(res, nres, &buf, &len);

		if (e == 0)
			e = fw_write_atomic(t.rootfd, FW_TREE_VERDICTS, buf, len, 0644);
		free(buf);
		if (e < 0) {
			fw_err("build: %s: cannot write: %s", FW_TREE_VERDICTS, strerror(-e));
			goto out;
		}
	}
	/* A free blob without a recipe, or with a tool in no package, is
	 * listed, not a failure: the exit says whether every recipe that
	 * can run here rebuilt its blobs identical. */
	ret = nrecipe_ok == nrecipe_out ? EXIT_OK : EXIT_FINDING;
out:
	for (size_t i = 0; i < nres; i++)
		fw_build_result_free(&res[i]);
	free(res);
	free(o.recipes);
	fw_cli_free(&cli);
	fw_diag_free(&d);
	fw_tree_free(&t);
	return ret;
}
