/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist install: verify and install the tree (or part of it) into a firmware directory. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fwdist.h"
#include "install.h"
#include "kconfig.h"
#include "util.h"

static void help(void)
{
	printf("Usage: fwdist [-C DIR] install [OPTIONS]\n"
	       "\n"
	       "Install the tree's blobs and links into DESTDIR/FIRMWAREDIR. Each blob is\n"
	       "hashed while it is copied into a temporary file beside its final name and\n"
	       "renamed into place only if it matches manifests/checksums; a mismatch\n"
	       "leaves the old file untouched, names the blob and exits 1. Nothing is\n"
	       "followed or written outside the destination. Undistributable blobs are\n"
	       "never installed. The tree must pass the model checks of `fwdist check`.\n"
	       "The licence texts the installed blobs need go to LICENSES/<package>/, and\n"
	       "a record of what was installed to .fwdist/<package>.list: upgrades remove\n"
	       "what the record has and the tree no longer does, switch files, links and\n"
	       "directories atomically, and never replace what fwdist did not install.\n"
	       "A blob the record lists with its content, whose installed bytes still\n"
	       "hash to it, is not rewritten.\n"
	       "\n"
	       "  --destdir DIR         staging root (default: $DESTDIR, else none)\n"
	       "  --firmware-dir DIR    firmware directory below it (default /lib/firmware)\n"
	       "  --compress=none|xz|zstd|auto\n"
	       "                        xz uses the CRC32 check the kernel requires; zstd\n"
	       "                        frames carry their size. RawFile: is never compressed;\n"
	       "                        links point at the compressed name. auto: what the\n"
	       "                        target kernel's config loads (zstd, else xz, else none)\n"
	       "  --kernel-config FILE  the target kernel's config (default for auto:\n"
	       "                        /boot/config-$(uname -r)); xz or zstd it cannot load\n"
	       "                        is refused\n"
	       "  --kernel-release R    use /boot/config-R\n"
	       "  --dedup               identical blobs of one package become relative\n"
	       "                        symlinks to one copy (from the manifest's digests)\n"
	       "  --package NAME        only this package of manifests/packages (repeatable)\n"
	       "  --select FILE         only these request names or shell globs, one a line\n"
	       "                        (# comments); a link brings its target\n"
	       "  --no-licenses         do not install the licence texts\n"
	       "  --force               replace files and directories fwdist did not install,\n"
	       "                        and compress as asked whatever the kernel config says\n"
	       "  -j, --jobs N          worker threads (default: one per CPU)\n"
	       "  -q, --quiet           no progress line and no summary\n");
}

static void progress(void *ctx, size_t done, size_t total, uint64_t bytes)
{
	(void)ctx;
	fprintf(stderr, "\rinstalling: %zu/%zu blobs, %.1f MB", done, total, (double)bytes / 1e6);
	if (done == total)
		fputc('\n', stderr);
}

/* --compress=auto and the check of an explicit xz/zstd against the kernel. */
static int kernel_compression(const char *config, const char *release, bool autosel,
			      bool force, enum fw_compress *comp)
{
	struct fw_kconfig k;
	struct fw_diag d = { 0 };
	char *path = NULL;
	int r;

	if (!config && !release && !autosel)
		return EXIT_OK; /* nothing says which kernel: staging builds */
	if (!config) {
		struct utsname u;

		if (!release) {
			if (uname(&u) < 0) {
				fw_err("install: uname: %s", strerror(errno));
				return EXIT_FINDING;
			}
			release = u.release;
		}
		path = fw_asprintf("/boot/config-%s", release);
		if (!path) {
			fw_err("out of memory");
			return EXIT_FINDING;
		}
		config = path;
	}
	r = fw_kconfig_load(&k, config);
	if (r < 0) {
		fw_err("install: %s: cannot read the kernel config: %s", config, strerror(-r));
		free(path);
		return EXIT_FINDING;
	}
	r = EXIT_OK;
	if (autosel) {
		*comp = fw_kconfig_best(&k);
	} else if (!fw_kconfig_accepts(&k, *comp) && !force) {
		fw_kconfig_explain(&k, *comp, &d);
		fw_print_diag(&d);
		fw_err("install: --compress=%s refused for this kernel (--force overrides)",
		       fw_compress_name(*comp));
		r = EXIT_FINDING;
	}
	fw_diag_free(&d);
	fw_kconfig_free(&k);
	free(path);
	return r;
}

int cmd_install(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "destdir", required_argument, NULL, 'd' },
		{ "firmware-dir", required_argument, NULL, 'f' },
		{ "compress", required_argument, NULL, 'c' },
		{ "kernel-config", required_argument, NULL, 'K' },
		{ "kernel-release", required_argument, NULL, 'R' },
		{ "dedup", no_argument, NULL, 'D' },
		{ "package", required_argument, NULL, 'p' },
		{ "select", required_argument, NULL, 's' },
		{ "no-licenses", no_argument, NULL, 'L' },
		{ "force", no_argument, NULL, 'F' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fw_cli_dest dest = FW_CLI_DEST_INIT;
	const char *failed_at;
	const char *kconfig = NULL, *krelease = NULL;
	struct fw_cli_select cs = { 0 };
	struct fw_install_opts o = { .comp = FW_COMP_NONE };
	struct fw_install_result res;
	struct fw_diag d = { 0 };
	struct fw_tree t;
	bool quiet = false, autosel = false;
	int c, r, destfd = -1, ret = EXIT_FINDING;

	while ((c = getopt_long(argc, argv, "+hj:q", opts, NULL)) != -1) {
		int k = fw_cli_dest_opt(c, optarg, &dest, &cs);

		if (k < 0) {
			fw_cli_select_free(&cs);
			return EXIT_FINDING;
		}
		if (k > 0)
			continue;
		switch (c) {
		case 'c':
			autosel = strcmp(optarg, "auto") == 0;
			if (!autosel && fw_compress_parse(optarg, &o.comp) < 0) {
				fw_cli_select_free(&cs);
				return fw_usage("install",
						"--compress takes none, xz, zstd or auto, not '%s'", optarg);
			}
			break;
		case 'K':
			kconfig = optarg;
			break;
		case 'R':
			krelease = optarg;
			break;
		case 'D':
			o.dedup = true;
			break;
		case 's':
			cs.file = optarg;
			break;
		case 'L':
			o.no_licences = true;
			break;
		case 'F':
			o.force = true;
			break;
		case 'j': {
			char *end;
			long n = strtol(optarg, &end, 10);

			if (*end || n < 1 || n > 64) {
				fw_cli_select_free(&cs);
				return fw_usage("install", "--jobs takes a number from 1 to 64");
			}
			o.jobs = (unsigned)n;
			break;
		}
		case 'q':
			quiet = true;
			break;
		case 'h':
			fw_cli_select_free(&cs);
			help();
			return EXIT_OK;
		default:
			fw_cli_select_free(&cs);
			return fw_usage("install", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc) {
		fw_cli_select_free(&cs);
		return fw_usage("install", "unexpected argument '%s'", argv[optind]);
	}
	if (kconfig && krelease) {
		fw_cli_select_free(&cs);
		return fw_usage("install", "--kernel-config and --kernel-release exclude each other");
	}
	ret = kernel_compression(kconfig, krelease, autosel, o.force, &o.comp);
	if (ret != EXIT_OK) {
		fw_cli_select_free(&cs);
		return ret;
	}
	ret = EXIT_FINDING;
	ret = fw_cli_prepare(&t, &d, &cs, "install", "nothing installed");
	if (ret != EXIT_OK)
		goto out;
	ret = EXIT_FINDING;
	o.sel = cs.sel;
	destfd = fw_install_open_dest(dest.destdir, dest.fwdir, &failed_at);
	if (destfd < 0) {
		fw_err("install: %s: %s", failed_at ? failed_at : dest.fwdir,
		       destfd == -ELOOP ? "a symlink is in the way; refusing to follow it" :
		       strerror(-destfd));
		goto out;
	}
	if (!quiet && isatty(STDERR_FILENO))
		o.progress = progress;
	r = fw_install(&t, destfd, &o, &res, &d);
	fw_print_diag(&d);
	if (r < 0) {
		fw_err("install: %s", strerror(-r));
		goto out;
	}
	if (!quiet) {
		printf("install: %zu blob%s (%s), %zu link%s, %zu dedup link%s, %zu licence%s",
		       res.blobs, res.blobs == 1 ? "" : "s", fw_compress_name(o.comp), res.links,
		       res.links == 1 ? "" : "s", res.dedup_links, res.dedup_links == 1 ? "" : "s",
		       res.licences, res.licences == 1 ? "" : "s");
		if (res.unchanged)
			printf("; %zu unchanged", res.unchanged);
		if (res.removed)
			printf("; removed %zu old name%s", res.removed, res.removed == 1 ? "" : "s");
		printf("%s\n", res.failed ? "; failed: see above" : "");
	}
	if (res.failed) {
		fw_err("install: %zu not installed", res.failed);
		goto out;
	}
	ret = EXIT_OK;
out:
	if (destfd >= 0)
		close(destfd);
	fw_cli_select_free(&cs);
	fw_diag_free(&d);
	fw_tree_free(&t);
	return ret;
}
