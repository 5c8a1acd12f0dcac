/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist pack: build a fwimage(5) (or a flat binary, binary ihex, Intel HEX) from sections;
 * or pack a PCMCIA CIS from its text. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cis.h"
#include "fsutil.h"
#include "fwdist.h"
#include "image.h"
#include "ihex.h"
#include "util.h"

static const struct fw_cli_opt opts[] = {
	{ "raw", 'r', false, "TYPE:ADDR:FILE",
	  "FILE's bytes as one section of TYPE (text, rodata,\n"
	  "data) loaded at ADDR", NULL },
	{ "bss", 'b', false, "ADDR:SIZE",
	  "a bss section of SIZE bytes at ADDR (no file bytes)", NULL },
	{ "from-elf", 'E', false, "FILE",
	  "the PT_LOAD segments of an ELF executable (32 or\n"
	  "64-bit, either byte order) at their physical\n"
	  "addresses; p_memsz > p_filesz gives a bss section", NULL },
	{ "from-hex", 'H', false, "FILE",
	  "each contiguous run of an Intel HEX file (records\n"
	  "00-05, checksums verified) as a text section", NULL },
	{ "from-ihex", 'I', false, "FILE",
	  "the same from the kernel's binary ihex records", NULL },
	{ "from-cis", 'C', false, "FILE",
	  "a PCMCIA CIS in cis-tools' pack_cis text: the one\n"
	  "input of --format cis", NULL },
	FW_CLI_HEADING("\nOptions:"),
	{ "output", 'o', true, "OUT",
	  "the file to write (required)", NULL },
	{ "format", 'f', false, "F",
	  "fwimage (default); bin: the bytes from the lowest to\n"
	  "the highest address, gaps zero (as objcopy -O\n"
	  "binary); ihex-bin: the kernel's binary ihex records;\n"
	  "hex: Intel HEX text; ihex2fw: ihex-bin with a record\n"
	  "per data record of the one --from-hex FILE, in its\n"
	  "order, as the kernel's ihex2fw (without -s) writes it;\n"
	  "cis: the one --from-cis FILE packed as pack_cis packs\n"
	  "it (at most 512 bytes)", NULL },
	{ "version", 'v', false, "V",
	  "firmware version in the fwimage header (default 0)", NULL },
	{ "entry", 'e', false, "ADDR",
	  "entry point; default the ELF's or HEX's own, else 0", NULL },
	{ "record-size", 'n', false, "N",
	  "bytes per ihex-bin or hex record, 1-255 (default 16)", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist pack -o OUT [--format F] [--version V] [--entry ADDR] SECTION...\n"
		"       fwdist pack -o OUT --format cis --from-cis FILE\n"
		"\n"
		"Build a firmware image from sections, in the order given (see fwimage(5)),\n"
		"or a PCMCIA CIS from its text as cis-tools' pack_cis packs it.\n"
		"OUT is written atomically: on any error nothing is left at OUT.\n"
		"\n"
		"SECTION is one of:\n",
	.opts = opts,
	.foot = "\n"
		"ADDR, SIZE, V and N are decimal or 0x-prefixed hex.\n",
};

/* Strict number: decimal, or 0x and 1-16 hex digits; nothing else. */
static int number(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (n - 2 > 16)
			return -EINVAL;
		for (size_t i = 2; i < n; i++) {
			int h = ihex_hexval(s[i]);

			if (h < 0)
				return -EINVAL;
			v = v << 4 | (uint64_t)h;
		}
		*out = v;
		return 0;
	}
	if (n == 1 && s[0] == '0') {
		*out = 0;
		return 0;
	}
	return fw_parse_u64(s, n, out);
}

struct spec {
	int kind; /* the option letter */
	const char *arg;
};

struct opts {
	const char *out;
	enum fw_img_format fmt;
	uint64_t version, entry, recsize;
	bool has_entry, ihex2fw, cis_format, cis;
	bool image_opt; /* --version, --entry or --record-size given */
	struct spec *v;
	size_t n, cap;
};

static int option(void *ctx, int c, const char *arg)
{
	struct opts *o = ctx;

	switch (c) {
	case 'o':
		o->out = arg;
		return EXIT_OK;
	case 'f':
		if (strcmp(arg, "fwimage") == 0)
			o->fmt = FW_FMT_FWIMAGE;
		else if (strcmp(arg, "bin") == 0)
			o->fmt = FW_FMT_BIN;
		else if (strcmp(arg, "ihex-bin") == 0)
			o->fmt = FW_FMT_IHEXBIN;
		else if (strcmp(arg, "hex") == 0)
			o->fmt = FW_FMT_HEX;
		else if (strcmp(arg, "ihex2fw") == 0)
			o->ihex2fw = true;
		else if (strcmp(arg, "cis") == 0)
			o->cis_format = true;
		else
			return fw_usage("pack",
					"--format: '%s' is not fwimage, bin, ihex-bin, hex, ihex2fw or cis",
					arg);
		if (strcmp(arg, "ihex2fw") != 0)
			o->ihex2fw = false;
		if (strcmp(arg, "cis") != 0)
			o->cis_format = false;
		return EXIT_OK;
	case 'v':
		if (number(arg, strlen(arg), &o->version) < 0 || o->version > UINT32_MAX)
			return fw_usage("pack", "--version: '%s' is not a 32-bit number", arg);
		o->image_opt = true;
		return EXIT_OK;
	case 'e':
		if (number(arg, strlen(arg), &o->entry) < 0)
			return fw_usage("pack", "--entry: '%s' is not a number", arg);
		o->has_entry = o->image_opt = true;
		return EXIT_OK;
	case 'n':
		if (number(arg, strlen(arg), &o->recsize) < 0 || o->recsize < 1 || o->recsize > 255)
			return fw_usage("pack", "--record-size: '%s' is not 1-255", arg);
		o->image_opt = true;
		return EXIT_OK;
	case 'r':
	case 'b':
	case 'E':
	case 'H':
	case 'I':
	case 'C':
		if (fw_grow(&o->v, &o->cap, o->n, sizeof(*o->v)) < 0) {
			fw_err("out of memory");
			return EXIT_FINDING;
		}
		o->v[o->n++] = (struct spec){ c, arg };
		return EXIT_OK;
	}
	return EXIT_USAGE;
}

static int add_raw(struct fw_img *im, const char *arg, struct fw_diag *d)
{
	const char *c1 = strchr(arg, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	uint64_t addr;
	int type = 0;

	for (int t = FWIMAGE_TEXT; c1 && t <= FWIMAGE_DATA; t++)
		if (strlen(fwimage_type_name(t)) == (size_t)(c1 - arg) &&
		    strncmp(arg, fwimage_type_name(t), (size_t)(c1 - arg)) == 0)
			type = t;
	if (!c2 || !type || !c2[1] || number(c1 + 1, (size_t)(c2 - c1 - 1), &addr) < 0)
		return fw_usage("pack", "--raw: '%s' is not TYPE:ADDR:FILE (TYPE text, rodata or data)",
				arg);
	return fw_img_add_raw(im, type, addr, c2 + 1, d) < 0 ? EXIT_FINDING : EXIT_OK;
}

static int add_bss(struct fw_img *im, const char *arg)
{
	const char *c = strchr(arg, ':');
	uint64_t addr, size;

	if (!c || number(arg, (size_t)(c - arg), &addr) < 0 || number(c + 1, strlen(c + 1), &size) < 0 ||
	    size == 0 || addr + size - 1 < addr)
		return fw_usage("pack", "--bss: '%s' is not ADDR:SIZE (SIZE > 0, not wrapping)", arg);
	if (fw_img_add_bss(im, addr, size, "--bss") < 0) {
		fw_err("pack: too many sections or out of memory");
		return EXIT_FINDING;
	}
	return EXIT_OK;
}

int cmd_pack(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("pack");
	struct opts o = { .fmt = FW_FMT_FWIMAGE, .recsize = 16 };
	struct fw_diag d = { 0 };
	struct fw_img im = { 0 };
	uint8_t *out = NULL;
	size_t outlen;
	uint64_t entry;
	int ret, r;

	ret = fw_cli_parse(&cli, argc, argv, &help, option, &o);
	if (ret >= 0)
		goto out;
	if (!o.out) {
		ret = fw_usage("pack", "-o OUT is required");
		goto out;
	}
	if (!o.n) {
		ret = fw_usage("pack", "no section given (--raw, --bss, --from-elf, --from-hex, --from-ihex, "
				       "--from-cis)");
		goto out;
	}
	o.cis = o.cis_format;
	for (size_t i = 0; i < o.n; i++)
		o.cis |= o.v[i].kind == 'C';
	if (o.cis) {
		/* A CIS is tuples, not sections: one text, nothing beside it. */
		uint8_t cis[FW_CIS_MAX];

		if (!o.cis_format || o.n != 1 || o.v[0].kind != 'C' || o.image_opt) {
			ret = fw_usage("pack", "--format cis takes one --from-cis FILE and nothing else "
				       "(no --version, --entry or --record-size)");
			goto out;
		}
		r = fw_cis_pack_file(o.v[0].arg, cis, &outlen, &d);
		if (r == 0) {
			out = malloc(outlen);
			if (!out)
				r = -ENOMEM;
			else
				memcpy(out, cis, outlen);
		}
		goto write;
	}
	if (o.ihex2fw) {
		/* The records as the text has them: no sections, no layout. */
		if (o.n != 1 || o.v[0].kind != 'H') {
			ret = fw_usage("pack", "--format ihex2fw takes one --from-hex FILE and nothing else");
			goto out;
		}
		r = fw_img_hex_records(o.v[0].arg, &out, &outlen, &d);
		goto write;
	}
	ret = EXIT_OK;
	for (size_t i = 0; i < o.n && ret == EXIT_OK; i++) {
		const char *a = o.v[i].arg;

		switch (o.v[i].kind) {
		case 'r': ret = add_raw(&im, a, &d); break;
		case 'b': ret = add_bss(&im, a); break;
		case 'E': ret = fw_img_add_elf(&im, a, &d) < 0 ? EXIT_FINDING : EXIT_OK; break;
		case 'H': ret = fw_img_add_hex(&im, a, &d) < 0 ? EXIT_FINDING : EXIT_OK; break;
		case 'I': ret = fw_img_add_ihexbin(&im, a, &d) < 0 ? EXIT_FINDING : EXIT_OK; break;
		}
	}
	if (ret == EXIT_OK && fw_img_check(&im, o.out, &d) < 0)
		ret = EXIT_FINDING;
	if (ret != EXIT_OK)
		goto fail;
	entry = o.entry;
	if (!o.has_entry && im.entries > 1) {
		fw_err("pack: %u inputs give an entry point; choose one with --entry", im.entries);
		ret = EXIT_USAGE;
		goto fail;
	}
	if (!o.has_entry && im.has_entry)
		entry = im.entry;
	r = fw_img_render(&im, o.fmt, (uint32_t)o.version, entry, (unsigned)o.recsize, &out, &outlen,
			  o.out, &d);
write:
	if (r == 0) {
		r = fw_image_write_path(o.out, out, outlen);
		if (r < 0)
			fw_diag_add(&d, o.out, 0, "cannot write: %s", strerror(-r));
	} else if (r != -EINVAL) {
		fw_diag_add(&d, o.out, 0, "%s", strerror(-r));
	}
	ret = r == 0 ? EXIT_OK : EXIT_FINDING;
fail:
	fw_print_diag(&d);
	if (ret == EXIT_FINDING)
		fw_err("pack: %s not written", o.out);
out:
	free(out);
	free(o.v);
	fw_img_free(&im);
	fw_diag_free(&d);
	fw_cli_free(&cli);
	return ret;
}
