/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist check: validate the whole tree and report every finding in one run. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "debian.h"
#include "fwdist.h"
#include "json.h"
#include "modmap.h"
#include "progress.h"
#include "replaces.h"

#define S(n) ((n) == 1 ? "" : "s")

static const struct fw_cli_opt opts[] = {
	{ "json", FW_OPT_JSON, false, NULL,
	  "print {\"ok\":..., \"findings\":[{\"file\",\"line\",\"message\"}]} on stdout", NULL },
	{ "jobs", FW_OPT_JOBS, true, "N",
	  "threads hashing the blobs (default: one per CPU); the\n"
	  "findings and their order are the same whatever N", NULL },
	{ "quiet", FW_OPT_QUIET, true, NULL,
	  "no progress line (one is drawn on standard error while\n"
	  "the blobs are hashed, when it is a terminal, and cleared)", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist [-C DIR] check [--json] [-j N] [-q]\n"
		"\n"
		"Validate the whole tree: WHENCE against firmware/ both ways, links, licences,\n"
		"the licence policy, the package split and what its packages replace of\n"
		"Debian's (manifests/replaces), the module map (manifests/modules: its\n"
		"syntax, and no modalias that names no bus or matches every device of one),\n"
		"checksums, names and modes. Every finding is printed as FILE:LINE: message;\n"
		"exit 1 if there is any.\n"
		"\n",
	.opts = opts,
};

int cmd_check(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("check");
	struct fw_progress counts = { 0 };
	struct fw_diag d = { 0 };
	struct fw_tree t;
	size_t nfree = 0, nnonfree = 0, nundist = 0;
	int r;

	r = fw_cli_parse(&cli, argc, argv, &help, NULL, NULL);
	fw_cli_free(&cli);
	if (r >= 0)
		return r;
	if (fw_load_tree(&t, &d) != EXIT_OK) {
		fw_diag_free(&d);
		return EXIT_FINDING;
	}
	fw_tree_check_model(&t, &d);
	/* manifests/replaces, when the tree has one: its findings name its lines. */
	{
		struct fw_replaces rp;

		if (fw_replaces_load(&rp, &t.split, t.rootfd, &d) == -ENOMEM)
			d.nomem++;
		fw_replaces_free(&rp);
	}
	/* manifests/modules, when the tree has one: it becomes the packages'
	 * <modalias> entries, which clients match against every device, so
	 * check refuses what make deb would ship (an over-broad alias too). */
	{
		struct fw_modmap mm;

		if (fw_modmap_load(&mm, t.rootfd, &d) == -ENOMEM)
			d.nomem++;
		fw_modmap_free(&mm);
	}
	r = fw_tree_check_files(&t, cli.jobs, fw_cli_progress_start(&cli, &counts), &d);
	fw_cli_progress_stop();
	if (r < 0)
		fw_diag_add(&d, t.root, 0, "check stopped: %s", strerror(-r));
	/* The committed generated packaging must still be what the model gives. */
	if (r == 0 && !d.n) {
		r = fw_debian_check(&t, &d);
		if (r < 0)
			fw_diag_add(&d, t.root, 0, "check stopped: %s", strerror(-r));
	}
	for (size_t i = 0; i < t.nblobs; i++) {
		nfree += t.blobs[i].cat == FW_CAT_FREE;
		nnonfree += t.blobs[i].cat == FW_CAT_NONFREE;
		nundist += t.blobs[i].cat == FW_CAT_UNDISTRIBUTABLE;
	}
	if (fw_json) {
		fw_cli_findings_json(&d, false);
	} else {
		fw_print_diag(&d);
		if (d.n || d.nomem)
			fprintf(stderr, "fwdist: check: %zu finding%s\n", d.n, d.n == 1 ? "" : "s");
		else if (nundist)
			/* Listed but refused: count them, or the numbers do not add up. */
			printf("check: OK: %zu blob%s (%zu free, %zu non-free, %zu undistributable), "
			       "%zu link%s, %zu licence%s, %zu package%s\n",
			       t.nblobs, S(t.nblobs), nfree, nnonfree, nundist, t.nlinks, S(t.nlinks),
			       t.policy.n, S(t.policy.n), t.split.npkgs, S(t.split.npkgs));
		else
			printf("check: OK: %zu blob%s (%zu free, %zu non-free), %zu link%s, "
			       "%zu licence%s, %zu package%s\n",
			       t.nblobs, S(t.nblobs), nfree, nnonfree, t.nlinks, S(t.nlinks),
			       t.policy.n, S(t.policy.n), t.split.npkgs, S(t.split.npkgs));
	}
	r = d.n || d.nomem ? EXIT_FINDING : EXIT_OK;
	fw_diag_free(&d);
	fw_tree_free(&t);
	return r;
}
