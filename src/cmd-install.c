/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist install: verify and install the tree (or some packages of it) into a firmware directory. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fwdist.h"
#include "install.h"
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
	       "\n"
	       "  --destdir DIR         staging root (default: $DESTDIR, else none)\n"
	       "  --firmware-dir DIR    firmware directory below it (default /lib/firmware)\n"
	       "  --compress=none|xz|zstd\n"
	       "                        xz uses the CRC32 check the kernel requires; zstd\n"
	       "                        frames carry their size. RawFile: is never compressed;\n"
	       "                        links point at the compressed name.\n"
	       "  --dedup               identical blobs of one package become relative\n"
	       "                        symlinks to one copy (from the manifest's digests)\n"
	       "  --package NAME        only this package of manifests/packages (repeatable)\n"
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

int cmd_install(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "destdir", required_argument, NULL, 'd' },
		{ "firmware-dir", required_argument, NULL, 'f' },
		{ "compress", required_argument, NULL, 'c' },
		{ "dedup", no_argument, NULL, 'D' },
		{ "package", required_argument, NULL, 'p' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *destdir = getenv("DESTDIR"), *fwdir = "/lib/firmware", *failed_at;
	const char **pkgs = NULL;
	size_t npkgs = 0;
	struct fw_install_opts o = { .comp = FW_COMP_NONE };
	struct fw_install_result res;
	struct fw_diag d = { 0 };
	struct fw_tree t;
	bool *sel = NULL, quiet = false;
	int c, r, destfd = -1, ret = EXIT_FINDING;

	while ((c = getopt_long(argc, argv, "+hj:q", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			destdir = optarg;
			break;
		case 'f':
			fwdir = optarg;
			break;
		case 'c':
			if (fw_compress_parse(optarg, &o.comp) < 0) {
				free(pkgs);
				return fw_usage("install", "--compress takes none, xz or zstd, not '%s'",
						optarg);
			}
			break;
		case 'D':
			o.dedup = true;
			break;
		case 'p': {
			const char **np = realloc(pkgs, (npkgs + 1) * sizeof(*np));

			if (!np) {
				free(pkgs);
				fw_err("out of memory");
				return EXIT_FINDING;
			}
			pkgs = np;
			pkgs[npkgs++] = optarg;
			break;
		}
		case 'j': {
			char *end;
			long n = strtol(optarg, &end, 10);

			if (*end || n < 1 || n > 64) {
				free(pkgs);
				return fw_usage("install", "--jobs takes a number from 1 to 64");
			}
			o.jobs = (unsigned)n;
			break;
		}
		case 'q':
			quiet = true;
			break;
		case 'h':
			free(pkgs);
			help();
			return EXIT_OK;
		default:
			free(pkgs);
			return fw_usage("install", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc) {
		free(pkgs);
		return fw_usage("install", "unexpected argument '%s'", argv[optind]);
	}
	if (fw_load_tree(&t, &d) != EXIT_OK) {
		free(pkgs);
		fw_diag_free(&d);
		return EXIT_FINDING;
	}
	fw_tree_check_model(&t, &d);
	if (d.n || d.nomem) {
		fw_print_diag(&d);
		fw_err("install: the tree has %zu finding%s; nothing installed", d.n,
		       d.n == 1 ? "" : "s");
		goto out;
	}
	if (npkgs) {
		sel = calloc(t.split.npkgs + 1, sizeof(*sel));
		if (!sel) {
			fw_err("out of memory");
			goto out;
		}
		for (size_t i = 0; i < npkgs; i++) {
			int p = fw_split_find(&t.split, pkgs[i]);

			if (p < 0) {
				ret = fw_usage("install", "no package '%s' in %s", fw_esc(pkgs[i]),
					       FW_TREE_SPLIT);
				goto out;
			}
			sel[p] = true;
		}
		o.pkg_selected = sel;
	}
	destfd = fw_install_open_dest(destdir, fwdir, &failed_at);
	if (destfd < 0) {
		fw_err("install: %s: %s", failed_at ? failed_at : fwdir,
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
	if (!quiet)
		printf("install: %zu blob%s (%s), %zu link%s, %zu dedup link%s%s%s\n", res.blobs,
		       res.blobs == 1 ? "" : "s", fw_compress_name(o.comp), res.links,
		       res.links == 1 ? "" : "s", res.dedup_links, res.dedup_links == 1 ? "" : "s",
		       res.failed ? "; failed: " : "", res.failed ? "see above" : "");
	if (res.failed) {
		fw_err("install: %zu not installed", res.failed);
		goto out;
	}
	ret = EXIT_OK;
out:
	if (destfd >= 0)
		close(destfd);
	free(sel);
	free(pkgs);
	fw_diag_free(&d);
	fw_tree_free(&t);
	return ret;
}
