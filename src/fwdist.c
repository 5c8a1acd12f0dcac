/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist: main(), global options and dispatch to the subcommands. */
#include "fwdist.h"

#include <errno.h>
#include <fcntl.h>

#include <getopt.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select.h"
#include "util.h"

const char *fw_tree_root = ".";
bool fw_json;

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "check", cmd_check, "validate the whole tree: WHENCE, files, links, licences, split, checksums" },
	{ "manifest", cmd_manifest, "regenerate manifests/checksums after a deliberate blob change" },
	{ "list", cmd_list, "list blobs and links (of one package), or read any WHENCE file" },
	{ "licenses", cmd_licenses, "licence report: problem blobs first, then each licence's use" },
	{ "install", cmd_install, "verify and install the tree into DESTDIR/lib/firmware" },
	{ "uninstall", cmd_uninstall, "remove what install put in place, and nothing else" },
	{ "verify", cmd_verify, "check an installed tree against the manifest" },
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

void fw_print_diag(const struct fw_diag *d)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct fw_diag_msg *m = &d->v[i];

		if (m->line)
			fprintf(stderr, "fwdist: %s:%u: %s\n", m->file, m->line, m->text);
		else if (*m->file)
			fprintf(stderr, "fwdist: %s: %s\n", m->file, m->text);
		else
			fprintf(stderr, "fwdist: %s\n", m->text);
	}
	if (d->nomem)
		fprintf(stderr, "fwdist: out of memory: some findings were lost\n");
}

void fw_err(const char *fmt, ...)
{
	va_list ap;

	fputs("fwdist: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int fw_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("fwdist: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'fwdist %s%s--help'.\n", cmd ? cmd : "", cmd ? " " : "");
	return EXIT_USAGE;
}

int fw_load_tree(struct fw_tree *t, struct fw_diag *d)
{
	int r = fw_tree_load(t, fw_tree_root, d);

	if (r < 0) {
		if (t->rootfd < 0)
			fw_err("%s: cannot open tree: %s", fw_tree_root, strerror(-r));
		else
			fw_err("%s/%s: cannot read: %s", fw_tree_root, FW_TREE_WHENCE, strerror(-r));
		fw_tree_free(t);
		return EXIT_FINDING;
	}
	return EXIT_OK;
}

int fw_cli_add_package(struct fw_cli_select *s, const char *name)
{
	const char **np = realloc(s->pkgs, (s->npkgs + 1) * sizeof(*np));

	if (!np)
		return -ENOMEM;
	s->pkgs = np;
	s->pkgs[s->npkgs++] = name;
	return 0;
}

int fw_cli_dest_opt(int c, const char *arg, struct fw_cli_dest *dest, struct fw_cli_select *cs)
{
	switch (c) {
	case 'd':
		dest->destdir = arg;
		return 1;
	case 'f':
		dest->fwdir = arg;
		return 1;
	case 'p':
		if (fw_cli_add_package(cs, arg) < 0) {
			fw_err("out of memory");
			return -1;
		}
		return 1;
	}
	return 0;
}

int fw_cli_dest_open(const struct fw_cli_dest *dest, char **root)
{
	int fd;

	*root = fw_asprintf("%s%s", dest->destdir ? dest->destdir : "", dest->fwdir);
	if (!*root)
		return -ENOMEM;
	fd = open(*root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int fw_cli_build_selection(struct fw_cli_select *s, const struct fw_tree *t, const char *cmd)
{
	if (s->npkgs) {
		s->pkg = calloc(t->split.npkgs + 1, sizeof(*s->pkg));
		if (!s->pkg) {
			fw_err("out of memory");
			return EXIT_FINDING;
		}
		for (size_t i = 0; i < s->npkgs; i++) {
			int p = fw_split_find(&t->split, s->pkgs[i]);

			if (p < 0)
				return fw_usage(cmd, "no package '%s' in %s", fw_esc(s->pkgs[i]),
						FW_TREE_SPLIT);
			s->pkg[p] = true;
		}
		s->sel.pkg = s->pkg;
	}
	if (s->file) {
		struct fw_diag d = { 0 };
		int r;

		s->blob = calloc(t->nblobs + 1, sizeof(*s->blob));
		s->link = calloc(t->nlinks + 1, sizeof(*s->link));
		if (!s->blob || !s->link) {
			fw_err("out of memory");
			return EXIT_FINDING;
		}
		r = fw_select_load(t, s->file, s->blob, s->link, &d);
		if (r < 0) {
			fw_err("%s: cannot read: %s", s->file, strerror(-r));
			fw_diag_free(&d);
			return EXIT_FINDING;
		}
		if (d.n || d.nomem) {
			fw_print_diag(&d);
			fw_err("%s: %zu line%s select nothing; nothing done", s->file, d.n,
			       d.n == 1 ? "" : "s");
			fw_diag_free(&d);
			return EXIT_FINDING;
		}
		fw_diag_free(&d);
		s->sel.blob = s->blob;
		s->sel.link = s->link;
	}
	return EXIT_OK;
}

int fw_cli_prepare(struct fw_tree *t, struct fw_diag *d, struct fw_cli_select *s,
		   const char *cmd, const char *refuse)
{
	if (fw_load_tree(t, d) != EXIT_OK)
		return EXIT_FINDING;
	if (refuse) {
		fw_tree_check_model(t, d);
		if (d->n || d->nomem) {
			fw_print_diag(d);
			fw_err("%s: the tree has %zu finding%s; %s", cmd, d->n, d->n == 1 ? "" : "s",
			       refuse);
			return EXIT_FINDING;
		}
	} else {
		fw_print_diag(d);
	}
	return fw_cli_build_selection(s, t, cmd);
}

void fw_cli_select_free(struct fw_cli_select *s)
{
	free(s->pkgs);
	free(s->pkg);
	free(s->blob);
	free(s->link);
	memset(s, 0, sizeof(*s));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tree", required_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	/* Messages, sorting and number formats never depend on the locale:
	 * the output is compared byte for byte by tests and scripts. */
	setlocale(LC_ALL, "C");
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+C:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'C':
			fw_tree_root = optarg;
			break;
		case 'j':
			fw_json = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("fwdist %s\n", FWDIST_VERSION);
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
			if (fflush(stdout) != 0 || ferror(stdout)) {
				fw_err("write error on standard output");
				return EXIT_FINDING;
			}
			return r;
		}
	}
	return fw_usage(NULL, "'%s' is not a fwdist command", argv[optind]);
}
