/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of modmap.c: manifests/modules parsing, its refusals, and format -> parse. */
#include "modmap.h"

#include <errno.h>

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
				    "x/y.bin\tfoo-bar\tof:N*T*Cvendor,chip\n"), 0);
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
				    "b.bin\tfoo\tusb:v9*\n"), 0);
	CHECK_NDIAG(&d, 9);
	CHECK_DIAG(&d, 0, 1, "missing header line '" FW_MODMAP_HEADER "'");
	CHECK_DIAG(&d, 1, 2, "blank line");
	CHECK_DIAG(&d, 2, 3, "expected 'FIRMWARE<TAB>MODULE<TAB>MODALIAS...'");
	CHECK_DIAG(&d, 3, 4, "/abs.bin: absolute name");
	CHECK_DIAG(&d, 4, 5, "bad module name 'fo o'");
	CHECK_DIAG(&d, 5, 6, "empty modalias field");
	CHECK_DIAG(&d, 6, 7, "bad modalias ''");
	CHECK_DIAG(&d, 7, 8, "more than three tab-separated fields");
	CHECK_DIAG(&d, 8, 9, "a.bin foo: out of order");
	/* Line 10 continues line 1's pair (the lines between were refused). */
	CHECK_EQ_INT(m.n, 1);
	CHECK_EQ_INT(m.v[0].nalias, 1);
	fw_modmap_free(&m);
	fw_diag_free(&d);
}

/* Aliases that fix no vendor, device, class or name: clients fnmatch them
 * against a device's modalias, so each would match every machine. */
TEST(alias_broad)
{
	static const char *const broad[] = {
		"*", "**", "?*", "pci:*", "usb:*", "pci:v*d*sv*sd*bc*sc*i*", "pci:v*",
		"pci:v0000*", "usb:v*p*d*dc*dsc*dp*ic*isc*ip*in*", "sdio:c*v*d*",
		"hid:b*g*v*p*", "of:N*T*C*", "of:N*", "platform:*", "acpi*:*", "*:pci",
		"?ci:v00008086*", "[p]ci:v00008086*", "pci*", "Pci:*", "pci:[!x]*",
	};
	static const char *const fixed[] = {
		"pci:v00008086d00002723sv*sd*bc*sc*i*", /* a device */
		"pci:v00001002d*sv*sd*bc03sc*i*",	/* a vendor's display class */
		"pci:v*d*sv*sd*bc0Csc03i30*",		/* a class: xhci_pci's */
		"pci:v*d00002723sv*sd*bc*sc*i*",	/* a device id */
		"usb:v*p*d*dc*dsc*dp*ic08isc06ip50in*", "usb:v1234p0001d*dc*dsc*dp*ic*isc*ip*in*",
		"sdio:c*v02D0d4324*", "hid:b0003g*v0000046Dp0000C52B",
		"of:N*T*Cti,wl1271", "of:N*T*Cti,wl1271C*", "acpi*:BCM4377:*", "platform:foo",
		"spi:?", "pci:v00008086d00002723", "ACPI:literal",
	};

	/* A failure names the alias. */
	for (size_t i = 0; i < sizeof(broad) / sizeof(broad[0]); i++)
		CHECK_EQ_STR(fw_modalias_broad(broad[i]) ? "broad" : broad[i], "broad");
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		CHECK_EQ_STR(fw_modalias_broad(fixed[i]) ? fixed[i] : "fixed", "fixed");
	CHECK_EQ_STR(fw_modalias_broad("*"), "it names no bus, so matches devices of any bus");
	CHECK_EQ_STR(fw_modalias_broad("pci:*"), "it matches every device of its bus");
}

TEST(parse_alias_broad)
{
	struct fw_modmap m;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&m, &d, HDR "a.bin\tfoo\tpci:v00008086d00002723sv*sd*bc*sc*i* *\n"
				    "b.bin\tbar\tusb:v*p*d*dc*dsc*dp*ic*isc*ip*in*\n"
				    "c.bin\tbaz\tof:N*T*Cti,wl1271\n"), 0);
	CHECK_NDIAG(&d, 2);
	CHECK_DIAG(&d, 0, 2, "over-broad modalias '*': it names no bus, so matches devices of any bus");
	CHECK_DIAG(&d, 1, 3,
		   "over-broad modalias 'usb:v*p*d*dc*dsc*dp*ic*isc*ip*in*': it matches every device of its bus");
	CHECK_EQ_INT(m.n, 1);
	CHECK_EQ_STR(m.v[0].module, "baz");
	fw_modmap_free(&m);
	fw_diag_free(&d);
}

TEST(format_round_trip)
{
	static char *al1[] = { "pci:v2*", "pci:v1*" };
	static char *al2[] = { "pci:v1*", "pci:v3*" };
	struct fw_modmap m = { 0 }, back;
	struct fw_diag d = { 0 };
	const char **al;
	size_t nal;
	char *buf;
	size_t len;

	CHECK_EQ_INT(fw_modmap_add(&m, "z.bin", "mod", al1, 2), 0);
	CHECK_EQ_INT(fw_modmap_add(&m, "a.bin", "mod", NULL, 0), 0);
	CHECK_EQ_INT(fw_modmap_add(&m, "z.bin", "mod", al2, 2), 0);
	CHECK_EQ_INT(fw_modmap_format(&m, &buf, &len), 0);
	/* The module's aliases once, on its first line. */
	CHECK(strstr(buf, "\na.bin\tmod\tpci:v1* pci:v2* pci:v3*\nz.bin\tmod\n"));
	CHECK_EQ_INT(fw_modmap_parse(&back, "manifests/modules", buf, len, &d), 0);
	CHECK_NDIAG(&d, 0);
	CHECK_EQ_INT(back.n, 2);
	CHECK_EQ_INT(fw_modmap_module_aliases(&back, "mod", &al, &nal), 0);
	CHECK_EQ_INT(nal, 3);
	CHECK_EQ_STR(al[2], "pci:v3*");
	free(al);
	free(buf);
	fw_modmap_free(&m);
	fw_modmap_free(&back);
	fw_diag_free(&d);
}

/* A module with more aliases than a line holds (amdgpu's thousand): the
 * list goes on continuation lines of the same pair, none over
 * FW_LINE_MAX, and reads back whole; an alias no line can hold is -E2BIG. */
TEST(format_long_alias_list)
{
	struct fw_modmap m = { 0 }, back;
	struct fw_diag d = { 0 };
	char *al[600], *big, *buf;
	const char **got;
	size_t len, ngot, lines = 0;

	for (size_t i = 0; i < 600; i++) {
		al[i] = fw_asprintf("pci:v00001002d%08zXsv*sd*bc*sc*i*", i);
		CHECK(al[i] != NULL);
	}
	CHECK_EQ_INT(fw_modmap_add(&m, "amdgpu/a.bin", "amdgpu", al, 600), 0);
	CHECK_EQ_INT(fw_modmap_add(&m, "amdgpu/b.bin", "amdgpu", al, 600), 0);
	CHECK_EQ_INT(fw_modmap_format(&m, &buf, &len), 0);
	for (const char *l = buf; *l;) {
		const char *nl = strchr(l, '\n');

		CHECK(nl != NULL);
		CHECK((size_t)(nl - l) <= FW_LINE_MAX);
		lines += strncmp(l, "amdgpu/a.bin\tamdgpu\t", 20) == 0;
		l = nl + 1;
	}
	CHECK(lines >= 5); /* 600 x 33 bytes: five lines at least */
	CHECK(strstr(buf, "\namdgpu/b.bin\tamdgpu\n") != NULL);
	CHECK_EQ_INT(fw_modmap_parse(&back, "manifests/modules", buf, len, &d), 0);
	CHECK_NDIAG(&d, 0);
	CHECK_EQ_INT(back.n, 2);
	CHECK_EQ_INT(back.v[0].nalias, 600);
	CHECK_EQ_INT(fw_modmap_module_aliases(&back, "amdgpu", &got, &ngot), 0);
	CHECK_EQ_INT(ngot, 600);
	free(got);
	free(buf);
	fw_modmap_free(&back);
	fw_modmap_free(&m);
	big = malloc(FW_LINE_MAX + 2);
	CHECK(big != NULL);
	memset(big, 'x', FW_LINE_MAX);
	big[FW_LINE_MAX] = '\0';
	CHECK_EQ_INT(fw_modmap_add(&m, "a.bin", "mod", &big, 1), 0);
	CHECK_EQ_INT(fw_modmap_format(&m, &buf, &len), -E2BIG);
	fw_modmap_free(&m);
	for (size_t i = 0; i < 600; i++)
		free(al[i]);
	free(big);
	fw_diag_free(&d);
}
