/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The front end shared by the subcommands: the common options, printing of diagnostics. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fsutil.h"
#include "membudget.h"
#include "record.h"
#include "select.h"
#include "sign.h"
#include "util.h"

const char *fw_tree_root = ".";
bool fw_json;

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

static int build_selection(struct fw_cli *s, const struct fw_tree *t, const char *cmd)
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
	if (s->select_file) {
		struct fw_diag d = { 0 };
		int r;

		s->blob = calloc(t->nblobs + 1, sizeof(*s->blob));
		s->link = calloc(t->nlinks + 1, sizeof(*s->link));
		if (!s->blob || !s->link) {
			fw_err("out of memory");
			return EXIT_FINDING;
		}
		r = fw_select_load(t, s->select_file, s->blob, s->link, &d);
		if (r < 0) {
			fw_err("%s: cannot read: %s", s->select_file, strerror(-r));
			fw_diag_free(&d);
			return EXIT_FINDING;
		}
		if (d.n || d.nomem) {
			fw_print_diag(&d);
			fw_err("%s: %zu line%s select nothing; nothing done", s->select_file, d.n,
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

int fw_cli_prepare(struct fw_cli *c, struct fw_tree *t, struct fw_diag *d, const char *refuse)
{
	/* A tree loaded already (after its signature was checked) is used. */
	if (!t->root && fw_load_tree(t, d) != EXIT_OK)
		return EXIT_FINDING;
	if (refuse) {
		fw_tree_check_model(t, d);
		if (d->n || d->nomem) {
			fw_print_diag(d);
			fw_err("%s: the tree has %zu finding%s; %s", c->cmd, d->n, d->n == 1 ? "" : "s",
			       refuse);
			return EXIT_FINDING;
		}
	} else {
		fw_print_diag(d);
	}
	return build_selection(c, t, c->cmd);
}

void fw_cli_free(struct fw_cli *c)
{
	free(c->pkgs);
	free(c->pkg);
	free(c->blob);
	free(c->link);
	c->pkgs = NULL;
	c->pkg = c->blob = c->link = NULL;
	memset(&c->sel, 0, sizeof(c->sel));
}

enum {
	OPT_JSON = 0x100,
	OPT_PACKAGE,
	OPT_SELECT,
	OPT_DESTDIR,
	OPT_FWDIR,
	OPT_MEMORY,
	OPT_HELP = 'h',
	OPT_JOBS = 'j',
};

static const struct {
	unsigned bit;
	struct option opt;
} shared_opts[] = {
	{ FW_CLI_JSON, { "json", no_argument, NULL, OPT_JSON } },
	{ FW_CLI_PACKAGE, { "package", required_argument, NULL, OPT_PACKAGE } },
	{ FW_CLI_SELECT, { "select", required_argument, NULL, OPT_SELECT } },
	{ FW_CLI_DEST, { "destdir", required_argument, NULL, OPT_DESTDIR } },
	{ FW_CLI_DEST, { "firmware-dir", required_argument, NULL, OPT_FWDIR } },
	{ FW_CLI_JOBS, { "jobs", required_argument, NULL, OPT_JOBS } },
	{ FW_CLI_MEMORY, { "memory-limit", required_argument, NULL, OPT_MEMORY } },
	{ ~0u, { "help", no_argument, NULL, OPT_HELP } },
};

/* --jobs N: strict decimal, 1 to FW_JOBS_MAX (0 would mean "one per CPU"
 * inside, which the default already is). */
static int parse_jobs(struct fw_cli *c, const char *arg)
{
	uint64_t n;

	if (fw_parse_u64(arg, strlen(arg), &n) < 0 || n < 1 || n > FW_JOBS_MAX)
		return fw_usage(c->cmd, "--jobs takes a number from 1 to %d, not '%s'", FW_JOBS_MAX,
				fw_esc(arg));
	c->jobs = (unsigned)n;
	return -1;
}

/* SIZE: decimal bytes, or with K, M, G (also written KiB, MiB, GiB):
 * binary multiples, as xz's --memlimit takes them. At least 1 byte; "MB"
 * is refused rather than guessed. 0 or -EINVAL. */
static int parse_size(const char *arg, uint64_t *out)
{
	unsigned long long n;
	unsigned shift = 0;
	char *end;

	if (*arg < '0' || *arg > '9')
		return -EINVAL; /* strtoull would take "-1" and " 1" */
	errno = 0;
	n = strtoull(arg, &end, 10);
	if (errno || end == arg)
		return -EINVAL;
	switch (*end) {
	case 'K': case 'k':
		shift = 10;
		break;
	case 'M': case 'm':
		shift = 20;
		break;
	case 'G': case 'g':
		shift = 30;
		break;
	case '\0':
		break;
	default:
		return -EINVAL;
	}
	if (shift && *++end && strcmp(end, "iB") != 0)
		return -EINVAL;
	if (n == 0 || n > (UINT64_MAX >> shift))
		return -EINVAL;
	*out = (uint64_t)n << shift;
	return 0;
}

/* --memory-limit SIZE: the process's budget for codecs (membudget.h). */
static int parse_memory(struct fw_cli *c, const char *arg)
{
	uint64_t n;

	if (parse_size(arg, &n) < 0)
		return fw_usage(c->cmd, "--memory-limit takes a size in bytes, or with a K, M "
				"or G suffix (such as 512M), not '%s'", fw_esc(arg));
	fw_mem_set_limit(n);
	return -1;
}

int fw_cli_parse(struct fw_cli *c, int argc, char **argv, const struct option *own,
		 const char *shortopts, int (*handle)(void *ctx, int opt, const char *arg),
		 void *ctx, void (*help)(void))
{
	size_t nown = 0, n = 0;
	struct option *opts;
	char *sopts;
	int ch, ret = -1;

	while (own && own[nown].name)
		nown++;
	opts = calloc(nown + FW_ARRAY_SIZE(shared_opts) + 1, sizeof(*opts));
	sopts = fw_asprintf("+h%s%s", c->shared & FW_CLI_JOBS ? "j:" : "",
			    shortopts ? shortopts : "");
	if (!opts || !sopts) {
		free(opts);
		free(sopts);
		fw_err("out of memory");
		return EXIT_FINDING;
	}
	for (size_t i = 0; i < nown; i++)
		opts[n++] = own[i];
	for (size_t i = 0; i < FW_ARRAY_SIZE(shared_opts); i++)
		if (shared_opts[i].bit == ~0u || (shared_opts[i].bit & c->shared))
			opts[n++] = shared_opts[i].opt;
	while (ret < 0 && (ch = getopt_long(argc, argv, sopts, opts, NULL)) != -1) {
		if (ch == OPT_JOBS && (c->shared & FW_CLI_JOBS)) {
			ret = parse_jobs(c, optarg);
			continue;
		}
		switch (ch) {
		case OPT_JSON:
			fw_json = true;
			break;
		case OPT_PACKAGE:
			if (fw_grow(&c->pkgs, &c->cap_pkgs, c->npkgs, sizeof(*c->pkgs)) < 0) {
				fw_err("out of memory");
				ret = EXIT_FINDING;
				break;
			}
			c->pkgs[c->npkgs++] = optarg;
			break;
		case OPT_SELECT:
			c->select_file = optarg;
			break;
		case OPT_DESTDIR:
			c->destdir = optarg;
			break;
		case OPT_FWDIR:
			c->fwdir = optarg;
			break;
		case OPT_MEMORY:
			ret = parse_memory(c, optarg);
			break;
		case OPT_HELP:
			help();
			ret = EXIT_OK;
			break;
		case '?':
			ret = fw_usage(c->cmd, "unknown option '%s'", argv[optind - 1]);
			break;
		default:
			ret = handle ? handle(ctx, ch, optarg) : EXIT_USAGE;
			if (ret == EXIT_OK)
				ret = -1;
			break;
		}
	}
	if (ret < 0 && optind < argc && (size_t)(argc - optind) > c->max_args)
		ret = fw_usage(c->cmd, "unexpected argument '%s'", argv[optind + (int)c->max_args]);
	if (ret < 0) {
		c->args = argv + optind;
		c->nargs = (size_t)(argc - optind);
	}
	free(opts);
	free(sopts);
	return ret;
}

int fw_cli_open_dest(const struct fw_cli *c, bool create, char **where)
{
	int fd = fw_dest_open(c->destdir, c->fwdir, create, where);

	if (fd >= 0 || (fd == -ENOENT && !create))
		return fd;
	if (!*where)
		fw_err("%s: %s", c->cmd, fd == -ENOMEM ? "out of memory" : strerror(-fd));
	else if (fd == -EINVAL)
		fw_err("%s: %s: --firmware-dir may not hold '.' or '..'", c->cmd, *where);
	else
		fw_err("%s: %s: %s", c->cmd, *where, fw_path_error(fd));
	return fd;
}

/* The output file: a temporary beside it, renamed over it once complete,
 * so a failed run leaves no half-written file and an old one stays. */
int fw_cli_write_file(const char *path, const char *buf, size_t len)
{
	char *dcopy = strdup(path), *bcopy = strdup(path);
	int dfd = -1, r;

	if (!dcopy || !bcopy) {
		r = -ENOMEM;
		goto out;
	}
	/* The user's output path is opened as any tool opens one (its
	 * directories may be symlinks); only the file itself is replaced
	 * atomically, never written in place. */
	dfd = open(dirname(dcopy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		r = -errno;
		goto out;
	}
	r = fw_write_leaf(dfd, basename(bcopy), buf, len, 0644);
out:
	if (dfd >= 0)
		close(dfd);
	free(dcopy);
	free(bcopy);
	return r;
}

int fw_cli_emit(const char *cmd, const char *path, const char *buf, size_t len)
{
	int r;

	if (!path) {
		fwrite(buf, 1, len, stdout);
		return EXIT_OK;
	}
	r = fw_cli_write_file(path, buf, len);
	if (r < 0) {
		fw_err("%s: %s: %s", cmd, fw_esc(path), strerror(-r));
		return EXIT_FINDING;
	}
	return EXIT_OK;
}

int fw_cli_require_signature(const char *cmd, const char *cert, struct fw_tree *t,
			     struct fw_diag *d, struct fw_rec_release *rel)
{
	struct fw_pins sp = { 0 }, now = { 0 };
	struct fw_diag sd = { 0 };
	int r = fw_root_verify_signature(fw_tree_root, cert, &sp, rel->pins, &sd);

	if (r == 0) {
		if (fw_load_tree(t, d) != EXIT_OK) {
			fw_pins_free(&sp);
			fw_diag_free(&sd);
			return EXIT_FINDING;
		}
		r = fw_pins_collect(t, &now, &sd);
		if (r == 0)
			r = fw_pins_compare(&sp, &now, &sd);
	}
	fw_print_diag(&sd);
	if (r < 0)
		fw_err("%s: the tree is not what %s signed", cmd, cert);
	rel->set = r == 0;
	rel->serial = sp.serial;
	fw_diag_free(&sd);
	fw_pins_free(&sp);
	fw_pins_free(&now);
	return r < 0 ? EXIT_FINDING : EXIT_OK;
}
