/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist sign: pin every file of the tree and sign the pins (detached CMS, DER). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "fwdist.h"
#include "sign.h"
#include "util.h"

static void help(void)
{
	printf("Usage: fwdist [-C DIR] sign --key KEY --cert CERT\n"
	       "\n"
	       "Write manifests/pins, the SHA-256 of WHENCE, the four manifests, every\n"
	       "licence text and every blob (each hashed as it is now, and each blob\n"
	       "matching manifests/checksums), and manifests/pins.p7s, a detached CMS\n"
	       "signature over it (DER, SHA-256, the certificate included: the scheme of\n"
	       "the kernel's regulatory.db.p7s). The tree must pass the model checks.\n"
	       "`openssl cms -verify -binary -inform DER -in manifests/pins.p7s -content\n"
	       "manifests/pins -CAfile CERT -purpose smimesign` checks it too.\n"
	       "\n"
	       "  --key KEY     PEM private key\n"
	       "  --cert CERT   PEM certificate of that key\n");
}

struct opts {
	const char *key, *cert;
};

static int option(void *ctx, int c, const char *arg)
{
	struct opts *o = ctx;

	if (c == 'k')
		o->key = arg;
	else if (c == 'c')
		o->cert = arg;
	else
		return EXIT_USAGE;
	return EXIT_OK;
}

int cmd_sign(int argc, char **argv)
{
	static const struct option own[] = {
		{ "key", required_argument, NULL, 'k' },
		{ "cert", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	struct fw_cli cli = FW_CLI_INIT("sign", 0);
	struct opts o = { 0 };
	struct fw_diag d = { 0 };
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	char *pins = NULL;
	unsigned char *der = NULL;
	size_t len = 0, derlen = 0;
	int r, ret;

	ret = fw_cli_parse(&cli, argc, argv, own, "", option, &o, help);
	if (ret >= 0)
		goto out;
	if (!o.key || !o.cert) {
		ret = fw_usage("sign", "--key KEY and --cert CERT are both needed");
		goto out;
	}
	ret = fw_cli_prepare(&cli, &t, &d, "nothing signed");
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_FINDING;
	fw_diag_free(&d);
	r = fw_pins_build(&t, &pins, &len, &d);
	if (r == 0)
		r = fw_pins_sign(pins, len, o.key, o.cert, &der, &derlen, &d);
	fw_print_diag(&d);
	if (r < 0) {
		fw_err("sign: nothing signed");
		goto out;
	}
	/* The signature after the pins: a reader that sees the new pins with
	 * the old signature is refused, never misled. */
	r = fw_write_atomic(t.rootfd, FW_PINS, pins, len, 0644);
	if (r == 0)
		r = fw_write_atomic(t.rootfd, FW_PINS_SIG, der, derlen, 0644);
	if (r < 0) {
		fw_err("sign: cannot write %s: %s", FW_PINS, strerror(-r));
		goto out;
	}
	printf("sign: %s and %s written\n", FW_PINS, FW_PINS_SIG);
	ret = EXIT_OK;
out:
	fw_pins_free_der(der);
	free(pins);
	fw_cli_free(&cli);
	fw_diag_free(&d);
	fw_tree_free(&t);
	return ret;
}
