/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist sbom: a CycloneDX or SPDX bill of materials of what an install of the tree ships. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fwdist.h"
#include "plan.h"
#include "sbom.h"
#include "util.h"

static const struct fw_cli_opt opts[] = {
	{ "format", 'f', false, "F",
	  "cyclonedx (default) or spdx", NULL },
	{ "package", FW_OPT_PACKAGE, false, "P",
	  "only package P of manifests/packages (repeatable)", NULL },
	{ "select", FW_OPT_SELECT, false, "FILE",
	  "only the names a selection file selects (as for install)", NULL },
	{ "output", 'o', true, "FILE",
	  "write FILE (atomically) instead of standard output", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist [-C DIR] sbom [--format cyclonedx|spdx] [--package P] [--select FILE]\n"
		"                            [-o FILE]\n"
		"\n"
		"Write a software bill of materials of what an install of the tree (or of a\n"
		"package or selection) ships: every blob with its SHA-1, SHA-256 and SPDX\n"
		"licence expression, grouped by binary package. CycloneDX 1.6 JSON: one\n"
		"\"firmware\" component per package holding one per blob. SPDX 2.3\n"
		"tag-value: one Package per binary package, one File per blob, and the text\n"
		"of every LicenseRef-* licence. Each blob is read and must still match\n"
		"manifests/checksums. The output is the same byte for byte on every run:\n"
		"its serial number is derived from its content, and it carries a time only\n"
		"from SOURCE_DATE_EPOCH (SPDX, which requires one, has the epoch otherwise).\n"
		"A tree with findings (see check) gets no SBOM.\n"
		"\n",
	.opts = opts,
};

struct opts {
	struct fw_sbom_opts so;
	const char *output;
};

static int option(void *ctx, int c, const char *arg)
{
	struct opts *o = ctx;

	switch (c) {
	case 'f':
		if (fw_sbom_format_parse(arg, &o->so.format) < 0)
			return fw_usage("sbom", "--format takes cyclonedx or spdx, not '%s'", arg);
		return EXIT_OK;
	case 'o':
		o->output = arg;
		return EXIT_OK;
	}
	return EXIT_USAGE;
}

/* SOURCE_DATE_EPOCH (reproducible-builds.org): decimal seconds, as UTC. */
static int source_date(char *buf, size_t len, const char **out)
{
	const char *s = getenv("SOURCE_DATE_EPOCH");
	uint64_t v;
	time_t tt;
	struct tm tm;

	*out = NULL;
	if (!s)
		return EXIT_OK;
	if (fw_parse_u64(s, strlen(s), &v) < 0 || v > 253402300799ull) {
		fw_err("sbom: SOURCE_DATE_EPOCH '%s' is not seconds since 1970 (up to year 9999)",
		       fw_esc(s));
		return EXIT_USAGE;
	}
	tt = (time_t)v;
	if (!gmtime_r(&tt, &tm) || strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) {
		fw_err("sbom: SOURCE_DATE_EPOCH '%s' out of range", fw_esc(s));
		return EXIT_USAGE;
	}
	*out = buf;
	return EXIT_OK;
}

int cmd_sbom(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("sbom");
	struct opts o = { .so = { .format = FW_SBOM_CYCLONEDX, .tool_version = FWDIST_VERSION } };
	struct fw_diag d = { 0 };
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	struct fw_plan p = { 0 };
	bool have_plan = false;
	char date[32], *buf = NULL;
	size_t len = 0;
	FILE *mem = NULL;
	int ret, r;

	ret = fw_cli_parse(&cli, argc, argv, &help, option, &o);
	if (ret >= 0)
		goto out;
	if (o.output && !*o.output) {
		ret = fw_usage("sbom", "-o takes a file name");
		goto out;
	}
	ret = source_date(date, sizeof(date), &o.so.created);
	if (ret != EXIT_OK)
		goto out;
	ret = fw_cli_prepare(&cli, &t, &d, "no SBOM written");
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_FINDING;
	r = fw_plan_build(&p, &t, &(struct fw_plan_opts){ .sel = cli.sel, .comp = FW_COMP_NONE }, &d);
	have_plan = r == 0;
	if (r < 0) {
		fw_err("sbom: %s", strerror(-r));
		goto out;
	}
	if (d.n) {
		fw_print_diag(&d);
		fw_err("sbom: no SBOM written");
		goto out;
	}
	mem = open_memstream(&buf, &len);
	if (!mem) {
		fw_err("sbom: %s", strerror(errno));
		goto out;
	}
	r = fw_sbom_write(mem, &p, &o.so, &d);
	if (fw_memstream_close(mem, &buf) < 0 && r == 0)
		r = -errno;
	mem = NULL;
	if (r < 0) {
		fw_print_diag(&d);
		if (r != -EINVAL || !d.n)
			fw_err("sbom: %s", strerror(-r));
		else
			fw_err("sbom: no SBOM written");
		goto out;
	}
	ret = fw_cli_emit("sbom", o.output, buf, len);
out:
	free(buf);
	if (have_plan)
		fw_plan_free(&p);
	fw_cli_free(&cli);
	fw_diag_free(&d);
	fw_tree_free(&t);
	return ret;
}
