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
#include "json.h"
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
	OPT_HELP = 'h',
	OPT_LIST = 0x1ff, /* --list-options */
};

/* The column help texts start at: past the longest spelling that fits in
 * SPEC_MAX, which a longer one does not wait for (its help starts on the
 * next line). */
#define SPEC_MAX 22

static size_t spec_len(const struct fw_cli_opt *o)
{
	size_t n = 2 + strlen(o->name);

	if (o->letter)
		n += 4; /* "-x, " */
	if (o->alias)
		n += 4 + strlen(o->alias);
	if (o->arg)
		n += strlen(o->arg) + (o->arg[0] != '=');
	return n;
}

void fw_cli_print_help(FILE *f, const struct fw_cli_help *h)
{
	const struct fw_cli_opt *o;
	size_t col = 0;

	fputs(h->head, f);
	for (o = h->opts; o->name || o->help; o++)
		if (o->name && spec_len(o) <= SPEC_MAX && spec_len(o) > col)
			col = spec_len(o);
	col += 4; /* two blanks before the spelling, two after */
	for (o = h->opts; o->name || o->help; o++) {
		size_t n = 0;
		const char *l = o->help, *nl;

		if (!o->name) {
			fprintf(f, "%s\n", o->help);
			continue;
		}
		n += (size_t)fprintf(f, "  ");
		if (o->letter)
			n += (size_t)fprintf(f, "-%c, ", o->val);
		n += (size_t)fprintf(f, "--%s", o->name);
		if (o->alias)
			n += (size_t)fprintf(f, ", --%s", o->alias);
		if (o->arg)
			n += (size_t)fprintf(f, "%s%s", o->arg[0] == '=' ? "" : " ", o->arg);
		if (n + 2 > col) {
			fputc('\n', f);
			n = 0;
		}
		for (;;) {
			nl = strchr(l, '\n');
			fprintf(f, "%*s%.*s\n", (int)(col - n), "", nl ? (int)(nl - l) : (int)strlen(l), l);
			if (!nl)
				break;
			l = nl + 1;
			n = 0;
		}
	}
	if (h->foot)
		fputs(h->foot, f);
}

void fw_cli_json_diag(FILE *f, const struct fw_diag *d)
{
	fputc('[', f);
	for (size_t i = 0; i < d->n; i++) {
		const struct fw_diag_msg *m = &d->v[i];

		fputs(i ? ",{\"file\":" : "{\"file\":", f);
		if (*m->file)
			fw_json_str(f, m->file);
		else
			fputs("null", f);
		if (m->line)
			fprintf(f, ",\"line\":%u,\"message\":", m->line);
		else
			fputs(",\"line\":null,\"message\":", f);
		fw_json_str(f, m->text);
		fputc('}', f);
	}
	if (d->nomem)
		fprintf(f, "%s{\"file\":null,\"line\":null,\"message\":\"out of memory: some "
			"findings were lost\"}", d->n ? "," : "");
	fputc(']', f);
}

/* --list-options: each spelling of each option, one a line. */
static void list_options(const struct fw_cli_opt *o)
{
	for (; o->name || o->help; o++) {
		if (!o->name)
			continue;
		if (o->letter)
			printf("-%c\n", o->val);
		printf("--%s\n", o->name);
		if (o->alias)
			printf("--%s\n", o->alias);
	}
}

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

int fw_cli_parse(struct fw_cli *c, int argc, char **argv, const struct fw_cli_help *h,
		 int (*handle)(void *ctx, int opt, const char *arg), void *ctx)
{
	size_t nopts = 0, n = 0, ns = 0;
	struct option *opts;
	char *sopts;
	bool json = false;
	int ch, ret = -1;

	for (const struct fw_cli_opt *o = h->opts; o->name || o->help; o++)
		nopts++;
	/* Each entry: its name, its alias, its letter with a colon. */
	opts = calloc(2 * nopts + 3, sizeof(*opts));
	sopts = calloc(2 * nopts + 3, 1);
	if (!opts || !sopts) {
		free(opts);
		free(sopts);
		fw_err("out of memory");
		return EXIT_FINDING;
	}
	sopts[ns++] = '+';
	sopts[ns++] = 'h';
	for (const struct fw_cli_opt *o = h->opts; o->name || o->help; o++) {
		int has = o->arg ? required_argument : no_argument;

		if (!o->name)
			continue;
		json |= o->val == FW_OPT_JSON;
		opts[n++] = (struct option){ o->name, has, NULL, o->val };
		if (o->alias)
			opts[n++] = (struct option){ o->alias, has, NULL, o->val };
		if (o->letter) {
			sopts[ns++] = (char)o->val;
			if (o->arg)
				sopts[ns++] = ':';
		}
	}
	opts[n++] = (struct option){ "help", no_argument, NULL, OPT_HELP };
	opts[n++] = (struct option){ "list-options", no_argument, NULL, OPT_LIST };
	while (ret < 0 && (ch = getopt_long(argc, argv, sopts, opts, NULL)) != -1) {
		switch (ch) {
		case FW_OPT_JOBS:
			ret = parse_jobs(c, optarg);
			break;
		case FW_OPT_JSON:
			fw_json = true;
			break;
		case FW_OPT_PACKAGE:
			if (fw_grow(&c->pkgs, &c->cap_pkgs, c->npkgs, sizeof(*c->pkgs)) < 0) {
				fw_err("out of memory");
				ret = EXIT_FINDING;
				break;
			}
			c->pkgs[c->npkgs++] = optarg;
			break;
		case FW_OPT_SELECT:
			c->select_file = optarg;
			break;
		case FW_OPT_DESTDIR:
			c->destdir = optarg;
			break;
		case FW_OPT_FWDIR:
			c->fwdir = optarg;
			break;
		case FW_OPT_MEMORY:
			ret = parse_memory(c, optarg);
			break;
		case OPT_HELP:
			fw_cli_print_help(stdout, h);
			ret = EXIT_OK;
			break;
		case OPT_LIST:
			list_options(h->opts);
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
	/* 'fwdist --json CMD' asks for what CMD does not print: refused as
	 * 'CMD --json' is, rather than answered in plain text. */
	if (ret < 0 && fw_json && !json)
		ret = fw_usage(c->cmd, "unknown option '--json'");
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
