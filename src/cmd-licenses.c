/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist licenses: the licence report, every problem blob listed first. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "fwdist.h"
#include "json.h"
#include "util.h"

static const struct fw_cli_opt opts[] = {
	{ "package", FW_OPT_PACKAGE, false, "P",
	  "only the blobs of package P (repeatable): the licence\n"
	  "texts and SPDX expressions shipping them requires", NULL },
	{ "select", FW_OPT_SELECT, false, "FILE only the blobs a selection file selects (see install)",
	  "", NULL },
	{ "json", FW_OPT_JSON, false, NULL,
	  "machine-readable output", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist [-C DIR] licenses [--package P] [--select FILE] [--json]\n"
		"\n"
		"Report the licences of the tree's blobs, with the verdict every command\n"
		"gives. First every blob with a licence problem (what check finds too): no\n"
		"licence, a licence missing from manifests/licenses, a licence text missing\n"
		"from LICENSES/, an undistributable blob present in firmware/, Licence:\n"
		"wording that only names a file the tree lacks. Then every refused blob (an\n"
		"undistributable licence, a copyleft one without its source) with the\n"
		"cause, and every dual-licensed blob with the branch it ships under. A free\n"
		"licence without its source only makes a blob non-free. In a tree with\n"
		"manifests/build, each free blob and how its freeness was established\n"
		"(rebuilt identical, its own preferred form, or not rebuilt and why,\n"
		"from manifests/build-verdicts). Then the blobs and\n"
		"bytes of each category (free, non-free, undistributable, unknown), then\n"
		"each licence of the policy with its category, the number of blobs under\n"
		"it and the policy's reason. Exit 1 if there is any problem; a refused blob\n"
		"left out is none.\n"
		"\n",
	.opts = opts,
};

/* The categories in report order, and what each counts. */
static const enum fw_category cats[] = {
	FW_CAT_FREE, FW_CAT_NONFREE, FW_CAT_UNDISTRIBUTABLE, FW_CAT_UNKNOWN,
};

struct cat_count {
	unsigned blobs;
	unsigned long long bytes;
};

/* A blob's size: the manifest's, else what firmware/ holds, else 0. */
static unsigned long long blob_bytes(const struct fw_blob *b)
{
	if (b->sum)
		return b->sum->size;
	return b->presence == FW_PRESENT ? b->fsize : 0;
}

struct problem {
	const struct fw_blob *b;
	char *text;
	bool refused; /* cannot ship, rightly left out: not a problem */
};

/* What the report says: the problem, refused and dual-licensed blobs of
 * the selection, the blobs and bytes of each category, each licence's
 * count. */
struct report {
	const struct fw_tree *t;
	bool partial; /* --package or --select: only the licences used */
	struct problem *probs, *duals, *frees, *prefs;
	size_t nprobs, nrefused, ndual, nfree, npref;
	enum fw_freeness *how; /* per frees entry */
	unsigned *counts; /* per policy entry */
	struct cat_count cc[FW_ARRAY_SIZE(cats)];
};

static void report_free(struct report *r)
{
	for (size_t i = 0; i < r->nprobs; i++)
		free(r->probs[i].text);
	for (size_t i = 0; i < r->ndual; i++)
		free(r->duals[i].text);
	for (size_t i = 0; i < r->nfree; i++)
		free(r->frees[i].text);
	free(r->frees);
	free(r->how);
	for (size_t i = 0; i < r->npref; i++)
		free(r->prefs[i].text);
	free(r->probs);
	free(r->duals);
	free(r->prefs);
	free(r->counts);
}

/* Each selected blob, counted and sorted into the report. -ENOMEM. */
static int collect(struct report *r, const struct fw_tree *t, const struct fw_selection *sel)
{
	r->t = t;
	r->counts = calloc(t->policy.n + 1, sizeof(*r->counts));
	r->probs = calloc(t->nblobs + 1, sizeof(*r->probs));
	r->duals = calloc(t->nblobs + 1, sizeof(*r->duals));
	r->frees = calloc(t->nblobs + 1, sizeof(*r->frees));
	r->how = calloc(t->nblobs + 1, sizeof(*r->how));
	r->prefs = calloc(t->nblobs + 1, sizeof(*r->prefs));
	if (!r->counts || !r->probs || !r->duals || !r->frees || !r->how || !r->prefs ||
	    fw_tree_licence_counts(t, sel, r->counts) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < t->nblobs; i++) {
		const struct fw_blob *b = &t->blobs[i];
		char *text;

		if (!fw_blob_selected(t, b, sel) || b->duplicate)
			continue;
		for (size_t k = 0; k < FW_ARRAY_SIZE(cats); k++)
			if (b->cat == cats[k])
				r->cc[k].blobs++, r->cc[k].bytes += blob_bytes(b);
		/* How each free blob's freeness was established, where the
		 * tree builds from source (manifests/build or its verdicts). */
		if (b->cat == FW_CAT_FREE && (t->have_recipes || t->have_verdicts)) {
			text = fw_blob_freeness(t, b, &r->how[r->nfree]);
			if (!text)
				return -ENOMEM;
			r->frees[r->nfree++] = (struct problem){ b, text, false };
		}
		/* Its own preferred form by manifests/preferred-form: the
		 * reason that line gives. */
		if (b->preferred) {
			text = strdup(b->preferred);
			if (!text)
				return -ENOMEM;
			r->prefs[r->npref++] = (struct problem){ b, text, false };
		}
		if (!b->findings) {
			/* A blob that cannot ship, though nothing is wrong:
			 * refused, with the verdict's cause; a dual licence
			 * that ships says which branch it ships under. */
			bool ships = b->cat == FW_CAT_FREE || b->cat == FW_CAT_NONFREE;

			if (ships && !b->branch)
				continue;
			text = fw_blob_verdict_text(t, b);
			if (!text)
				return -ENOMEM;
			if (ships) {
				r->duals[r->ndual++] = (struct problem){ b, text, false };
			} else {
				r->probs[r->nprobs++] = (struct problem){ b, text, true };
				r->nrefused++;
			}
			continue;
		}
		/* The first finding of the blob, in the model's order: the
		 * rest follow from it or are fixed with it. */
		text = fw_licence_problem_text(t, b, b->findings & -b->findings);
		if (!text)
			return -ENOMEM;
		r->probs[r->nprobs++] = (struct problem){ b, text, false };
	}
	return 0;
}

static int print_json(const struct report *r)
{
	const struct fw_tree *t = r->t;

	fw_cli_json_begin();
	printf("{\"problems\":[");
	for (size_t i = 0; i < r->nprobs; i++) {
		const struct problem *p = &r->probs[i];

		printf("%s{\"name\":", i ? "," : "");
		fw_json_str(stdout, p->b->e->name);
		printf(",\"line\":%u,\"problem\":", p->b->e->line);
		fw_json_str(stdout, p->text);
		printf(",\"refused\":%s", p->refused ? "true" : "false");
		if (p->b->branch) {
			printf(",\"licence_used\":");
			fw_json_str(stdout, p->b->branch);
		}
		printf("}");
	}
	printf("],\"dual\":[");
	for (size_t i = 0; i < r->ndual; i++) {
		const struct problem *p = &r->duals[i];

		printf("%s{\"name\":", i ? "," : "");
		fw_json_str(stdout, p->b->e->name);
		printf(",\"line\":%u,\"category\":\"%s\",\"licence\":", p->b->e->line,
		       fw_category_name(p->b->cat));
		fw_json_str(stdout, p->b->lic->spdx);
		printf(",\"licence_used\":");
		fw_json_str(stdout, p->b->branch);
		printf(",\"verdict\":");
		fw_json_str(stdout, p->text);
		printf("}");
	}
	printf("]");
	if (t->have_recipes || t->have_verdicts) {
		printf(",\"free\":[");
		for (size_t i = 0; i < r->nfree; i++) {
			const struct problem *p = &r->frees[i];

			printf("%s{\"name\":", i ? "," : "");
			fw_json_str(stdout, p->b->e->name);
			printf(",\"line\":%u,\"established\":\"%s\",\"detail\":", p->b->e->line,
			       fw_freeness_name(r->how[i]));
			fw_json_str(stdout, p->text);
			printf("}");
		}
		printf("]");
	}
	printf(",\"preferred_form\":[");
	for (size_t i = 0; i < r->npref; i++) {
		const struct problem *p = &r->prefs[i];

		printf("%s{\"name\":", i ? "," : "");
		fw_json_str(stdout, p->b->e->name);
		printf(",\"line\":%u,\"reason\":", p->b->e->line);
		fw_json_str(stdout, p->text);
		printf("}");
	}
	printf("],\"categories\":[");
	for (size_t k = 0; k < FW_ARRAY_SIZE(cats); k++)
		printf("%s{\"category\":\"%s\",\"blobs\":%u,\"bytes\":%llu}", k ? "," : "",
		       fw_category_name(cats[k]), r->cc[k].blobs, r->cc[k].bytes);
	printf("],\"licences\":[");
	for (size_t i = 0, first = 1; i < t->policy.n; i++) {
		const struct fw_policy_entry *p = &t->policy.v[i];
		char *text;

		if (r->partial && !r->counts[i])
			continue;
		printf("%s{\"id\":", first ? "" : ",");
		fw_json_str(stdout, p->id);
		/* The id is the policy file's text: through fw_json_str
		 * like every other string from the tree. */
		text = fw_asprintf("%s/%s.txt", FW_TREE_LICENSES, p->id);
		if (!text)
			return -ENOMEM;
		printf(",\"text\":");
		fw_json_str(stdout, text);
		free(text);
		printf(",\"category\":\"%s\",\"blobs\":%u,\"reason\":", fw_category_name(p->cat),
		       r->counts[i]);
		fw_json_str(stdout, p->reason);
		printf("}");
		first = 0;
	}
	printf("]}\n");
	return 0;
}

/* HEADING (N): then each line of V (the refused ones, or the others). */
static void print_list(const struct report *r, const char *heading, const struct problem *v,
		       size_t n, size_t shown, bool refused)
{
	if (!shown)
		return;
	printf("%s (%zu):\n", heading, shown);
	for (size_t i = 0; i < n; i++)
		if (v[i].refused == refused)
			printf("  %s:%u: %s: %s\n", r->t->whence.path, v[i].b->e->line,
			       fw_esc(v[i].b->e->name), v[i].text);
	printf("\n");
}

static void print_text(const struct report *r)
{
	const struct fw_tree *t = r->t;

	print_list(r, "Problems", r->probs, r->nprobs, r->nprobs - r->nrefused, false);
	print_list(r, "Refused", r->probs, r->nprobs, r->nrefused, true);
	print_list(r, "Dual-licensed, shipped under one branch", r->duals, r->ndual, r->ndual, false);
	print_list(r, "Free, and how it was established", r->frees, r->nfree, r->nfree, false);
	print_list(r, "Its own preferred form (manifests/preferred-form)", r->prefs, r->npref,
		   r->npref, false);
	printf("%-36s %6s %12s\n", "Category", "Blobs", "Bytes");
	for (size_t k = 0; k < FW_ARRAY_SIZE(cats); k++)
		printf("%-36s %6u %12llu\n", fw_category_name(cats[k]), r->cc[k].blobs,
		       r->cc[k].bytes);
	printf("\n");
	printf("%-36s %-15s %6s  %s\n", "Licence", "Category", "Blobs", "Reason");
	for (size_t i = 0; i < t->policy.n; i++) {
		const struct fw_policy_entry *p = &t->policy.v[i];

		/* With --package or --select: the closure, the texts
		 * shipping that part of the tree requires. */
		if (r->partial && !r->counts[i])
			continue;
		printf("%-36s %-15s %6u  %s\n", p->id, fw_category_name(p->cat), r->counts[i],
		       p->reason);
	}
}

int cmd_licenses(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("licenses");
	struct fw_diag d = { 0 };
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	struct report r = { 0 };
	int ret;

	ret = fw_cli_parse(&cli, argc, argv, &help, NULL, NULL);
	if (ret >= 0)
		goto out;
	ret = fw_cli_prepare(&cli, &t, &d, NULL);
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_FINDING;
	r.partial = cli.sel.pkg || cli.sel.blob;
	if (collect(&r, &t, &cli.sel) < 0 || (fw_json && print_json(&r) < 0)) {
		fw_err("out of memory");
		goto out;
	}
	if (!fw_json)
		print_text(&r);
	ret = r.nprobs > r.nrefused || d.n ? EXIT_FINDING : EXIT_OK;
out:
	report_free(&r);
	fw_cli_free(&cli);
	fw_diag_free(&d);
	fw_tree_free(&t);
	return ret;
}
