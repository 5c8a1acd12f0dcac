/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of util.c, json.c and diag.c: name safety, link resolution, escaping, bounded reads. */
#include "lines.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "json.h"
#include "unit.h"

/* ---- fw_name_problem ---- */

#define CHECK_NAME_BAD(name, why) CHECK_EQ_STR(fw_name_problem(name), (why))
#define CHECK_NAME_OK(name)                                                   \
	do {                                                                  \
		const char *why_ = fw_name_problem(name);                     \
		if (why_)                                                     \
			fprintf(stderr, "'%s': %s\n", fw_esc(name), why_);    \
		CHECK(why_ == NULL);                                          \
	} while (0)

TEST(name_rejections)
{
	CHECK_NAME_BAD("", "empty name");
	CHECK_NAME_BAD("/a", "absolute name");
	CHECK_NAME_BAD("/", "absolute name");
	CHECK_NAME_BAD("//a", "absolute name");
	CHECK_NAME_BAD("a/", "trailing slash");
	CHECK_NAME_BAD("a/b/", "trailing slash");
	CHECK_NAME_BAD("a//b", "empty path component");
	CHECK_NAME_BAD(".", "'.' path component");
	CHECK_NAME_BAD("./a", "'.' path component");
	CHECK_NAME_BAD("a/./b", "'.' path component");
	CHECK_NAME_BAD("a/.", "'.' path component");
	CHECK_NAME_BAD("..", "'..' path component");
	CHECK_NAME_BAD("../a", "'..' path component");
	CHECK_NAME_BAD("a/../b", "'..' path component");
	CHECK_NAME_BAD("a/..", "'..' path component");
	CHECK_NAME_BAD("a\nb", "newline in name");
	CHECK_NAME_BAD("a\n", "newline in name");
	CHECK_NAME_BAD("a\tb", "control character in name");
	CHECK_NAME_BAD("a\rb", "control character in name");
	CHECK_NAME_BAD("a\x01", "control character in name");
	CHECK_NAME_BAD("\x1b[2J", "control character in name");
	CHECK_NAME_BAD("a\x1f", "control character in name");
	CHECK_NAME_BAD("a\x7f" "b", "control character in name");
	CHECK_NAME_BAD("a\\b", "backslash in name");
	CHECK_NAME_BAD("dir\\", "backslash in name");
}

TEST(name_length_limits)
{
	char *name = malloc(5000);
	size_t n;

	CHECK(name);
	/* One component: 255 bytes pass, 256 do not. */
	memset(name, 'a', 255);
	name[255] = '\0';
	CHECK(fw_name_problem(name) == NULL);
	memset(name, 'a', 256);
	name[256] = '\0';
	CHECK_EQ_STR(fw_name_problem(name), "path component longer than 255 bytes");
	/* ... wherever the component is. */
	n = (size_t)sprintf(name, "dir/");
	memset(name + n, 'b', 256);
	strcpy(name + n + 256, "/x.bin");
	CHECK_EQ_STR(fw_name_problem(name), "path component longer than 255 bytes");

	/* The whole: 4095 bytes pass, 4096 do not (components of 255 + '/'). */
	n = 0;
	while (n < 4095) {
		size_t k = 4095 - n < 255 ? 4095 - n : 255;

		memset(name + n, 'c', k);
		n += k;
		if (n < 4095)
			name[n++] = '/';
	}
	name[n] = '\0';
	CHECK_EQ_INT(strlen(name), 4095);
	CHECK(name[4094] != '/');
	CHECK(fw_name_problem(name) == NULL);
	name[4095] = 'c';
	name[4096] = '\0';
	CHECK_EQ_STR(fw_name_problem(name), "name longer than 4095 bytes");
	free(name);
}

TEST(name_acceptances)
{
	CHECK_NAME_OK("a");
	CHECK_NAME_OK("tigon/tg3.bin");
	CHECK_NAME_OK("brcm/brcmfmac43241b4-sdio.Intel Corp.-VALLEYVIEW C0 PLATFORM.txt");
	CHECK_NAME_OK("brcm/brcmfmac43455-sdio.raspberrypi,4-model-b.txt");
	CHECK_NAME_OK(" leading and trailing space ");
	CHECK_NAME_OK("caf\xc3\xa9/\xe3\x83\x95\xe3\x82\xa1\xe3\x83\xbc\xe3\x83\xa0.bin");
	CHECK_NAME_OK(".hidden");
	CHECK_NAME_OK("a/.hidden/b");
	CHECK_NAME_OK("...");
	CHECK_NAME_OK("..a");
	CHECK_NAME_OK("a..");
	CHECK_NAME_OK("a/b-c_d+e=f@g#h~i!j$k%l&m(n)o[p]q{r}s'\"t*u?v<w>x|y:z;");
}

/* ---- fw_link_resolve ---- */

static char *resolve(const char *link, const char *target, bool *outside)
{
	*outside = true; /* must be cleared on success */
	return fw_link_resolve(link, target, outside);
}

#define CHECK_RESOLVES(link, target, want)                                    \
	do {                                                                  \
		bool out_;                                                    \
		char *r_ = resolve((link), (target), &out_);                  \
		CHECK(!out_);                                                 \
		CHECK_EQ_STR(r_, (want));                                     \
		free(r_);                                                     \
	} while (0)

#define CHECK_OUTSIDE(link, target)                                           \
	do {                                                                  \
		bool out_ = false;                                            \
		char *r_ = fw_link_resolve((link), (target), &out_);          \
		CHECK(r_ == NULL);                                            \
		CHECK(out_);                                                  \
	} while (0)

TEST(link_resolve)
{
	CHECK_RESOLVES("a/l", "t", "a/t");                 /* sibling */
	CHECK_RESOLVES("l", "t", "t");                     /* at the top */
	CHECK_RESOLVES("l", "a/b/t", "a/b/t");
	CHECK_RESOLVES("a/b/l", "../t", "a/t");            /* up one */
	CHECK_RESOLVES("a/b/c/l", "../../t", "a/t");
	CHECK_RESOLVES("a/l", "../t", "t");                /* up to the top */
	CHECK_RESOLVES("a/l", "./t", "a/t");
	CHECK_RESOLVES("a/l", "sub/./t", "a/sub/t");
	CHECK_RESOLVES("a/b/l", "../../c/./d/../e", "c/e");
	CHECK_RESOLVES("a/l", "../a/../a/t", "a/t");        /* through the top and back */
	CHECK_RESOLVES("a/l", ".", "a");                   /* the link's own directory */
	CHECK_RESOLVES("a/b/l", "..", "a");
	CHECK_RESOLVES("qcom/maili/gen81400_zap.mbn", "../hawi/gen81100_zap.mbn",
		       "qcom/hawi/gen81100_zap.mbn");
	CHECK_RESOLVES("a/l", "t u/v w", "a/t u/v w");
}

TEST(link_resolve_refusals)
{
	CHECK_OUTSIDE("l", "../t");                        /* leaves the tree */
	CHECK_OUTSIDE("a/l", "../../t");
	CHECK_OUTSIDE("a/b/l", "../../../etc/passwd");
	CHECK_OUTSIDE("a/l", "x/../../../t");
	CHECK_OUTSIDE("a/l", "/etc/passwd");               /* absolute */
	CHECK_OUTSIDE("l", "/");
	CHECK_OUTSIDE("a/l", "..");                        /* the root itself */
	CHECK_OUTSIDE("a/l", "../.");
	CHECK_OUTSIDE("l", ".");
	CHECK_OUTSIDE("a/b/l", "../..");
}

/* ---- fw_relpath ---- */

TEST(relpath)
{
	static const struct {
		const char *from, *to, *want;
	} cases[] = {
		{ "a/b/x", "a/c/y", "../c/y" },
		{ "x", "y", "y" },
		{ "a/x", "a/y", "y" },
		{ "a/b/x", "y", "../../y" },
		{ "x", "a/b/y", "a/b/y" },
		{ "ab/x", "a/y", "../a/y" },        /* "a" is not a prefix of "ab/" */
		{ "a/bc/x", "a/b/y", "../b/y" },
		{ "a/b/x", "a/b", "../b" },
		{ "a/b/x", "a/b/x", "x" },
		{ "a/b/c/d/x", "a/e/y", "../../../e/y" },
	};

	for (size_t i = 0; i < FW_ARRAY_SIZE(cases); i++) {
		char *r = fw_relpath(cases[i].from, cases[i].to);
		bool out = true;
		char *back;

		CHECK_EQ_STR(r, cases[i].want);
		/* Resolving the result from the link gives the target again. */
		back = fw_link_resolve(cases[i].from, r, &out);
		CHECK(!out);
		CHECK_EQ_STR(back, cases[i].to);
		free(back);
		free(r);
	}
}

/* ---- fw_esc ---- */

TEST(esc)
{
	CHECK_EQ_STR(fw_esc(""), "");
	CHECK_EQ_STR(fw_esc("plain name.bin"), "plain name.bin");
	CHECK_EQ_STR(fw_esc("a\\b"), "a\\\\b");
	CHECK_EQ_STR(fw_esc("\x01\x1f\x7f\n\t\r\x1b[31m"), "\\x01\\x1f\\x7f\\x0a\\x09\\x0d\\x1b[31m");
	CHECK_EQ_STR(fw_esc("\"quoted\" 'x'"), "\"quoted\" 'x'");
}

/* Every byte from 0x80 up is escaped, valid UTF-8 or not: a C1 control
 * (0x9b is CSI on some terminals, U+009B is "\xc2\x9b") or a broken
 * sequence must never reach a terminal raw. */
TEST(esc_high_bytes)
{
	CHECK_EQ_STR(fw_esc("caf\xc3\xa9"), "caf\\xc3\\xa9");
	CHECK_EQ_STR(fw_esc("\x80\x9b[31m\xff"), "\\x80\\x9b[31m\\xff");
	CHECK_EQ_STR(fw_esc("a/\xc2\x9b" "2J.bin"), "a/\\xc2\\x9b2J.bin");
	CHECK_EQ_STR(fw_esc("\xf0\x9f\x98\x80"), "\\xf0\\x9f\\x98\\x80");
	CHECK_EQ_STR(fw_esc("~\x7f\x80"), "~\\x7f\\x80");
}

TEST(esc_ring_holds_four)
{
	const char *a = fw_esc("one\n"), *b = fw_esc("two\\"), *c = fw_esc("three"),
		   *d = fw_esc("\x7f");

	CHECK_EQ_STR(a, "one\\x0a");
	CHECK_EQ_STR(b, "two\\\\");
	CHECK_EQ_STR(c, "three");
	CHECK_EQ_STR(d, "\\x7f");
	CHECK(a != b && b != c && c != d && a != d);
}

TEST(esc_bounded)
{
	/* 5000 control characters escape to 20000 bytes: cut, never overflowed. */
	char *in = malloc(5001);
	const char *out;
	size_t n;

	CHECK(in);
	memset(in, '\x01', 5000);
	in[5000] = '\0';
	out = fw_esc(in);
	free(in);
	n = strlen(out);
	CHECK(n >= 4 * FW_LINE_MAX);
	CHECK(n < 4 * FW_LINE_MAX + 16);
	CHECK_EQ_INT(n % 4, 0); /* whole escapes only */
	for (size_t i = 0; i < n; i += 4)
		CHECK(memcmp(out + i, "\\x01", 4) == 0);
}

TEST(esc_bounded_high_bytes)
{
	/* The same bound with bytes >= 0x80, each also 4 bytes escaped. */
	char *in = malloc(5001);
	const char *out;
	size_t n;

	CHECK(in);
	memset(in, '\xff', 5000);
	in[5000] = '\0';
	out = fw_esc(in);
	free(in);
	n = strlen(out);
	CHECK(n >= 4 * FW_LINE_MAX);
	CHECK(n < 4 * FW_LINE_MAX + 16);
	CHECK_EQ_INT(n % 4, 0);
	for (size_t i = 0; i < n; i += 4)
		CHECK(memcmp(out + i, "\\xff", 4) == 0);
}

/* ---- fw_utf8_valid ---- */

TEST(utf8_valid)
{
	static const char *const good[] = {
		"", "plain/name.bin", "caf\xc3\xa9",
		"\xc2\x80", "\xdf\xbf",                 /* 2-byte: first and last */
		"\xe0\xa0\x80", "\xed\x9f\xbf",         /* 3-byte first; U+D7FF */
		"\xee\x80\x80", "\xef\xbf\xbf",         /* U+E000; U+FFFF */
		"\xe2\x82\xac",                         /* euro sign */
		"\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf", /* U+10000; U+10FFFF */
		"\xf0\x9f\x98\x80 and \xc3\xa9 mixed",
	};
	static const char *const bad[] = {
		"\x80", "\xbf", "a\x80" "b",                 /* lone continuation bytes */
		"\xc0\x80", "\xc1\xbf",                  /* overlong 2-byte (NUL, U+7F) */
		"\xe0\x80\x80", "\xe0\x9f\xbf",         /* overlong 3-byte */
		"\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf", /* overlong 4-byte */
		"\xed\xa0\x80", "\xed\xbf\xbf",         /* surrogates U+D800, U+DFFF */
		"\xf4\x90\x80\x80", "\xf5\x80\x80\x80", /* past U+10FFFF */
		"\xf8\x88\x80\x80\x80", "\xfc\x84\x80\x80\x80\x80", /* 5, 6 bytes */
		"\xfe", "\xff",
		"\xc3", "\xe2\x82", "\xf0\x9f\x98",     /* cut at the end */
		"\xc3(", "\xe2(\xac", "\xf0\x9f\x98(",    /* cut by an ASCII byte */
		"ok \xc3\xa9 then \xff",                 /* valid text then one bad byte */
	};

	for (size_t i = 0; i < FW_ARRAY_SIZE(good); i++) {
		if (!fw_utf8_valid(good[i]))
			fprintf(stderr, "good[%zu] '%s' refused\n", i, fw_esc(good[i]));
		CHECK(fw_utf8_valid(good[i]));
	}
	for (size_t i = 0; i < FW_ARRAY_SIZE(bad); i++) {
		if (fw_utf8_valid(bad[i]))
			fprintf(stderr, "bad[%zu] '%s' accepted\n", i, fw_esc(bad[i]));
		CHECK(!fw_utf8_valid(bad[i]));
	}
}

/* ---- fw_read_text ---- */

struct tmpdir {
	char path[64];
	int fd;
};

static int tmpdir_make(struct tmpdir *t)
{
	strcpy(t->path, "/tmp/fwdist-test-util-XXXXXX");
	if (!mkdtemp(t->path))
		return -1;
	t->fd = open(t->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return t->fd < 0 ? -1 : 0;
}

static void tmpdir_remove(struct tmpdir *t)
{
	static const char *const names[] = { "text", "empty", "link", "dir", "fifo", "big", "max" };

	for (size_t i = 0; i < FW_ARRAY_SIZE(names); i++)
		if (unlinkat(t->fd, names[i], 0) < 0)
			unlinkat(t->fd, names[i], AT_REMOVEDIR);
	close(t->fd);
	rmdir(t->path);
}

static int write_file(int dirfd, const char *name, const char *data, size_t len)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), r;

	if (fd < 0)
		return -errno;
	r = fw_write_all(fd, data, len);
	close(fd);
	return r;
}

static int sparse_file(int dirfd, const char *name, off_t size)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), r = 0;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, size) < 0)
		r = -errno;
	close(fd);
	return r;
}

TEST(read_text)
{
	struct tmpdir t;
	char *buf = NULL;
	size_t len = 99;
	int r;

	CHECK_EQ_INT(tmpdir_make(&t), 0);
	CHECK_EQ_INT(write_file(t.fd, "text", "line 1\nline\0 2\n", 15), 0);
	CHECK_EQ_INT(write_file(t.fd, "empty", "", 0), 0);
	CHECK_EQ_INT(symlinkat("text", t.fd, "link"), 0);
	CHECK_EQ_INT(mkdirat(t.fd, "dir", 0755), 0);
	CHECK_EQ_INT(mkfifoat(t.fd, "fifo", 0644), 0);

	r = fw_read_text(t.fd, "text", &buf, &len);
	CHECK_EQ_INT(r, 0);
	CHECK_EQ_INT(len, 15);
	CHECK(memcmp(buf, "line 1\nline\0 2\n", 15) == 0); /* NUL bytes kept: callers check */
	CHECK_EQ_INT(buf[15], '\0');
	free(buf);

	buf = NULL;
	r = fw_read_text(t.fd, "empty", &buf, &len);
	CHECK_EQ_INT(r, 0);
	CHECK_EQ_INT(len, 0);
	CHECK(buf != NULL);
	CHECK_EQ_STR(buf, "");
	free(buf);

	/* A symlink is refused, not followed, even to a good file. */
	buf = NULL;
	CHECK_EQ_INT(fw_read_text(t.fd, "link", &buf, &len), -EINVAL);
	CHECK(buf == NULL);
	CHECK_EQ_INT(fw_read_text(t.fd, "dir", &buf, &len), -EINVAL);
	/* A FIFO is refused without blocking on it. */
	CHECK_EQ_INT(fw_read_text(t.fd, "fifo", &buf, &len), -EINVAL);
	CHECK_EQ_INT(fw_read_text(t.fd, "missing", &buf, &len), -ENOENT);
	CHECK_EQ_INT(fw_read_text(t.fd, "text/x", &buf, &len), -ENOTDIR);
	tmpdir_remove(&t);
}

TEST(read_text_size_limit)
{
	struct tmpdir t;
	char *buf = NULL;
	size_t len = 0;
	int r;

	CHECK_EQ_INT(tmpdir_make(&t), 0);
	/* Sparse: no disk space used, and refused before reading. */
	CHECK_EQ_INT(sparse_file(t.fd, "big", (off_t)FW_TEXT_MAX + 1), 0);
	CHECK_EQ_INT(sparse_file(t.fd, "max", (off_t)FW_TEXT_MAX), 0);
	r = fw_read_text(t.fd, "big", &buf, &len);
	CHECK_EQ_INT(r, -EFBIG);
	CHECK(buf == NULL);
	/* Exactly the limit is allowed ("-EFBIG past FW_TEXT_MAX"). */
	r = fw_read_text(t.fd, "max", &buf, &len);
	tmpdir_remove(&t);
	CHECK_EQ_INT(r, 0);
	CHECK_EQ_INT(len, FW_TEXT_MAX);
	CHECK_EQ_INT(buf[0], 0);
	CHECK_EQ_INT(buf[FW_TEXT_MAX - 1], 0);
	free(buf);
}

/* ---- fw_lines_next / fw_field ---- */

TEST(lines)
{
	static const char text[] = "a\n\nbc\nlast";
	struct fw_lines it;
	const char *ls, *le;

	fw_lines_init(&it, text, strlen(text));
	CHECK(fw_lines_next(&it, &ls, &le));
	CHECK_EQ_INT(it.line, 1);
	CHECK_EQ_INT(le - ls, 1);
	CHECK(fw_lines_next(&it, &ls, &le));
	CHECK_EQ_INT(le - ls, 0);
	CHECK(fw_lines_next(&it, &ls, &le));
	CHECK(le - ls == 2 && memcmp(ls, "bc", 2) == 0);
	CHECK(fw_lines_next(&it, &ls, &le));
	CHECK(le - ls == 4 && memcmp(ls, "last", 4) == 0);
	CHECK_EQ_INT(it.line, 4);
	CHECK(!fw_lines_next(&it, &ls, &le));
	CHECK_EQ_INT(it.line, 4);

	/* A final newline ends the last line; it does not start another. */
	fw_lines_init(&it, "x\n", 2);
	CHECK(fw_lines_next(&it, &ls, &le));
	CHECK(!fw_lines_next(&it, &ls, &le));
	fw_lines_init(&it, "", 0);
	CHECK(!fw_lines_next(&it, &ls, &le));
	CHECK_EQ_INT(it.line, 0);
}

TEST(fields)
{
	static const char text[] = " \tone  two\tthree \t";
	const char *p = text, *e = text + strlen(text), *f;
	size_t n;

	f = fw_field(&p, e, &n);
	CHECK(n == 3 && memcmp(f, "one", 3) == 0);
	f = fw_field(&p, e, &n);
	CHECK(n == 3 && memcmp(f, "two", 3) == 0);
	f = fw_field(&p, e, &n);
	CHECK(n == 5 && memcmp(f, "three", 5) == 0);
	CHECK(p == e); /* trailing blanks skipped */
	f = fw_field(&p, e, &n);
	CHECK_EQ_INT(n, 0);
}

/* ---- fw_json_str ---- */

static char *json(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fw_json_str(f, s);
	fclose(f);
	return buf;
}

#define CHECK_JSON(in, want)                                                  \
	do {                                                                  \
		char *j_ = json(in);                                          \
		CHECK(j_ != NULL);                                            \
		if (strcmp(j_, (want)) != 0) {                                \
			fprintf(stderr, "json: %s\n", j_);                    \
			free(j_);                                             \
			CHECK(!"json output differs");                        \
		}                                                             \
		free(j_);                                                     \
	} while (0)

TEST(json_escapes)
{
	CHECK_JSON("", "\"\"");
	CHECK_JSON("plain", "\"plain\"");
	CHECK_JSON("a\"b\\c/d", "\"a\\\"b\\\\c/d\"");
	CHECK_JSON("\n\t\r\b\f", "\"\\u000a\\u0009\\u000d\\u0008\\u000c\"");
	CHECK_JSON("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
}

TEST(json_utf8_passes_through)
{
	/* 2, 3 and 4-byte sequences, and the largest code point U+10FFFF. */
	CHECK_JSON("caf\xc3\xa9", "\"caf\xc3\xa9\"");
	CHECK_JSON("\xe2\x82\xac", "\"\xe2\x82\xac\"");
	CHECK_JSON("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"");
	CHECK_JSON("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"");
	CHECK_JSON("\xc2\x80", "\"\xc2\x80\"");
	CHECK_JSON("\xef\xbf\xbf", "\"\xef\xbf\xbf\"");
}

TEST(json_invalid_utf8_as_bytes)
{
	/* Not UTF-8: the whole value becomes the array of its bytes. */
	CHECK_JSON("\xff", "[255]");
	CHECK_JSON("\x80", "[128]");                               /* lone continuation */
	CHECK_JSON("a\xc3", "[97,195]");                           /* cut at the end */
	CHECK_JSON("\xe2\x82", "[226,130]");                       /* cut 3-byte */
	CHECK_JSON("\xc3(", "[195,40]");                           /* bad continuation */
	CHECK_JSON("\xc0\xaf", "[192,175]");                       /* overlong '/' */
	CHECK_JSON("\xe0\x80\xaf", "[224,128,175]");               /* overlong 3-byte */
	CHECK_JSON("\xf0\x80\x80\xaf", "[240,128,128,175]");       /* overlong 4-byte */
	CHECK_JSON("\xed\xa0\x80", "[237,160,128]");               /* surrogate U+D800 */
	CHECK_JSON("\xf4\x90\x80\x80", "[244,144,128,128]");       /* past U+10FFFF */
	CHECK_JSON("\xf8\x88\x80\x80\x80", "[248,136,128,128,128]");
	/* Valid text around an invalid byte, quotes and controls: all bytes. */
	CHECK_JSON("\xc3\xa9\xff\xc3\xa9", "[195,169,255,195,169]");
	CHECK_JSON("\"\\\n\xfe", "[34,92,10,254]");
	/* issue 26's example */
	CHECK_JSON("bad\xff\xfe", "[98,97,100,255,254]");
}

/* ---- fw_diag ---- */

TEST(diag)
{
	struct fw_diag d = { 0 };

	fw_diag_add(NULL, "x", 1, "dropped %d", 1); /* no diagnostics wanted */
	fw_diag_add(&d, "WHENCE", 812, "File: %s: no such file in firmware/", "foo/bar.bin");
	fw_diag_add(&d, NULL, 0, "whole %s", "tree");
	for (int i = 0; i < 40; i++)
		fw_diag_add(&d, "f", (unsigned)i, "%d", i);
	CHECK_EQ_INT(d.n, 42);
	CHECK_EQ_INT(d.nomem, 0);
	CHECK_EQ_STR(d.v[0].file, "WHENCE");
	CHECK_EQ_INT(d.v[0].line, 812);
	CHECK_EQ_STR(d.v[0].text, "File: foo/bar.bin: no such file in firmware/");
	CHECK_EQ_STR(d.v[1].file, "");
	CHECK_EQ_INT(d.v[1].line, 0);
	CHECK_EQ_STR(d.v[1].text, "whole tree");
	CHECK_EQ_STR(d.v[41].text, "39");
	CHECK_EQ_INT(d.v[41].line, 39);
	fw_diag_free(&d);
	CHECK(d.v == NULL);
	CHECK_EQ_INT(d.n, 0);
	CHECK_EQ_INT(d.cap, 0);
}

TEST(grow)
{
	int *v = NULL;
	size_t cap = 0, n = 0;

	for (int i = 0; i < 1000; i++) {
		CHECK_EQ_INT(fw_grow(&v, &cap, n, sizeof(*v)), 0);
		CHECK(cap > n);
		v[n++] = i;
	}
	CHECK_EQ_INT(v[999], 999);
	free(v);
	/* An element size that cannot fit is -ENOMEM, not a wrapped size. */
	v = NULL;
	cap = SIZE_MAX / 8;
	CHECK_EQ_INT(fw_grow(&v, &cap, cap, 16), -ENOMEM);
	CHECK(v == NULL);
	/* So is a capacity that cannot double, or an index with no next. */
	cap = SIZE_MAX / 2 + 1;
	CHECK_EQ_INT(fw_grow(&v, &cap, cap, 1), -ENOMEM);
	cap = 0;
	CHECK_EQ_INT(fw_grow(&v, &cap, SIZE_MAX, 1), -ENOMEM);
	CHECK(v == NULL);
	CHECK_EQ_INT(cap, 0);
}

/* Room for a known size at once: past what doubling gives, exactly n + 1;
 * below it, doubling as usual. */
TEST(grow_reserve)
{
	char *v = NULL;
	size_t cap = 0;

	CHECK_EQ_INT(fw_grow(&v, &cap, 1000, 1), 0);
	CHECK_EQ_INT(cap, 1001);
	v[1000] = 'x';
	CHECK_EQ_INT(fw_grow(&v, &cap, 1001, 1), 0);
	CHECK_EQ_INT(cap, 2002);
	CHECK_EQ_INT(v[1000], 'x');
	free(v);
}

/* ---- fw_parallel_for ---- */

struct par_test {
	atomic_int *calls;
	pthread_t caller;
	atomic_int off_caller;
};

static void par_count(void *ctx, size_t i)
{
	struct par_test *t = ctx;

	atomic_fetch_add(&t->calls[i], 1);
	if (!pthread_equal(pthread_self(), t->caller))
		atomic_fetch_add(&t->off_caller, 1);
}

TEST(parallel_for)
{
	static atomic_int calls[1000];
	struct par_test t = { .calls = calls, .caller = pthread_self() };

	CHECK(fw_jobs(0) >= 1);
	CHECK_EQ_INT(fw_jobs(1), 1);
	CHECK_EQ_INT(fw_jobs(1000), FW_JOBS_MAX);
	/* Every index exactly once, whatever the number of workers. */
	for (unsigned jobs = 0; jobs <= 5; jobs++) {
		for (size_t i = 0; i < 1000; i++)
			atomic_init(&calls[i], 0);
		fw_parallel_for(1000, jobs, par_count, &t);
		for (size_t i = 0; i < 1000; i++)
			CHECK_EQ_INT(atomic_load(&calls[i]), 1);
	}
	/* One job: the caller alone, no thread. Nothing to do: no call. */
	atomic_init(&t.off_caller, 0);
	fw_parallel_for(1000, 1, par_count, &t);
	CHECK_EQ_INT(atomic_load(&t.off_caller), 0);
	atomic_init(&calls[0], 0);
	fw_parallel_for(0, 4, par_count, &t);
	CHECK_EQ_INT(atomic_load(&calls[0]), 0);
}
