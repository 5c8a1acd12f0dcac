/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of modmap.c: manifests/modules parsing, its refusals, and format -> parse. */
#include "modmap.h"

#include "util.h"
#include "unit.h"

#define HDR FW_MODMAP_HEADER "\n"
#define CHECK_DIAG(d, i, ln, txt) CHECK_DIAG_IN(d, i, "manifests/modules", ln, txt)

static int parse(struct fw_modmap *m, struct fw_diag *d, const char *text)
{
	memset(d, 0, sizeof(*d));
	return fw_modmap_parse(m, "manifests/modules", text, strlen(text), d);
}

TEST(parse_ok)
{
	struct fw_modmap m;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&m, &d, HDR "# comment\n"
				    "a b.bin\tfoo\tpci:v1* usb:v2*\n"
				    "a b.bin\tzed\n"
				    "x/y.bin\tfoo-bar\tof:N*\n"), 0);
	CHECK_NDIAG(&d, 0);
	CHECK_EQ_INT(m.n, 3);
	CHECK_EQ_STR(m.v[0].firmware, "a b.bin");
	CHECK_EQ_INT(m.v[0].nalias, 2);
	CHECK_EQ_STR(m.v[0].alias[1], "usb:v2*");
	CHECK_EQ_INT(m.v[1].nalias, 0);
	CHECK_EQ_STR(m.v[2].module, "foo-bar");
	fw_modmap_free(&m);
	fw_diag_free(&d);
}

TEST(parse_refusals)
{
	struct fw_modmap m;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&m, &d, "b.bin\tfoo\n"
				    "\n"
				    "c.bin\n"
				    "/abs.bin\tfoo\n"
				    "d.bin\tfo o\n"
				    "e.bin\tfoo\t\n"
				    "f.bin\tfoo\ta  b\n"
				    "g.bin\tfoo\ta\tb\n"
				    "a.bin\tfoo\n"
				    "b.bin\tfoo\n"), 0);
	CHECK_NDIAG(&d, 10);
	CHECK_DIAG(&d, 0, 1, "missing header line '" FW_MODMAP_HEADER "'");
	CHECK_DIAG(&d, 1, 2, "blank line");
	CHECK_DIAG(&d, 2, 3, "expected 'FIRMWARE<TAB>MODULE<TAB>MODALIAS...'");
	CHECK_DIAG(&d, 3, 4, "/abs.bin: absolute name");
	CHECK_DIAG(&d, 4, 5, "bad module name 'fo o'");
	CHECK_DIAG(&d, 5, 6, "empty modalias field");
	CHECK_DIAG(&d, 6, 7, "bad modalias ''");
	CHECK_DIAG(&d, 7, 8, "more than three tab-separated fields");
	CHECK_DIAG(&d, 8, 9, "a.bin foo: out of order");
	CHECK_DIAG(&d, 9, 10, "b.bin foo: listed twice (first at line 1)");
	CHECK_EQ_INT(m.n, 1);
	fw_modmap_free(&m);
	fw_diag_free(&d);
}

TEST(format_round_trip)
{
	static char *al1[] = { "pci:v2*", "pci:v1*" };
	static char *al2[] = { "pci:v1*", "pci:v3*" };
	struct fw_modmap m = { 0 }, back;
	struct fw_diag d = { 0 };
	char *buf;
	size_t len;

	CHECK_EQ_INT(fw_modmap_add(&m, "z.bin", "mod", al1, 2), 0);
	CHECK_EQ_INT(fw_modmap_add(&m, "a.bin", "mod", NULL, 0), 0);
	CHECK_EQ_INT(fw_modmap_add(&m, "z.bin", "mod", al2, 2), 0);
	CHECK_EQ_INT(fw_modmap_format(&m, &buf, &len), 0);
	CHECK(strstr(buf, "\na.bin\tmod\nz.bin\tmod\tpci:v1* pci:v2* pci:v3*\n"));
	CHECK_EQ_INT(fw_modmap_parse(&back, "manifests/modules", buf, len, &d), 0);
	CHECK_NDIAG(&d, 0);
	CHECK_EQ_INT(back.n, 2);
	free(buf);
	fw_modmap_free(&m);
	fw_modmap_free(&back);
	fw_diag_free(&d);
}
