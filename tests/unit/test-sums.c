/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of sums.c: manifests/checksums parsing, every refusal, and format -> parse round trips. */
#include "sums.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#include "unit.h"

#define HDR FW_SUMS_HEADER "\n"
/* Digests of "" and "abc", and two made-up ones. */
#define D_EMPTY "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define D_ABC   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define D_1     "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define D_UPPER "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef"

static int parse(struct fw_sums *s, struct fw_diag *d, const char *text)
{
	memset(d, 0, sizeof(*d));
	return fw_sums_parse(s, "manifests/checksums", text, strlen(text), d);
}

#define CHECK_DIAG(d, i, ln, txt) CHECK_DIAG_IN(d, i, "manifests/checksums", ln, txt)

TEST(parse_ok)
{
	static const char text[] =
		HDR
		"# a comment\n"                   /* 2 */
		"#size 9223372036854775807\n"     /* 3: the largest size */
		D_1 "   lead space\n"            /* 4: the name is " lead space" */
		"#size 0\n"                       /* 5 */
		D_EMPTY "  a.bin\n"               /* 6 */
		"#size 3\n"                       /* 7 */
		"# comments may come between\n"   /* 8 */
		D_ABC "  dir/b c,d.bin\n";        /* 9 */
	struct fw_sums s;
	struct fw_diag d;
	const struct fw_sum *e;

	CHECK_EQ_INT(parse(&s, &d, text), 0);
	CHECK_NDIAG(&d, 0);
	CHECK_EQ_STR(s.path, "manifests/checksums");
	CHECK_EQ_INT(s.n, 3);
	/* Byte order: ' ' sorts before letters. */
	CHECK_EQ_STR(s.v[0].name, " lead space");
	CHECK_EQ_INT(s.v[0].line, 4);
	CHECK(s.v[0].size == 9223372036854775807ull);
	CHECK_EQ_INT(s.v[0].sha256[0], 0x01);
	CHECK_EQ_INT(s.v[0].sha256[31], 0xef);
	CHECK_EQ_STR(s.v[1].name, "a.bin");
	CHECK_EQ_INT(s.v[1].size, 0);
	CHECK_EQ_INT(s.v[1].line, 6);
	CHECK_EQ_INT(s.v[1].sha256[0], 0xe3);
	CHECK_EQ_INT(s.v[1].sha256[31], 0x55);
	CHECK_EQ_STR(s.v[2].name, "dir/b c,d.bin");
	CHECK_EQ_INT(s.v[2].size, 3);
	CHECK_EQ_INT(s.v[2].line, 9);
	CHECK_EQ_INT(s.v[2].sha256[0], 0xba);
	e = fw_sums_find(&s, "a.bin");
	CHECK(e == &s.v[1]);
	e = fw_sums_find(&s, "dir/b c,d.bin");
	CHECK(e == &s.v[2]);
	CHECK(fw_sums_find(&s, "dir") == NULL);
	CHECK(fw_sums_find(&s, "A.bin") == NULL);
	fw_sums_free(&s);
	CHECK(s.v == NULL && s.n == 0 && s.path == NULL);
	fw_diag_free(&d);
}

TEST(byte_order)
{
	/* LC_ALL=C order: upper case before lower, '-' before '/' before '0'. */
	static const char text[] =
		HDR
		"#size 1\n" D_1 "  Z.bin\n"
		"#size 1\n" D_1 "  a-b\n"
		"#size 1\n" D_1 "  a/b\n"
		"#size 1\n" D_1 "  a0\n"
		"#size 1\n" D_1 "  \xc3\xa9.bin\n";
	struct fw_sums s;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&s, &d, text), 0);
	CHECK_NDIAG(&d, 0);
	CHECK_EQ_INT(s.n, 5);
	CHECK_EQ_STR(s.v[4].name, "\xc3\xa9.bin");
	fw_sums_free(&s);
	fw_diag_free(&d);
}

TEST(empty_manifest)
{
	struct fw_sums s;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&s, &d, HDR), 0);
	CHECK_EQ_INT(d.n, 0);
	CHECK_EQ_INT(s.n, 0);
	CHECK(fw_sums_find(&s, "a") == NULL);
	fw_sums_free(&s);

	CHECK_EQ_INT(parse(&s, &d, ""), 0);
	CHECK_EQ_INT(d.n, 1);
	CHECK_DIAG(&d, 0, 0, "empty file (missing header line '# fwdist checksums 1')");
	fw_sums_free(&s);
	fw_diag_free(&d);
}

TEST(header_required)
{
	struct fw_sums s;
	struct fw_diag d;

	/* A deleted header is reported, and costs no entry. */
	CHECK_EQ_INT(parse(&s, &d, "#size 3\n" D_ABC "  a\n"), 0);
	CHECK_EQ_INT(d.n, 1);
	CHECK_DIAG(&d, 0, 1, "missing header line '# fwdist checksums 1'");
	CHECK_EQ_INT(s.n, 1);
	CHECK_EQ_INT(s.v[0].size, 3);
	fw_sums_free(&s);
	fw_diag_free(&d);

	CHECK_EQ_INT(parse(&s, &d, "# fwdist checksums 2\n"), 0);
	CHECK_EQ_INT(d.n, 1);
	CHECK_DIAG(&d, 0, 1, "missing header line '# fwdist checksums 1'");
	fw_sums_free(&s);
	fw_diag_free(&d);

	CHECK_EQ_INT(parse(&s, &d, "# fwdist checksums 1 \n"), 0);
	CHECK_DIAG(&d, 0, 1, "missing header line '# fwdist checksums 1'");
	fw_sums_free(&s);
	fw_diag_free(&d);
}

TEST(bad_digests)
{
	static const char text[] =
		HDR
		"#size 1\n" "g123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef  a\n"  /* 3 */
		"#size 1\n" D_UPPER "  b\n"                                                     /* 5 */
		"#size 1\n" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde  c\n"   /* 7: 63 */
		"#size 1\n" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0  d\n" /* 9: 65 */
		"#size 1\n" D_1 " e\n"                                                          /* 11: one space */
		"#size 1\n" D_1 " *f\n"                                                         /* 13: binary mode */
		"#size 1\n" D_1 "\n"                                                            /* 15: no name */
		"#size 1\n" D_1 "  \n"                                                          /* 17: empty name */
		"#size 1\n" D_1 "\tg\n"                                                         /* 19: a tab */
		"#size 1\n" "0x23456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef  h\n"  /* 21 */
		"#size 1\n" D_1 "  ok\n";                                                       /* 23 */
	struct fw_sums s;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&s, &d, text), 0);
	CHECK_NDIAG(&d, 10);
	CHECK_DIAG(&d, 0, 3, "bad SHA-256 digest (not hexadecimal)");
	CHECK_DIAG(&d, 1, 5, "bad SHA-256 digest (upper-case hex)");
	CHECK_DIAG(&d, 2, 7, "bad SHA-256 digest (63 characters, expected 64)");
	CHECK_DIAG(&d, 3, 9, "bad SHA-256 digest (65 characters, expected 64)");
	CHECK_DIAG(&d, 4, 11, "expected '<sha256>  <name>'");
	CHECK_DIAG(&d, 5, 13, "expected '<sha256>  <name>'");
	CHECK_DIAG(&d, 6, 15, "expected '<sha256>  <name>'");
	CHECK_DIAG(&d, 7, 17, "expected '<sha256>  <name>'");
	CHECK_DIAG(&d, 8, 19, "expected '<sha256>  <name>'");
	CHECK_DIAG(&d, 9, 21, "bad SHA-256 digest (not hexadecimal)");
	CHECK_EQ_INT(s.n, 1);
	CHECK_EQ_STR(s.v[0].name, "ok");
	CHECK_EQ_INT(s.v[0].line, 23);
	fw_sums_free(&s);
	fw_diag_free(&d);
}

TEST(bad_sizes)
{
	static const char text[] =
		HDR
		"#size 12x\n"                       /* 2 */
		D_1 "  a\n"                         /* 3: its size was the finding */
		"#size -1\n"                        /* 4 */
		"#size +1\n"                        /* 5 */
		"#size  1\n"                        /* 6: two blanks */
		"#size 1 \n"                        /* 7: trailing blank */
		"#size \n"                          /* 8: no digits */
		"#size 01\n"                        /* 9: leading zero */
		"#size 00\n"                        /* 10 */
		"#size 9223372036854775808\n"       /* 11: INT64_MAX + 1 */
		"#size 18446744073709551616\n"      /* 12: UINT64_MAX + 1 (20 digits) */
		"#size 99999999999999999999\n"      /* 13 */
		"#size 0x10\n"                      /* 14 */
		"#size 1e3\n"                       /* 15 */
		"#size 0\n"                         /* 16: zero is a size */
		D_1 "  b\n";                        /* 17 */
	struct fw_sums s;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&s, &d, text), 0);
	CHECK_NDIAG(&d, 13);
	CHECK_DIAG(&d, 0, 2, "bad size '12x'");
	CHECK_DIAG(&d, 1, 4, "bad size '-1'");
	CHECK_DIAG(&d, 2, 5, "bad size '+1'");
	CHECK_DIAG(&d, 3, 6, "bad size ' 1'");
	CHECK_DIAG(&d, 4, 7, "bad size '1 '");
	CHECK_DIAG(&d, 5, 8, "bad size ''");
	CHECK_DIAG(&d, 6, 9, "bad size '01'");
	CHECK_DIAG(&d, 7, 10, "bad size '00'");
	CHECK_DIAG(&d, 8, 11, "bad size '9223372036854775808'");
	CHECK_DIAG(&d, 9, 12, "bad size '18446744073709551616'");
	CHECK_DIAG(&d, 10, 13, "bad size '99999999999999999999'");
	CHECK_DIAG(&d, 11, 14, "bad size '0x10'");
	CHECK_DIAG(&d, 12, 15, "bad size '1e3'");
	/* The entry after a bad size is not taken with a guessed size. */
	CHECK_EQ_INT(s.n, 1);
	CHECK_EQ_STR(s.v[0].name, "b");
	CHECK_EQ_INT(s.v[0].size, 0);
	fw_sums_free(&s);
	fw_diag_free(&d);
}

TEST(size_and_digest_pairing)
{
	static const char text[] =
		HDR
		D_1 "  a\n"            /* 2: no #size before it */
		"#size 1\n"            /* 3: no digest after it */
		"#size 2\n"            /* 4 */
		D_1 "  b\n"            /* 5: takes size 2 */
		"#size\n"              /* 6: no blank: a comment */
		D_1 "  c\n"            /* 7: so no #size */
		"#size 7\n";           /* 8: at the end, no digest */
	struct fw_sums s;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&s, &d, text), 0);
	CHECK_NDIAG(&d, 4);
	CHECK_DIAG(&d, 0, 2, "digest line without a #size line before it");
	CHECK_DIAG(&d, 1, 3, "#size line without a digest line");
	CHECK_DIAG(&d, 2, 7, "digest line without a #size line before it");
	CHECK_DIAG(&d, 3, 8, "#size line without a digest line");
	CHECK_EQ_INT(s.n, 1);
	CHECK_EQ_STR(s.v[0].name, "b");
	CHECK_EQ_INT(s.v[0].size, 2);
	fw_sums_free(&s);
	fw_diag_free(&d);
}

TEST(blank_lines)
{
	static const char text[] =
		HDR
		"\n"                   /* 2 */
		"#size 1\n"            /* 3 */
		D_1 "  a\n"            /* 4 */
		"\n";                  /* 5 */
	struct fw_sums s;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&s, &d, text), 0);
	CHECK_EQ_INT(d.n, 2);
	CHECK_DIAG(&d, 0, 2, "blank line");
	CHECK_DIAG(&d, 1, 5, "blank line");
	CHECK_EQ_INT(s.n, 1);
	fw_sums_free(&s);
	fw_diag_free(&d);
}

TEST(unsorted_and_duplicate)
{
	static const char text[] =
		HDR
		"#size 1\n" D_1 "  b\n"      /* 3 */
		"#size 1\n" D_1 "  a\n"      /* 5: out of order */
		"#size 1\n" D_1 "  b\n"      /* 7: twice */
		"#size 1\n" D_1 "  c\n"      /* 9 */
		"#size 1\n" D_1 "  B\n";     /* 11: 'B' < 'c' */
	struct fw_sums s;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&s, &d, text), 0);
	CHECK_NDIAG(&d, 3);
	CHECK_DIAG(&d, 0, 5, "a: out of order (run fwdist manifest)");
	CHECK_DIAG(&d, 1, 7, "b: listed twice (first at line 3)");
	CHECK_DIAG(&d, 2, 11, "B: out of order (run fwdist manifest)");
	CHECK_EQ_INT(s.n, 2);
	CHECK_EQ_STR(s.v[0].name, "b");
	CHECK_EQ_STR(s.v[1].name, "c");
	fw_sums_free(&s);
	fw_diag_free(&d);
}

TEST(unsafe_names)
{
	static const char text[] =
		HDR
		"#size 1\n" D_1 "  ../etc/passwd\n"     /* 3 */
		"#size 1\n" D_1 "  /etc/passwd\n"       /* 5 */
		"#size 1\n" D_1 "  a/../b\n"            /* 7 */
		"#size 1\n" D_1 "  a//b\n"              /* 9 */
		"#size 1\n" D_1 "  a/\n"                /* 11 */
		"#size 1\n" D_1 "  ./a\n"               /* 13 */
		"#size 1\n" D_1 "  a\\b\n"              /* 15 */
		"#size 1\n" D_1 "  a\x1b[2Jb\n"         /* 17 */
		"#size 1\n" D_1 "  a\rb\n"              /* 19 */
		"#size 1\n" D_1 "  a\x7f\n"             /* 21 */
		"#size 1\n" D_1 "  ok\n";               /* 23 */
	struct fw_sums s;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&s, &d, text), 0);
	CHECK_NDIAG(&d, 10);
	CHECK_DIAG(&d, 0, 3, "../etc/passwd: '..' path component");
	CHECK_DIAG(&d, 1, 5, "/etc/passwd: absolute name");
	CHECK_DIAG(&d, 2, 7, "a/../b: '..' path component");
	CHECK_DIAG(&d, 3, 9, "a//b: empty path component");
	CHECK_DIAG(&d, 4, 11, "a/: trailing slash");
	CHECK_DIAG(&d, 5, 13, "./a: '.' path component");
	CHECK_DIAG(&d, 6, 15, "a\\\\b: backslash in name");
	CHECK_DIAG(&d, 7, 17, "a\\x1b[2Jb: control character in name");
	CHECK_DIAG(&d, 8, 19, "a\\x0db: control character in name");
	CHECK_DIAG(&d, 9, 21, "a\\x7f: control character in name");
	CHECK_EQ_INT(s.n, 1);
	CHECK_EQ_STR(s.v[0].name, "ok");
	fw_sums_free(&s);
	fw_diag_free(&d);
}

TEST(overlong_line)
{
	size_t namelen = FW_LINE_MAX; /* 64 + 2 + 4096 bytes: over the limit */
	char *buf = malloc(256 + namelen);
	struct fw_sums s;
	struct fw_diag d = { 0 };
	size_t len;

	CHECK(buf);
	len = (size_t)sprintf(buf, HDR "#size 1\n" D_1 "  ");
	memset(buf + len, 'n', namelen);
	len += namelen;
	len += (size_t)sprintf(buf + len, "\n#size 1\n" D_1 "  z\n");
	CHECK_EQ_INT(fw_sums_parse(&s, "manifests/checksums", buf, len, &d), 0);
	free(buf);
	CHECK_NDIAG(&d, 1);
	CHECK_DIAG(&d, 0, 3, "line too long (4162 bytes, limit 4096)");
	CHECK_EQ_INT(s.n, 1);
	CHECK_EQ_STR(s.v[0].name, "z");
	fw_sums_free(&s);
	fw_diag_free(&d);
}

/* A NUL in a name would silently cut it short: "a\0../../x" must not be
 * taken as "a". */
TEST(nul_byte_refused)
{
	static const char text[] =
		HDR
		"#size 1\n" D_1 "  a\0/../../etc/passwd\n"   /* 3 */
		"#size 1\0 junk\n"                           /* 4 */
		D_1 "  b\n"                                  /* 5 */
		"#size 1\n" D_1 "  c\n";                     /* 7 */
	struct fw_sums s;
	struct fw_diag d = { 0 };

	CHECK_EQ_INT(fw_sums_parse(&s, "manifests/checksums", text, sizeof(text) - 1, &d), 0);
	CHECK_NDIAG(&d, 3);
	CHECK_DIAG(&d, 0, 3, "NUL byte in line");
	CHECK_DIAG(&d, 1, 4, "NUL byte in line");
	CHECK_DIAG(&d, 2, 5, "digest line without a #size line before it");
	CHECK_EQ_INT(s.n, 1);
	CHECK_EQ_STR(s.v[0].name, "c");
	fw_sums_free(&s);
	fw_diag_free(&d);
}

TEST(format_exact_text)
{
	struct fw_sum v[2] = {
		{ .name = "a.bin", .size = 0 },
		{ .name = "dir/b c.bin", .size = 1234567890123ull },
	};
	char *buf = NULL;
	size_t len = 0;

	for (int i = 0; i < 32; i++)
		v[1].sha256[i] = (uint8_t)(i * 17);
	CHECK_EQ_INT(fw_sums_format(v, 2, &buf, &len), 0);
	CHECK(buf != NULL);
	CHECK_EQ_INT(len, strlen(buf));
	CHECK_EQ_STR(buf,
		     "# fwdist checksums 1\n"
		     "# Generated by `fwdist manifest`; do not edit. Each blob: a #size line, then\n"
		     "# its SHA-256 in sha256sum's format: cd firmware && sha256sum --strict -c ../manifests/checksums\n"
		     "#size 0\n"
		     "0000000000000000000000000000000000000000000000000000000000000000  a.bin\n"
		     "#size 1234567890123\n"
		     "00112233445566778899aabbccddeeff102132435465768798a9bacbdcedfe0f  dir/b c.bin\n");
	free(buf);

	CHECK_EQ_INT(fw_sums_format(NULL, 0, &buf, &len), 0);
	CHECK(strncmp(buf, HDR, strlen(HDR)) == 0);
	CHECK(strstr(buf, "\n#size ") == NULL);
	free(buf);
}

TEST(round_trip)
{
	static const char *const names[] = {
		" space first", "A.bin", "a b/c d.bin", "a,b", "a-b/x", "a/b/c/d/e/f.bin",
		"amdgpu/navi10_sos.bin", "iwlwifi-9000-pu-b0-jf-b0-46.ucode", "z\xc3\xa9.bin",
	};
	struct fw_sum v[FW_ARRAY_SIZE(names)];
	struct fw_sums s;
	struct fw_diag d = { 0 };
	char *buf = NULL, *buf2 = NULL;
	size_t len = 0, len2 = 0;

	for (size_t i = 0; i < FW_ARRAY_SIZE(names); i++) {
		v[i].name = (char *)names[i];
		v[i].size = i == 0 ? 0 : i == 1 ? 9223372036854775807ull : (uint64_t)i * 1000003u;
		for (int j = 0; j < 32; j++)
			v[i].sha256[j] = (uint8_t)(i * 31 + (size_t)j * 7 + 1);
	}
	CHECK_EQ_INT(fw_sums_format(v, FW_ARRAY_SIZE(v), &buf, &len), 0);
	CHECK_EQ_INT(fw_sums_parse(&s, "manifests/checksums", buf, len, &d), 0);
	CHECK_NDIAG(&d, 0);
	CHECK_EQ_INT(s.n, FW_ARRAY_SIZE(v));
	for (size_t i = 0; i < s.n; i++) {
		CHECK_EQ_STR(s.v[i].name, v[i].name);
		CHECK(s.v[i].size == v[i].size);
		CHECK(memcmp(s.v[i].sha256, v[i].sha256, 32) == 0);
		CHECK_EQ_INT(s.v[i].line, 5 + 2 * i);
	}
	/* Formatting what was parsed gives the same bytes. */
	CHECK_EQ_INT(fw_sums_format(s.v, s.n, &buf2, &len2), 0);
	CHECK_EQ_INT(len2, len);
	CHECK(memcmp(buf, buf2, len) == 0);
	free(buf);
	free(buf2);
	fw_sums_free(&s);
	fw_diag_free(&d);
}

/* The promise of sums.h: sha256sum --strict -c reads the file as is. */
TEST(sha256sum_reads_it)
{
	char dir[] = "/tmp/fwdist-test-sums-XXXXXX", cmd[256];
	struct fw_sum v[2] = {
		{ .name = "a b.bin", .size = 0 },
		{ .name = "abc", .size = 3 },
	};
	char *buf = NULL;
	size_t len = 0;
	int fd, dfd, r;

	CHECK(mkdtemp(dir) != NULL);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(dfd >= 0);
	CHECK_EQ_INT(fw_sha256_parse(D_EMPTY, 64, v[0].sha256), 0);
	CHECK_EQ_INT(fw_sha256_parse(D_ABC, 64, v[1].sha256), 0);
	CHECK_EQ_INT(fw_sums_format(v, 2, &buf, &len), 0);
	fd = openat(dfd, "checksums", O_WRONLY | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0);
	CHECK_EQ_INT(fw_write_all(fd, buf, len), 0);
	close(fd);
	free(buf);
	fd = openat(dfd, "a b.bin", O_WRONLY | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0);
	close(fd);
	fd = openat(dfd, "abc", O_WRONLY | O_CREAT | O_EXCL, 0644);
	CHECK(fd >= 0);
	CHECK_EQ_INT(fw_write_all(fd, "abc", 3), 0);
	close(fd);

	snprintf(cmd, sizeof(cmd), "cd %s && sha256sum --status --strict -c checksums", dir);
	r = system(cmd);
	/* A changed blob must fail the same command. */
	fd = openat(dfd, "abc", O_WRONLY | O_TRUNC);
	if (fd >= 0) {
		fw_write_all(fd, "abd", 3);
		close(fd);
	}
	snprintf(cmd, sizeof(cmd), "cd %s && sha256sum --status --strict -c checksums", dir);
	{
		int r2 = system(cmd);

		unlinkat(dfd, "checksums", 0);
		unlinkat(dfd, "a b.bin", 0);
		unlinkat(dfd, "abc", 0);
		close(dfd);
		rmdir(dir);
		CHECK_EQ_INT(r, 0);
		CHECK(r2 != 0);
	}
}
