/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of replaces.c: manifests/replaces parsing, its findings, cycles, substvars. */
#include "replaces.h"

#include <errno.h>
#include <signal.h>
#include <sys/stat.h>

#include "util.h"
#include "unit.h"

#define HDR FW_REPLACES_HEADER "\n"
#define CHECK_DIAG(d, i, ln, txt) CHECK_DIAG_IN(d, i, "manifests/replaces", ln, txt)

/* Debian's names: packages that may take names from one another. */
static const char split_text[] =
	FW_SPLIT_HEADER "\n"
	"firmware-linux-free    main                category:free\n"
	"firmware-realtek       non-free-firmware   path:rtl*\n"
	"firmware-misc-nonfree  non-free-firmware   category:non-free\n"
	"firmware-iwlwifi       non-free-firmware   path:iwl*\n"
	"firmware-nonfree       non-free-firmware   path:x*\n";

static int split(struct fw_split *s, const char *text)
{
	struct fw_diag d = { 0 };
	int r = fw_split_parse(s, "manifests/packages", text, strlen(text), &d);

	if (d.n)
		r = -EINVAL;
	fw_diag_free(&d);
	return r;
}

static int parse(struct fw_replaces *r, const struct fw_split *s, struct fw_diag *d,
		 const char *text, size_t len)
{
	memset(d, 0, sizeof(*d));
	return fw_replaces_parse(r, s, "manifests/replaces", text, len, d);
}

/* The substvars of package pkg, in a new string. */
static char *substvars(const struct fw_replaces *r, const struct fw_split *s, const char *pkg,
		       const char *suite)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fw_replaces_substvars(f, r, s, (unsigned)fw_split_find(s, pkg), suite, "1.0-1");
	fclose(f);
	return buf;
}

TEST(suites)
{
	int unit_ok = 1;

	CHECK(fw_suite_known("bookworm"));
	CHECK(fw_suite_known("trixie"));
	CHECK(fw_suite_known("forky"));
	CHECK(!fw_suite_known("*"));
	CHECK(!fw_suite_known("sid"));
	CHECK(!fw_suite_known(""));
	CHECK(unit_ok);
}

TEST(parse_ok_and_substvars)
{
	static const char text[] =
		HDR
		"# comment\n"                                                            /* 2 */
		"\n"                                                                     /* 3 */
		"firmware-realtek  bookworm  takes:firmware-misc-nonfree takes:bluez-firmware\n" /* 4 */
		"firmware-iwlwifi\t*\tprovides:firmware-intel-old  \n"                   /* 5 */
		"firmware-iwlwifi  trixie    takes:firmware-misc-nonfree\n"              /* 6 */
		"firmware-linux-free  *  takes:firmware-linux-free-old\n";               /* 7 */
	struct fw_split s;
	struct fw_replaces r;
	struct fw_diag d;
	char *v;

	CHECK_EQ_INT(split(&s, split_text), 0);
	CHECK_EQ_INT(parse(&r, &s, &d, text, strlen(text)), 0);
	CHECK_NDIAG(&d, 0);
	CHECK_EQ_INT(r.n, 5);
	CHECK_EQ_INT(r.v[0].pkg, 1);
	CHECK_EQ_STR(r.v[0].suite, "bookworm");
	CHECK_EQ_STR(r.v[0].debian, "firmware-misc-nonfree");
	CHECK(!r.v[0].provides);
	CHECK_EQ_INT(r.v[0].line, 4);
	CHECK_EQ_STR(r.v[1].debian, "bluez-firmware");
	CHECK_EQ_INT(r.v[2].pkg, 3);
	CHECK_EQ_STR(r.v[2].suite, "*");
	CHECK(r.v[2].provides);
	CHECK_EQ_INT(r.v[2].line, 5);

	v = substvars(&r, &s, "firmware-realtek", "bookworm");
	CHECK_EQ_STR(v, "fwdist:Replaces=firmware-misc-nonfree (<< 1.0-1), bluez-firmware (<< 1.0-1)\n"
			"fwdist:Provides=\nfwdist:Conflicts=\nfwdist:Pre-Depends=\n");
	free(v);
	v = substvars(&r, &s, "firmware-realtek", "trixie");
	CHECK_EQ_STR(v, "fwdist:Replaces=\nfwdist:Provides=\nfwdist:Conflicts=\nfwdist:Pre-Depends=\n");
	free(v);
	v = substvars(&r, &s, "firmware-iwlwifi", "trixie");
	CHECK_EQ_STR(v, "fwdist:Replaces=firmware-intel-old, firmware-misc-nonfree (<< 1.0-1)\n"
			"fwdist:Provides=firmware-intel-old (= 1.0-1)\n"
			"fwdist:Conflicts=firmware-intel-old\nfwdist:Pre-Depends=\n");
	free(v);
	/* The package of the split that keeps Debian's name pre-depends on
	 * the ones that take its names, in each suite they do. */
	v = substvars(&r, &s, "firmware-misc-nonfree", "bookworm");
	CHECK_EQ_STR(v, "fwdist:Replaces=\nfwdist:Provides=\nfwdist:Conflicts=\n"
			"fwdist:Pre-Depends=firmware-realtek (= 1.0-1)\n");
	free(v);
	v = substvars(&r, &s, "firmware-misc-nonfree", "trixie");
	CHECK_EQ_STR(v, "fwdist:Replaces=\nfwdist:Provides=\nfwdist:Conflicts=\n"
			"fwdist:Pre-Depends=firmware-iwlwifi (= 1.0-1)\n");
	free(v);
	fw_replaces_free(&r);
	fw_replaces_free(&r); /* harmless twice */
	fw_diag_free(&d);
	fw_split_free(&s);
}

TEST(findings_name_the_line)
{
	static const char text[] =
		HDR
		"firmware-other bookworm takes:firmware-misc-nonfree\n"                  /* 2 */
		"Firmware-Realtek * takes:firmware-misc-nonfree\n"                       /* 3 */
		"firmware-realtek sid takes:firmware-misc-nonfree\n"                     /* 4 */
		"firmware-realtek bookworm\n"                                            /* 5 */
		"firmware-realtek bookworm replaces:firmware-misc-nonfree\n"             /* 6 */
		"firmware-realtek bookworm takes:Firmware_Misc\n"                        /* 7 */
		"firmware-realtek bookworm takes:firmware-realtek\n"                     /* 8 */
		"firmware-realtek bookworm provides:firmware-iwlwifi\n"                  /* 9 */
		"firmware-realtek bookworm provides:fwdist\n"                            /* 10 */
		"firmware-realtek bookworm provides:firmware-fwdist-nonfree\n"           /* 11 */
		"firmware-realtek bookworm takes:firmware-free\n"                        /* 12 */
		"firmware-realtek bookworm takes:firmware-nonfree\n"                     /* 13 */
		"firmware-realtek bookworm provides:libc6\n"                             /* 14 */
		"firmware-realtek bookworm takes:firmware-linux-free\n"                  /* 15 */
		"firmware-realtek * provides:firmware-old\n"                             /* 16 */
		"firmware-iwlwifi trixie takes:firmware-old\n"                           /* 17 */
		"firmware-iwlwifi bookworm takes:bluez-firmware takes:bluez-firmware\n"  /* 18 */
		"firmware-realtek trixie takes:intel-microcode\n"                        /* 19 */
		"firmware-realtek * takes:intel-microcode\n"                             /* 20 */
		"firmware-iwlwifi * takes:intel-microcode takes:x-firmware\n"            /* 21 */
		"firmware-iwlwifi trixie takes:intel-microcode\n";                       /* 22 */
	struct fw_split s;
	struct fw_replaces r;
	struct fw_diag d;

	CHECK_EQ_INT(split(&s, split_text), 0);
	CHECK_EQ_INT(parse(&r, &s, &d, text, strlen(text)), 0);
	CHECK_NDIAG(&d, 18);
	CHECK_DIAG(&d, 0, 2, "firmware-other: not a package of manifests/packages");
	CHECK_DIAG(&d, 1, 3, "'Firmware-Realtek': not a valid Debian package name");
	CHECK_DIAG(&d, 2, 4, "firmware-realtek: suite 'sid' is not bookworm, trixie, forky or *");
	CHECK_DIAG(&d, 3, 5, "firmware-realtek: no takes:PACKAGE or provides:PACKAGE");
	CHECK_DIAG(&d, 4, 6, "'replaces:firmware-misc-nonfree': neither takes:PACKAGE nor provides:PACKAGE");
	CHECK_DIAG(&d, 5, 7, "'Firmware_Misc': not a valid Debian package name");
	CHECK_DIAG(&d, 6, 8, "firmware-realtek takes:firmware-realtek: the package itself");
	CHECK_DIAG(&d, 7, 9, "firmware-realtek provides:firmware-iwlwifi: a package of the split: "
			     "provides: would make it conflict with it");
	CHECK_DIAG(&d, 8, 10, "firmware-realtek provides:fwdist: a package of fwdist's own, not of "
			      "Debian's: it would conflict with it");
	CHECK_DIAG(&d, 9, 11, "firmware-realtek provides:firmware-fwdist-nonfree: a package of "
			      "fwdist's own, not of Debian's: it would conflict with it");
	CHECK_DIAG(&d, 10, 12, "firmware-realtek takes:firmware-free: a package of fwdist's own, "
			       "not of Debian's: it would replace it");
	/* Also when it is a package of the split. */
	CHECK_DIAG(&d, 11, 13, "firmware-realtek takes:firmware-nonfree: a package of fwdist's own, "
			       "not of Debian's: it would replace it");
	CHECK_DIAG(&d, 12, 14, "firmware-realtek provides:libc6: not a Debian firmware package "
			       "(firmware-*, or one that fwdist(1) lists)");
	CHECK_DIAG(&d, 13, 15, "firmware-realtek takes:firmware-linux-free: firmware-linux-free is "
			       "in main and would pre-depend on firmware-realtek, in non-free-firmware "
			       "(a package in main depends on main alone)");
	CHECK_DIAG(&d, 14, 17, "firmware-iwlwifi takes:firmware-old: also named by firmware-realtek "
			       "on line 16, with a provides: (the two packages would conflict)");
	CHECK_DIAG(&d, 15, 18, "firmware-iwlwifi takes:bluez-firmware: named twice on the line");
	CHECK_DIAG(&d, 16, 20, "firmware-realtek takes:intel-microcode: already named for this "
			       "package and suite on line 19");
	/* Line 21 is taken back whole: its intel-microcode is not there for 22. */
	CHECK_DIAG(&d, 17, 21, "firmware-iwlwifi takes:x-firmware: not a Debian firmware package "
			       "(firmware-*, or one that fwdist(1) lists)");
	/* What is left: the lines with no finding. */
	CHECK_EQ_INT(r.n, 3);
	CHECK_EQ_INT(r.v[0].line, 16);
	CHECK_EQ_INT(r.v[1].line, 19);
	CHECK_EQ_INT(r.v[2].line, 22);
	fw_replaces_free(&r);
	fw_diag_free(&d);
	fw_split_free(&s);
}

TEST(main_takes_main)
{
	static const char text[] =
		HDR
		"firmware-linux-free  *  takes:firmware-misc-nonfree\n"  /* non-free pre-depends on main */
		"firmware-misc-nonfree  bookworm  takes:firmware-realtek\n";
	struct fw_split s;
	struct fw_replaces r;
	struct fw_diag d;

	CHECK_EQ_INT(split(&s, FW_SPLIT_HEADER "\n"
				  "firmware-linux-free    main                category:free\n"
				  "firmware-linux-free-x  main                path:x*\n"
				  "firmware-realtek       non-free-firmware   path:rtl*\n"
				  "firmware-misc-nonfree  non-free-firmware   category:non-free\n"),
		     0);
	CHECK_EQ_INT(parse(&r, &s, &d, text, strlen(text)), 0);
	CHECK_NDIAG(&d, 0);
	CHECK_EQ_INT(r.n, 2);
	fw_replaces_free(&r);
	fw_diag_free(&d);
	/* One package of main taking from another: main on main. */
	CHECK_EQ_INT(parse(&r, &s, &d, HDR "firmware-linux-free-x * takes:firmware-linux-free\n",
			   strlen(HDR "firmware-linux-free-x * takes:firmware-linux-free\n")), 0);
	CHECK_NDIAG(&d, 0);
	fw_replaces_free(&r);
	fw_diag_free(&d);
	fw_split_free(&s);
}

TEST(cycles)
{
	static const char text[] =
		HDR
		"firmware-realtek       bookworm  takes:firmware-misc-nonfree\n"          /* 2 */
		"firmware-misc-nonfree  *         takes:firmware-atheros takes:firmware-realtek\n" /* 3 */
		"firmware-misc-nonfree  bookworm  takes:firmware-realtek\n"               /* 4 */
		"firmware-iwlwifi       forky     takes:firmware-realtek\n"               /* 5 */
		"firmware-realtek       forky     takes:firmware-misc-nonfree\n"          /* 6 */
		"firmware-misc-nonfree  forky     takes:firmware-iwlwifi\n"               /* 7 */
		"firmware-iwlwifi       trixie    takes:libc6\n"                          /* 8 */
		"firmware-misc-nonfree  trixie    takes:firmware-realtek\n";              /* 9 */
	struct fw_split s;
	struct fw_replaces r;
	struct fw_diag d;

	CHECK_EQ_INT(split(&s, split_text), 0);
	CHECK_EQ_INT(parse(&r, &s, &d, text, strlen(text)), 0);
	/* Line 3 closes realtek -> misc -> realtek in bookworm and counts
	 * for nothing: line 4, the same word in bookworm alone, closes the
	 * cycle again (not "already named on line 3"). Line 7 closes a cycle
	 * of three in forky. Findings in line order. */
	CHECK_NDIAG(&d, 4);
	CHECK_DIAG(&d, 0, 3, "firmware-misc-nonfree takes:firmware-realtek: closes a cycle of "
			     "takes: in bookworm (each package pre-depends on the one that takes "
			     "its names; a cycle cannot be unpacked)");
	CHECK_DIAG(&d, 1, 4, "firmware-misc-nonfree takes:firmware-realtek: closes a cycle of "
			     "takes: in bookworm (each package pre-depends on the one that takes "
			     "its names; a cycle cannot be unpacked)");
	CHECK_DIAG(&d, 2, 7, "firmware-misc-nonfree takes:firmware-iwlwifi: closes a cycle of "
			     "takes: in forky (each package pre-depends on the one that takes "
			     "its names; a cycle cannot be unpacked)");
	CHECK_DIAG(&d, 3, 8, "firmware-iwlwifi takes:libc6: not a Debian firmware package "
			     "(firmware-*, or one that fwdist(1) lists)");
	CHECK_EQ_INT(r.n, 4);
	CHECK_EQ_INT(r.v[0].line, 2);
	CHECK_EQ_INT(r.v[1].line, 5);
	CHECK_EQ_INT(r.v[2].line, 6);
	CHECK_EQ_INT(r.v[3].line, 9);
	fw_replaces_free(&r);
	fw_diag_free(&d);
	fw_split_free(&s);
}

/* A chain of takes: through N packages, each line's package reaching all
 * those before it (the old check walked every word at each package it
 * reached: about N^4, hours at this size), closed into a cycle by a last
 * line; and 40,000 words (quadratic before). SIGALRM fails the test if
 * either is not linear or close to it. */
TEST(large_files_are_fast)
{
	enum { N = 5000, WORDS = 40000 };
	size_t cap = 64 * (N + 2) + 32 * WORDS, len = 0;
	char *st = malloc(cap), *text = malloc(cap);
	struct fw_split s;
	struct fw_replaces r;
	struct fw_diag d;

	CHECK(st && text);
	alarm(30);
	len = (size_t)sprintf(st, "%s\n", FW_SPLIT_HEADER);
	for (int i = 0; i <= N; i++)
		len += (size_t)sprintf(st + len, "firmware-c%d non-free-firmware path:c%d\n", i, i);
	CHECK_EQ_INT(split(&s, st), 0);
	len = (size_t)sprintf(text, "%s", HDR);
	for (int i = N; i >= 1; i--)
		len += (size_t)sprintf(text + len, "firmware-c%d * takes:firmware-c%d\n", i, i - 1);
	CHECK_EQ_INT(parse(&r, &s, &d, text, len), 0);
	CHECK_NDIAG(&d, 0);
	CHECK_EQ_INT(r.n, N);
	fw_replaces_free(&r);
	len += (size_t)sprintf(text + len, "firmware-c0 bookworm takes:firmware-c%d\n", N);
	CHECK_EQ_INT(parse(&r, &s, &d, text, len), 0);
	CHECK_NDIAG(&d, 1);
	CHECK_EQ_INT(d.v[0].line, N + 2);
	CHECK_EQ_INT(r.n, N);
	fw_replaces_free(&r);
	fw_diag_free(&d);

	len = 0;
	for (int i = 0; i < WORDS; i++)
		len += (size_t)sprintf(text + len, "%s takes:firmware-w%d%s", i % 150 ? "" :
				       i ? "\nfirmware-realtek *" : HDR "firmware-realtek *", i,
				       i == WORDS - 1 ? "\n" : "");
	fw_split_free(&s);
	CHECK_EQ_INT(split(&s, split_text), 0);
	CHECK_EQ_INT(parse(&r, &s, &d, text, len), 0);
	CHECK_NDIAG(&d, 0);
	CHECK_EQ_INT(r.n, WORDS);
	alarm(0);
	fw_replaces_free(&r);
	fw_diag_free(&d);
	fw_split_free(&s);
	free(st);
	free(text);
}

/* A file of lines that each close the same cycle again (each one counts
 * for nothing, so the next closes it anew) would cost a pass per line,
 * n^2 (minutes at this size): past 100 of them, one finding says the
 * rest is not checked for cycles. SIGALRM fails the test otherwise. */
TEST(many_cycles_are_bounded)
{
	enum { N = 20000 };
	size_t cap = 64 * (N + 2), len;
	char *text = malloc(cap);
	struct fw_split s;
	struct fw_replaces r;
	struct fw_diag d;

	CHECK(text);
	alarm(30);
	CHECK_EQ_INT(split(&s, split_text), 0);
	len = (size_t)sprintf(text, "%sfirmware-realtek * takes:firmware-misc-nonfree\n", HDR);
	for (int i = 0; i < N; i++)
		len += (size_t)sprintf(text + len, "firmware-misc-nonfree * takes:firmware-realtek\n");
	CHECK_EQ_INT(parse(&r, &s, &d, text, len), 0);
	/* The 100 lines each a finding; then, with line 103 in the model,
	 * every later line is a repeat of it; last, the bound. */
	CHECK_EQ_INT(d.n, N);
	CHECK_EQ_INT(d.v[0].line, 3);
	CHECK_EQ_INT(d.v[99].line, 102);
	CHECK_EQ_INT(d.v[100].line, 104);
	CHECK_DIAG(&d, N - 1, 103, "firmware-misc-nonfree takes:firmware-realtek: closes a cycle "
			       "of takes: in bookworm, after 100 lines that did: the rest of the "
			       "file is not checked for cycles");
	alarm(0);
	fw_replaces_free(&r);
	fw_diag_free(&d);
	fw_split_free(&s);
	free(text);
}

TEST(line_limits)
{
	char text[FW_LINE_MAX + 64];
	struct fw_split s;
	struct fw_replaces r;
	struct fw_diag d;
	size_t len;
	static const char nul[] = HDR "firmware-realtek * takes:firmware-x\0y\n";

	CHECK_EQ_INT(split(&s, split_text), 0);
	len = sizeof(nul) - 1;
	memcpy(text, nul, len);
	CHECK_EQ_INT(parse(&r, &s, &d, text, len), 0);
	CHECK_NDIAG(&d, 1);
	CHECK_DIAG(&d, 0, 2, "NUL byte in line");
	CHECK_EQ_INT(r.n, 0);
	fw_diag_free(&d);
	memcpy(text, HDR, strlen(HDR));
	len = strlen(HDR);
	memset(text + len, 'a', FW_LINE_MAX + 1);
	len += FW_LINE_MAX + 1;
	text[len++] = '\n';
	CHECK_EQ_INT(parse(&r, &s, &d, text, len), 0);
	CHECK_NDIAG(&d, 1);
	CHECK_DIAG(&d, 0, 2, "line too long (4097 bytes, limit 4096)");
	fw_diag_free(&d);
	CHECK_EQ_INT(parse(&r, &s, &d, "firmware-realtek * takes:firmware-x\n", 36), 0);
	CHECK_NDIAG(&d, 1);
	CHECK_DIAG(&d, 0, 1, "missing header line '" FW_REPLACES_HEADER "'");
	fw_replaces_free(&r);
	fw_diag_free(&d);
	fw_split_free(&s);
}

TEST(load)
{
	char dir[64];
	int fd = unit_scratch(dir, "replaces");
	struct fw_split s;
	struct fw_replaces r;
	struct fw_diag d = { 0 };

	CHECK(fd >= 0);
	CHECK_EQ_INT(split(&s, split_text), 0);
	/* No file: nothing to replace. */
	CHECK_EQ_INT(fw_replaces_load(&r, &s, fd, &d), 0);
	CHECK_EQ_INT(r.n, 0);
	CHECK_NDIAG(&d, 0);
	CHECK_EQ_INT(mkdirat(fd, "manifests", 0755), 0);
	unit_put(fd, FW_TREE_REPLACES, HDR "firmware-realtek * takes:firmware-misc-nonfree\n");
	CHECK_EQ_INT(fw_replaces_load(&r, &s, fd, &d), 0);
	CHECK_EQ_INT(r.n, 1);
	fw_replaces_free(&r);
	/* A finding: -EINVAL, and r holds nothing. */
	unit_put(fd, FW_TREE_REPLACES, HDR "firmware-realtek * takes:firmware-misc-nonfree\n"
					   "firmware-realtek * provides:libc6\n");
	CHECK_EQ_INT(fw_replaces_load(&r, &s, fd, &d), -EINVAL);
	CHECK_EQ_INT(r.n, 0);
	CHECK(!r.v);
	CHECK_NDIAG(&d, 1);
	CHECK_DIAG(&d, 0, 3, "firmware-realtek provides:libc6: not a Debian firmware package "
			     "(firmware-*, or one that fwdist(1) lists)");
	fw_diag_free(&d);
	fw_split_free(&s);
	close(fd);
	unit_cleanup(dir);
}
