/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of licmap.c: manifests/licence-map parsing, its refusals, lookups and the wording key. */
#include "licmap.h"

#include "util.h"
#include "unit.h"

#define HDR FW_LICMAP_HEADER "\n"
#define CHECK_DIAG(d, i, ln, txt) CHECK_DIAG_IN(d, i, "manifests/licence-map", ln, txt)

static int parse(struct fw_licmap *m, struct fw_diag *d, const char *text)
{
	memset(d, 0, sizeof(*d));
	return fw_licmap_parse(m, "manifests/licence-map", text, strlen(text), d);
}

TEST(licmap_parse_ok)
{
	struct fw_licmap m;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&m, &d, HDR "# comment\n"
				    "\n"
				    "file:LICENCE.acme\tLicenseRef-LICENCE.acme\tnon-free\tAcme: binary only\n"
				    "id:MIT\tMIT\tfree\tMIT\n"
				    "sha256:" "0123456789abcdef0123456789abcdef"
				    "0123456789abcdef0123456789abcdef\tGPL-2.0-only\tcopyleft\tlong\n"
				    "text:Redistributable. See LICENCE.acme\tLicenseRef-LICENCE.acme\t"
				    "non-free\tthe wording\n"), 0);
	CHECK_NDIAG(&d, 0);
	CHECK_EQ_INT(m.n, 4);
	CHECK_EQ_STR(m.path, "manifests/licence-map");
	CHECK_EQ_STR(m.v[0].key, "file:LICENCE.acme");
	CHECK_EQ_INT(m.v[0].cat, FW_CAT_NONFREE);
	CHECK_EQ_STR(m.v[0].reason, "Acme: binary only");
	CHECK_EQ_INT(m.v[0].line, 4);
	CHECK_EQ_INT(m.v[2].cat, FW_CAT_COPYLEFT);
	CHECK(fw_licmap_find(&m, "id:MIT") == &m.v[1]);
	CHECK(fw_licmap_find(&m, "id:GPL-2.0-only") == NULL);
	/* An id: line, else a line whose expression is the id. */
	CHECK(fw_licmap_id(&m, "MIT") == &m.v[1]);
	CHECK(fw_licmap_id(&m, "LicenseRef-LICENCE.acme") == &m.v[0]);
	CHECK(fw_licmap_id(&m, "Apache-2.0") == NULL);
	fw_licmap_free(&m);
	fw_diag_free(&d);
}

TEST(licmap_parse_refusals)
{
	struct fw_licmap m;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&m, &d, HDR
				    "file:a\tMIT\tfree\n"
				    "file:b\tMIT\tfree\tx\ty\n"
				    "file:c\t MIT\tfree\tx\n"
				    "name:d\tMIT\tfree\tx\n"
				    "file:\tMIT\tfree\tx\n"
				    "sha256:ABCDEF\tMIT\tfree\tx\n"
				    "file:e\tMIT AND\tfree\tx\n"
				    "id:MIT\tGPL-2.0-only\tfree\tx\n"
				    "file:f\tMIT\tgratis\tx\n"
				    "file:g\tMIT\tfree\tx\n"
				    "file:g\tMIT\tfree\tx\n"
				    "file:a\tMIT\tfree\tx\n"), 0);
	CHECK_NDIAG(&d, 11);
	CHECK_DIAG(&d, 0, 2, "expected KEY<TAB>EXPRESSION<TAB>CATEGORY<TAB>REASON");
	CHECK_DIAG(&d, 1, 3, "expected KEY<TAB>EXPRESSION<TAB>CATEGORY<TAB>REASON");
	CHECK_DIAG(&d, 2, 4, "field 2 empty or with blanks around it");
	CHECK_DIAG(&d, 3, 5, "'name:d': key is not file:NAME, text:WORDING, sha256:DIGEST or id:ID");
	CHECK_DIAG(&d, 4, 6, "'file:': key is not file:NAME, text:WORDING, sha256:DIGEST or id:ID");
	CHECK_DIAG(&d, 5, 7, "'sha256:ABCDEF': not 64 lower-case hex digits");
	CHECK_EQ_INT(d.v[6].line, 8);
	CHECK_DIAG(&d, 7, 9, "id:MIT: the expression of an id: line is the id");
	CHECK_DIAG(&d, 8, 10, "unknown category 'gratis' (free, copyleft, non-free or undistributable)");
	CHECK_DIAG(&d, 9, 12, "file:g: listed twice (first at line 11)");
	CHECK_DIAG(&d, 10, 13, "file:a: out of order (the file is kept sorted)");
	/* What is refused is not kept; what is good is. */
	CHECK_EQ_INT(m.n, 1);
	CHECK_EQ_STR(m.v[0].key, "file:g");
	fw_licmap_free(&m);
	fw_diag_free(&d);

	CHECK_EQ_INT(parse(&m, &d, ""), 0);
	CHECK_NDIAG(&d, 1);
	CHECK_DIAG(&d, 0, 0, "empty file (missing header line '" FW_LICMAP_HEADER "')");
	fw_licmap_free(&m);
	fw_diag_free(&d);
}

TEST(licmap_normalise)
{
	char *s = fw_licmap_normalise("  Redistributable.\r\n\tSee  LICENCE.x \n", 37);

	CHECK_EQ_STR(s, "Redistributable. See LICENCE.x");
	free(s);
	s = fw_licmap_normalise(" \t\n", 3);
	CHECK_EQ_STR(s, "");
	free(s);
}
