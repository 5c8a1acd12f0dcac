/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by the library: growable arrays, file reading, escaping. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>


int fw_grow(void *v, size_t *cap, size_t n, size_t elem)
{
	void **pv = v;
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	/* Checked before any product, so no size wraps round. */
	if (*cap > SIZE_MAX / 2 || n == SIZE_MAX)
		return -ENOMEM;
	ncap = *cap ? *cap * 2 : 16;
	if (ncap < n + 1)
		ncap = n + 1;
	if (ncap > SIZE_MAX / elem)
		return -ENOMEM;
	p = realloc(*pv, ncap * elem);
	if (!p)
		return -ENOMEM;
	*pv = p;
	*cap = ncap;
	return 0;
}

char *fw_strndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *fw_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

int fw_read_text(int dirfd, const char *path, char **bufp, size_t *lenp)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0, cap;
	int fd, r;

	/* O_NOFOLLOW: a manifest replaced by a symlink is refused, not followed. */
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno == ELOOP ? -EINVAL : -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		r = -EINVAL;
		goto fail;
	}
	if ((uint64_t)st.st_size > FW_TEXT_MAX) {
		r = -EFBIG;
		goto fail;
	}
	/* Room for the NUL and one byte more, so the read that sees EOF needs
	 * no growth: a file of exactly FW_TEXT_MAX bytes is read, not refused. */
	cap = (size_t)st.st_size + 2;
	buf = malloc(cap);
	if (!buf) {
		r = -ENOMEM;
		goto fail;
	}
	/* read() until EOF: the size from fstat is a hint, the file may change. */
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			if (cap > FW_TEXT_MAX) {
				r = -EFBIG;
				goto fail;
			}
			if (fw_grow(&buf, &cap, len + 1, 1) < 0) {
				r = -ENOMEM;
				goto fail;
			}
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > FW_TEXT_MAX) {
		r = -EFBIG;
		goto fail;
	}
	buf[len] = '\0';
	close(fd);
	*bufp = buf;
	*lenp = len;
	return 0;
fail:
	free(buf);
	close(fd);
	return r;
}

int fw_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

size_t fw_utf8_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	/* A NUL is no continuation byte: a sequence cut by the end of the
	 * string fails here, before anything past the NUL is read. */
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are invalid. */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

bool fw_utf8_valid(const char *s)
{
	while (*s) {
		size_t n = fw_utf8_len(s);

		if (n == 0)
			return false;
		s += n;
	}
	return true;
}

const char *fw_esc(const char *s)
{
	static _Thread_local char ring[4][4 * FW_LINE_MAX + 16];
	static _Thread_local unsigned slot;
	char *out = ring[slot++ % 4], *o = out;
	char *end = out + sizeof(ring[0]) - 5;

	for (; *s && o < end; s++) {
		unsigned char c = (unsigned char)*s;

		/* Bytes from 0x80 up too, even in valid UTF-8: C1 controls
		 * (0x9b is CSI to some terminals, and U+009B is 0xc2 0x9b)
		 * and broken sequences must not reach a terminal raw, and
		 * deciding which code points are safe to show is a table we
		 * would get wrong. The name stays unambiguous either way. */
		if (c < 0x20 || c >= 0x7f) {
			o += sprintf(o, "\\x%02x", c);
		} else if (c == '\\') {
			*o++ = '\\';
			*o++ = '\\';
		} else {
			*o++ = (char)c;
		}
	}
	*o = '\0';
	return out;
}

const char *fw_name_problem(const char *name)
{
	const char *p = name, *comp = name;

	if (!*name)
		return "empty name";
	if (*name == '/')
		return "absolute name";
	if (strlen(name) >= 4096)
		return "name longer than 4095 bytes";
	for (;; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '/' || c == '\0') {
			size_t n = (size_t)(p - comp);

			if (n == 0)
				return c ? "empty path component" : "trailing slash";
			if (n == 1 && comp[0] == '.')
				return "'.' path component";
			if (n == 2 && comp[0] == '.' && comp[1] == '.')
				return "'..' path component";
			if (n > 255)
				return "path component longer than 255 bytes";
			if (!c)
				break;
			comp = p + 1;
			continue;
		}
		if (c == '\n')
			return "newline in name";
		if (c < 0x20 || c == 0x7f)
			return "control character in name";
		/* Backslash is refused: sha256sum escapes names that hold one,
		 * so the checksum file could no longer be read by both. */
		if (c == '\\')
			return "backslash in name";
	}
	return NULL;
}

char *fw_link_resolve(const char *link, const char *target, bool *outside)
{
	size_t cap = strlen(link) + strlen(target) + 2;
	char *out = malloc(cap), *tmp;
	const char *slash = strrchr(link, '/');
	size_t olen = 0;
	const char *p;

	*outside = false;
	if (!out)
		return NULL;
	if (*target == '/') {
		*outside = true;
		free(out);
		return NULL;
	}
	tmp = malloc(cap);
	if (!tmp) {
		free(out);
		return NULL;
	}
	if (slash)
		snprintf(tmp, cap, "%.*s/%s", (int)(slash - link), link, target);
	else
		snprintf(tmp, cap, "%s", target);
	/* Walk the components, popping on "..": popping past the root means
	 * the link leaves the tree. */
	p = tmp;
	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* skip */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (olen == 0) {
				*outside = true;
				free(tmp);
				free(out);
				return NULL;
			}
			while (olen > 0 && out[olen - 1] != '/')
				olen--;
			if (olen > 0)
				olen--; /* the slash */
		} else {
			if (olen)
				out[olen++] = '/';
			memcpy(out + olen, p, n);
			olen += n;
		}
		p += n;
		if (*p == '/')
			p++;
	}
	out[olen] = '\0';
	free(tmp);
	if (olen == 0) {
		/* The link resolves to the tree's root itself. */
		*outside = true;
		free(out);
		return NULL;
	}
	return out;
}

char *fw_relpath(const char *from, const char *to)
{
	size_t common = 0, i, ups = 0;
	const char *rest;
	char *out, *o;

	/* Longest common directory prefix (whole components). */
	for (i = 0; from[i] && to[i] && from[i] == to[i]; i++)
		if (from[i] == '/')
			common = i + 1;
	for (i = common; from[i]; i++)
		if (from[i] == '/')
			ups++;
	rest = to + common;
	out = malloc(ups * 3 + strlen(rest) + 1);
	if (!out)
		return NULL;
	o = out;
	for (i = 0; i < ups; i++) {
		memcpy(o, "../", 3);
		o += 3;
	}
	strcpy(o, rest);
	return out;
}

int fw_strcmp_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int fw_parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0 || n > 19 || (n > 1 && s[0] == '0'))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > INT64_MAX)
		return -EINVAL;
	*out = v;
	return 0;
}

struct dent {
	char *name;
	unsigned char type;
};

static int cmp_dent(const void *a, const void *b)
{
	return strcmp(((const struct dent *)a)->name, ((const struct dent *)b)->name);
}

int fw_read_dir_typed(int dfd, char ***namesp, unsigned char **typesp, size_t *np)
{
	int fd = dup(dfd), r = 0;
	DIR *dir;
	struct dirent *de;
	struct dent *e = NULL;
	char **names = NULL;
	unsigned char *types = NULL;
	size_t n = 0, cap = 0;

	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -errno;
	}
	rewinddir(dir);
	while ((de = readdir(dir))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fw_grow(&e, &cap, n, sizeof(*e)) < 0 || !(e[n].name = strdup(de->d_name))) {
			r = -ENOMEM;
			break;
		}
		e[n++].type = de->d_type;
	}
	closedir(dir);
	/* qsort(NULL, 0, ...) is undefined: an empty directory skips it. */
	if (r == 0 && n > 1)
		qsort(e, n, sizeof(*e), cmp_dent);
	if (r == 0 && (!(names = malloc((n ? n : 1) * sizeof(*names))) ||
		       (typesp && !(types = malloc(n ? n : 1)))))
		r = -ENOMEM;
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			free(e[i].name);
		free(e);
		free(names);
		return r;
	}
	for (size_t i = 0; i < n; i++) {
		names[i] = e[i].name;
		if (types)
			types[i] = e[i].type;
	}
	free(e);
	*namesp = names;
	if (typesp)
		*typesp = types;
	*np = n;
	return 0;
}

int fw_read_dir_sorted(int dfd, char ***namesp, size_t *np)
{
	return fw_read_dir_typed(dfd, namesp, NULL, np);
}

void fw_free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

struct strv_at {
	const char *s;
	size_t i;
};

static int cmp_strv_at(const void *a, const void *b)
{
	const struct strv_at *x = a, *y = b;
	int c = strcmp(x->s, y->s);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

int fw_strv_uniq(char **v, size_t *n)
{
	struct strv_at *at;
	size_t w = 0;

	if (*n < 2)
		return 0;
	at = malloc(*n * sizeof(*at));
	if (!at)
		return -ENOMEM;
	for (size_t i = 0; i < *n; i++)
		at[i] = (struct strv_at){ v[i], i };
	qsort(at, *n, sizeof(*at), cmp_strv_at);
	/* Equal strings sort together, the first in v first: free the
	 * others and mark their places. */
	for (size_t i = 1, first = 0; i < *n; i++) {
		if (strcmp(at[i].s, at[first].s) != 0) {
			first = i;
			continue;
		}
		free(v[at[i].i]);
		v[at[i].i] = NULL;
	}
	free(at);
	for (size_t i = 0; i < *n; i++)
		if (v[i])
			v[w++] = v[i];
	*n = w;
	return 0;
}

int fw_memstream_close(FILE *f, char **buf)
{
	bool bad = ferror(f) != 0;

	if (fclose(f) != 0 || !*buf)
		bad = true;
	return bad ? -ENOMEM : 0;
}

unsigned fw_jobs(unsigned jobs)
{
	if (jobs == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		jobs = n > 0 ? (unsigned)(n < FW_JOBS_MAX ? n : FW_JOBS_MAX) : 1;
	}
	return jobs < FW_JOBS_MAX ? jobs : FW_JOBS_MAX;
}

struct parallel {
	void (*fn)(void *ctx, size_t i);
	void *ctx;
	size_t n;
	atomic_size_t next;
};

static void *parallel_worker(void *arg)
{
	struct parallel *p = arg;

	for (size_t i; (i = atomic_fetch_add(&p->next, 1)) < p->n;)
		p->fn(p->ctx, i);
	return NULL;
}

void fw_parallel_run(unsigned workers, void *(*fn)(void *ctx), void *ctx)
{
	pthread_t threads[FW_JOBS_MAX];
	unsigned started = 0;

	if (workers > FW_JOBS_MAX)
		workers = FW_JOBS_MAX;
	/* A thread that cannot start is no failure: fewer workers take the
	 * same items, down to the caller alone. */
	for (; started + 1 < workers; started++)
		if (pthread_create(&threads[started], NULL, fn, ctx) != 0)
			break;
	fn(ctx);
	for (unsigned i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
}

void fw_parallel_for(size_t n, unsigned jobs, void (*fn)(void *ctx, size_t i), void *ctx)
{
	struct parallel p = { .fn = fn, .ctx = ctx, .n = n };
	unsigned want = fw_jobs(jobs);

	if (want > n)
		want = n ? (unsigned)n : 1;
	atomic_init(&p.next, 0);
	fw_parallel_run(want, parallel_worker, &p);
}

char *fw_dir_basename(const char *path)
{
	const char *e = path + strlen(path), *b;

	while (e > path && e[-1] == '/')
		e--;
	for (b = e; b > path && b[-1] != '/'; b--)
		;
	return strndup(b, (size_t)(e - b));
}
