/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist verify-signature: the signed pins, checked before the tree is read, then the tree against them. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fwdist.h"
#include "record.h"
#include "sign.h"
#include "util.h"

static const struct fw_cli_opt opts[] = {
	{ "cert", 'c', false, "CERT",
	  "PEM certificate of the signer", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist [-C DIR] verify-signature --cert CERT\n"
		"\n"
		"Check manifests/pins.p7s over manifests/pins against CERT before anything\n"
		"else of the tree is read. CERT is the signer's own certificate and the only\n"
		"one trusted, never a CA: the signature must be made by CERT's key (not by\n"
		"a certificate CERT issued), CERT not a CA certificate (basicConstraints\n"
		"CA:TRUE), valid now and fit for signing (keyUsage\n"
		"digitalSignature, extendedKeyUsage emailProtection if it has one), and\n"
		"the pins exactly what was signed, in this fwdist's format. Then hash the\n"
		"tree's files and compare them with the signed pins. Prints the release\n"
		"serial; exit 1 naming each difference.\n"
		"\n",
	.opts = opts,
};

static int option(void *ctx, int c, const char *arg)
{
	if (c != 'c')
		return EXIT_USAGE;
	*(const char **)ctx = arg;
	return EXIT_OK;
}

int cmd_verify_signature(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("verify-signature");
	struct fw_diag d = { 0 };
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	struct fw_rec_release rel = { 0 };
	const char *cert = NULL;
	int ret;

	ret = fw_cli_parse(&cli, argc, argv, &help, option, &cert);
	if (ret >= 0)
		goto out;
	if (!cert) {
		ret = fw_usage("verify-signature", "--cert CERT is needed");
		goto out;
	}
	ret = fw_cli_require_signature("verify-signature", cert, &t, &d, &rel);
	if (ret == EXIT_OK)
		printf("verify-signature: OK: the tree is what %s signed, release serial %" PRIu64 "\n",
		       cert, rel.serial);
out:
	fw_cli_free(&cli);
	fw_diag_free(&d);
	fw_tree_free(&t);
	return ret;
}
