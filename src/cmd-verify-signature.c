/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist verify-signature: the signed pins, checked before the tree is read, then the tree against them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fwdist.h"
#include "sign.h"
#include "util.h"

static void help(void)
{
	printf("Usage: fwdist [-C DIR] verify-signature --cert CERT\n"
	       "\n"
	       "Check manifests/pins.p7s over manifests/pins against CERT, the only\n"
	       "certificate trusted, before anything else of the tree is read: the\n"
	       "signature must be by CERT's key, CERT valid now and fit for signing, and\n"
	       "the pins exactly what was signed. Then hash the tree's files and compare\n"
	       "them with the signed pins. Exit 1 naming each difference.\n"
	       "\n"
	       "  --cert CERT   PEM certificate of the signer\n");
}

static int option(void *ctx, int c, const char *arg)
{
	if (c != 'c')
		return EXIT_USAGE;
	*(const char **)ctx = arg;
	return EXIT_OK;
}

/* Shared with install --require-signature: EXIT_OK when the tree at
 * fw_tree_root is what the signature covers; prints why not. The tree is
 * loaded only once the signature holds. */
int fw_cli_require_signature(const char *cmd, const char *cert, struct fw_tree *t,
			     struct fw_diag *d)
{
	char *pins = NULL, *now = NULL;
	size_t len = 0, nlen = 0;
	struct fw_diag sd = { 0 };
	int r = fw_root_verify_signature(fw_tree_root, cert, &pins, &len, &sd);

	if (r == 0) {
		if (fw_load_tree(t, d) != EXIT_OK) {
			free(pins);
			fw_diag_free(&sd);
			return EXIT_FINDING;
		}
		r = fw_pins_build(t, &now, &nlen, &sd);
		if (r == 0)
			r = fw_pins_compare(pins, len, now, nlen, &sd);
	}
	fw_print_diag(&sd);
	if (r < 0)
		fw_err("%s: the tree is not what %s signed", cmd, cert);
	fw_diag_free(&sd);
	free(pins);
	free(now);
	return r < 0 ? EXIT_FINDING : EXIT_OK;
}

int cmd_verify_signature(int argc, char **argv)
{
	static const struct option own[] = {
		{ "cert", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	struct fw_cli cli = FW_CLI_INIT("verify-signature", 0);
	struct fw_diag d = { 0 };
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	const char *cert = NULL;
	int ret;

	ret = fw_cli_parse(&cli, argc, argv, own, "", option, &cert, help);
	if (ret >= 0)
		goto out;
	if (!cert) {
		ret = fw_usage("verify-signature", "--cert CERT is needed");
		goto out;
	}
	ret = fw_cli_require_signature("verify-signature", cert, &t, &d);
	if (ret == EXIT_OK)
		printf("verify-signature: OK: the tree is what %s signed\n", cert);
out:
	fw_cli_free(&cli);
	fw_diag_free(&d);
	fw_tree_free(&t);
	return ret;
}
