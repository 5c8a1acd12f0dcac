/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist unpack: write the sections of a fwimage(5) back out as files, bit-exact. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "fwdist.h"
#include "image.h"
#include "util.h"

static const struct fw_cli_opt opts[] = {
	{ "output", 'o', true, "DIR",
	  "the directory to write into (required)", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist unpack -o DIR IMAGE\n"
		"\n"
		"Check IMAGE (a fwimage(5): layout, bounds, overlaps, SHA-256) and write\n"
		"each section that holds bytes to DIR/N-TYPE-ADDR.bin, exactly the bytes\n"
		"packed. DIR is created if missing; no file in it is replaced. Prints one\n"
		"line per section, as pack takes it back:\n"
		"  --raw TYPE:ADDR:DIR/N-TYPE-ADDR.bin    or    --bss ADDR:SIZE\n"
		"after a first line '--version V --entry ADDR'. Nothing is written unless\n"
		"the whole image is valid; a failed write removes what was written.\n"
		"\n",
	.opts = opts,
};

static int option(void *ctx, int c, const char *arg)
{
	if (c != 'o')
		return EXIT_USAGE;
	*(const char **)ctx = arg;
	return EXIT_OK;
}

int cmd_unpack(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("unpack");
	const char *dir = NULL, *in;
	struct fw_diag d = { 0 };
	struct fwimage img;
	struct fwimage_err err;
	char names[FWIMAGE_MAX_SECTIONS][64];
	unsigned written = 0;
	uint8_t *buf = NULL;
	size_t len;
	int ret, dfd = -1, r;

	cli.max_args = 1;
	ret = fw_cli_parse(&cli, argc, argv, &help, option, &dir);
	if (ret >= 0)
		goto out;
	if (!dir || cli.nargs != 1) {
		ret = fw_usage("unpack", "usage: fwdist unpack -o DIR IMAGE");
		goto out;
	}
	in = cli.args[0];
	ret = EXIT_FINDING;
	r = fw_read_file(in, FW_IMAGE_MAX, &buf, &len);
	if (r < 0) {
		fw_err("%s: cannot read: %s", in, r == -EINVAL ? "not a regular file" : strerror(-r));
		goto out;
	}
	if (fwimage_parse(&img, buf, len, fw_image_sha256, &err) != FWIMAGE_OK) {
		fw_image_validate(FW_BF_FWIMAGE, buf, len, in, &d);
		fw_print_diag(&d);
		fw_err("unpack: nothing written");
		goto out;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fw_err("%s: cannot create: %s", dir, strerror(errno));
		goto out;
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		fw_err("%s: cannot open: %s", dir, strerror(errno));
		goto out;
	}
	for (unsigned i = 0; i < img.nsections; i++) {
		struct fwimage_section s;

		fwimage_section(&img, i, &s);
		if (!s.size)
			continue;
		snprintf(names[i], sizeof(names[i]), "%u-%s-%08llx.bin", i, fwimage_type_name(s.type),
			 (unsigned long long)s.addr);
		/* Never replace: an existing name is an error, so unpacking
		 * into a directory cannot clobber what it holds. */
		if (faccessat(dfd, names[i], F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			r = -EEXIST;
		else
			r = fw_write_atomic(dfd, names[i], s.data, s.size, 0644);
		if (r < 0) {
			fw_err("%s/%s: cannot write: %s", dir, names[i], strerror(-r));
			for (unsigned j = 0; j < i; j++) {
				struct fwimage_section o;

				fwimage_section(&img, j, &o);
				if (o.size)
					unlinkat(dfd, names[j], 0);
			}
			fw_err("unpack: nothing written");
			goto out;
		}
		written++;
	}
	printf("--version 0x%08x --entry 0x%llx\n", img.fw_version, (unsigned long long)img.entry);
	for (unsigned i = 0; i < img.nsections; i++) {
		struct fwimage_section s;

		fwimage_section(&img, i, &s);
		if (s.size)
			printf("--raw %s:0x%llx:%s/%s\n", fwimage_type_name(s.type),
			       (unsigned long long)s.addr, dir, names[i]);
		else
			printf("--bss 0x%llx:%llu\n", (unsigned long long)s.addr,
			       (unsigned long long)s.memsz);
	}
	(void)written;
	ret = EXIT_OK;
out:
	if (dfd >= 0)
		close(dfd);
	free(buf);
	fw_diag_free(&d);
	fw_cli_free(&cli);
	return ret;
}
