/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The front end shared by the subcommands: the common options, printing of diagnostics. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "dpkg.h"
#include "fsutil.h"
#include "fwsearch.h"
#include "hardware.h"
#include "json.h"
#include "membudget.h"
#include "progress.h"
#include "record.h"
#include "select.h"
#include "sign.h"
#include "util.h"

const char *fw_tree_root = ".";
bool fw_json;

/* The promise of --json (fwdist(1), JSON OUTPUT): one JSON value on
 * standard output on every path. A command whose table has --json is
 * pending from its parse on; it is written once the command starts its
 * own value (fw_cli_json_begin). A path that ends before that (a usage
 * error, a destination that cannot be opened, ...) gets check's object of
 * what was said on standard error, written by fw_cli_json_end: so no
 * path, however it fails, leaves a consumer with nothing to parse. */
static enum { JSON_NONE, JSON_PENDING, JSON_WRITTEN } json_state;
/* Under --json: each message said on standard error, for that object. */
static struct fw_diag json_said;

/* The progress line: its drawing thread, and the lock every write to
 * standard error of a message takes, so that a message never lands in the
 * middle of a half-drawn line: the line is cleared first. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool running, stop;
	const char *cmd;
	struct fw_progress *p;
	struct timespec t0;
	unsigned interval_ms;
	size_t width; /* columns the line may take: the terminal's less one */
	size_t drawn; /* columns of the line on the screen now; 0: none */
	struct sigaction old_winch;
} prog = { .lock = PTHREAD_MUTEX_INITIALIZER };

#define PROGRESS_INTERVAL_MS 200
/* A terminal that does not say its width (0 columns: a serial console, a
 * pty nobody sized) is taken as the traditional 80. */
#define PROGRESS_DEFAULT_COLS 80

/* Set by the SIGWINCH handler, taken by the next draw or clear, which read
 * the width anew. An atomic int, not a volatile sig_atomic_t: the signal
 * lands on any thread and the drawing thread reads it; lock-free, so it
 * may be written in a handler (C11 7.14.1.1). */
static atomic_int winched;
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the SIGWINCH flag must be lock-free");

static void on_winch(int sig)
{
	(void)sig;
	atomic_store_explicit(&winched, 1, memory_order_relaxed);
}

/* The columns the line may take: one less than the terminal's, so that the
 * cursor after it never reaches the last column (a terminal wraps there,
 * and a wrapped line cannot be redrawn with a carriage return). A 1-column
 * terminal leaves none: nothing is drawn. */
static size_t progress_width(void)
{
	struct winsize ws;
	size_t cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 ? ws.ws_col : 0;

	if (!cols)
		cols = PROGRESS_DEFAULT_COLS;
	return cols - 1;
}

/* With prog.lock held: after a SIGWINCH, the width anew. What is on the
 * screen is taken as cut to it (a terminal that narrows drops what is past
 * its edge), so that neither the blanks of a shorter line nor a clear
 * write past the new edge and wrap into a second line. */
static void progress_resized_locked(void)
{
	if (!atomic_exchange_explicit(&winched, 0, memory_order_relaxed))
		return;
	prog.width = progress_width();
	if (prog.drawn > prog.width)
		prog.drawn = prog.width;
}

static void write_all_stderr(const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(STDERR_FILENO, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return; /* a progress line is not worth failing for */
		buf += n;
		len -= (size_t)n;
	}
}

/* With prog.lock held: blank the line and return to its start. */
static void progress_clear_locked(void)
{
	char buf[258];
	size_t n;

	progress_resized_locked();
	n = prog.drawn;
	if (!n)
		return;
	fflush(stderr);
	buf[0] = '\r';
	memset(buf + 1, ' ', n);
	buf[n + 1] = '\r';
	write_all_stderr(buf, n + 2);
	prog.drawn = 0;
}

static uint64_t elapsed_ms(const struct timespec *t0)
{
	struct timespec now;
	int64_t ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (int64_t)(now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
	return ms > 0 ? (uint64_t)ms : 0;
}

/* With prog.lock held: draw the line anew over the old one. */
static void progress_draw_locked(void)
{
	struct fw_progress *p = prog.p;
	uint64_t ft = atomic_load_explicit(&p->files_total, memory_order_acquire);
	char line[256], buf[258];
	size_t n, w = sizeof(line) - 1;

	progress_resized_locked();
	if (!ft)
		return; /* the work is not known yet */
	n = (size_t)fw_progress_format(line, sizeof(line), prog.cmd,
				       atomic_load_explicit(&p->files_done, memory_order_relaxed), ft,
				       atomic_load_explicit(&p->bytes_done, memory_order_relaxed),
				       atomic_load_explicit(&p->bytes_total, memory_order_relaxed),
				       elapsed_ms(&prog.t0));
	/* Within the terminal's width: a line that wraps cannot be redrawn
	 * with a carriage return. */
	if (prog.width < w)
		w = prog.width;
	if (n > w)
		n = w;
	if (!n && !prog.drawn)
		return; /* a 1-column terminal: no room for a line */
	buf[0] = '\r';
	memcpy(buf + 1, line, n);
	/* Blank what is left of a longer line before. */
	if (prog.drawn > n)
		memset(buf + 1 + n, ' ', prog.drawn - n);
	write_all_stderr(buf, 1 + (prog.drawn > n ? prog.drawn : n));
	if (prog.drawn < n)
		prog.drawn = n;
}

static void *progress_loop(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&prog.lock);
	while (!prog.stop) {
		struct timespec until;
		int r = 0;

		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += prog.interval_ms / 1000;
		until.tv_nsec += (long)(prog.interval_ms % 1000) * 1000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		while (!prog.stop && r != ETIMEDOUT)
			r = pthread_cond_timedwait(&prog.wake, &prog.lock, &until);
		if (!prog.stop)
			progress_draw_locked();
	}
	pthread_mutex_unlock(&prog.lock);
	return NULL;
}

/* $FWDIST_PROGRESS_INTERVAL: milliseconds, 1 to 60000; anything else is
 * the default (a test's knob, not worth refusing a command for). */
static unsigned progress_interval(void)
{
	const char *s = getenv("FWDIST_PROGRESS_INTERVAL");
	uint64_t n;

	if (s && fw_parse_u64(s, strlen(s), &n) == 0 && n >= 1 && n <= 60000)
		return (unsigned)n;
	return PROGRESS_INTERVAL_MS;
}

struct fw_progress *fw_cli_progress_start(const struct fw_cli *c, struct fw_progress *p)
{
	pthread_condattr_t ca;
	struct sigaction sa;

	if (c->quiet || fw_json || prog.running || !isatty(STDERR_FILENO))
		return NULL;
	prog.cmd = c->cmd;
	prog.p = p;
	prog.stop = false;
	prog.drawn = 0;
	prog.interval_ms = progress_interval();
	atomic_store(&winched, 0);
	prog.width = progress_width();
	/* A resized terminal says so with SIGWINCH: the next draw reads the
	 * width anew. SA_RESTART: the command's own reads and writes are not
	 * cut short by it. The old action comes back at the stop. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_winch;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGWINCH, &sa, &prog.old_winch);
	clock_gettime(CLOCK_MONOTONIC, &prog.t0);
	if (pthread_condattr_init(&ca) != 0)
		goto fail;
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (pthread_cond_init(&prog.wake, &ca) != 0) {
		pthread_condattr_destroy(&ca);
		goto fail;
	}
	pthread_condattr_destroy(&ca);
	if (pthread_create(&prog.thread, NULL, progress_loop, NULL) != 0) {
		pthread_cond_destroy(&prog.wake);
		goto fail; /* no line: the command runs as without a terminal */
	}
	prog.running = true;
	return p;
fail:
	sigaction(SIGWINCH, &prog.old_winch, NULL);
	return NULL;
}

void fw_cli_progress_stop(void)
{
	if (!prog.running)
		return;
	pthread_mutex_lock(&prog.lock);
	prog.stop = true;
	pthread_cond_signal(&prog.wake);
	pthread_mutex_unlock(&prog.lock);
	pthread_join(prog.thread, NULL);
	pthread_cond_destroy(&prog.wake);
	prog.running = false;
	pthread_mutex_lock(&prog.lock);
	progress_clear_locked();
	pthread_mutex_unlock(&prog.lock);
	sigaction(SIGWINCH, &prog.old_winch, NULL);
}

void fw_print_diag(const struct fw_diag *d)
{
	pthread_mutex_lock(&prog.lock);
	progress_clear_locked();
	for (size_t i = 0; i < d->n; i++) {
		const struct fw_diag_msg *m = &d->v[i];

		if (m->line)
			fprintf(stderr, "fwdist: %s:%u: %s\n", m->file, m->line, m->text);
		else if (*m->file)
			fprintf(stderr, "fwdist: %s: %s\n", m->file, m->text);
		else
			fprintf(stderr, "fwdist: %s\n", m->text);
		if (fw_json)
			fw_diag_add(&json_said, m->file, m->line, "%s", m->text);
	}
	if (d->nomem)
		fprintf(stderr, "fwdist: out of memory: some findings were lost\n");
	if (d->nomem && fw_json)
		json_said.nomem = 1;
	pthread_mutex_unlock(&prog.lock);
}

/* Under --json, keep the message of fw_err or fw_usage for the object
 * fw_cli_json_end may write. */
static void json_keep(const char *fmt, va_list ap)
{
	char *text;

	if (!fw_json)
		return;
	if (vasprintf(&text, fmt, ap) < 0) {
		json_said.nomem = 1;
		return;
	}
	fw_diag_add(&json_said, NULL, 0, "%s", text);
	free(text);
}

void fw_err(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&prog.lock);
	progress_clear_locked();
	fputs("fwdist: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	va_start(ap, fmt);
	json_keep(fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&prog.lock);
}

int fw_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&prog.lock);
	progress_clear_locked();
	fputs("fwdist: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	json_keep(fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'fwdist %s%s--help'.\n", cmd ? cmd : "", cmd ? " " : "");
	pthread_mutex_unlock(&prog.lock);
	return EXIT_USAGE;
}

int fw_load_tree(struct fw_tree *t, struct fw_diag *d)
{
	int r = fw_tree_load(t, fw_tree_root, d);

	if (r < 0) {
		if (t->rootfd < 0)
			fw_err("%s: cannot open tree: %s", fw_tree_root, strerror(-r));
		else if (r == -ENOENT)
			/* The usual case is no checkout at all (an installed
			 * system): say what the command needs, and what works
			 * without one. */
			fw_err("no firmware tree %s (%s/%s: no such file): give -C DIR, or run "
			       "verify with no tree to check the installed records",
			       strcmp(fw_tree_root, ".") ? "there" : "here", fw_tree_root,
			       FW_TREE_WHENCE);
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

/* check's object: {"ok":...,"findings":[...]}, with ,"exit":ex when ex
 * is not -1. Not ok when there is a finding or the exit is not 0. */
static void findings_json(const struct fw_diag *d, int ex)
{
	fw_cli_json_begin();
	printf("{\"ok\":%s,\"findings\":[", d->n || d->nomem || ex > 0 ? "false" : "true");
	for (size_t i = 0; i < d->n; i++) {
		printf("%s{\"file\":", i ? "," : "");
		fw_json_str(stdout, d->v[i].file);
		printf(",\"line\":%u,\"message\":", d->v[i].line);
		fw_json_str(stdout, d->v[i].text);
		printf("}");
	}
	if (d->nomem)
		printf("%s{\"file\":\"\",\"line\":0,\"message\":\"out of memory: some findings "
		       "were lost\"}", d->n ? "," : "");
	printf(ex >= 0 ? "],\"exit\":%d}\n" : "]}\n", ex);
}

void fw_cli_findings_json(const struct fw_diag *d, bool with_exit)
{
	findings_json(d, with_exit ? EXIT_FINDING : -1);
}

void fw_cli_json_begin(void)
{
	if (json_state == JSON_PENDING)
		json_state = JSON_WRITTEN;
}

void fw_cli_json_end(int ex)
{
	if (json_state == JSON_PENDING) {
		/* A failure nothing said (there should be none): the exit
		 * alone would leave "findings" empty beside "ok":false. */
		if (ex != EXIT_OK && !json_said.n && !json_said.nomem)
			fw_diag_add(&json_said, NULL, 0, "failed (exit %d)", ex);
		findings_json(&json_said, ex);
	}
	json_state = JSON_NONE;
	fw_diag_free(&json_said);
	memset(&json_said, 0, sizeof(json_said));
}

int fw_cli_prepare(struct fw_cli *c, struct fw_tree *t, struct fw_diag *d, const char *refuse)
{
	/* A tree loaded already (after its signature was checked) is used. */
	if (!t->root && fw_load_tree(t, d) != EXIT_OK) {
		if (fw_json) {
			struct fw_diag one = { 0 };

			fw_diag_add(&one, fw_tree_root, 0, "cannot read the tree");
			fw_cli_findings_json(&one, true);
			fw_diag_free(&one);
		}
		return EXIT_FINDING;
	}
	if (refuse) {
		fw_tree_check_model(t, d);
		if (d->n || d->nomem) {
			fw_print_diag(d);
			fw_err("%s: the tree has %zu finding%s; %s", c->cmd, d->n, d->n == 1 ? "" : "s",
			       refuse);
			/* --json: still one JSON value, check's, with the exit. */
			if (fw_json)
				fw_cli_findings_json(d, true);
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
	fw_dpkg_unlock(&c->dpkg_lock);
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

/* --list-options: each spelling of each option, one a line; one whose
 * value is written --name=VALUE (its arg starts with '=') as "--name=". */
static void list_options(const struct fw_cli_opt *o)
{
	for (; o->name || o->help; o++) {
		const char *eq = o->arg && o->arg[0] == '=' ? "=" : "";

		if (!o->name)
			continue;
		if (o->letter)
			printf("-%c\n", o->val);
		printf("--%s%s\n", o->name, eq);
		if (o->alias)
			printf("--%s%s\n", o->alias, eq);
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

/* The spelling of the option getopt_long just returned, for a message:
 * the long name given (idx, -1 for none) or the letter. */
static const char *opt_spelling(char *buf, size_t size, const struct option *opts, int idx,
				int letter)
{
	if (idx >= 0)
		snprintf(buf, size, "--%s", opts[idx].name);
	else
		snprintf(buf, size, "-%c", letter);
	return buf;
}

/* Did the call of getopt_long that started at optind at (0: the first)
 * read a whole word that is a long option ("--name", "--name=value")?
 * Else it read a letter, perhaps one of a group ("-qj"). */
static bool long_word(int argc, char **argv, int at)
{
	return optind > (at ? at : 1) && optind - 1 < argc && strncmp(argv[optind - 1], "--", 2) == 0;
}

/* Is --json among the options of argv, as the parse below reads them (an
 * option's value "--json" is no --json)? Asked first, so that a usage
 * error met before it is still said as --json promises. */
static bool json_asked(int argc, char **argv, const char *sopts, const struct option *opts)
{
	bool json = fw_json;
	int ch;

	optind = 0;
	while ((ch = getopt_long(argc, argv, sopts, opts, NULL)) != -1)
		json |= ch == FW_OPT_JSON;
	optind = 0;
	return json;
}

int fw_cli_parse(struct fw_cli *c, int argc, char **argv, const struct fw_cli_help *h,
		 int (*handle)(void *ctx, int opt, const char *arg), void *ctx)
{
	size_t nopts = 0, n = 0, ns = 0, nops = 0;
	struct option *opts;
	char *sopts, **ops;
	char name[64];
	bool json = false;
	int ch, idx, at, ret = -1;

	for (const struct fw_cli_opt *o = h->opts; o->name || o->help; o++)
		nopts++;
	/* Each entry: its name, its alias, its letter with a colon. */
	opts = calloc(2 * nopts + 3, sizeof(*opts));
	sopts = calloc(2 * nopts + 4, 1);
	ops = calloc((size_t)argc + 1, sizeof(*ops));
	if (!opts || !sopts || !ops) {
		free(opts);
		free(sopts);
		free(ops);
		fw_err("out of memory");
		return EXIT_FINDING;
	}
	/* '-': options and operands in any order, each operand handed back
	 * in its place (code 1), whatever POSIXLY_CORRECT says, until "--"
	 * ends the options; ':': a missing value told from an unknown option. */
	sopts[ns++] = '-';
	sopts[ns++] = ':';
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
	/* A command that has --json, asked for it: from here on, one JSON
	 * value whatever happens (fw_cli_json_end). */
	if (json && json_asked(argc, argv, sopts, opts)) {
		fw_json = true;
		json_state = JSON_PENDING;
	}
	while (ret < 0 && (idx = -1, at = optind, ch = getopt_long(argc, argv, sopts, opts, &idx)) != -1) {
		/* An empty value is what an unset variable gives ("--destdir
		 * $ROOT"): refused, never read as "none" (--destdir "" would
		 * install into the live system) or as the working directory. */
		if (ch != 1 && optarg && !*optarg) {
			ret = fw_usage(c->cmd, "%s: option '%s' needs a value, not an empty one", c->cmd,
				       opt_spelling(name, sizeof(name), opts, idx, ch));
			break;
		}
		switch (ch) {
		case 1:
			ops[nops++] = optarg;
			break;
		case FW_OPT_JOBS:
			ret = parse_jobs(c, optarg);
			break;
		case FW_OPT_JSON:
			fw_json = true;
			break;
		case FW_OPT_QUIET:
			c->quiet = true;
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
		case ':':
			/* The option is the last word: "--destdir" at the end. */
			ret = fw_usage(c->cmd, "%s: option '%s' needs a value", c->cmd,
				       long_word(argc, argv, at) ? argv[optind - 1]
								 : opt_spelling(name, sizeof(name), opts, -1, optopt));
			break;
		case '?':
			if (optopt && long_word(argc, argv, at))
				/* A known long option given a value: "--json=x". */
				ret = fw_usage(c->cmd, "%s: option '%.*s' takes no value", c->cmd,
					       (int)strcspn(argv[optind - 1], "="), argv[optind - 1]);
			else
				ret = fw_usage(c->cmd, "unknown option '%s'",
					       optopt ? opt_spelling(name, sizeof(name), opts, -1, optopt)
						      : argv[optind - 1]);
			break;
		default:
			ret = handle ? handle(ctx, ch, optarg) : EXIT_USAGE;
			if (ret == EXIT_OK)
				ret = -1;
			break;
		}
	}
	/* --help and --list-options print text, asked for. */
	if (ret == EXIT_OK)
		json_state = JSON_NONE;
	/* 'fwdist --json CMD' asks for what CMD does not print: refused as
	 * 'CMD --json' is, rather than answered in plain text. */
	if (ret < 0 && fw_json && !json)
		ret = fw_usage(c->cmd, "unknown option '--json'");
	if (ret < 0) {
		/* After "--", every word is an operand. */
		while (optind < argc)
			ops[nops++] = argv[optind++];
		if (nops > c->max_args)
			ret = fw_usage(c->cmd, "unexpected argument '%s'", ops[c->max_args]);
	}
	if (ret < 0) {
		/* The operands in their order, where the options were. */
		memcpy(argv + 1, ops, nops * sizeof(*ops));
		c->args = argv + 1;
		c->nargs = nops;
	}
	free(opts);
	free(sopts);
	free(ops);
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

int fw_cli_search_open(const struct fw_cli *c, const char *release, struct fw_search *s)
{
	char *where = NULL;
	int r = fw_search_open(s, c->destdir, c->fwdir, release, &where);

	if (r < 0)
		fw_err("%s: %s: %s", c->cmd, where ? fw_esc(where) : "the firmware directory",
		       r == -ENOMEM ? "out of memory" : fw_path_error(r));
	free(where);
	return r;
}

int fw_cli_hw_option(struct fw_hw_opts *o, const char *cmd, int c, const char *arg)
{
	switch (c) {
	case 's':
		o->sysfs = arg;
		return EXIT_OK;
	case 'r':
		if (strchr(arg, '/') || !strcmp(arg, "..") || !strcmp(arg, ".") || !*arg)
			return fw_usage(cmd, "--kernel-release takes a release, not a path");
		o->release = arg;
		return EXIT_OK;
	case 'm':
		o->moddir = arg;
		return EXIT_OK;
	case 'k':
		o->log = arg;
		return EXIT_OK;
	case 'n':
		o->no_log = true;
		return EXIT_OK;
	}
	return EXIT_USAGE;
}

void fw_cli_hw_said(const char *cmd, const char *moddir, bool no_modules, int log_error,
		    const struct fw_diag *d)
{
	if (no_modules)
		fw_err("%s: %s: the kernel has no loadable modules (no modules.dep); its "
		       "drivers are built in, bound as sysfs shows", cmd, fw_esc(moddir));
	if (log_error)
		fw_err("%s: %s: kernel log not read: %s (--no-kernel-log)", cmd, "/dev/kmsg",
		       log_error == -EINVAL ? "not the kernel's log device" : strerror(-log_error));
	fw_print_diag(d);
}

int fw_cli_hw_gather(const char *cmd, const struct fw_hw_opts *o, struct fw_hw *h, bool *failed)
{
	struct fw_diag d = { 0 };
	int r;

	*failed = false;
	if (o->release && o->moddir)
		return fw_usage(cmd, "give --kernel-release R or --modules-dir DIR, not both");
	if (o->log && o->no_log)
		return fw_usage(cmd, "give --kernel-log FILE or --no-kernel-log, not both");
	r = fw_hw_gather(h, o, &d);
	if (r < 0 && r != -ENOMEM) {
		fw_err("%s: uname: %s", cmd, strerror(-r));
		return EXIT_FINDING;
	}
	fw_cli_hw_said(cmd, h->moddir, h->no_modules, h->log_error, &d);
	fw_diag_free(&d);
	if (r == -ENOMEM) {
		fw_err("%s: out of memory", cmd);
		return EXIT_FINDING;
	}
	*failed = h->partial;
	return -1;
}

int fw_cli_dpkg_load(const struct fw_cli *c, struct fw_dpkg *db, const char *refuse)
{
	const char *root = c->destdir && *c->destdir ? c->destdir : "/";
	struct fw_diag d = { 0 };
	char *where = NULL;
	int fd, r;

	memset(db, 0, sizeof(*db));
	/* A firmware directory relative to the working directory, with no
	 * root: no root's database speaks of it. */
	if (root[0] == '/' && root[1] == '\0' && c->fwdir && c->fwdir[0] != '/')
		return EXIT_OK;
	/* The root as the destination's opener walks it (one component at a
	 * time: a DESTDIR may be longer than PATH_MAX). */
	fd = fw_dest_open(c->destdir, "/", false, &where);
	free(where);
	if (fd == -ENOENT)
		return EXIT_OK; /* a new DESTDIR: no database */
	if (fd < 0) {
		fw_err("%s: %s: %s; %s", c->cmd, fw_esc(root), fw_path_error(fd), refuse);
		return EXIT_FINDING;
	}
	r = fw_dpkg_load(fd, c->fwdir ? c->fwdir : fw_default_fwdir(fd), db, &d);
	close(fd);
	fw_print_diag(&d);
	fw_diag_free(&d);
	if (r < 0) {
		fw_err("%s: %s: cannot tell which files dpkg owns (%s); %s", c->cmd, fw_esc(root),
		       r == -ENOMEM ? "out of memory" : "see above", refuse);
		return EXIT_FINDING;
	}
	return EXIT_OK;
}

int fw_cli_dpkg_lock(struct fw_cli *c, const char *refuse)
{
	const char *root = c->destdir && *c->destdir ? c->destdir : "/", *which;
	char *where = NULL;
	pid_t holder;
	int fd, r;

	/* As fw_cli_dpkg_load: no root's database speaks of a relative
	 * firmware directory without a root, and a new DESTDIR has none. */
	if (root[0] == '/' && root[1] == '\0' && c->fwdir && c->fwdir[0] != '/')
		return EXIT_OK;
	fd = fw_dest_open(c->destdir, "/", false, &where);
	free(where);
	if (fd == -ENOENT)
		return EXIT_OK;
	if (fd < 0) {
		fw_err("%s: %s: %s; %s", c->cmd, fw_esc(root), fw_path_error(fd), refuse);
		return EXIT_FINDING;
	}
	r = fw_dpkg_lock(fd, &c->dpkg_lock, &which, &holder);
	close(fd);
	if (r == 0)
		return EXIT_OK;
	/* Not waited for, as dpkg and apt do not by default: an install
	 * that hangs behind a long upgrade is worse than one that says so
	 * and can be run again. */
	if (r == -EAGAIN && holder > 0)
		fw_err("%s: %s%s%s: dpkg's lock is held by process %ld (dpkg or apt at work); %s "
		       "(run it again when that is done)", c->cmd, fw_esc(root),
		       root[strlen(root) - 1] == '/' ? "" : "/", which, (long)holder, refuse);
	else if (r == -EAGAIN)
		fw_err("%s: %s%s%s: dpkg's lock is held by another process (dpkg or apt at work); %s "
		       "(run it again when that is done)", c->cmd, fw_esc(root),
		       root[strlen(root) - 1] == '/' ? "" : "/", which, refuse);
	else
		fw_err("%s: %s%s%s: cannot take dpkg's lock: %s; %s", c->cmd, fw_esc(root),
		       root[strlen(root) - 1] == '/' ? "" : "/", which, fw_path_error(r), refuse);
	return EXIT_FINDING;
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
