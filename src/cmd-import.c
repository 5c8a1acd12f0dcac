/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist import: take an upstream linux-firmware tree (or an installed one) into this layout. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fwdist.h"
#include "import.h"
#include "progress.h"
#include "util.h"

static const struct fw_cli_opt opts[] = {
	{ "into", 'i', false, "DIR",
	  "the tree to write (required)", NULL },
	{ "adopt", 'A', false, NULL,
	  "DIR need not be empty, an import or an fwdist tree: the\n"
	  "tree's parts are written into it, and what stood in\n"
	  "their way is kept in DIR/fwdist-replaced.N", NULL },
	{ "allow-missing", 'a', false, NULL,
	  "accepted for scripts and changes nothing: listed\n"
	  "files absent from SRC are always refused by name\n"
	  "and the rest imported", NULL },
	{ "licence-dir", 'L', false, "D",
	  "look for licence texts in D too (repeatable), e.g.\n"
	  "/usr/share/common-licenses for GPL-2", "license-dir" },
	{ "link", 'l', false, NULL,
	  "hard-link blobs instead of copying them where possible", NULL },
	{ "map", 'm', false, "FILE",
	  "the licence map to classify with", NULL },
	{ "no-whence", 'n', false, NULL,
	  "SRC is an installed tree (or an unpacked package root\n"
	  "holding lib/firmware): every file a File:, every\n"
	  "symlink a Link:", NULL },
	{ "debian-copyright", 'd', false, NULL,
	  "with --no-whence: licences from the DEP-5 files\n"
	  "usr/share/doc/<package>/copyright found in SRC, and\n"
	  "each package (usr/share/metainfo/<package>\n"
	  ".metainfo.xml) a package of the split", NULL },
	{ "vouch", 'v', false, NULL,
	  "with --no-whence: the files no licence information\n"
	  "covers are non-free under LicenseRef-fwdist-vouched\n"
	  "(you vouch for them; without it they are refused),\n"
	  "so that a tree you have can be checksummed and verified", NULL },
	{ "release", 'r', false, "DATE",
	  "the upstream release, YYYYMMDD (default: SRC's git tag\n"
	  "when it is 8 digits, else the last 8-digit run of SRC's\n"
	  "name), recorded in manifests/imported: the firmware\n"
	  "packages' version is RELEASE+fwdistN", NULL },
	{ "split-template", 'S', false, "FILE",
	  "propose the split from FILE's manifests/packages\n"
	  "lines: those whose package takes a blob (default:\n"
	  "the checkout's debian/vendor-split at the first\n"
	  "import into a checkout); the split DIR has is not kept", NULL },
	{ "take-new-vendors", 'T', false, NULL,
	  "at a later import into a checkout: add the\n"
	  "debian/vendor-split lines of each package the\n"
	  "split lacks that would take blobs of its rest:yes\n"
	  "package, and a manifests/replaces line moving\n"
	  "those names (reported either way)", NULL },
	{ "quiet", FW_OPT_QUIET, true, NULL,
	  "no progress line (one is drawn on standard error\n"
	  "while the blobs are copied, when it is a terminal,\n"
	  "and cleared)", NULL },
	FW_CLI_END,
};

static const struct fw_cli_help help = {
	.head = "Usage: fwdist [-C DIR] import SRC --into DIR [--allow-missing] [--link]\n"
		"                     [--licence-dir D]... [--map FILE] [--adopt]\n"
		"                     [--split-template FILE] [--take-new-vendors]\n"
		"                     [--no-whence [--debian-copyright] [--vouch]] [-q]\n"
		"\n"
		"Read an upstream linux-firmware tree (its WHENCE, blobs, Source: files and\n"
		"licence files) and write firmware/, WHENCE, LICENSES/ and manifests/ of this\n"
		"layout into DIR, so that 'fwdist check' passes there. Every licence is\n"
		"classified through the licence map (by default manifests/licence-map of the\n"
		"tree, -C); what the map does not know is reported and its blobs refused,\n"
		"never guessed. Every licence text goes to LICENSES/<id>.txt, in UTF-8 (an\n"
		"ISO-8859-1 one converted), each file a wording names (\"See A and B\") with\n"
		"the blobs; manifests/preferred-form beside the map (blobs that are their own\n"
		"preferred form) is kept, and so are the recipes of manifests/build whose sources\n"
		"and outputs the release has (each other one named in the notes). The tree is\n"
		"built beside DIR and renamed into place; a tree\n"
		"already at DIR is replaced, and what changed is reported block by block.\n"
		"Only what an import wrote, or the parts of an fwdist tree (WHENCE,\n"
		"firmware/, manifests/, LICENSES/), is replaced: in a checkout of the\n"
		"repository everything else stays, and the split it has is kept, except at\n"
		"the first import into it: its split is the self-test tree's, and the split\n"
		"is proposed from its debian/vendor-split (packages by vendor, as Debian's).\n"
		"Elsewhere the split is firmware-free and firmware-nonfree unless\n"
		"--split-template. SRC itself, a directory inside it or one holding it is\n"
		"refused. The report opens with what was refused, per cause (licence text\n"
		"missing, licence unknown, undistributable verdict, file missing), with the\n"
		"step that admits it.\n"
		"\n",
	.opts = opts,
	.foot = "\n"
		"Listed files absent from SRC (Debian's orig tarballs exclude some) are\n"
		"refused by name and the rest is imported; --allow-missing is accepted and\n"
		"changes nothing. Exit 0 when DIR was written with every entry of SRC; 1 when\n"
		"nothing was written, or DIR was written with refusals (a listed file\n"
		"missing, a licence unknown, a text missing, an entry refused: each listed);\n"
		"2 for a usage error.\n",
};

struct opts {
	const char *into, *map, *split_template, *release;
	const char **dirs;
	size_t ndirs, cap_dirs;
	bool allow_missing, link, no_whence, debian_copyright, vouch, adopt, take_new_vendors;
};

static int option(void *ctx, int c, const char *arg)
{
	struct opts *o = ctx;

	switch (c) {
	case 'i':
		o->into = arg;
		return EXIT_OK;
	case 'm':
		o->map = arg;
		return EXIT_OK;
	case 'S':
		o->split_template = arg;
		return EXIT_OK;
	case 'r':
		if (!fw_release_valid(arg, strlen(arg)))
			return fw_usage("import", "--release %s: not a release date YYYYMMDD", arg);
		o->release = arg;
		return EXIT_OK;
	case 'a':
		o->allow_missing = true;
		return EXIT_OK;
	case 'l':
		o->link = true;
		return EXIT_OK;
	case 'n':
		o->no_whence = true;
		return EXIT_OK;
	case 'd':
		o->debian_copyright = true;
		return EXIT_OK;
	case 'v':
		o->vouch = true;
		return EXIT_OK;
	case 'A':
		o->adopt = true;
		return EXIT_OK;
	case 'T':
		o->take_new_vendors = true;
		return EXIT_OK;
	case 'L':
		if (fw_grow(&o->dirs, &o->cap_dirs, o->ndirs, sizeof(*o->dirs)) < 0) {
			fw_err("out of memory");
			return EXIT_FINDING;
		}
		o->dirs[o->ndirs++] = arg;
		return EXIT_OK;
	}
	return EXIT_USAGE;
}

/* SRC's release from git, when SRC is a git checkout (SRC/.git exists) whose
 * HEAD carries a tag of 8 digits: `git -C SRC describe --tags --exact-match`
 * (its errors, such as no tag, are not ours to print). 0 with out set, or
 * -ENOENT. */
static int release_from_git(const char *src, char out[9])
{
	char *dotgit = fw_asprintf("%s/.git", src), buf[64];
	char *const argv[] = { "git", "-C", (char *)src, "describe", "--tags", "--exact-match", NULL };
	posix_spawn_file_actions_t fa;
	struct stat st;
	int p[2], status, r = -ENOENT;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	if (!dotgit || lstat(dotgit, &st) < 0) {
		free(dotgit);
		return -ENOENT;
	}
	free(dotgit);
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "git", &fa, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		close(p[0]);
		close(p[1]);
		return -ENOENT;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	while (len < sizeof(buf) && (n = read(p[0], buf + len, sizeof(buf) - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		len += (size_t)n;
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && len == 9 && buf[8] == '\n' &&
	    fw_release_valid(buf, 8)) {
		memcpy(out, buf, 8);
		out[8] = '\0';
		r = 0;
	}
	return r;
}

static void section(const char *title, const struct fw_strv *s)
{
	if (!s->n)
		return;
	printf("%s (%zu):\n", title, s->n);
	for (size_t i = 0; i < s->n; i++)
		printf("  %s\n", s->v[i]);
}

int cmd_import(int argc, char **argv)
{
	struct fw_cli cli = FW_CLI_INIT("import");
	struct fw_progress counts = { 0 };
	struct opts o = { 0 };
	struct fw_import_opts io = { 0 };
	struct fw_import_report rep;
	struct fw_diag d = { 0 };
	char *map = NULL, *pref = NULL, *recipes = NULL, release[9] = "";
	const char *release_from = NULL;
	int ret, r;

	cli.max_args = 1;
	ret = fw_cli_parse(&cli, argc, argv, &help, option, &o);
	if (ret >= 0)
		goto out;
	if (cli.nargs != 1) {
		ret = fw_usage("import", "which upstream tree? (import SRC --into DIR)");
		goto out;
	}
	if (!o.into) {
		ret = fw_usage("import", "--into DIR is required");
		goto out;
	}
	map = o.map ? strdup(o.map) : fw_asprintf("%s/%s", fw_tree_root, FW_TREE_LICMAP);
	if (!map) {
		fw_err("out of memory");
		ret = EXIT_FINDING;
		goto out;
	}
	/* The preferred-form manifest beside the map: the tree's, or the one
	 * that goes with --map FILE. */
	{
		const char *sl = strrchr(map, '/');

		pref = sl ? fw_asprintf("%.*s/preferred-form", (int)(sl - map), map) :
			    strdup("preferred-form");
		recipes = sl ? fw_asprintf("%.*s/build", (int)(sl - map), map) : strdup("build");
		if (!pref || !recipes) {
			fw_err("out of memory");
			ret = EXIT_FINDING;
			goto out;
		}
	}
	io = (struct fw_import_opts){
		.src = cli.args[0], .into = o.into, .map_path = map, .preferred_path = pref,
		.recipes_path = recipes,
		.licence_dirs = o.dirs, .nlicence_dirs = o.ndirs,
		.allow_missing = o.allow_missing, .link = o.link, .no_whence = o.no_whence,
		.debian_copyright = o.debian_copyright, .vouch = o.vouch, .adopt = o.adopt,
		.split_template = o.split_template, .take_new_vendors = o.take_new_vendors,
	};
	/* The release: given, else the git tag, else the directory's name. */
	if (o.release) {
		io.release = o.release;
		release_from = "--release";
	} else if (release_from_git(io.src, release) == 0) {
		io.release = release;
		release_from = "its git tag";
	} else if (fw_release_from_name(io.src, release) == 0) {
		io.release = release;
		release_from = "its directory name";
	}
	if (o.debian_copyright && o.split_template) {
		ret = fw_usage("import", "--split-template and --debian-copyright each make the split: one of them");
		goto out;
	}
	if (o.debian_copyright && !o.no_whence) {
		ret = fw_usage("import", "--debian-copyright goes with --no-whence");
		goto out;
	}
	if (o.vouch && !o.no_whence) {
		ret = fw_usage("import", "--vouch goes with --no-whence");
		goto out;
	}
	io.progress = fw_cli_progress_start(&cli, &counts);
	r = fw_import(&io, &rep, &d);
	fw_cli_progress_stop();
	fw_print_diag(&d);
	if (r < 0) {
		if (r == -ENOMEM)
			fw_err("out of memory");
		fw_err("import: %s: nothing written%s", io.into,
		       r == -EPROTO ? " (the built tree failed its check)" : "");
		fw_import_report_free(&rep);
		ret = EXIT_FINDING;
		goto out;
	}
	/* What was refused and how to admit it, first: the lists below can
	 * run to thousands of lines. */
	if (rep.nrefused || rep.missing.n) {
		printf("refused (");
		if (rep.nrefused)
			printf("%u blob%s%s", rep.nrefused, rep.nrefused == 1 ? "" : "s",
			       rep.missing.n ? ", " : "");
		if (rep.missing.n && rep.missing.n == rep.nabsent)
			printf("%zu listed file%s missing", rep.missing.n,
			       rep.missing.n == 1 ? "" : "s");
		else if (rep.missing.n)
			printf("%zu listed entr%s missing", rep.missing.n,
			       rep.missing.n == 1 ? "y" : "ies");
		printf("):\n");
		for (size_t i = 0; i < rep.refused.n; i++)
			printf("  %s\n", rep.refused.v[i]);
	}
	/* What the split kept across releases makes of this one, before the
	 * long lists: a package that takes nothing now, a vendor it lacks. */
	section("split", &rep.split);
	if (rep.vendors.n) {
		size_t nv = 0;

		for (size_t i = 0; i < rep.vendors.n; i++)
			nv += rep.vendors.v[i][0] != ' ';
		printf("new vendors (%zu):\n", nv);
		for (size_t i = 0; i < rep.vendors.n; i++)
			printf("  %s\n", rep.vendors.v[i]);
	}
	section("missing", &rep.missing);
	section("unlisted", &rep.unlisted);
	section("unknown licences", &rep.unknown);
	section("licence texts missing", &rep.no_text);
	section("not imported", &rep.dropped);
	section("not in the split it had", &rep.uncovered);
	section("notes", &rep.notes);
	if (io.release)
		printf("release: %s (from %s)\n", io.release, release_from);
	else
		printf("release: none found (no --release, no 8-digit git tag or name): the firmware "
		       "packages keep debian/changelog's version (--release DATE records it)\n");
	if (rep.had_old) {
		printf("changes (%zu):\n", rep.changes.n);
		for (size_t i = 0; i < rep.changes.n; i++)
			printf("  %s\n", rep.changes.v[i]);
	}
	if (rep.packages.n) {
		printf("packages (%zu):\n", rep.packages.n);
		for (size_t i = 0; i < rep.packages.n; i++)
			printf("  %s\n", rep.packages.v[i]);
	}
	printf("import: %u blocks, %u files (%u copied, %u hard-linked, %llu bytes), %u sources, "
	       "%u links\n",
	       rep.blocks, rep.files, rep.copied - rep.linked, rep.linked,
	       (unsigned long long)rep.bytes, rep.sources, rep.links);
	printf("import: %u free, %u non-free, %u undistributable, %u unknown; %zu missing, "
	       "%zu unlisted, %zu unknown licence%s, %zu licence text%s missing\n",
	       rep.cat[FW_CAT_FREE], rep.cat[FW_CAT_NONFREE], rep.cat[FW_CAT_UNDISTRIBUTABLE],
	       rep.cat[FW_CAT_UNKNOWN], rep.missing.n, rep.unlisted.n, rep.unknown.n,
	       rep.unknown.n == 1 ? "" : "s", rep.no_text.n, rep.no_text.n == 1 ? "" : "s");
	/* Written, but not all of SRC: the lists above say what is left out. */
	ret = rep.unknown.n || rep.no_text.n || rep.dropped.n || rep.missing.n ? EXIT_FINDING :
										 EXIT_OK;
	fw_import_report_free(&rep);
out:
	free(map);
	free(pref);
	free(recipes);
	free(o.dirs);
	fw_cli_free(&cli);
	fw_diag_free(&d);
	return ret;
}
