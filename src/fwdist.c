/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist: main(), global options and dispatch to the subcommands. */
#include "fwdist.h"

#include "digest.h"

#include <getopt.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "check", cmd_check, "validate the whole tree: WHENCE, files, links, licences, split, checksums" },
	{ "manifest", cmd_manifest, "regenerate manifests/checksums after a deliberate blob change" },
	{ "list", cmd_list, "list blobs and links (of one package), or read any WHENCE file" },
	{ "import", cmd_import, "take an upstream linux-firmware tree into this layout, classifying every licence" },
	{ "licenses", cmd_licenses, "licence report: problem blobs first, then each licence's use" },
	{ "install", cmd_install, "verify and install the tree into DESTDIR/lib/firmware" },
	{ "uninstall", cmd_uninstall, "remove what install put in place, and nothing else" },
	{ "verify", cmd_verify, "check an installed tree against the manifest" },
	{ "sign", cmd_sign, "pin what the tree ships and packages, sign the pins (CMS, DER)" },
	{ "verify-signature", cmd_verify_signature, "check the signed pins, then the tree against them" },
	{ "kconfig", cmd_kconfig, "serve a kernel build: CONFIG_EXTRA_FIRMWARE and its directory, or check a .config" },
	{ "modules", cmd_modules, "the firmware kernel modules request, and where each is in the tree" },
	{ "missing", cmd_missing, "the firmware this machine's hardware needs: installed, missing, in which package" },
	{ "why", cmd_why, "why the hardware needs a firmware name: device, module, name, package" },
	{ "sbom", cmd_sbom, "CycloneDX or SPDX bill of materials of what an install ships" },
	{ "debian", cmd_debian, "generate the Debian packaging's parts from the tree, or fill the firmware packages" },
	{ "build", cmd_build, "rebuild the free blobs from source in a sandbox: a verdict per blob" },
	{ "pack", cmd_pack, "build a sectioned firmware image (fwimage(5)), binary, ihex or HEX, or a PCMCIA CIS" },
	{ "unpack", cmd_unpack, "write the sections of a fwimage back out, bit-exact" },
	{ "info", cmd_info, "describe a firmware image: fwimage, Intel HEX, binary ihex, tg3" },
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: fwdist [-C DIR] COMMAND [OPTIONS] [ARGS]\n"
		"\n"
		"Validate, install and report on a separate Linux firmware tree.\n"
		"\n"
		"Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f,
		"\n"
		"Options:\n"
		"  -C, --tree DIR  the firmware tree (WHENCE, firmware/, manifests/, LICENSES/); default .\n"
		"      --json      machine-readable output (also accepted after COMMAND)\n"
		"  -h, --help      this help; 'fwdist COMMAND --help' for a command's own\n"
		"  -V, --version   print the version\n"
		"\n"
		"Exit status: 0 success, 1 a finding or a failure, 2 a usage error.\n"
		"See fwdist(1).\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tree", required_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "list-options", no_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	/* libcrypto first: it initialises itself lazily, and a failure in
	 * the middle of that (out of memory) leaves it to crash later. */
	if (fw_digest_setup() < 0) {
		fw_err("cannot initialise libcrypto: out of memory");
		return EXIT_FINDING;
	}
	/* Messages, sorting and number formats never depend on the locale:
	 * the output is compared byte for byte by tests and scripts. */
	setlocale(LC_ALL, "C");
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:C:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'C':
			/* -C "$UNSET": refused, not read as some directory. */
			if (!*optarg)
				return fw_usage(NULL, "option '%s' needs a value, not an empty one",
						argv[optind - 1 - (optarg == argv[optind - 1])][1] == '-' ? "--tree" : "-C");
			fw_tree_root = optarg;
			break;
		case ':':
			return fw_usage(NULL, "option '%s' needs a value",
					optopt == 'C' && argv[optind - 1][1] != '-' ? "-C" : argv[optind - 1]);
		case 'j':
			fw_json = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("fwdist %s\n", FWDIST_VERSION);
			return EXIT_OK;
		case 'L':
			/* The options above, as a command's --list-options
			 * prints its own (for shell completion). */
			for (const struct option *o = opts; o->name; o++) {
				if (o->val == 'L')
					continue;
				if (strchr("ChV", o->val))
					printf("-%c\n", o->val);
				printf("--%s\n", o->name);
			}
			return EXIT_OK;
		default:
			if (optopt)
				return fw_usage(NULL, "unknown or incomplete option '-%c'", optopt);
			return fw_usage(NULL, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[optind], commands[i].name) == 0) {
			int r;

			argc -= optind;
			argv += optind;
			optind = 0; /* reset getopt for the subcommand (GNU: 0 reinitialises) */
			r = commands[i].run(argc, argv);
			fw_cli_json_end(r);
			if (fflush(stdout) != 0 || ferror(stdout)) {
				fw_err("write error on standard output");
				return EXIT_FINDING;
			}
			return r;
		}
	}
	return fw_usage(NULL, "'%s' is not a fwdist command", argv[optind]);
}
