/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of recipe.c: manifests/build and manifests/build-verdicts parsing. */
#include "recipe.h"

#include <errno.h>

#include "util.h"
#include "unit.h"

#define HDR FW_RECIPES_HEADER "\n"
#define CHECK_DIAG(d, i, ln, txt) CHECK_DIAG_IN(d, i, "manifests/build", ln, txt)

static int parse(struct fw_recipes *rs, struct fw_diag *d, const char *text)
{
	memset(d, 0, sizeof(*d));
	return fw_recipes_parse(rs, "manifests/build", text, strlen(text), d);
}

TEST(parse_ok)
{
	static const char text[] =
		HDR
		"# comment\n"                                            /* 2 */
		"\n"                                                     /* 3 */
		"usbdux   tool as31 as31\n"                              /* 4 */
		"usbdux   source usbdux/fx2.asm\n"                       /* 5 */
		"usbdux   output usbdux_firmware.bin\n"                  /* 6 */
		"usbdux   run cd usbdux && as31 -l fx2.asm  \n"          /* 7 */
		"usbdux   run\tmv usbdux/fx2.hex x\n"                    /* 8 */
		"usbdux   timeout 20\n"                                  /* 9 */
		"cis      tool none pack_cis\n"                          /* 10 */
		"cis      output cis/a.cis\n"                            /* 11 */
		"cis      run pack_cis a\n";                             /* 12 */
	struct fw_recipes rs;
	struct fw_diag d;
	const struct fw_recipe *r;
	unsigned line = 0;

	CHECK_EQ_INT(parse(&rs, &d, text), 0);
	CHECK_NDIAG(&d, 0);
	CHECK_EQ_INT(rs.n, 2);
	r = &rs.v[0];
	CHECK_EQ_STR(r->name, "usbdux");
	CHECK_EQ_INT(r->line, 4);
	CHECK_EQ_INT(r->ntools, 1);
	CHECK_EQ_STR(r->tools[0].package, "as31");
	CHECK_EQ_STR(r->tools[0].command, "as31");
	CHECK_EQ_INT(r->nsources, 1);
	CHECK_EQ_STR(r->sources[0].text, "usbdux/fx2.asm");
	CHECK_EQ_INT(r->noutputs, 1);
	CHECK_EQ_STR(r->outputs[0].text, "usbdux_firmware.bin");
	CHECK_EQ_INT(r->nruns, 2);
	CHECK_EQ_STR(r->runs[0].text, "cd usbdux && as31 -l fx2.asm");
	CHECK_EQ_INT(r->runs[0].line, 7);
	CHECK_EQ_STR(r->runs[1].text, "mv usbdux/fx2.hex x");
	CHECK_EQ_INT(r->timeout, 20);
	r = &rs.v[1];
	CHECK_EQ_STR(r->tools[0].package, FW_RECIPE_NO_PACKAGE);
	CHECK_EQ_INT(r->timeout, FW_RECIPE_TIMEOUT);
	CHECK(fw_recipes_find(&rs, "cis") == r);
	CHECK(fw_recipes_find(&rs, "nope") == NULL);
	CHECK(fw_recipes_output(&rs, "cis/a.cis", &line) == r);
	CHECK_EQ_INT(line, 11);
	CHECK(fw_recipes_output(&rs, "usbdux/fx2.asm", NULL) == NULL);
	fw_recipes_free(&rs);
	fw_diag_free(&d);
}

TEST(parse_errors)
{
	static const char text[] =
		"# not the header\n"                                     /* 1 */
		"Bad tool a b\n"                                         /* 2 */
		"a\n"                                                    /* 3 */
		"a tool A b\n"                                           /* 4 */
		"a tool gcc /usr/bin/gcc\n"                              /* 5 */
		"a tool gcc\n"                                           /* 6 */
		"a source /etc/passwd\n"                                 /* 7 */
		"a source ../WHENCE\n"                                   /* 8 */
		"a output x.bin\n"                                       /* 9 */
		"a output x.bin\n"                                       /* 10 */
		"a run\n"                                                /* 11 */
		"a timeout 0\n"                                          /* 12 */
		"a frob x\n"                                             /* 13 */
		"a run true\n"                                           /* 14 */
		"a tool fwdist make\n"                                   /* 15 */
		"b output y.bin\n"                                       /* 16 */
		"a run false\n"                                          /* 17 */
		"c run true\n"                                           /* 18 */
		"d tool gcc gcc\n"                                       /* 19 */
		"d tool gcc-12 gcc\n";                                   /* 20 */
	struct fw_recipes rs;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&rs, &d, text), 0);
	CHECK_DIAG(&d, 0, 1, "missing header line '" FW_RECIPES_HEADER "'");
	CHECK_DIAG(&d, 1, 2, "'Bad': not a recipe name ([a-z0-9][a-z0-9._+-]*, at most 64 bytes)");
	CHECK_DIAG(&d, 2, 3, "a: no key (tool, source, output, run, timeout)");
	CHECK_DIAG(&d, 3, 4, "recipe a: 'A': not a Debian package name");
	CHECK_DIAG(&d, 4, 5, "recipe a: '/usr/bin/gcc': not a command name (one word, no '/')");
	CHECK_DIAG(&d, 5, 6, "recipe a: tool takes PACKAGE COMMAND");
	CHECK_DIAG(&d, 6, 7, "recipe a: source /etc/passwd: absolute name");
	CHECK_DIAG(&d, 8, 10, "recipe a: x.bin named twice");
	CHECK_DIAG(&d, 9, 11, "recipe a: run: no command");
	CHECK_DIAG(&d, 10, 12, "recipe a: timeout takes seconds, 1 to 3600");
	CHECK_DIAG(&d, 11, 13, "recipe a: unknown key 'frob' (tool, source, output, run, timeout)");
	CHECK_DIAG(&d, 12, 15, "recipe a: package fwdist gives only the command fwdist");
	CHECK_DIAG(&d, 13, 17, "recipe a: its lines must be together (it began at line 4)");
	CHECK_DIAG(&d, 14, 16, "recipe b: no run line: recipe ignored");
	CHECK_DIAG(&d, 15, 18, "recipe c: no output line: recipe ignored");
	CHECK_DIAG(&d, 16, 20, "recipe d: tool gcc also at line 19");
	CHECK_DIAG(&d, 17, 19, "recipe d: no output line: recipe ignored");
	CHECK_NDIAG(&d, 18);
	CHECK_EQ_INT(rs.n, 1);
	CHECK_EQ_STR(rs.v[0].name, "a");
	CHECK_EQ_INT(rs.v[0].noutputs, 1);
	CHECK_EQ_INT(rs.v[0].nruns, 1);
	fw_recipes_free(&rs);
	fw_diag_free(&d);
}

TEST(limits)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct fw_recipes rs;
	struct fw_diag d = { 0 };

	CHECK(f != NULL);
	fprintf(f, HDR);
	for (int i = 0; i <= FW_RECIPE_ITEMS_MAX; i++)
		fprintf(f, "a source s%d\n", i);
	fprintf(f, "a output o\na run true\n");
	fprintf(f, "%0*d output o\n", FW_RECIPE_NAME_MAX + 1, 0);
	fprintf(f, "b run %0*d\n", FW_LINE_MAX, 0);
	fclose(f);
	CHECK_EQ_INT(fw_recipes_parse(&rs, "manifests/build", text, len, &d), 0);
	CHECK_EQ_INT(rs.n, 1);
	CHECK_EQ_INT(rs.v[0].nsources, FW_RECIPE_ITEMS_MAX);
	CHECK_NDIAG(&d, 3);
	CHECK_DIAG(&d, 0, 258, "recipe a: more than 256 lines of one key");
	CHECK_EQ_INT(d.v[1].line, 261);
	CHECK_EQ_STR(d.v[2].text, "line too long (4102 bytes, limit 4096)");
	fw_recipes_free(&rs);
	fw_diag_free(&d);
	free(text);
}

/* The recipe past FW_RECIPES_MAX is reported once, at its first line; its
 * other lines are no "lines must be together" finding. */
TEST(too_many_recipes)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct fw_recipes rs;
	struct fw_diag d = { 0 };

	CHECK(f != NULL);
	fprintf(f, HDR);
	for (int i = 0; i <= FW_RECIPES_MAX; i++)
		fprintf(f, "r%d output o%d\nr%d run true\n", i, i, i);
	fclose(f);
	CHECK_EQ_INT(fw_recipes_parse(&rs, "manifests/build", text, len, &d), 0);
	CHECK_EQ_INT(rs.n, FW_RECIPES_MAX);
	CHECK_NDIAG(&d, 1);
	CHECK_DIAG(&d, 0, 2 + 2 * FW_RECIPES_MAX, "more than 4096 recipes");
	fw_recipes_free(&rs);
	fw_diag_free(&d);
	free(text);
}

TEST(verdicts)
{
	static const char text[] =
		FW_VERDICTS_HEADER "\n"
		"# comment\n"
		"a.bin\trebuilt-identical\tr1\t"
		"3561dc61bc4ed0cc7045d9fe1c24b3480dc92f784c88c32db152aa3fe75c5339\t-\n" /* 3 */
		"b.bin\tnot-rebuilt\t-\t-\ttool as31 missing: install Debian package as31\n"
		"b.bin\tbuild-failed\t-\t-\tx\n"                                        /* 5 */
		"c.bin\tbroken\t-\t-\tx\n"                                              /* 6 */
		"c.bin\tbuild-failed\t-\tABCD\tx\n"                                     /* 7 */
		"../c\tbuild-failed\t-\t-\tx\n"                                         /* 8 */
		"c.bin build-failed - - x\n"                                            /* 9 */
		"d.bin\trebuilt-differs\tr2\t-\tsizes\n";                               /* 10 */
	struct fw_verdicts vs;
	struct fw_diag d = { 0 };
	const struct fw_verdict_rec *r;

	CHECK_EQ_INT(fw_verdicts_parse(&vs, "manifests/build-verdicts", text, strlen(text), &d), 0);
	CHECK_EQ_INT(vs.n, 3);
	r = fw_verdicts_find(&vs, "a.bin");
	CHECK(r != NULL);
	CHECK_EQ_INT(r->v, FW_BV_IDENTICAL);
	CHECK(r->built);
	CHECK_EQ_INT(r->sha256[0], 0x35);
	CHECK_EQ_STR(r->recipe, "r1");
	CHECK(r->why == NULL);
	r = fw_verdicts_find(&vs, "b.bin");
	CHECK(r != NULL && r->v == FW_BV_NOT_REBUILT && !r->built && !r->recipe);
	CHECK_EQ_STR(r->why, "tool as31 missing: install Debian package as31");
	CHECK(fw_verdicts_find(&vs, "c.bin") == NULL);
	CHECK(fw_verdicts_find(&vs, "d.bin") != NULL);
	CHECK_NDIAG(&d, 5);
	CHECK_DIAG_IN(&d, 0, "manifests/build-verdicts", 5, "b.bin: listed twice");
	CHECK_DIAG_IN(&d, 1, "manifests/build-verdicts", 6, "c.bin: unknown verdict 'broken'");
	CHECK_DIAG_IN(&d, 2, "manifests/build-verdicts", 7, "c.bin: not a SHA-256 in lower-case hex");
	CHECK_EQ_INT(d.v[3].line, 8);
	CHECK_DIAG_IN(&d, 4, "manifests/build-verdicts", 9,
		      "not BLOB VERDICT RECIPE SHA256 WHY, tab-separated");
	CHECK_EQ_STR(fw_build_verdict_name(FW_BV_DIFFERS), "rebuilt-differs");
	fw_verdicts_free(&vs);
	fw_diag_free(&d);
}
