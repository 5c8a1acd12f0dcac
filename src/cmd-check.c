/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist check: validate the whole tree and report every finding in one run. */
#include <stdio.h>

#include "build.h"
#include "check.h"
#include "fwdist.h"
#include "json.h"
#include "progress.h"

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
	struct fw_progress progress = { 0 };
	struct fw_check_counts c;
	struct fw_diag d = { 0 };
	struct fw_tree t;
	int r;

	r = fw_cli_parse(&cli, argc, argv, &help, NULL, NULL);
	fw_cli_free(&cli);
	if (r >= 0)
		return r;
	if (fw_load_tree(&t, &d) != EXIT_OK) {
		fw_diag_free(&d);
		return EXIT_FINDING;
	}
	fw_tree_check(&t, cli.jobs, fw_cli_progress_start(&cli, &progress), &d, &c);
	fw_cli_progress_stop();
	if (fw_json) {
		fw_cli_findings_json(&d, false);
	} else {
		fw_print_diag(&d);
		if (d.n || d.nomem)
			fprintf(stderr, "fwdist: check: %zu finding%s\n", d.n, d.n == 1 ? "" : "s");
		else if (c.undistributable && c.has_recipes)
			printf("check: OK: %zu blob%s (%zu free, %zu non-free, %zu undistributable), "
			       "%zu link%s, %zu licence%s, %zu package%s; free: %zu rebuilt identical, "
			       "%zu own preferred form, %zu source not rebuilt\n",
			       t.nblobs, S(t.nblobs), c.free, c.nonfree, c.undistributable, t.nlinks, S(t.nlinks),
			       t.policy.n, S(t.policy.n), t.split.npkgs, S(t.split.npkgs),
			       c.how[FW_FREE_REBUILT], c.how[FW_FREE_OWN_FORM], c.how[FW_FREE_NOT_REBUILT]);
		else if (c.has_recipes)
			printf("check: OK: %zu blob%s (%zu free, %zu non-free), %zu link%s, "
			       "%zu licence%s, %zu package%s; free: %zu rebuilt identical, "
			       "%zu own preferred form, %zu source not rebuilt\n",
			       t.nblobs, S(t.nblobs), c.free, c.nonfree, t.nlinks, S(t.nlinks),
			       t.policy.n, S(t.policy.n), t.split.npkgs, S(t.split.npkgs),
			       c.how[FW_FREE_REBUILT], c.how[FW_FREE_OWN_FORM], c.how[FW_FREE_NOT_REBUILT]);
		else if (c.undistributable)
			/* Listed but refused: count them, or the numbers do not add up. */
			printf("check: OK: %zu blob%s (%zu free, %zu non-free, %zu undistributable), "
			       "%zu link%s, %zu licence%s, %zu package%s\n",
			       t.nblobs, S(t.nblobs), c.free, c.nonfree, c.undistributable, t.nlinks, S(t.nlinks),
			       t.policy.n, S(t.policy.n), t.split.npkgs, S(t.split.npkgs));
		else
			printf("check: OK: %zu blob%s (%zu free, %zu non-free), %zu link%s, "
			       "%zu licence%s, %zu package%s\n",
			       t.nblobs, S(t.nblobs), c.free, c.nonfree, t.nlinks, S(t.nlinks),
			       t.policy.n, S(t.policy.n), t.split.npkgs, S(t.split.npkgs));
	}
	r = d.n || d.nomem ? EXIT_FINDING : EXIT_OK;
	fw_diag_free(&d);
	fw_tree_free(&t);
	return r;
}
