/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist licenses: the licence report, every problem blob listed first. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		"licence without its source only makes a blob non-free. Then the blobs and\n"
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

int cmd_licenses(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("licenses");
	struct fw_diag d = { 0 };
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	struct problem *probs = NULL, *duals = NULL;
	unsigned *counts = NULL;
	size_t nprobs = 0, nrefused = 0, ndual = 0;
	struct cat_count cc[FW_ARRAY_SIZE(cats)] = { { 0 } };
	int ret;
	bool partial;

	ret = fw_cli_parse(&cli, argc, argv, &help, NULL, NULL);
	if (ret >= 0)
		goto out;
	ret = fw_cli_prepare(&cli, &t, &d, NULL);
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_FINDING;
	partial = cli.sel.pkg || cli.sel.blob;
	counts = calloc(t.policy.n + 1, sizeof(*counts));
	probs = calloc(t.nblobs + 1, sizeof(*probs));
	duals = calloc(t.nblobs + 1, sizeof(*duals));
	if (!counts || !probs || !duals) {
		fw_err("out of memory");
		goto out;
	}
	if (fw_tree_licence_counts(&t, &cli.sel, counts) < 0) {
		fw_err("out of memory");
		goto out;
	}
	for (size_t i = 0; i < t.nblobs; i++) {
		const struct fw_blob *b = &t.blobs[i];
		char *text;

		if (!fw_blob_selected(&t, b, &cli.sel) || b->duplicate)
			continue;
		for (size_t k = 0; k < FW_ARRAY_SIZE(cats); k++)
			if (b->cat == cats[k])
				cc[k].blobs++, cc[k].bytes += blob_bytes(b);
		if (!b->findings) {
			/* A blob that cannot ship, though nothing is wrong:
			 * refused, with the verdict's cause; a dual licence
			 * that ships says which branch it ships under. */
			if (b->cat == FW_CAT_FREE || b->cat == FW_CAT_NONFREE) {
				if (!b->branch)
					continue;
				text = fw_blob_verdict_text(&t, b);
				if (!text) {
					fw_err("out of memory");
					goto out;
				}
				duals[ndual++] = (struct problem){ b, text, false };
				continue;
			}
			text = fw_blob_verdict_text(&t, b);
			if (!text) {
				fw_err("out of memory");
				goto out;
			}
			probs[nprobs++] = (struct problem){ b, text, true };
			nrefused++;
			continue;
		}
		/* The first finding of the blob, in the model's order: the
		 * rest follow from it or are fixed with it. */
		text = fw_licence_problem_text(&t, b, b->findings & -b->findings);
		if (!text) {
			fw_err("out of memory");
			goto out;
		}
		probs[nprobs++] = (struct problem){ b, text, false };
	}
	if (fw_json) {
		printf("{\"problems\":[");
		for (size_t i = 0; i < nprobs; i++) {
			printf("%s{\"name\":", i ? "," : "");
			fw_json_str(stdout, probs[i].b->e->name);
			printf(",\"line\":%u,\"problem\":", probs[i].b->e->line);
			fw_json_str(stdout, probs[i].text);
			printf(",\"refused\":%s", probs[i].refused ? "true" : "false");
			if (probs[i].b->branch) {
				printf(",\"licence_used\":");
				fw_json_str(stdout, probs[i].b->branch);
			}
			printf("}");
		}
		printf("],\"dual\":[");
		for (size_t i = 0; i < ndual; i++) {
			printf("%s{\"name\":", i ? "," : "");
			fw_json_str(stdout, duals[i].b->e->name);
			printf(",\"line\":%u,\"category\":\"%s\",\"licence\":", duals[i].b->e->line,
			       fw_category_name(duals[i].b->cat));
			fw_json_str(stdout, duals[i].b->lic->spdx);
			printf(",\"licence_used\":");
			fw_json_str(stdout, duals[i].b->branch);
			printf(",\"verdict\":");
			fw_json_str(stdout, duals[i].text);
			printf("}");
		}
		printf("],\"categories\":[");
		for (size_t k = 0; k < FW_ARRAY_SIZE(cats); k++)
			printf("%s{\"category\":\"%s\",\"blobs\":%u,\"bytes\":%llu}", k ? "," : "",
			       fw_category_name(cats[k]), cc[k].blobs, cc[k].bytes);
		printf("],\"licences\":[");
		for (size_t i = 0, first = 1; i < t.policy.n; i++) {
			const struct fw_policy_entry *p = &t.policy.v[i];

			if (partial && !counts[i])
				continue;
			printf("%s{\"id\":", first ? "" : ",");
			fw_json_str(stdout, p->id);
			/* The id is the policy file's text: through fw_json_str
			 * like every other string from the tree. */
			char *text = fw_asprintf("%s/%s.txt", FW_TREE_LICENSES, p->id);

			if (!text) {
				fw_err("out of memory");
				goto out;
			}
			printf(",\"text\":");
			fw_json_str(stdout, text);
			free(text);
			printf(",\"category\":\"%s\",\"blobs\":%u,\"reason\":",
			       fw_category_name(p->cat), counts[i]);
			fw_json_str(stdout, p->reason);
			printf("}");
			first = 0;
		}
		printf("]}\n");
	} else {
		if (nprobs > nrefused) {
			printf("Problems (%zu):\n", nprobs - nrefused);
			for (size_t i = 0; i < nprobs; i++)
				if (!probs[i].refused)
					printf("  %s:%u: %s: %s\n", t.whence.path, probs[i].b->e->line,
					       fw_esc(probs[i].b->e->name), probs[i].text);
			printf("\n");
		}
		if (nrefused) {
			printf("Refused (%zu):\n", nrefused);
			for (size_t i = 0; i < nprobs; i++)
				if (probs[i].refused)
					printf("  %s:%u: %s: %s\n", t.whence.path, probs[i].b->e->line,
					       fw_esc(probs[i].b->e->name), probs[i].text);
			printf("\n");
		}
		if (ndual) {
			printf("Dual-licensed, shipped under one branch (%zu):\n", ndual);
			for (size_t i = 0; i < ndual; i++)
				printf("  %s:%u: %s: %s\n", t.whence.path, duals[i].b->e->line,
				       fw_esc(duals[i].b->e->name), duals[i].text);
			printf("\n");
		}
		printf("%-36s %6s %12s\n", "Category", "Blobs", "Bytes");
		for (size_t k = 0; k < FW_ARRAY_SIZE(cats); k++)
			printf("%-36s %6u %12llu\n", fw_category_name(cats[k]), cc[k].blobs,
			       cc[k].bytes);
		printf("\n");
		printf("%-36s %-15s %6s  %s\n", "Licence", "Category", "Blobs", "Reason");
		for (size_t i = 0; i < t.policy.n; i++) {
			const struct fw_policy_entry *p = &t.policy.v[i];

			/* With --package or --select: the closure, the texts
			 * shipping that part of the tree requires. */
			if (partial && !counts[i])
				continue;
			printf("%-36s %-15s %6u  %s\n", p->id, fw_category_name(p->cat), counts[i],
			       p->reason);
		}
	}
	ret = nprobs > nrefused || d.n ? EXIT_FINDING : EXIT_OK;
out:
	for (size_t i = 0; i < nprobs; i++)
		free(probs[i].text);
	for (size_t i = 0; i < ndual; i++)
		free(duals[i].text);
	free(probs);
	free(duals);
	free(counts);
	fw_cli_free(&cli);
	fw_diag_free(&d);
	fw_tree_free(&t);
	return ret;
}
