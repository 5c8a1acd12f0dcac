/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist info: describe firmware images: fwimage(5), Intel HEX, binary ihex, the tg3 header. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "fwdist.h"
#include "image.h"
#include "util.h"

static const struct fw_cli_opt opts[] = {
	{ "format", 'f', false, "F",
	  "read every FILE as F (fwimage, ihex, ihex-bin, tg3) instead\n"
	  "of recognising it", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist info [--format F] FILE...\n"
		"\n"
		"Describe each FILE: a fwimage(5) (header, sections, SHA-256 checked), Intel\n"
		"HEX text (records checked), the kernel's binary ihex records (.fw files of\n"
		"the EZ-USB and 8051 drivers), or a tg3 header (three big-endian u32:\n"
		"version, start address, length including bss; length 0xffffffff: the\n"
		"fragmented 57766 form; recognised for names starting with tg3, as the\n"
		"driver requests them, since the header has no magic). Anything else is\n"
		"'unknown', which is no error.\n"
		"A malformed image, or a tg3 length that disagrees with the file size, is\n"
		"a finding (exit 1).\n"
		"\n",
	.opts = opts,
};

static int option(void *ctx, int c, const char *arg)
{
	int *f = ctx, k;

	if (c != 'f')
		return EXIT_USAGE;
	k = fw_blob_format_parse(arg, strlen(arg));
	if (k < 0)
		return fw_usage("info", "--format: '%s' is not fwimage, ihex, ihex-bin or tg3", arg);
	*f = k;
	return EXIT_OK;
}

static const char *flags_str(uint32_t f)
{
	static char s[4];

	s[0] = f & FWIMAGE_F_R ? 'r' : '-';
	s[1] = f & FWIMAGE_F_W ? 'w' : '-';
	s[2] = f & FWIMAGE_F_X ? 'x' : '-';
	return s;
}

static void describe(const char *file, enum fw_blob_format f, const uint8_t *buf, size_t len)
{
	switch (f) {
	case FW_BF_FWIMAGE: {
		struct fwimage img;

		fwimage_parse(&img, buf, len, NULL, NULL);
		printf("%s: fwimage v%u, firmware version 0x%08x, entry 0x%llx, %u sections, %zu bytes, SHA-256 ok\n",
		       file, img.version, img.fw_version, (unsigned long long)img.entry, img.nsections, len);
		for (unsigned i = 0; i < img.nsections; i++) {
			struct fwimage_section s;

			fwimage_section(&img, i, &s);
			printf("  %u %-6s %s addr 0x%08llx size %llu memsz %llu offset %llu\n", i,
			       fwimage_type_name(s.type), flags_str(s.flags), (unsigned long long)s.addr,
			       (unsigned long long)s.size, (unsigned long long)s.memsz,
			       (unsigned long long)s.offset);
		}
		break;
	}
	case FW_BF_IHEX: {
		struct ihex_run runs[16];
		struct ihex_info info;
		struct ihex_err err;
		uint64_t total = 0;
		int more = ihex_scan((const char *)buf, len, runs, 16, &info, &err) == IHEX_ERUNS;

		printf("%s: Intel HEX, %u data records", file, info.records);
		if (more) {
			printf(", more than 16 runs\n");
			break;
		}
		for (size_t i = 0; i < info.nruns; i++)
			total += runs[i].len;
		printf(", %llu bytes in %zu runs", (unsigned long long)total, info.nruns);
		if (info.has_start)
			printf(", start 0x%08x", info.start);
		printf("\n");
		for (size_t i = 0; i < info.nruns; i++)
			printf("  0x%08x-0x%08x %u bytes\n", runs[i].addr, runs[i].addr + runs[i].len - 1,
			       runs[i].len);
		break;
	}
	case FW_BF_IHEXBIN: {
		struct ihex_binrec rec;
		size_t off = 0;
		unsigned n = 0;
		uint64_t total = 0, lo = UINT64_MAX, hi = 0;

		while (ihex_bin_next(buf, len, &off, &rec, NULL) == 1) {
			n++;
			total += rec.len;
			if (rec.addr < lo)
				lo = rec.addr;
			if ((uint64_t)rec.addr + rec.len > hi)
				hi = (uint64_t)rec.addr + rec.len;
		}
		printf("%s: binary ihex, %u records, %llu data bytes, addresses 0x%04llx-0x%04llx, end record at byte %zu\n",
		       file, n, (unsigned long long)total, (unsigned long long)lo,
		       (unsigned long long)(hi - 1), len - IHEX_BIN_HDR);
		break;
	}
	case FW_BF_TG3: {
		struct fwimage_tg3 t;

		fwimage_tg3_parse(&t, buf, len);
		if (t.len == FWIMAGE_TG3_FRAGMENTED)
			printf("%s: tg3 57766 fragmented, version 0x%08x, start 0x%08x, %u fragments, %llu bytes after the header: %s\n",
			       file, t.version, t.start, t.fragments, (unsigned long long)t.payload,
			       t.consistent ? "consistent" : "INCONSISTENT");
		else
			printf("%s: tg3, version 0x%08x, start 0x%08x, length %u (payload %llu, bss %lld): %s\n",
			       file, t.version, t.start, t.len, (unsigned long long)t.payload,
			       (long long)t.len - (long long)t.payload,
			       t.consistent ? "consistent" : "INCONSISTENT");
		break;
	}
	case FW_BF_UNKNOWN:
		printf("%s: unknown\n", file);
		break;
	}
}

int cmd_info(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("info");
	int forced = -1, ret;

	cli.max_args = (size_t)-1;
	ret = fw_cli_parse(&cli, argc, argv, &help, option, &forced);
	if (ret >= 0)
		goto out;
	if (!cli.nargs) {
		ret = fw_usage("info", "no FILE given");
		goto out;
	}
	ret = EXIT_OK;
	for (size_t i = 0; i < cli.nargs; i++) {
		const char *file = cli.args[i];
		struct fw_diag d = { 0 };
		enum fw_blob_format f;
		uint8_t *buf;
		size_t len;
		int r = fw_read_file(file, FW_IMAGE_MAX, &buf, &len);

		if (r < 0) {
			fw_err("%s: cannot read: %s", file, r == -EINVAL ? "not a regular file" : strerror(-r));
			ret = EXIT_FINDING;
			continue;
		}
		f = forced >= 0 ? (enum fw_blob_format)forced : fw_image_detect(file, buf, len);
		/* A tg3 file whose length disagrees is still described: that is
		 * the finding, and it is printed with the numbers. */
		if (f != FW_BF_UNKNOWN && fw_image_validate(f, buf, len, file, &d) &&
		    !(f == FW_BF_TG3 && len >= FWIMAGE_TG3_HDR)) {
			fw_print_diag(&d);
			ret = EXIT_FINDING;
		} else {
			describe(file, f, buf, len);
			if (d.n)
				ret = EXIT_FINDING;
		}
		fw_diag_free(&d);
		free(buf);
	}
out:
	fw_cli_free(&cli);
	return ret;
}
