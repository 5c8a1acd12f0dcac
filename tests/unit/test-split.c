/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of split.c: manifests/packages parsing, selector matching, sections. */
#include "split.h"

#include <errno.h>

#include "util.h"
#include "unit.h"

#define HDR FW_SPLIT_HEADER "\n"

static int parse(struct fw_split *s, struct fw_diag *d, const char *text)
{
	memset(d, 0, sizeof(*d));
	return fw_split_parse(s, "manifests/packages", text, strlen(text), d);
}

#define CHECK_DIAG(d, i, ln, txt) CHECK_DIAG_IN(d, i, "manifests/packages", ln, txt)

TEST(parse_ok)
{
	static const char text[] =
		HDR
		"# comment\n"                                                         /* 2 */
		"\n"                                                                  /* 3 */
		"firmware-free       main                category:free\n"             /* 4 */
		"firmware-nonfree\tnon-free-firmware\tcategory:non-free\n"            /* 5 */
		"firmware-nonfree non-free-firmware path:intel/* !licence:LicenseRef-x\n" /* 6 */
		"firmware-amd-graphics non-free-firmware driver:amdgpu category:non-free  \n" /* 7 */
		"firmware-misc contrib license:MIT\n"                                 /* 8 */
		"a+b.c-d non-free !path:*.txt\n";                                     /* 9 */
	struct fw_split s;
	struct fw_diag d;
	const struct fw_split_rule *r;

	CHECK_EQ_INT(parse(&s, &d, text), 0);
	CHECK_NDIAG(&d, 0);
	CHECK_EQ_STR(s.path, "manifests/packages");
	CHECK_EQ_INT(s.npkgs, 5);
	CHECK_EQ_STR(s.pkgs[0].name, "firmware-free");
	CHECK_EQ_STR(s.pkgs[0].section, "main");
	CHECK_EQ_INT(s.pkgs[0].line, 4);
	CHECK_EQ_STR(s.pkgs[1].name, "firmware-nonfree");
	CHECK_EQ_STR(s.pkgs[1].section, "non-free-firmware");
	CHECK_EQ_INT(s.pkgs[1].line, 5);
	CHECK_EQ_STR(s.pkgs[2].name, "firmware-amd-graphics");
	CHECK_EQ_STR(s.pkgs[3].name, "firmware-misc");
	CHECK_EQ_STR(s.pkgs[3].section, "contrib");
	CHECK_EQ_STR(s.pkgs[4].name, "a+b.c-d");
	CHECK_EQ_STR(s.pkgs[4].section, "non-free");
	CHECK_EQ_INT(fw_split_find(&s, "firmware-free"), 0);
	CHECK_EQ_INT(fw_split_find(&s, "firmware-amd-graphics"), 2);
	CHECK_EQ_INT(fw_split_find(&s, "a+b.c-d"), 4);
	CHECK_EQ_INT(fw_split_find(&s, "firmware"), -1);

	CHECK_EQ_INT(s.nrules, 6);
	r = &s.rules[0];
	CHECK_EQ_INT(r->pkg, 0);
	CHECK_EQ_INT(r->line, 4);
	CHECK_EQ_INT(r->nsel, 1);
	CHECK_EQ_INT(r->sel[0].kind, FW_SEL_CATEGORY);
	CHECK_EQ_STR(r->sel[0].value, "free");
	CHECK_EQ_INT(r->sel[0].cat, FW_CAT_FREE);
	CHECK(!r->sel[0].negate);
	r = &s.rules[1];
	CHECK_EQ_INT(r->pkg, 1);
	CHECK_EQ_INT(r->sel[0].cat, FW_CAT_NONFREE);
	r = &s.rules[2];
	CHECK_EQ_INT(r->pkg, 1); /* a second line for the same package */
	CHECK_EQ_INT(r->line, 6);
	CHECK_EQ_INT(r->nsel, 2);
	CHECK_EQ_INT(r->sel[0].kind, FW_SEL_PATH);
	CHECK_EQ_STR(r->sel[0].value, "intel/*");
	CHECK(!r->sel[0].negate);
	CHECK_EQ_INT(r->sel[1].kind, FW_SEL_LICENCE);
	CHECK_EQ_STR(r->sel[1].value, "LicenseRef-x");
	CHECK(r->sel[1].negate);
	r = &s.rules[3];
	CHECK_EQ_INT(r->pkg, 2);
	CHECK_EQ_INT(r->nsel, 2);
	CHECK_EQ_INT(r->sel[0].kind, FW_SEL_DRIVER);
	CHECK_EQ_STR(r->sel[0].value, "amdgpu");
	CHECK_EQ_INT(r->sel[1].kind, FW_SEL_CATEGORY);
	r = &s.rules[4];
	CHECK_EQ_INT(r->sel[0].kind, FW_SEL_LICENCE); /* license: spelling */
	CHECK_EQ_STR(r->sel[0].value, "MIT");
	r = &s.rules[5];
	CHECK_EQ_INT(r->pkg, 4);
	CHECK(r->sel[0].negate);
	CHECK_EQ_STR(r->sel[0].value, "*.txt");
	fw_split_free(&s);
	CHECK(s.pkgs == NULL && s.rules == NULL && s.path == NULL);
	fw_diag_free(&d);
}

TEST(header_required)
{
	struct fw_split s;
	struct fw_diag d;

	/* A deleted header is reported, and costs no rule. */
	CHECK_EQ_INT(parse(&s, &d, "firmware-free main category:free\n"), 0);
	CHECK_NDIAG(&d, 1);
	CHECK_DIAG(&d, 0, 1, "missing header line '# fwdist package split 1'");
	CHECK_EQ_INT(s.nrules, 1);
	fw_split_free(&s);
	fw_diag_free(&d);

	CHECK_EQ_INT(parse(&s, &d, "# fwdist package split 1\t\n"), 0);
	CHECK_NDIAG(&d, 1);
	CHECK_DIAG(&d, 0, 1, "missing header line '# fwdist package split 1'");
	fw_split_free(&s);
	fw_diag_free(&d);

	CHECK_EQ_INT(parse(&s, &d, ""), 0);
	CHECK_NDIAG(&d, 1);
	CHECK_DIAG(&d, 0, 0, "empty file (missing header line '# fwdist package split 1')");
	CHECK_EQ_INT(s.npkgs, 0);
	fw_split_free(&s);
	fw_diag_free(&d);
}

TEST(invalid_package_names)
{
	static const char text[] =
		HDR
		"Firmware-free main category:free\n"  /* 2: upper case */
		"f main category:free\n"              /* 3: one character */
		"-free main category:free\n"          /* 4: starts with '-' */
		".free main category:free\n"          /* 5 */
		"+free main category:free\n"          /* 6 */
		"firm_ware main category:free\n"      /* 7 */
		"firm/ware main category:free\n"      /* 8 */
		"fw\xc3\xa9 main category:free\n"     /* 9 */
		"0a main category:free\n"             /* 10: a digit first is fine */
		"ab main category:free\n";            /* 11 */
	struct fw_split s;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&s, &d, text), 0);
	CHECK_NDIAG(&d, 8);
	CHECK_DIAG(&d, 0, 2, "'Firmware-free': not a valid Debian package name");
	CHECK_DIAG(&d, 1, 3, "'f': not a valid Debian package name");
	CHECK_DIAG(&d, 2, 4, "'-free': not a valid Debian package name");
	CHECK_DIAG(&d, 3, 5, "'.free': not a valid Debian package name");
	CHECK_DIAG(&d, 4, 6, "'+free': not a valid Debian package name");
	CHECK_DIAG(&d, 5, 7, "'firm_ware': not a valid Debian package name");
	CHECK_DIAG(&d, 6, 8, "'firm/ware': not a valid Debian package name");
	CHECK_DIAG(&d, 7, 9, "'fw\xc3\xa9': not a valid Debian package name");
	CHECK_EQ_INT(s.npkgs, 2);
	CHECK_EQ_STR(s.pkgs[0].name, "0a");
	CHECK_EQ_STR(s.pkgs[1].name, "ab");
	CHECK_EQ_INT(s.nrules, 2);
	fw_split_free(&s);
	fw_diag_free(&d);
}

TEST(invalid_section)
{
	static const char text[] =
		HDR
		"pkg free category:free\n"                 /* 2 */
		"pkg Main category:free\n"                 /* 3 */
		"pkg non-free-firmwarex category:free\n"   /* 4 */
		"pkg\n"                                    /* 5: no section at all */
		"pkg main\n"                               /* 6: no selectors */
		"pkg main \t \n"                           /* 7: blanks are no selectors */
		"pkg main category:free\n"                 /* 8 */
		"pkg non-free category:non-free\n";        /* 9: section differs */
	struct fw_split s;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&s, &d, text), 0);
	CHECK_NDIAG(&d, 7);
	CHECK_DIAG(&d, 0, 2, "pkg: section 'free' is not main, contrib, non-free or non-free-firmware");
	CHECK_DIAG(&d, 1, 3, "pkg: section 'Main' is not main, contrib, non-free or non-free-firmware");
	CHECK_DIAG(&d, 2, 4,
		   "pkg: section 'non-free-firmwarex' is not main, contrib, non-free or non-free-firmware");
	CHECK_DIAG(&d, 3, 5, "pkg: section '' is not main, contrib, non-free or non-free-firmware");
	CHECK_DIAG(&d, 4, 6, "pkg: no selectors (category:, path:, ...)");
	CHECK_DIAG(&d, 5, 7, "pkg: no selectors (category:, path:, ...)");
	CHECK_DIAG(&d, 6, 9, "pkg: section differs from line 8");
	CHECK_EQ_INT(s.npkgs, 1);
	CHECK_EQ_STR(s.pkgs[0].section, "main");
	CHECK_EQ_INT(s.pkgs[0].line, 8);
	CHECK_EQ_INT(s.nrules, 1);
	fw_split_free(&s);
	fw_diag_free(&d);
}

TEST(invalid_selectors)
{
	static const char text[] =
		HDR
		"pkg main foo:bar\n"                          /* 2 */
		"pkg main path:\n"                            /* 3: empty value */
		"pkg main category:\n"                        /* 4 */
		"pkg main category:undistributable\n"         /* 5 */
		"pkg main category:unknown\n"                 /* 6 */
		"pkg main category:Free\n"                    /* 7 */
		"pkg main !!path:x\n"                         /* 8 */
		"pkg main Path:x\n"                           /* 9 */
		"pkg main !\n"                                /* 10 */
		"pkg main path:ok bogus category:free\n"      /* 11: one bad selector drops the line */
		"pkg main path:good\n";                       /* 12 */
	struct fw_split s;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&s, &d, text), 0);
	CHECK_NDIAG(&d, 10);
	CHECK_DIAG(&d, 0, 2, "'foo:bar': unknown selector (category:, path:, driver:, licence:, empty:, rest:, or dropped)");
	CHECK_DIAG(&d, 1, 3, "'path:': unknown selector (category:, path:, driver:, licence:, empty:, rest:, or dropped)");
	CHECK_DIAG(&d, 2, 4, "'category:': unknown selector (category:, path:, driver:, licence:, empty:, rest:, or dropped)");
	CHECK_DIAG(&d, 3, 5, "'category:undistributable': category: takes free or non-free");
	CHECK_DIAG(&d, 4, 6, "'category:unknown': category: takes free or non-free");
	CHECK_DIAG(&d, 5, 7, "'category:Free': category: takes free or non-free");
	CHECK_DIAG(&d, 6, 8, "'!!path:x': unknown selector (category:, path:, driver:, licence:, empty:, rest:, or dropped)");
	CHECK_DIAG(&d, 7, 9, "'Path:x': unknown selector (category:, path:, driver:, licence:, empty:, rest:, or dropped)");
	CHECK_DIAG(&d, 8, 10, "'!': unknown selector (category:, path:, driver:, licence:, empty:, rest:, or dropped)");
	CHECK_DIAG(&d, 9, 11, "'bogus': unknown selector (category:, path:, driver:, licence:, empty:, rest:, or dropped)");
	CHECK_EQ_INT(s.nrules, 1);
	CHECK_EQ_INT(s.rules[0].line, 12);
	CHECK_EQ_STR(s.rules[0].sel[0].value, "good");
	/* pkg is first named by a good line at 12. */
	CHECK_EQ_INT(s.npkgs, 1);
	CHECK_EQ_INT(s.pkgs[0].line, 12);
	fw_split_free(&s);
	fw_diag_free(&d);
}

/* A line with a bad selector is reported and registers nothing: not its
 * package (when no good line names it) and not a rule. A half-registered
 * package would take no blob, be found by --package and fix the section
 * later lines are compared with. */
TEST(bad_selector_registers_nothing)
{
	static const char text[] =
		HDR
		"only main foo:bar\n"                         /* 2: the only line of only */
		"both main path:x\n"                          /* 3 */
		"both main category:nope\n"                   /* 4: both stays, no rule */
		"late main path:\n"                           /* 5: empty value */
		"late main path:y\n"                          /* 6: late starts here */
		"sec main path:ok bogus\n"                    /* 7: one bad selector of two */
		"sec non-free path:z\n";                      /* 8: no section conflict */
	struct fw_split s;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&s, &d, text), 0);
	CHECK_NDIAG(&d, 4);
	CHECK_DIAG(&d, 0, 2, "'foo:bar': unknown selector (category:, path:, driver:, licence:, empty:, rest:, or dropped)");
	CHECK_DIAG(&d, 1, 4, "'category:nope': category: takes free or non-free");
	CHECK_DIAG(&d, 2, 5, "'path:': unknown selector (category:, path:, driver:, licence:, empty:, rest:, or dropped)");
	CHECK_DIAG(&d, 3, 7, "'bogus': unknown selector (category:, path:, driver:, licence:, empty:, rest:, or dropped)");
	CHECK_EQ_INT(fw_split_find(&s, "only"), -1);
	CHECK_EQ_INT(s.npkgs, 3);
	CHECK_EQ_STR(s.pkgs[0].name, "both");
	CHECK_EQ_INT(s.pkgs[0].line, 3);
	CHECK_EQ_STR(s.pkgs[1].name, "late");
	CHECK_EQ_INT(s.pkgs[1].line, 6);
	CHECK_EQ_STR(s.pkgs[2].name, "sec");
	CHECK_EQ_INT(s.pkgs[2].line, 8);
	CHECK_EQ_STR(s.pkgs[2].section, "non-free");
	CHECK_EQ_INT(s.nrules, 3);
	CHECK_EQ_INT(s.rules[0].line, 3);
	CHECK_EQ_INT(s.rules[0].pkg, 0);
	CHECK_EQ_INT(s.rules[1].line, 6);
	CHECK_EQ_INT(s.rules[1].pkg, 1);
	CHECK_EQ_INT(s.rules[2].line, 8);
	CHECK_EQ_INT(s.rules[2].pkg, 2);
	fw_split_free(&s);
	fw_diag_free(&d);
}

/* The section check still comes first: a line whose section differs from
 * the package's is reported as such, whatever its selectors. */
TEST(section_conflict_reported_before_selectors)
{
	static const char text[] =
		HDR
		"pkg main path:x\n"                           /* 2 */
		"pkg non-free bogus\n";                       /* 3 */
	struct fw_split s;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&s, &d, text), 0);
	CHECK_NDIAG(&d, 1);
	CHECK_DIAG(&d, 0, 3, "pkg: section differs from line 2");
	CHECK_EQ_INT(s.npkgs, 1);
	CHECK_EQ_INT(s.nrules, 1);
	fw_split_free(&s);
	fw_diag_free(&d);
}

TEST(overlong_line)
{
	size_t n = FW_LINE_MAX + 1;
	char *buf = malloc(strlen(HDR) + n + 64);
	struct fw_split s;
	struct fw_diag d = { 0 };
	size_t len;

	CHECK(buf);
	strcpy(buf, HDR);
	len = strlen(buf);
	memcpy(buf + len, "pkg main path:", 14);
	memset(buf + len + 14, 'x', n - 14);
	len += n;
	len += (size_t)sprintf(buf + len, "\npkg main path:y\n");
	CHECK_EQ_INT(fw_split_parse(&s, "manifests/packages", buf, len, &d), 0);
	free(buf);
	CHECK_NDIAG(&d, 1);
	CHECK_DIAG(&d, 0, 2, "line too long (4097 bytes, limit 4096)");
	CHECK_EQ_INT(s.nrules, 1);
	CHECK_EQ_STR(s.rules[0].sel[0].value, "y");
	fw_split_free(&s);
	fw_diag_free(&d);
}

/* A NUL would silently cut a selector short: "path:a\0*" must not read as
 * path:a. */
TEST(nul_byte_refused)
{
	static const char text[] = HDR "pkg main path:a\0*\npkg main category:free\0x\npkg main path:b\n";
	struct fw_split s;
	struct fw_diag d = { 0 };

	CHECK_EQ_INT(fw_split_parse(&s, "manifests/packages", text, sizeof(text) - 1, &d), 0);
	CHECK_NDIAG(&d, 2);
	CHECK_DIAG(&d, 0, 2, "NUL byte in line");
	CHECK_DIAG(&d, 1, 3, "NUL byte in line");
	CHECK_EQ_INT(s.nrules, 1);
	CHECK_EQ_STR(s.rules[0].sel[0].value, "b");
	fw_split_free(&s);
	fw_diag_free(&d);
}

/* ---- matching ---- */

/* Parse one rule line ("pkg main SELECTORS") into s; its rule is s->rules[0]. */
static int one_rule(struct fw_split *s, const char *selectors)
{
	struct fw_diag d = { 0 };
	char *text = fw_asprintf(HDR "pkg main %s\n", selectors);
	int r;

	if (!text)
		return -ENOMEM;
	r = fw_split_parse(s, "manifests/packages", text, strlen(text), &d);
	free(text);
	for (size_t i = 0; i < d.n; i++)
		fprintf(stderr, "  %s:%u: %s\n", d.v[i].file, d.v[i].line, d.v[i].text);
	if (r == 0 && (d.n != 0 || s->nrules != 1))
		r = -EINVAL;
	fw_diag_free(&d);
	return r;
}

static bool matches(const char *selectors, const char *name, const char *driver,
		    const char *spdx, enum fw_category cat)
{
	struct fw_split s;
	struct fw_blob_facts f = { .name = name, .driver = driver, .spdx = spdx, .cat = cat };
	bool m;

	if (one_rule(&s, selectors) < 0) {
		fw_split_free(&s);
		fprintf(stderr, "'%s': does not parse\n", selectors);
		abort();
	}
	m = fw_rule_matches(&s.rules[0], &f);
	fw_split_free(&s);
	return m;
}

#define FREE FW_CAT_FREE
#define NONFREE FW_CAT_NONFREE

TEST(match_category)
{
	CHECK(matches("category:free", "a.bin", NULL, NULL, FREE));
	CHECK(!matches("category:free", "a.bin", NULL, NULL, NONFREE));
	CHECK(!matches("category:free", "a.bin", NULL, NULL, FW_CAT_UNDISTRIBUTABLE));
	CHECK(!matches("category:free", "a.bin", NULL, NULL, FW_CAT_UNKNOWN));
	CHECK(matches("category:non-free", "a.bin", NULL, NULL, NONFREE));
	CHECK(!matches("category:non-free", "a.bin", NULL, NULL, FREE));
	CHECK(!matches("category:non-free", "a.bin", NULL, NULL, FW_CAT_UNKNOWN));
	CHECK(matches("!category:free", "a.bin", NULL, NULL, FW_CAT_UNKNOWN));
	CHECK(!matches("!category:free", "a.bin", NULL, NULL, FREE));
}

TEST(match_path)
{
	/* '*' crosses '/': "path:intel/" then '*' takes the whole subtree. */
	CHECK(matches("path:intel/*", "intel/iwlwifi/iwlwifi-9000.ucode", NULL, NULL, FREE));
	CHECK(matches("path:intel/*", "intel/x", NULL, NULL, FREE));
	CHECK(!matches("path:intel/*", "intelx/y", NULL, NULL, FREE));
	CHECK(!matches("path:intel/*", "amd/intel/y", NULL, NULL, FREE));
	CHECK(matches("path:*.bin", "a/b/c.bin", NULL, NULL, FREE));
	CHECK(matches("path:*.bin", "c.bin", NULL, NULL, FREE));
	CHECK(!matches("path:*.bin", "c.bin.xz", NULL, NULL, FREE));
	CHECK(matches("path:*/.hidden", "a/.hidden", NULL, NULL, FREE));
	CHECK(matches("path:a?c", "abc", NULL, NULL, FREE));
	CHECK(matches("path:a?c", "a/c", NULL, NULL, FREE)); /* '?' crosses '/' too */
	CHECK(matches("path:[ab]*", "b/x", NULL, NULL, FREE));
	CHECK(!matches("path:[ab]*", "c/x", NULL, NULL, FREE));
	CHECK(matches("path:exact.bin", "exact.bin", NULL, NULL, FREE));
	CHECK(!matches("path:exact.bin", "dir/exact.bin", NULL, NULL, FREE));
	CHECK(!matches("path:Exact.bin", "exact.bin", NULL, NULL, FREE));
	CHECK(!matches("!path:*.txt", "brcm/a.txt", NULL, NULL, FREE));
	CHECK(matches("!path:*.txt", "brcm/a.bin", NULL, NULL, FREE));
}

TEST(match_driver_first_word)
{
	CHECK(matches("driver:tg3", "t", "tg3 - Broadcom Tigon3 based gigabit Ethernet cards", NULL, FREE));
	CHECK(matches("driver:tg3", "t", "tg3", NULL, FREE));
	CHECK(matches("driver:tg3", "t", "tg3\tBroadcom", NULL, FREE));
	CHECK(!matches("driver:tg3", "t", "tg3x - other", NULL, FREE));
	CHECK(!matches("driver:tg3", "t", "xtg3 - other", NULL, FREE));
	/* The first word only: words further on are the description. */
	CHECK(!matches("driver:Broadcom", "t", "tg3 - Broadcom", NULL, FREE));
	CHECK(matches("driver:iwl*", "t", "iwlwifi - Intel Wireless Wifi", NULL, FREE));
	CHECK(matches("driver:amdgpu", "t", "amdgpu - AMD Radeon", NULL, FREE));
	CHECK(!matches("driver:amdgpu", "t", "radeon - ATI Radeon", NULL, FREE));
	/* A blob without Driver: matches no driver: selector... */
	CHECK(!matches("driver:*", "t", NULL, NULL, FREE));
	/* ...so its negation matches it. */
	CHECK(matches("!driver:tg3", "t", NULL, NULL, FREE));
	CHECK(!matches("!driver:tg3", "t", "tg3 - x", NULL, FREE));
}

TEST(match_licence)
{
	CHECK(matches("licence:MIT", "a", NULL, "MIT", FREE));
	CHECK(matches("licence:MIT", "a", NULL, "GPL-2.0-only OR MIT", FREE));
	CHECK(matches("licence:MIT", "a", NULL, "(GPL-2.0-only AND (BSD-2-Clause OR MIT))", FREE));
	CHECK(!matches("licence:MIT", "a", NULL, "MIT-0", FREE));
	CHECK(!matches("licence:MIT", "a", NULL, "mit", FREE));
	CHECK(!matches("licence:MIT", "a", NULL, "GPL-2.0-only", FREE));
	CHECK(!matches("licence:MIT", "a", NULL, NULL, FREE));
	/* Exceptions are ids the expression names too. */
	CHECK(matches("licence:Linux-syscall-note", "a", NULL,
		      "GPL-2.0-only WITH Linux-syscall-note", FREE));
	CHECK(matches("license:LicenseRef-LICENCE.x", "a", NULL, "LicenseRef-LICENCE.x", NONFREE));
	CHECK(!matches("!licence:MIT", "a", NULL, "MIT OR X11", FREE));
	CHECK(matches("!licence:MIT", "a", NULL, "X11", FREE));
	/* The selector value is an id, not a glob. */
	CHECK(!matches("licence:GPL*", "a", NULL, "GPL-2.0-only", FREE));
}

TEST(match_all_selectors_of_a_line)
{
	const char *sel = "path:intel/* category:non-free !path:*.pnvm driver:iwlwifi";

	CHECK(matches(sel, "intel/iwlwifi/x.ucode", "iwlwifi - Intel", NULL, NONFREE));
	CHECK(!matches(sel, "intel/iwlwifi/x.pnvm", "iwlwifi - Intel", NULL, NONFREE));
	CHECK(!matches(sel, "intel/iwlwifi/x.ucode", "iwlwifi - Intel", NULL, FREE));
	CHECK(!matches(sel, "amd/x.ucode", "iwlwifi - Intel", NULL, NONFREE));
	CHECK(!matches(sel, "intel/iwlwifi/x.ucode", "ice - Intel", NULL, NONFREE));
}

TEST(rule_without_selectors_matches_all)
{
	/* The parser refuses such a line; an empty rule is vacuously true. */
	struct fw_split_rule r = { 0 };
	struct fw_blob_facts f = { .name = "a", .cat = FW_CAT_UNKNOWN };

	CHECK(fw_rule_matches(&r, &f));
}

TEST(section_allows)
{
	static const char *const sections[] = { "main", "contrib", "non-free", "non-free-firmware" };
	/* free goes anywhere; non-free only to non-free sections; the rest nowhere. */
	static const bool want[][4] = {
		[FW_CAT_FREE] = { true, true, true, true },
		[FW_CAT_NONFREE] = { false, false, true, true },
		[FW_CAT_UNDISTRIBUTABLE] = { false, false, false, false },
		[FW_CAT_UNKNOWN] = { false, false, false, false },
	};

	for (int c = FW_CAT_FREE; c <= FW_CAT_UNKNOWN; c++)
		for (size_t i = 0; i < FW_ARRAY_SIZE(sections); i++) {
			if (fw_section_allows(sections[i], (enum fw_category)c) != want[c][i])
				fprintf(stderr, "%s / %s\n", sections[i],
					fw_category_name((enum fw_category)c));
			CHECK(fw_section_allows(sections[i], (enum fw_category)c) == want[c][i]);
		}
}

TEST(empty_blob_needs_empty_yes)
{
	struct fw_split s;
	struct fw_blob_facts f = { .name = "a/empty.bin", .cat = FW_CAT_NONFREE, .empty = true };

	/* A rule without empty:yes never takes an empty blob ... */
	CHECK_EQ_INT(one_rule(&s, "category:non-free"), 0);
	CHECK(!fw_rule_matches(&s.rules[0], &f));
	fw_split_free(&s);
	/* ... one with it takes only empty blobs. */
	CHECK_EQ_INT(one_rule(&s, "empty:yes path:a/*"), 0);
	CHECK(fw_rule_matches(&s.rules[0], &f));
	f.empty = false;
	CHECK(!fw_rule_matches(&s.rules[0], &f));
	fw_split_free(&s);
	CHECK(one_rule(&s, "empty:no") < 0);
	fw_split_free(&s);
	CHECK(one_rule(&s, "category:copyleft") < 0);
	fw_split_free(&s);
}

TEST(rest_line_takes_what_no_other_line_takes)
{
	struct fw_split s;
	struct fw_diag d = { 0 };
	struct fw_blob_facts rtl = { .name = "rtl_nic/a.fw", .cat = FW_CAT_NONFREE };
	struct fw_blob_facts other = { .name = "acme/b.bin", .cat = FW_CAT_NONFREE };
	struct fw_blob_facts free_ = { .name = "acme/c.bin", .cat = FW_CAT_FREE };

	/* The catch-all first: the order of lines does not matter. */
	CHECK_EQ_INT(parse(&s, &d,
			   "# fwdist package split 1\n"
			   "misc  non-free-firmware  category:non-free rest:yes\n"
			   "rtl   non-free-firmware  category:non-free path:rtl_nic/*\n"),
		     0);
	CHECK_EQ_INT((int)d.n, 0);
	CHECK(s.rules[0].rest && !s.rules[1].rest);
	CHECK_EQ_INT(fw_split_first(&s, &rtl), 1);
	CHECK_EQ_INT(fw_split_first(&s, &other), 0);
	CHECK_EQ_INT(fw_split_first(&s, &free_), -1);
	fw_split_free(&s);
	fw_diag_free(&d);
}

TEST(rest_takes_yes_and_no_negation)
{
	struct fw_split s;
	struct fw_diag d = { 0 };

	CHECK_EQ_INT(parse(&s, &d,
			   "# fwdist package split 1\n"
			   "aa  non-free-firmware  rest:no\n"
			   "bb  non-free-firmware  !rest:yes\n"),
		     0);
	CHECK_EQ_INT((int)s.nrules, 0);
	CHECK_DIAG(&d, 0, 2, "'rest:no': rest: takes yes");
	CHECK_DIAG(&d, 1, 3, "'!rest:yes': rest: cannot be negated");
	fw_split_free(&s);
	fw_diag_free(&d);
}

/* PACKAGE SECTION dropped: a package an earlier release had that takes
 * nothing now. No package of the split and no rule; alone on its line,
 * once per package. */
TEST(dropped_lines)
{
	static const char text[] =
		HDR
		"firmware-a main category:free\n"            /* 2 */
		"firmware-gone non-free-firmware dropped\n"  /* 3 */
		"firmware-gone non-free-firmware dropped\n"  /* 4: twice */
		"firmware-x non-free dropped path:x/*\n"     /* 5: not alone */
		"firmware-y non-free path:y/* dropped\n"     /* 6: not alone */
		"firmware-old non-free  dropped  \n";        /* 7 */
	struct fw_split s;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&s, &d, text), 0);
	CHECK_NDIAG(&d, 3);
	CHECK_DIAG(&d, 0, 4, "firmware-gone: dropped already at line 3");
	CHECK_DIAG(&d, 1, 5, "'dropped': dropped: alone on its line (a package that takes nothing now)");
	CHECK_DIAG(&d, 2, 6, "'dropped': dropped: alone on its line (a package that takes nothing now)");
	CHECK_EQ_INT(s.npkgs, 1);
	CHECK_EQ_INT(s.nrules, 1);
	CHECK_EQ_INT(s.ndropped, 2);
	CHECK_EQ_STR(s.dropped[0].name, "firmware-gone");
	CHECK_EQ_STR(s.dropped[0].section, "non-free-firmware");
	CHECK_EQ_INT(s.dropped[0].line, 3);
	CHECK_EQ_STR(s.dropped[1].name, "firmware-old");
	CHECK_EQ_INT(s.dropped[1].line, 7);
	CHECK_EQ_INT(fw_split_find(&s, "firmware-gone"), -1);
	CHECK_EQ_INT(fw_split_find_dropped(&s, "firmware-old"), 1);
	CHECK_EQ_INT(fw_split_find_dropped(&s, "firmware-a"), -1);
	fw_split_free(&s);
	fw_diag_free(&d);
}
