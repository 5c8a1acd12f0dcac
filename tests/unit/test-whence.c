/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of whence.c: keywords, names, links, groups, error lines, real upstream WHENCE files. */
#include "whence.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "util.h"
#include "unit.h"

/* Parse a NUL-terminated WHENCE text; diagnostics name it "WHENCE". */
static int parse(struct fw_whence *w, struct fw_diag *d, const char *text)
{
	memset(d, 0, sizeof(*d));
	return fw_whence_parse(w, "WHENCE", text, strlen(text), d);
}

/* One diagnostic, exactly: file, line and text. */
#define CHECK_DIAG(d, i, ln, txt) CHECK_DIAG_IN(d, i, "WHENCE", ln, txt)

/* One entry, exactly: kind, name, line. */
#define CHECK_ENTRY(w, i, k, nm, ln)                                          \
	do {                                                                  \
		CHECK((w)->nentries > (size_t)(i));                           \
		CHECK_EQ_INT((w)->entries[i].kind, (k));                      \
		CHECK_EQ_STR((w)->entries[i].name, (nm));                     \
		CHECK_EQ_INT((w)->entries[i].line, (ln));                     \
	} while (0)

TEST(kind_names)
{
	CHECK_EQ_STR(fw_entry_kind_name(FW_E_FILE), "File");
	CHECK_EQ_STR(fw_entry_kind_name(FW_E_RAWFILE), "RawFile");
	CHECK_EQ_STR(fw_entry_kind_name(FW_E_LINK), "Link");
	CHECK_EQ_STR(fw_entry_kind_name(FW_E_SOURCE), "Source");
	CHECK_EQ_STR(fw_entry_kind_name((enum fw_entry_kind)42), "?");
}

/* The lexer import reads upstream's lines with: the parser's own keywords
 * and separators, so the two never disagree on what a line is. */
TEST(lexer_keywords_and_separators)
{
	static const struct {
		const char *line;
		enum fw_whence_kw kw;
		size_t len;
	} cases[] = {
		{ "Driver: tg3 - Broadcom", FW_KW_DRIVER, 7 },
		{ "File: tigon/tg3.bin", FW_KW_FILE, 5 },
		{ "RawFile: a.bin", FW_KW_RAWFILE, 8 },
		{ "Link: a -> b", FW_KW_LINK, 5 },
		{ "Source: cis/", FW_KW_SOURCE, 7 },
		{ "Version: 1", FW_KW_VERSION, 8 },
		{ "Info: x", FW_KW_INFO, 5 },
		{ "Licence: Redistributable.", FW_KW_LICENCE, 8 },
		{ "License: Redistributable.", FW_KW_LICENCE, 8 },
		{ "SPDX-License-Identifier: MIT", FW_KW_SPDX, 24 },
		{ "File:", FW_KW_FILE, 5 },
		{ " File: indented is prose", FW_KW_NONE, 0 },
		{ "file: lower case is prose", FW_KW_NONE, 0 },
		{ "Fil", FW_KW_NONE, 0 },
		{ "", FW_KW_NONE, 0 },
	};
	size_t len = 99;

	for (size_t i = 0; i < FW_ARRAY_SIZE(cases); i++) {
		CHECK_EQ_INT(fw_whence_keyword(cases[i].line, strlen(cases[i].line), &len),
			     cases[i].kw);
		CHECK_EQ_INT(len, cases[i].len);
	}
	/* Only n bytes are looked at: "File:" cut to "Fil" is prose. */
	CHECK_EQ_INT(fw_whence_keyword("File: x", 3, NULL), FW_KW_NONE);
	CHECK(fw_whence_is_sep("----------", 10));
	CHECK(fw_whence_is_sep("------------- \t", 15));
	CHECK(!fw_whence_is_sep("---------", 9));
	CHECK(!fw_whence_is_sep("---------- x", 12));
	CHECK(!fw_whence_is_sep(" ----------", 11));
	CHECK(!fw_whence_is_sep("", 0));
}

TEST(every_keyword_counted)
{
	static const char text[] =
		"Driver: drv - a test driver\n"                 /* 1 */
		"\n"                                             /* 2 */
		"File: a.bin\n"                                  /* 3 */
		"Version: 1.2.3\n"                               /* 4 */
		"Info: built 2024-01-01\n"                       /* 5 */
		"RawFile: r.bin\n"                               /* 6 */
		"Link: l.bin -> a.bin\n"                         /* 7 */
		"Source: a.S\n"                                  /* 8 */
		"Licence: Redistributable. See LICENCE.x.\n"     /* 9 */
		"License: a second licence line, more prose\n"   /* 10 */
		"SPDX-License-Identifier: MIT\n";                /* 11 */
	struct fw_whence w;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&w, &d, text), 0);
	CHECK_EQ_INT(d.n, 0);
	CHECK_EQ_INT(w.errors, 0);
	CHECK_EQ_STR(w.path, "WHENCE");
	CHECK_EQ_INT(w.counts.driver, 1);
	CHECK_EQ_INT(w.counts.file, 1);
	CHECK_EQ_INT(w.counts.rawfile, 1);
	CHECK_EQ_INT(w.counts.link, 1);
	CHECK_EQ_INT(w.counts.source, 1);
	CHECK_EQ_INT(w.counts.licence, 2); /* Licence: and License: both count */
	CHECK_EQ_INT(w.counts.spdx, 1);
	CHECK_EQ_INT(w.counts.version, 1);
	CHECK_EQ_INT(w.counts.info, 1);

	CHECK_EQ_INT(w.nblocks, 1);
	CHECK_EQ_STR(w.blocks[0].driver, "drv - a test driver");
	CHECK_EQ_INT(w.blocks[0].line, 1);
	CHECK_EQ_INT(w.blocks[0].first, 0);
	CHECK_EQ_INT(w.blocks[0].count, 4);

	CHECK_EQ_INT(w.nentries, 4);
	CHECK_ENTRY(&w, 0, FW_E_FILE, "a.bin", 3);
	CHECK_ENTRY(&w, 1, FW_E_RAWFILE, "r.bin", 6);
	CHECK_ENTRY(&w, 2, FW_E_LINK, "l.bin", 7);
	CHECK_EQ_STR(w.entries[2].target, "a.bin");
	CHECK_ENTRY(&w, 3, FW_E_SOURCE, "a.S", 8);
	CHECK(w.entries[0].target == NULL);
	CHECK_EQ_STR(w.entries[0].version, "1.2.3");
	CHECK_EQ_INT(w.entries[0].version_line, 4);
	CHECK_EQ_STR(w.entries[0].info, "built 2024-01-01");
	CHECK_EQ_INT(w.entries[0].info_line, 5);
	CHECK(w.entries[1].version == NULL);
	for (size_t i = 0; i < w.nentries; i++) {
		CHECK_EQ_INT(w.entries[i].block, 0);
		CHECK_EQ_INT(w.entries[i].licence, 1);
		CHECK_EQ_INT(w.entries[i].flags, 0);
	}

	/* The first Licence: line is the text; License: continues it. */
	CHECK_EQ_INT(w.nlicences, 1);
	CHECK_EQ_STR(w.licences[0].text, "Redistributable. See LICENCE.x.");
	CHECK_EQ_INT(w.licences[0].text_line, 9);
	CHECK_EQ_STR(w.licences[0].spdx, "MIT");
	CHECK_EQ_INT(w.licences[0].spdx_line, 11);
	CHECK_EQ_INT(w.licences[0].block, 0);
	fw_whence_free(&w);
	fw_diag_free(&d);
}

TEST(license_spelling_alone_is_a_licence)
{
	struct fw_whence w;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&w, &d, "Driver: d\nFile: a\nLicense: US spelling\n"), 0);
	CHECK_EQ_INT(d.n, 0);
	CHECK_EQ_INT(w.counts.licence, 1);
	CHECK_EQ_INT(w.nlicences, 1);
	CHECK_EQ_STR(w.licences[0].text, "US spelling");
	CHECK(w.licences[0].spdx == NULL);
	CHECK_EQ_INT(w.entries[0].licence, 1);
	fw_whence_free(&w);
	fw_diag_free(&d);
}

TEST(quoted_escaped_and_bare_names)
{
	static const char text[] =
		"Driver: d\n"
		"File: \"brcm/a b/c  d.txt\"\n"        /* 2: quoted, spaces kept as is */
		"File: brcm/x\\ y\\ z.txt\n"           /* 3: "\ " escapes */
		"File: bare name.bin\n"                /* 4: bare space: flagged, accepted */
		"File:\t\"tab.bin\"\t\n"               /* 5: tabs around a quoted name */
		"File:nospace.bin   \n"                /* 6: no blank after the colon */
		"RawFile: \"q\\ uote.bin\"\n"          /* 7: no escapes inside quotes */
		"File: tab\there.bin\n";               /* 8: a bare tab is a bare blank */
	struct fw_whence w;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&w, &d, text), 0);
	CHECK_EQ_INT(d.n, 0);
	CHECK_EQ_INT(w.errors, 0);
	CHECK_EQ_INT(w.nentries, 7);
	CHECK_ENTRY(&w, 0, FW_E_FILE, "brcm/a b/c  d.txt", 2);
	CHECK_EQ_INT(w.entries[0].flags, 0);
	CHECK_ENTRY(&w, 1, FW_E_FILE, "brcm/x y z.txt", 3);
	CHECK_EQ_INT(w.entries[1].flags, 0);
	CHECK_ENTRY(&w, 2, FW_E_FILE, "bare name.bin", 4);
	CHECK_EQ_INT(w.entries[2].flags, FW_E_UNQUOTED_SPACE);
	CHECK_ENTRY(&w, 3, FW_E_FILE, "tab.bin", 5);
	CHECK_EQ_INT(w.entries[3].flags, 0);
	CHECK_ENTRY(&w, 4, FW_E_FILE, "nospace.bin", 6);
	CHECK_ENTRY(&w, 5, FW_E_RAWFILE, "q\\ uote.bin", 7);
	CHECK_EQ_INT(w.entries[5].flags, 0);
	CHECK_ENTRY(&w, 6, FW_E_FILE, "tab\there.bin", 8);
	CHECK_EQ_INT(w.entries[6].flags, FW_E_UNQUOTED_SPACE);
	/* The tab stays in the name; the name check refuses it later. */
	CHECK_EQ_STR(fw_name_problem(w.entries[6].name), "control character in name");
	fw_whence_free(&w);
	fw_diag_free(&d);
}

/* A bare name may end in an escaped space: "foo/bar\ " is "foo/bar ".
 * Trailing blanks after the name are trimmed, but never an escaped one. */
TEST(escaped_space_at_the_end_of_a_bare_name)
{
	static const char text[] =
		"Driver: d\n"
		"File: foo/bar\\ \n"                   /* 2 */
		"File: foo/tab\\ \t \n"                /* 3: blanks after the escape go */
		"File: foo/two\\ \\ \n"                /* 4: two escaped spaces */
		"File: foo/in\\ the\\ middle.bin\n"    /* 5 */
		"File: \"foo/quoted \"\n"              /* 6 */
		"Link: foo/l\\  -> bar\\ \n"           /* 7: name and target */
		"File: foo/crlf\\ \r\n"                /* 8 */
		"File: foo/not\\\\ \n";                /* 9: "\\" is no escape, refused */
	struct fw_whence w;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&w, &d, text), 0);
	CHECK_NDIAG(&d, 1);
	CHECK_DIAG(&d, 0, 9, "File: backslash not followed by a space");
	CHECK_EQ_INT(w.nentries, 7);
	CHECK_ENTRY(&w, 0, FW_E_FILE, "foo/bar ", 2);
	CHECK_ENTRY(&w, 1, FW_E_FILE, "foo/tab ", 3);
	CHECK_ENTRY(&w, 2, FW_E_FILE, "foo/two  ", 4);
	CHECK_ENTRY(&w, 3, FW_E_FILE, "foo/in the middle.bin", 5);
	CHECK_ENTRY(&w, 4, FW_E_FILE, "foo/quoted ", 6);
	CHECK_ENTRY(&w, 5, FW_E_LINK, "foo/l ", 7);
	CHECK_EQ_STR(w.entries[5].target, "bar ");
	CHECK_ENTRY(&w, 6, FW_E_FILE, "foo/crlf ", 8);
	/* Escaped and quoted spaces are no bare spaces. */
	for (size_t i = 0; i < w.nentries; i++)
		CHECK_EQ_INT(w.entries[i].flags, 0);
	fw_whence_free(&w);
	fw_diag_free(&d);
}

TEST(links)
{
	static const char text[] =
		"Driver: d\n"
		"Link: a -> b\n"                             /* 2 */
		"Link: \"a b\" -> \"c d\"\n"                 /* 3 */
		"Link: dir/x  -> y\n"                        /* 4: two spaces before the arrow */
		"Link: dir/l\\ 1 -> ../t\\ 2\n"              /* 5: escapes both sides */
		"Link: \"q\" -> bare\n"                      /* 6: quoted name, bare target */
		"Link: bare -> \"q t\"\n"                    /* 7: bare name, quoted target */
		"Link: \"x -> y\" -> z\n"                    /* 8: arrow inside quotes is a name */
		"Link: s -> t u\n"                           /* 9: bare space in the target */
		"Link:\tt1\t->\tt2\n";                       /* 10: tabs: no " -> " */
	struct fw_whence w;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&w, &d, text), 0);
	CHECK_EQ_INT(w.counts.link, 9);
	CHECK_EQ_INT(w.nentries, 8);
	CHECK_ENTRY(&w, 0, FW_E_LINK, "a", 2);
	CHECK_EQ_STR(w.entries[0].target, "b");
	CHECK_EQ_INT(w.entries[0].flags, 0);
	CHECK_ENTRY(&w, 1, FW_E_LINK, "a b", 3);
	CHECK_EQ_STR(w.entries[1].target, "c d");
	CHECK_EQ_INT(w.entries[1].flags, 0);
	CHECK_ENTRY(&w, 2, FW_E_LINK, "dir/x", 4);
	CHECK_EQ_STR(w.entries[2].target, "y");
	CHECK_EQ_INT(w.entries[2].flags, 0);
	CHECK_ENTRY(&w, 3, FW_E_LINK, "dir/l 1", 5);
	CHECK_EQ_STR(w.entries[3].target, "../t 2");
	CHECK_EQ_INT(w.entries[3].flags, 0);
	CHECK_ENTRY(&w, 4, FW_E_LINK, "q", 6);
	CHECK_EQ_STR(w.entries[4].target, "bare");
	CHECK_ENTRY(&w, 5, FW_E_LINK, "bare", 7);
	CHECK_EQ_STR(w.entries[5].target, "q t");
	CHECK_EQ_INT(w.entries[5].flags, 0);
	CHECK_ENTRY(&w, 6, FW_E_LINK, "x -> y", 8);
	CHECK_EQ_STR(w.entries[6].target, "z");
	CHECK_ENTRY(&w, 7, FW_E_LINK, "s", 9);
	CHECK_EQ_STR(w.entries[7].target, "t u");
	CHECK_EQ_INT(w.entries[7].flags, FW_E_UNQUOTED_SPACE);
	/* A bare link needs " -> " with spaces; tabs around the arrow are refused. */
	CHECK_EQ_INT(d.n, 1);
	CHECK_EQ_INT(w.errors, 1);
	CHECK_DIAG(&d, 0, 10, "Link: expected 'NAME -> TARGET'");
	fw_whence_free(&w);
	fw_diag_free(&d);
}

TEST(link_errors_with_line_numbers)
{
	static const char text[] =
		"Driver: d\n"
		"Link: a b\n"                 /* 2: no arrow */
		"Link: \"a\"\n"               /* 3: quoted, no arrow */
		"Link: a ->\n"                /* 4: arrow at the end, no target */
		"Link: a -> \"\"\n"           /* 5: empty quoted target */
		"Link: \"a\" b -> c\n"        /* 6: garbage between name and arrow */
		"Link: a -> \"b\" c\n"        /* 7: garbage after the target */
		"Link: \"\" -> b\n"           /* 8: empty name */
		"Link: -> b\n"                /* 9: no name at all */
		"Link: a -> \"b\n"            /* 10: unterminated target */
		"Link: a\"x -> b\n"           /* 11: stray quote in a bare name */
		"Link: ok -> fine\n";         /* 12 */
	struct fw_whence w;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&w, &d, text), 0);
	CHECK_EQ_INT(w.counts.link, 11);
	CHECK_EQ_INT(w.nentries, 1);
	CHECK_ENTRY(&w, 0, FW_E_LINK, "ok", 12);
	CHECK_EQ_INT(w.errors, 10);
	CHECK_EQ_INT(d.n, 10);
	CHECK_DIAG(&d, 0, 2, "Link: expected 'NAME -> TARGET'");
	CHECK_DIAG(&d, 1, 3, "Link: expected 'NAME -> TARGET'");
	CHECK_DIAG(&d, 2, 4, "Link: expected 'NAME -> TARGET'");
	CHECK_DIAG(&d, 3, 5, "Link: empty link target");
	CHECK_DIAG(&d, 4, 6, "Link: expected 'NAME -> TARGET'");
	CHECK_DIAG(&d, 5, 7, "Link: trailing garbage after the name");
	CHECK_DIAG(&d, 6, 8, "Link: empty name");
	CHECK_DIAG(&d, 7, 9, "Link: expected 'NAME -> TARGET'");
	CHECK_DIAG(&d, 8, 10, "Link: unterminated quoted name");
	CHECK_DIAG(&d, 9, 11, "Link: stray quote in name");
	fw_whence_free(&w);
	fw_diag_free(&d);
}

TEST(name_errors_with_line_numbers)
{
	static const char text[] =
		"Driver: d\n"
		"File: \"a.bin\" junk\n"      /* 2 */
		"File: \"a.bin\"\"\n"         /* 3: a second quote is garbage too */
		"File: \"unterminated.bin\n"  /* 4 */
		"RawFile: a\"b.bin\n"         /* 5 */
		"Source: a\\b.S\n"            /* 6 */
		"File: ends\\\n"              /* 7: backslash at the end */
		"File:\n"                     /* 8 */
		"File:    \n"                 /* 9 */
		"File: \"\"\n"                /* 10 */
		"File: good.bin\n";           /* 11 */
	struct fw_whence w;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&w, &d, text), 0);
	CHECK_EQ_INT(w.nentries, 1);
	CHECK_ENTRY(&w, 0, FW_E_FILE, "good.bin", 11);
	CHECK_EQ_INT(w.blocks[0].count, 1);
	CHECK_EQ_INT(w.errors, 9);
	CHECK_EQ_INT(d.n, 9);
	CHECK_DIAG(&d, 0, 2, "File: trailing garbage after the name");
	CHECK_DIAG(&d, 1, 3, "File: trailing garbage after the name");
	CHECK_DIAG(&d, 2, 4, "File: unterminated quoted name");
	CHECK_DIAG(&d, 3, 5, "RawFile: stray quote in name");
	CHECK_DIAG(&d, 4, 6, "Source: backslash not followed by a space");
	CHECK_DIAG(&d, 5, 7, "File: backslash not followed by a space");
	CHECK_DIAG(&d, 6, 8, "File: empty name");
	CHECK_DIAG(&d, 7, 9, "File: empty name");
	CHECK_DIAG(&d, 8, 10, "File: empty name");
	/* Lines with errors still count as the keyword lines they are. */
	CHECK_EQ_INT(w.counts.file, 8);
	fw_whence_free(&w);
	fw_diag_free(&d);
}

TEST(driver_empty_is_an_error)
{
	struct fw_whence w;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&w, &d, "Driver:   \nFile: a\n"), 0);
	CHECK_EQ_INT(w.errors, 1);
	CHECK_EQ_INT(d.n, 1);
	CHECK_DIAG(&d, 0, 1, "Driver: empty driver name");
	CHECK_EQ_INT(w.nblocks, 1);
	CHECK_EQ_STR(w.blocks[0].driver, "");
	fw_whence_free(&w);
	fw_diag_free(&d);
}

TEST(empty_spdx_is_an_error)
{
	struct fw_whence w;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&w, &d, "Driver: d\nFile: a\nSPDX-License-Identifier:  \n"), 0);
	CHECK_EQ_INT(w.errors, 1);
	CHECK_DIAG(&d, 0, 3, "SPDX-License-Identifier: empty expression");
	CHECK_EQ_INT(w.nlicences, 1);
	CHECK(w.licences[0].spdx == NULL);
	fw_whence_free(&w);
	fw_diag_free(&d);
}

TEST(prose_and_separators_ignored)
{
	static const char text[] =
		"             **********\n"                        /* 1 */
		"             * WHENCE *\n"                        /* 2 */
		"This File: is prose, so is Driver: here.\n"       /* 3 */
		" File: indented.bin\n"                            /* 4: not at line start */
		"Files: plural.bin\n"                              /* 5: no entry, a finding */
		"file: lower.bin\n"                                /* 6: no entry, a finding */
		"Licence information follows\n"                    /* 7 */
		"--------------------------------------------------------------------------\n" /* 8 */
		"Driver: one\n"                                    /* 9 */
		"File: a.bin\n"                                    /* 10 */
		"---------\n"                                      /* 11: nine dashes: prose */
		"File: b.bin\n"                                    /* 12: still block one */
		"---------- trailing words\n"                      /* 13: prose */
		"Licence: L1\n"                                    /* 14 */
		"----------  \t\n"                                 /* 15: ten dashes and blanks */
		"See the Licence: in the text; Version: 3 too.\n"  /* 16 */
		"Version: 9\n"                                     /* 17: outside a block: ignored */
		"File: c.bin\n"                                    /* 18: opens a block without Driver: */
		"Licence: L2\n";                                   /* 19 */
	struct fw_whence w;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&w, &d, text), 0);
	/* Lines 5 and 6 are no File: entries, but read as misspelt ones. */
	CHECK_NDIAG(&d, 2);
	CHECK_DIAG(&d, 0, 5, "unknown keyword 'Files:'; did you mean 'File:'?");
	CHECK_DIAG(&d, 1, 6, "unknown keyword 'file:'; did you mean 'File:'?");
	CHECK_EQ_INT(w.errors, 2);
	CHECK_EQ_INT(w.counts.driver, 1);
	CHECK_EQ_INT(w.counts.file, 3);
	CHECK_EQ_INT(w.counts.licence, 2);
	CHECK_EQ_INT(w.counts.version, 1);
	CHECK_EQ_INT(w.nentries, 3);
	CHECK_ENTRY(&w, 0, FW_E_FILE, "a.bin", 10);
	CHECK_ENTRY(&w, 1, FW_E_FILE, "b.bin", 12);
	CHECK_ENTRY(&w, 2, FW_E_FILE, "c.bin", 18);
	CHECK(w.entries[2].version == NULL);
	CHECK_EQ_INT(w.nblocks, 2);
	CHECK_EQ_STR(w.blocks[0].driver, "one");
	CHECK_EQ_INT(w.blocks[0].line, 9);
	CHECK_EQ_INT(w.blocks[0].count, 2);
	CHECK(w.blocks[1].driver == NULL);
	CHECK_EQ_INT(w.blocks[1].line, 18);
	CHECK_EQ_INT(w.blocks[1].first, 2);
	CHECK_EQ_INT(w.blocks[1].count, 1);
	CHECK_EQ_INT(w.entries[0].block, 0);
	CHECK_EQ_INT(w.entries[1].block, 0);
	CHECK_EQ_INT(w.entries[2].block, 1);
	CHECK_EQ_INT(w.entries[0].licence, 1);
	CHECK_EQ_INT(w.entries[1].licence, 1);
	CHECK_EQ_INT(w.entries[2].licence, 2);
	fw_whence_free(&w);
	fw_diag_free(&d);
}

TEST(version_info_attach_to_file_above)
{
	static const char text[] =
		"Driver: d\n"        /* 1 */
		"Info: no file yet\n" /* 2: ignored */
		"File: a\n"          /* 3 */
		"Version: 1\n"       /* 4 */
		"Info: i1\n"         /* 5 */
		"File: b\n"          /* 6 */
		"Link: l -> b\n"     /* 7 */
		"Version: 2\n"       /* 8: the File above is b */
		"Version: 3\n"       /* 9: b keeps its first Version: */
		"RawFile: r\n"       /* 10 */
		"Info:   raw info  \n" /* 11 */
		"Source: r.S\n"      /* 12 */
		"Version: 4\n"       /* 13: still r, the last File/RawFile */
		"File: c\n"          /* 14 */
		"----------\n"       /* 15 */
		"Version: 9\n"       /* 16: outside a block */
		"Driver: e\n"        /* 17 */
		"Info: x\n"          /* 18: no file in this block yet */
		"File: f\n";         /* 19 */
	struct fw_whence w;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&w, &d, text), 0);
	CHECK_EQ_INT(d.n, 0);
	CHECK_EQ_INT(w.counts.version, 5);
	CHECK_EQ_INT(w.counts.info, 4);
	CHECK_EQ_INT(w.nentries, 7);
	CHECK_ENTRY(&w, 0, FW_E_FILE, "a", 3);
	CHECK_EQ_STR(w.entries[0].version, "1");
	CHECK_EQ_INT(w.entries[0].version_line, 4);
	CHECK_EQ_STR(w.entries[0].info, "i1");
	CHECK_EQ_INT(w.entries[0].info_line, 5);
	CHECK_ENTRY(&w, 1, FW_E_FILE, "b", 6);
	CHECK_EQ_STR(w.entries[1].version, "2");
	CHECK_EQ_INT(w.entries[1].version_line, 8);
	CHECK(w.entries[1].info == NULL);
	CHECK_ENTRY(&w, 2, FW_E_LINK, "l", 7);
	CHECK(w.entries[2].version == NULL);
	CHECK_ENTRY(&w, 3, FW_E_RAWFILE, "r", 10);
	CHECK_EQ_STR(w.entries[3].info, "raw info");
	CHECK_EQ_INT(w.entries[3].info_line, 11);
	CHECK_EQ_STR(w.entries[3].version, "4");
	CHECK_EQ_INT(w.entries[3].version_line, 13);
	CHECK(w.entries[4].version == NULL); /* the Source */
	CHECK_ENTRY(&w, 5, FW_E_FILE, "c", 14);
	CHECK(w.entries[5].version == NULL);
	CHECK_ENTRY(&w, 6, FW_E_FILE, "f", 19);
	CHECK(w.entries[6].version == NULL);
	CHECK(w.entries[6].info == NULL);
	fw_whence_free(&w);
	fw_diag_free(&d);
}

TEST(source_groups)
{
	static const char text[] =
		"Driver: pairs\n"
		"File: a\n"           /* 0 */
		"Source: a.S\n"       /* 1 */
		"File: b\n"           /* 2 */
		"Source: b.S\n"       /* 3 */
		"Source: b.h\n"       /* 4: a second source for the same files */
		"----------\n"
		"Driver: shared\n"
		"File: c\n"           /* 5 */
		"RawFile: d\n"        /* 6 */
		"Link: l -> c\n"      /* 7 */
		"Source: dir/\n"      /* 8 */
		"----------\n"
		"Driver: none\n"
		"File: e\n"           /* 9 */
		"File: f\n"           /* 10 */
		"----------\n"
		"Driver: tail\n"
		"Source: first.S\n"   /* 11: before any file */
		"File: g\n"           /* 12 */
		"Source: g.S\n"       /* 13 */
		"File: h\n";          /* 14: after the last Source: none */
	static const unsigned want[] = { 1, 1, 2, 2, 2, 1, 1, 0, 1, 0, 0, 1, 2, 2, 0 };
	struct fw_whence w;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&w, &d, text), 0);
	CHECK_EQ_INT(d.n, 0);
	CHECK_EQ_INT(w.nentries, FW_ARRAY_SIZE(want));
	CHECK_EQ_INT(w.nblocks, 4);
	for (size_t i = 0; i < FW_ARRAY_SIZE(want); i++) {
		if (w.entries[i].group != want[i])
			fprintf(stderr, "entry %zu (%s)\n", i, w.entries[i].name);
		CHECK_EQ_INT(w.entries[i].group, want[i]);
	}
	CHECK_EQ_INT(w.counts.source, 6);
	fw_whence_free(&w);
	fw_diag_free(&d);
}

TEST(licence_groups)
{
	static const char text[] =
		"Driver: A\n"                               /* 1 */
		"File: a1\n"                                /* 2  e0 */
		"File: a2\n"                                /* 3  e1 */
		"Licence: LA\n"                             /* 4 */
		"SPDX-License-Identifier: MIT\n"            /* 5 */
		"----------\n"                              /* 6 */
		"Driver: B\n"                               /* 7 */
		"Licence: LB\n"                             /* 8: before its files */
		"SPDX-License-Identifier: BSD-2-Clause\n"   /* 9 */
		"File: b1\n"                                /* 10 e2 */
		"File: b2\n"                                /* 11 e3 */
		"----------\n"                              /* 12 */
		"Driver: C\n"                               /* 13 */
		"File: c1\n"                                /* 14 e4 */
		"Licence: LC1\n"                            /* 15 */
		"File: c2\n"                                /* 16 e5 */
		"License: LC2\n"                            /* 17 */
		"File: c3\n"                                /* 18 e6: after the last one */
		"----------\n"                              /* 19 */
		"Driver: D\n"                               /* 20 */
		"File: d1\n"                                /* 21 e7 */
		"SPDX-License-Identifier: GPL-2.0-only\n"   /* 22 */
		"SPDX-License-Identifier: MIT OR X11\n"     /* 23: same files: both apply */
		"----------\n"                              /* 24 */
		"Driver: E\n"                               /* 25 */
		"File: e1\n";                               /* 26 e8: none */
	static const unsigned want[] = { 1, 1, 2, 2, 3, 4, 4, 5, 0 };
	struct fw_whence w;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&w, &d, text), 0);
	CHECK_EQ_INT(d.n, 0);
	CHECK_EQ_INT(w.nentries, FW_ARRAY_SIZE(want));
	for (size_t i = 0; i < FW_ARRAY_SIZE(want); i++) {
		if (w.entries[i].licence != want[i])
			fprintf(stderr, "entry %zu (%s)\n", i, w.entries[i].name);
		CHECK_EQ_INT(w.entries[i].licence, want[i]);
	}
	CHECK_EQ_INT(w.nlicences, 5);
	CHECK_EQ_STR(w.licences[0].text, "LA");
	CHECK_EQ_INT(w.licences[0].text_line, 4);
	CHECK_EQ_STR(w.licences[0].spdx, "MIT");
	CHECK_EQ_INT(w.licences[0].spdx_line, 5);
	CHECK_EQ_INT(w.licences[0].block, 0);
	CHECK_EQ_STR(w.licences[1].text, "LB");
	CHECK_EQ_STR(w.licences[1].spdx, "BSD-2-Clause");
	CHECK_EQ_INT(w.licences[1].block, 1);
	CHECK_EQ_STR(w.licences[2].text, "LC1");
	CHECK(w.licences[2].spdx == NULL);
	CHECK_EQ_STR(w.licences[3].text, "LC2");
	CHECK_EQ_INT(w.licences[3].text_line, 17);
	CHECK_EQ_INT(w.licences[3].block, 2);
	CHECK(w.licences[4].text == NULL);
	CHECK_EQ_STR(w.licences[4].spdx, "(GPL-2.0-only) AND (MIT OR X11)");
	CHECK_EQ_INT(w.licences[4].spdx_line, 22);
	CHECK_EQ_INT(w.counts.spdx, 4);
	CHECK_EQ_INT(w.counts.licence, 4);
	fw_whence_free(&w);
	fw_diag_free(&d);
}

/* Upstream lists several Driver: lines in one section between separators
 * with the licence once at its end (the Conexant cx231xx/cx23418/cx23885/
 * cx23840 section, the qca WCN399x/WCN6750 one): that licence covers the
 * files of every driver before it that has none of its own. A driver with
 * its own licence line keeps it, nothing is inherited from the driver
 * before, and no licence crosses a separator. */
TEST(licence_covers_every_driver_of_a_section)
{
	static const char text[] =
		"----------\n"                                           /* 1 */
		"Driver: cx231xx - one\n"                                /* 2 */
		"File: v4l-cx231xx-avcore-01.fw\n"                       /* 3  e0 */
		"Driver: cx23418 - two\n"                                /* 4 */
		"File: v4l-cx23418-apu.fw\n"                             /* 5  e1 */
		"File: v4l-cx23418-cpu.fw\n"                             /* 6  e2 */
		"Licence: Redistributable. See LICENSE.conexant for details.\n" /* 7 */
		"SPDX-License-Identifier: LicenseRef-LICENSE.conexant\n" /* 8 */
		"----------\n"                                           /* 9 */
		"Driver: x - own licence each\n"                         /* 10 */
		"File: x.bin\n"                                          /* 11 e3 */
		"Licence: LX\n"                                          /* 12 */
		"Driver: y\n"                                            /* 13 */
		"File: y.bin\n"                                          /* 14 e4 */
		"Licence: LY\n"                                          /* 15 */
		"----------\n"                                           /* 16 */
		"Driver: z - no licence\n"                               /* 17 */
		"File: z.bin\n"                                          /* 18 e5 */
		"----------\n"                                           /* 19 */
		"Driver: w\n"                                            /* 20 */
		"File: w.bin\n"                                          /* 21 e6 */
		"Licence: LW\n"                                          /* 22 */
		"----------\n"                                           /* 23 */
		"Driver: p - licence first\n"                            /* 24 */
		"Licence: LP\n"                                          /* 25 */
		"File: p.bin\n"                                          /* 26 e7 */
		"Driver: q\n"                                            /* 27 */
		"File: q.bin\n"                                          /* 28 e8 */
		"Licence: LQ\n"                                          /* 29 */
		"----------\n"                                           /* 30 */
		"Driver: r - has one\n"                                  /* 31 */
		"File: r.bin\n"                                          /* 32 e9 */
		"Licence: LR\n"                                          /* 33 */
		"Driver: s - has none: inherits nothing\n"               /* 34 */
		"File: s.bin\n";                                         /* 35 e10 */
	static const unsigned want[] = { 1, 1, 1, 2, 3, 0, 4, 5, 6, 7, 0 };
	struct fw_whence w;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&w, &d, text), 0);
	CHECK_EQ_INT(d.n, 0);
	CHECK_EQ_INT(w.nblocks, 10);
	CHECK_EQ_INT(w.nentries, FW_ARRAY_SIZE(want));
	CHECK_EQ_INT(w.nlicences, 7);
	CHECK_EQ_STR(w.blocks[0].driver, "cx231xx - one");
	CHECK_EQ_STR(w.blocks[1].driver, "cx23418 - two");
	CHECK_EQ_INT(w.entries[0].block, 0);
	CHECK_EQ_INT(w.entries[1].block, 1);
	for (size_t i = 0; i < FW_ARRAY_SIZE(want); i++) {
		if (w.entries[i].licence != want[i])
			fprintf(stderr, "entry %zu (%s)\n", i, w.entries[i].name);
		CHECK_EQ_INT(w.entries[i].licence, want[i]);
	}
	CHECK_EQ_STR(w.licences[0].spdx, "LicenseRef-LICENSE.conexant");
	CHECK_EQ_STR(w.licences[1].text, "LX");
	CHECK_EQ_STR(w.licences[2].text, "LY");
	CHECK_EQ_STR(w.licences[3].text, "LW");
	CHECK_EQ_STR(w.licences[4].text, "LP");
	CHECK_EQ_STR(w.licences[5].text, "LQ");
	CHECK_EQ_STR(w.licences[6].text, "LR");
	fw_whence_free(&w);
	fw_diag_free(&d);
}

TEST(overlong_line_and_nul_byte)
{
	/* line 1 Driver, 2 overlong, 3 File, 4 NUL, 5 File, 6 exactly the limit */
	size_t big = 5000, edge = FW_LINE_MAX - strlen("File: ");
	size_t cap = 64 + big + edge + 64, len = 0;
	char *buf = malloc(cap);
	struct fw_whence w;
	struct fw_diag d = { 0 };

	CHECK(buf);
	len += (size_t)sprintf(buf + len, "Driver: d\nFile: ");
	memset(buf + len, 'x', big);
	len += big;
	len += (size_t)sprintf(buf + len, "\nFile: ok.bin\nFile: a");
	buf[len++] = '\0';
	len += (size_t)sprintf(buf + len, "b.bin\nFile: c.bin\nFile: ");
	memset(buf + len, 'e', edge);
	len += edge;
	buf[len++] = '\n';

	CHECK_EQ_INT(fw_whence_parse(&w, "WHENCE", buf, len, &d), 0);
	free(buf);
	CHECK_EQ_INT(w.errors, 2);
	CHECK_EQ_INT(d.n, 2);
	CHECK_DIAG(&d, 0, 2, "line too long (5006 bytes, limit 4096)");
	CHECK_DIAG(&d, 1, 4, "NUL byte in line");
	/* Parsing went on past both. */
	CHECK_EQ_INT(w.nentries, 3);
	CHECK_ENTRY(&w, 0, FW_E_FILE, "ok.bin", 3);
	CHECK_ENTRY(&w, 1, FW_E_FILE, "c.bin", 5);
	CHECK_EQ_INT(w.entries[2].line, 6);
	CHECK_EQ_INT(strlen(w.entries[2].name), edge);
	CHECK_EQ_INT(w.counts.file, 3);
	fw_whence_free(&w);
	fw_diag_free(&d);
}

TEST(one_byte_over_the_limit)
{
	size_t n = FW_LINE_MAX + 1 - strlen("File: ");
	char *buf = malloc(FW_LINE_MAX + 2);
	struct fw_whence w;
	struct fw_diag d = { 0 };

	CHECK(buf);
	memcpy(buf, "File: ", 6);
	memset(buf + 6, 'a', n);
	CHECK_EQ_INT(fw_whence_parse(&w, "WHENCE", buf, FW_LINE_MAX + 1, &d), 0);
	free(buf);
	CHECK_EQ_INT(w.nentries, 0);
	CHECK_DIAG(&d, 0, 1, "line too long (4097 bytes, limit 4096)");
	fw_whence_free(&w);
	fw_diag_free(&d);
}

/* The limit is on the line, not its line end: a line of FW_LINE_MAX bytes
 * is accepted with "\r\n" as with "\n". */
TEST(crlf_line_at_the_limit)
{
	size_t n = FW_LINE_MAX - strlen("File: ");
	char *buf = malloc(FW_LINE_MAX + 2);
	struct fw_whence w;
	struct fw_diag d = { 0 };

	CHECK(buf);
	memcpy(buf, "File: ", 6);
	memset(buf + 6, 'a', n);
	memcpy(buf + FW_LINE_MAX, "\r\n", 2);
	CHECK_EQ_INT(fw_whence_parse(&w, "WHENCE", buf, FW_LINE_MAX + 2, &d), 0);
	free(buf);
	CHECK_NDIAG(&d, 0);
	CHECK_EQ_INT(w.nentries, 1);
	CHECK_EQ_INT(strlen(w.entries[0].name), n);
	fw_whence_free(&w);
	fw_diag_free(&d);
}

TEST(no_trailing_newline)
{
	struct fw_whence w;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&w, &d, "Driver: d\nFile: first.bin\nLink: last -> first.bin"), 0);
	CHECK_EQ_INT(d.n, 0);
	CHECK_EQ_INT(w.nentries, 2);
	CHECK_ENTRY(&w, 1, FW_E_LINK, "last", 3);
	CHECK_EQ_STR(w.entries[1].target, "first.bin");
	fw_whence_free(&w);

	CHECK_EQ_INT(parse(&w, &d, "File: \"only.bin\""), 0);
	CHECK_EQ_INT(d.n, 0);
	CHECK_ENTRY(&w, 0, FW_E_FILE, "only.bin", 1);
	fw_whence_free(&w);
	fw_diag_free(&d);
}

TEST(empty_input)
{
	struct fw_whence w;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&w, &d, ""), 0);
	CHECK_EQ_INT(d.n, 0);
	CHECK_EQ_INT(w.nblocks, 0);
	CHECK_EQ_INT(w.nentries, 0);
	CHECK_EQ_INT(w.nlicences, 0);
	CHECK_EQ_INT(w.errors, 0);
	fw_whence_free(&w);
	CHECK(w.path == NULL);
	fw_diag_free(&d);
}

/* Every field of two parses, compared: the CRLF tests need "exactly the
 * same model", not just the same counts. */
static bool str_same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool whence_same(const struct fw_whence *a, const struct fw_whence *b)
{
	if (a->nentries != b->nentries || a->nblocks != b->nblocks ||
	    a->nlicences != b->nlicences || a->errors != b->errors ||
	    memcmp(&a->counts, &b->counts, sizeof(a->counts)) != 0)
		return false;
	for (size_t i = 0; i < a->nentries; i++) {
		const struct fw_whence_entry *x = &a->entries[i], *y = &b->entries[i];

		if (x->kind != y->kind || !str_same(x->name, y->name) ||
		    !str_same(x->target, y->target) || x->line != y->line ||
		    x->block != y->block || x->licence != y->licence || x->group != y->group ||
		    x->flags != y->flags || !str_same(x->version, y->version) ||
		    x->version_line != y->version_line || !str_same(x->info, y->info) ||
		    x->info_line != y->info_line)
			return false;
	}
	for (size_t i = 0; i < a->nblocks; i++) {
		const struct fw_whence_block *x = &a->blocks[i], *y = &b->blocks[i];

		if (!str_same(x->driver, y->driver) || x->line != y->line ||
		    x->first != y->first || x->count != y->count)
			return false;
	}
	for (size_t i = 0; i < a->nlicences; i++) {
		const struct fw_whence_licence *x = &a->licences[i], *y = &b->licences[i];

		if (x->block != y->block || !str_same(x->text, y->text) ||
		    x->text_line != y->text_line || !str_same(x->spdx, y->spdx) ||
		    x->spdx_line != y->spdx_line)
			return false;
	}
	return true;
}

/* text with every "\n" turned into "\r\n"; a new string. */
static char *to_crlf(const char *text)
{
	char *out = malloc(2 * strlen(text) + 1), *o = out;

	if (!out)
		return NULL;
	for (const char *p = text; *p; p++) {
		if (*p == '\n')
			*o++ = '\r';
		*o++ = *p;
	}
	*o = '\0';
	return out;
}

/* A WHENCE saved with CRLF line ends (an editor, a Windows checkout) means
 * the same as the LF file: one trailing '\r' of each line is dropped before
 * the line is parsed, so a separator still separates and no name, target,
 * driver or licence keeps a '\r'. */
TEST(crlf_same_model_as_lf)
{
	static const char text[] =
		"Prose before the first block.\n"
		"\n"
		"--------------------------------------------------------------------------\n"
		"\n"
		"Driver: alpha - first\n"
		"\n"
		"File: alpha/a.bin\n"
		"Version: 1.0\n"
		"Info: built from a.S\n"
		"Source: alpha/a.S\n"
		"File: \"alpha/quoted name.bin\"\n"
		"RawFile: alpha/esc\\ aped.bin\n"
		"Link: alpha/l.bin -> a.bin\n"
		"Link: \"alpha/q l.bin\" -> \"quoted name.bin\"\n"
		"\n"
		"Licence: GPL-2.0-or-later\n"
		"SPDX-License-Identifier: GPL-2.0-or-later\n"
		"\n"
		"----------\n"
		"\n"
		"Driver: beta - second\n"
		"File: beta/b.bin\n"
		"Licence: Redistributable.\n"
		"SPDX-License-Identifier: LicenseRef-x\n"
		"--------------------------------------------------------------------------\n"
		"File: gamma/after-separator.bin\n"
		"Licence: L\n";
	char *crlf = to_crlf(text);
	struct fw_whence lf, cr;
	struct fw_diag dl, dc;

	CHECK(crlf);
	CHECK_EQ_INT(parse(&lf, &dl, text), 0);
	CHECK_EQ_INT(parse(&cr, &dc, crlf), 0);
	free(crlf);
	CHECK_NDIAG(&dl, 0);
	CHECK_NDIAG(&dc, 0);
	/* The LF parse is what the test expects... */
	CHECK_EQ_INT(lf.nblocks, 3);
	CHECK_EQ_INT(lf.nentries, 8);
	CHECK_EQ_INT(lf.nlicences, 3);
	CHECK(lf.blocks[2].driver == NULL);
	CHECK_ENTRY(&lf, 2, FW_E_FILE, "alpha/quoted name.bin", 11);
	CHECK_ENTRY(&lf, 3, FW_E_RAWFILE, "alpha/esc aped.bin", 12);
	CHECK_EQ_STR(lf.entries[5].target, "quoted name.bin");
	/* ...and the CRLF one is the same, field by field. */
	CHECK(whence_same(&lf, &cr));
	for (size_t i = 0; i < cr.nentries; i++) {
		CHECK(!strchr(cr.entries[i].name, '\r'));
		CHECK(!cr.entries[i].target || !strchr(cr.entries[i].target, '\r'));
	}
	CHECK_EQ_STR(cr.blocks[0].driver, "alpha - first");
	CHECK_EQ_STR(cr.licences[0].spdx, "GPL-2.0-or-later");
	CHECK_EQ_STR(cr.licences[2].text, "L");
	fw_whence_free(&lf);
	fw_whence_free(&cr);
	fw_diag_free(&dl);
	fw_diag_free(&dc);
}

/* Only one '\r' is a line end: any other stays in the line, where a bare
 * name keeps it (and the name check refuses it as a control character) and
 * a quoted name sees it as trailing garbage. A lone '\r' is no line break. */
TEST(crlf_only_one_cr_stripped)
{
	static const char text[] =
		"Driver: d\r\n"
		"File: a.bin\r\r\n"
		"File: \"q.bin\"\r\r\n"
		"File: b.bin\rFile: c.bin\r\n"
		"Licence: L\r"; /* no final newline: the last line ends in '\r' alone */
	struct fw_whence w;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&w, &d, text), 0);
	CHECK_EQ_INT(w.errors, 1);
	CHECK_NDIAG(&d, 1);
	CHECK_DIAG(&d, 0, 3, "File: trailing garbage after the name");
	CHECK_EQ_INT(w.nentries, 2);
	CHECK_ENTRY(&w, 0, FW_E_FILE, "a.bin\r", 2);
	CHECK_EQ_STR(fw_name_problem(w.entries[0].name), "control character in name");
	CHECK_ENTRY(&w, 1, FW_E_FILE, "b.bin\rFile: c.bin", 4);
	CHECK_EQ_STR(w.blocks[0].driver, "d");
	CHECK_EQ_INT(w.nlicences, 1);
	CHECK_EQ_STR(w.licences[0].text, "L");
	fw_whence_free(&w);
	fw_diag_free(&d);
}

TEST(load_missing_file)
{
	struct fw_whence w;
	struct fw_diag d = { 0 };

	CHECK_EQ_INT(fw_whence_load(&w, AT_FDCWD, "/nonexistent/WHENCE", "WHENCE", &d), -ENOENT);
	CHECK_EQ_INT(w.nentries, 0);
	CHECK(w.path == NULL);
	CHECK_EQ_INT(d.n, 0);
	fw_whence_free(&w);
}

/* A misspelt keyword is named at its line with the keyword meant; prose
 * that only opens with a word and a colon is left alone. */
TEST(keyword_typos)
{
	static const struct {
		const char *line, *token, *meant;
	} typos[] = {
		{ "Fiel: a.bin", "Fiel:", "File:" },
		{ "file: a.bin", "file:", "File:" },
		{ "Files: a.bin", "Files:", "File:" },
		{ "File : a.bin", "File :", "File:" },
		{ "Raw File: a.bin", "Raw File:", "RawFile:" },
		{ "RawFlie: a.bin", "RawFlie:", "RawFile:" },
		{ "Lnik: a -> b", "Lnik:", "Link:" },
		{ "Sorce: a.S", "Sorce:", "Source:" },
		{ "Verison: 1", "Verison:", "Version:" },
		{ "Ifno: x", "Ifno:", "Info:" },
		{ "Drvier: x", "Drvier:", "Driver:" },
		{ "Lisence: GPL", "Lisence:", "Licence:" },
		{ "Lisense: GPL", "Lisense:", "License:" },
		{ "Licenc: GPL", "Licenc:", "Licence:" },
		{ "SPDX-License-Identifer: MIT", "SPDX-License-Identifer:", "SPDX-License-Identifier:" },
		{ "SPDX License Identifier: MIT", "SPDX License Identifier:", "SPDX-License-Identifier:" },
		{ "SPDX License Identifer: MIT", "SPDX License Identifer:", "SPDX-License-Identifier:" },
		{ "spdx-license-identifier: MIT", "spdx-license-identifier:", "SPDX-License-Identifier:" },
	};
	static const char *const prose[] = {
		"Originates from: https://example.org/fw", "Copyright: 2020 Vendor",
		"https://example.org/", "Origin: vendor", "md5sum: 0123", "Notice: x",
		"LICENSEES: any", "Note: x", "In: x", " File: indented prose", "\tContact: x",
		"Files needed: a, b", "Available from http://example.org", "# File: a comment",
		"Found in hex form in ftp://example.org",
	};
	char text[256], want[128];

	for (size_t i = 0; i < FW_ARRAY_SIZE(typos); i++) {
		struct fw_whence w;
		struct fw_diag d;

		snprintf(text, sizeof(text), "Driver: x\n%s\n", typos[i].line);
		snprintf(want, sizeof(want), "unknown keyword '%s'; did you mean '%s'?", typos[i].token,
			 typos[i].meant);
		CHECK_EQ_INT(parse(&w, &d, text), 0);
		CHECK_NDIAG(&d, 1);
		CHECK_DIAG(&d, 0, 2, want);
		CHECK_EQ_INT(w.errors, 1);
		CHECK_EQ_INT(w.nentries, 0);
		fw_whence_free(&w);
		fw_diag_free(&d);
	}
	for (size_t i = 0; i < FW_ARRAY_SIZE(prose); i++) {
		struct fw_whence w;
		struct fw_diag d;

		snprintf(text, sizeof(text), "Driver: x\n%s\nFile: a.bin\n", prose[i]);
		CHECK_EQ_INT(parse(&w, &d, text), 0);
		if (d.n)
			fprintf(stderr, "  prose '%s': %s\n", prose[i], d.v[0].text);
		CHECK_NDIAG(&d, 0);
		CHECK_EQ_INT(w.errors, 0);
		CHECK_EQ_INT(w.nentries, 1);
		fw_whence_free(&w);
		fw_diag_free(&d);
	}
}

/* ---- the real upstream files in ../shared/corpus ---- */

static const char *corpus_dir(void)
{
	const char *e = getenv("FWDIST_CORPUS");

	return e && *e ? e : "../shared/corpus";
}

static const struct fw_whence_entry *find_entry(const struct fw_whence *w, const char *name)
{
	for (size_t i = 0; i < w->nentries; i++)
		if (strcmp(w->entries[i].name, name) == 0)
			return &w->entries[i];
	return NULL;
}

static size_t count_flagged(const struct fw_whence *w)
{
	size_t n = 0;

	for (size_t i = 0; i < w->nentries; i++)
		n += (w->entries[i].flags & FW_E_UNQUOTED_SPACE) != 0;
	return n;
}

static size_t count_unlicensed_files(const struct fw_whence *w)
{
	size_t n = 0;

	for (size_t i = 0; i < w->nentries; i++)
		n += w->entries[i].kind != FW_E_LINK && w->entries[i].licence == 0;
	return n;
}

/* The corpus is shared/ beside the clone, as CI lays it out: there (CI set)
 * or once it is present, a missing file is a failure, not a pass. Only a
 * clone with no shared/ beside it, outside CI, skips these two tests. */
static bool corpus_absent(void)
{
	const char *ci = getenv("CI");
	struct stat st;

	if (ci && *ci)
		return false;
	return !getenv("FWDIST_CORPUS") && stat("../shared", &st) < 0;
}

static int load_corpus(struct fw_whence *w, struct fw_diag *d, const char *file)
{
	char *path = fw_asprintf("%s/%s", corpus_dir(), file);
	int r;

	memset(d, 0, sizeof(*d));
	if (!path)
		return -ENOMEM;
	r = fw_whence_load(w, AT_FDCWD, path, file, d);
	if (r < 0)
		fprintf(stderr, "%s: %s\n", path, strerror(-r));
	free(path);
	return r;
}

/* No real WHENCE reads as a misspelt keyword anywhere: upstream's of 2023,
 * of 2026 and of the 2025 tree, and this repository's own. Prose lines
 * ("Originates from:", "https:", "Origin:", "md5sum:") stay prose. */
TEST(corpus_no_keyword_typo)
{
	static const char *const files[] = { "WHENCE-2023", "WHENCE-newest", "upstream-2025/WHENCE" };
	struct fw_whence w;
	struct fw_diag d;
	size_t typos = 0;

	if (corpus_absent())
		SKIP("no ../shared/corpus beside this clone (set FWDIST_CORPUS)");
	for (size_t i = 0; i <= FW_ARRAY_SIZE(files); i++) {
		if (i < FW_ARRAY_SIZE(files)) {
			CHECK_EQ_INT(load_corpus(&w, &d, files[i]), 0);
		} else {
			memset(&d, 0, sizeof(d));
			CHECK_EQ_INT(fw_whence_load(&w, AT_FDCWD, "WHENCE", "WHENCE", &d), 0);
		}
		for (size_t k = 0; k < d.n; k++)
			if (strstr(d.v[k].text, "unknown keyword")) {
				fprintf(stderr, "%s:%u: %s\n", d.v[k].file, d.v[k].line, d.v[k].text);
				typos++;
			}
		CHECK(w.nentries > 0);
		fw_whence_free(&w);
		fw_diag_free(&d);
	}
	CHECK_EQ_INT(typos, 0);
}

TEST(corpus_whence_2023)
{
	struct fw_whence w;
	struct fw_diag d;
	const struct fw_whence_entry *e;

	if (corpus_absent())
		SKIP("no ../shared/corpus beside this clone (set FWDIST_CORPUS)");

	CHECK_EQ_INT(load_corpus(&w, &d, "WHENCE-2023"), 0);
	for (size_t i = 0; i < d.n && i < 5; i++)
		fprintf(stderr, "%s:%u: %s\n", d.v[i].file, d.v[i].line, d.v[i].text);
	CHECK_EQ_INT(d.n, 0);
	CHECK_EQ_INT(w.errors, 0);
	CHECK_EQ_INT(w.counts.driver, 211);
	CHECK_EQ_INT(w.counts.file, 2598);
	CHECK_EQ_INT(w.counts.rawfile, 0);
	CHECK_EQ_INT(w.counts.link, 265);
	CHECK_EQ_INT(w.counts.source, 18);
	CHECK_EQ_INT(w.counts.licence, 216);
	CHECK_EQ_INT(w.counts.spdx, 0);
	CHECK_EQ_INT(w.counts.version, 598);
	CHECK_EQ_INT(w.counts.info, 32);
	CHECK_EQ_INT(w.nblocks, 211);
	CHECK_EQ_INT(w.nentries, 2598 + 265 + 18);
	CHECK_EQ_INT(w.nlicences, 216);
	/* Upstream's wfx block has three "File: x.pds not listed in WHENCE". */
	CHECK_EQ_INT(count_flagged(&w), 3);
	e = find_entry(&w, "wfx/brd4001a.pds not listed in WHENCE");
	CHECK(e != NULL);
	CHECK_EQ_INT(e->line, 6076);
	/* Only smctr, keyspan, emi26 and emi62 (20 files) have no Licence:
	 * line; the qca section's two drivers share the one at its end. */
	CHECK_EQ_INT(count_unlicensed_files(&w), 20);
	e = find_entry(&w, "qca/crbtfw21.tlv");
	CHECK(e != NULL);
	CHECK(e->licence != 0);
	CHECK_EQ_INT(w.licences[e->licence - 1].text_line, 4541);
	e = find_entry(&w, "brcm/brcmfmac43455-sdio.Raspberry Pi Foundation-Raspberry Pi 4 Model B.txt");
	CHECK(e != NULL);
	CHECK_EQ_INT(e->kind, FW_E_LINK);
	CHECK_EQ_STR(e->target, "brcmfmac43455-sdio.raspberrypi,4-model-b.txt");
	CHECK_EQ_INT(e->flags, 0);
	fw_whence_free(&w);
	fw_diag_free(&d);
}

TEST(corpus_whence_newest)
{
	struct fw_whence w;
	struct fw_diag d;
	const struct fw_whence_entry *e;
	unsigned nospdx, nospdx_line[2] = { 0, 0 };

	if (corpus_absent())
		SKIP("no ../shared/corpus beside this clone (set FWDIST_CORPUS)");
	CHECK_EQ_INT(load_corpus(&w, &d, "WHENCE-newest"), 0);
	for (size_t i = 0; i < d.n && i < 5; i++)
		fprintf(stderr, "%s:%u: %s\n", d.v[i].file, d.v[i].line, d.v[i].text);
	CHECK_EQ_INT(d.n, 0);
	CHECK_EQ_INT(w.errors, 0);
	CHECK_EQ_INT(w.counts.driver, 262);
	CHECK_EQ_INT(w.counts.file, 4540);
	CHECK_EQ_INT(w.counts.rawfile, 111);
	CHECK_EQ_INT(w.counts.link, 2603);
	CHECK_EQ_INT(w.counts.source, 18);
	CHECK_EQ_INT(w.counts.licence, 279);
	CHECK_EQ_INT(w.counts.spdx, 279);
	CHECK_EQ_INT(w.counts.version, 940);
	CHECK_EQ_INT(w.counts.info, 55);
	CHECK_EQ_INT(w.nblocks, 262);
	CHECK_EQ_INT(w.nentries, 4540 + 111 + 2603 + 18);
	CHECK_EQ_INT(w.nlicences, 279);
	CHECK_EQ_INT(count_flagged(&w), 0);
	/* Every file has a licence, the four Conexant drivers' included. */
	CHECK_EQ_INT(count_unlicensed_files(&w), 0);
	e = find_entry(&w, "v4l-cx231xx-avcore-01.fw");
	CHECK(e != NULL);
	CHECK(e->licence != 0);
	CHECK_EQ_STR(w.licences[e->licence - 1].spdx, "LicenseRef-LICENSE.conexant");
	e = find_entry(&w, "brcm/brcmfmac43241b4-sdio.Intel Corp.-VALLEYVIEW C0 PLATFORM.txt");
	CHECK(e != NULL);
	CHECK_EQ_INT(e->kind, FW_E_FILE);
	CHECK_EQ_INT(e->line, 3123);
	CHECK_EQ_INT(e->flags, 0);
	/* Two upstream Licence: lines (Dell and Lenovo ZAP shaders) have no
	 * SPDX-License-Identifier: line; the check reports those, not the parser. */
	nospdx = 0;
	for (size_t i = 0; i < w.nlicences; i++)
		if (!w.licences[i].spdx) {
			if (nospdx < 2)
				nospdx_line[nospdx] = w.licences[i].text_line;
			nospdx++;
		}
	CHECK_EQ_INT(nospdx, 2);
	CHECK_EQ_INT(nospdx_line[0], 7073);
	CHECK_EQ_INT(nospdx_line[1], 7080);
	/* ib_qib: two SPDX lines for the same files, separated by a blank line. */
	e = find_entry(&w, "qlogic/sd7220.fw");
	CHECK(e != NULL);
	CHECK(e->licence != 0);
	CHECK_EQ_STR(w.licences[e->licence - 1].spdx,
		     "(LicenseRef-LICENSE.ib_qib) AND (GPL-2.0-only OR Linux-OpenIB)");
	CHECK_EQ_INT(w.licences[e->licence - 1].spdx_line, 2976);
	fw_whence_free(&w);
	fw_diag_free(&d);
}
