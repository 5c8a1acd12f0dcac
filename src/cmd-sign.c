/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist sign: pin what decides what the tree ships, with a release serial, and sign the pins (detached CMS, DER). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "fwdist.h"
#include "sign.h"
#include "util.h"

static const struct fw_cli_opt opts[] = {
	{ "key", 'k', false, "KEY",
	  "PEM private key", NULL },
	{ "cert", 'c', false, "CERT",
	  "PEM certificate of that key (the one verifiers trust)", NULL },
	{ "serial", 's', false, "N",
	  "the release serial, from 1; each release a larger one (a\n"
	  "date such as 20250301 will do): install --require-signature\n"
	  "refuses to go back to a smaller one", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist [-C DIR] sign --key KEY --cert CERT --serial N\n"
		"\n"
		"Write manifests/pins and manifests/pins.p7s, a detached CMS signature over\n"
		"it (DER, SHA-256, the certificate included: the scheme of the kernel's\n"
		"regulatory.db.p7s). The pins are the release serial N and the SHA-256 of\n"
		"everything that decides what the tree ships or how it is packaged: WHENCE,\n"
		"every file of manifests/ (but the pins), of LICENSES/ and of debian/, every\n"
		"blob (each matching manifests/checksums) and every Source: of WHENCE, each\n"
		"hashed as the tree's model read it. The tree must pass the model checks.\n"
		"CERT must not be a CA (basicConstraints CA:TRUE; openssl req -x509 makes\n"
		"one unless given -addext basicConstraints=critical,CA:FALSE).\n"
		"`openssl cms -verify -binary -inform DER -in manifests/pins.p7s -content\n"
		"manifests/pins -CAfile CERT -partial_chain -purpose smimesign` checks it too.\n"
		"\n",
	.opts = opts,
};

struct opts {
	const char *key, *cert;
	uint64_t serial;
};

static int option(void *ctx, int c, const char *arg)
{
	struct opts *o = ctx;

	if (c == 'k')
		o->key = arg;
	else if (c == 'c')
		o->cert = arg;
	else if (c != 's')
		return EXIT_USAGE;
	else if (fw_parse_u64(arg, strlen(arg), &o->serial) < 0 || o->serial == 0)
		return fw_usage("sign", "--serial takes a decimal number from 1, not '%s'", arg);
	return EXIT_OK;
}

int cmd_sign(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("sign");
	struct opts o = { 0 };
	struct fw_diag d = { 0 };
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	struct fw_pins p = { 0 };
	char *pins = NULL;
	unsigned char *der = NULL;
	size_t len = 0, derlen = 0;
	int r, ret;

	ret = fw_cli_parse(&cli, argc, argv, &help, option, &o);
	if (ret >= 0)
		goto out;
	if (!o.key || !o.cert || !o.serial) {
		ret = fw_usage("sign", "--key KEY, --cert CERT and --serial N are all needed");
		goto out;
	}
	ret = fw_cli_prepare(&cli, &t, &d, "nothing signed");
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_FINDING;
	fw_diag_free(&d);
	r = fw_pins_collect(&t, &p, &d);
	p.serial = o.serial;
	if (r == 0)
		r = fw_pins_format(&p, &pins, &len);
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
	printf("sign: %s (release serial %" PRIu64 ", %zu files) and %s written\n", FW_PINS,
	       p.serial, p.n, FW_PINS_SIG);
	ret = EXIT_OK;
out:
	fw_pins_free_der(der);
	fw_pins_free(&p);
	free(pins);
	fw_cli_free(&cli);
	fw_diag_free(&d);
	fw_tree_free(&t);
	return ret;
}
