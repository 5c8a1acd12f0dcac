/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of cis.c: each tuple packed as pack_cis packs it, each refusal with its line. */
#include "cis.h"

#include <errno.h>
#include <stdio.h>

#include "unit.h"

#define CHECK_DIAG(d, i, ln, txt) CHECK_DIAG_IN(d, i, "t.cis", ln, txt)

/* The expected bytes below are what pack_cis 1.20 (pcmcia-cs 3.2.8) writes
 * for the same text. */
#define NULLDEV 0x01, 0x03, 0x00, 0x00, 0xff
#define NOLINK_END 0x14, 0x00, 0xff, 0x00

static uint8_t out[FW_CIS_MAX];
static size_t outlen;

static int pack(const char *text, struct fw_diag *d)
{
	memset(d, 0, sizeof(*d));
	return fw_cis_pack("t.cis", text, strlen(text), out, &outlen, d);
}

/* out holds exactly want; a hex dump of both when not. */
static int same(const uint8_t *want, size_t n)
{
	if (outlen == n && memcmp(out, want, n) == 0)
		return 1;
	fprintf(stderr, "got ");
	for (size_t i = 0; i < outlen; i++)
		fprintf(stderr, " %02x", out[i]);
	fprintf(stderr, "\nwant");
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, " %02x", want[i]);
	fprintf(stderr, "\n");
	return 0;
}

#define PACKS_TO(text, ...)                                                   \
	do {                                                                  \
		static const uint8_t want_[] = { __VA_ARGS__ };               \
		struct fw_diag d_;                                            \
		CHECK_EQ_INT(pack(text, &d_), 0);                             \
		CHECK_NDIAG(&d_, 0);                                          \
		CHECK(same(want_, sizeof(want_)));                            \
	} while (0)

/* The text is refused with one finding, on line ln. */
#define REFUSED(text, ln, msg)                                                \
	do {                                                                  \
		struct fw_diag d_;                                            \
		CHECK_EQ_INT(pack(text, &d_), -EINVAL);                       \
		CHECK_NDIAG(&d_, 1);                                          \
		CHECK_DIAG(&d_, 0, ln, msg);                                  \
		CHECK_EQ_INT(outlen, 0);                                      \
		fw_diag_free(&d_);                                            \
	} while (0)

TEST(vers_1)
{
	/* Two strings, two empty ones to make four, then 0xff. */
	PACKS_TO("vers_1 4.1, \"A\", \"BC\"\n", NULLDEV, 0x15, 0x0a, 0x04, 0x01, 'A', 0x00, 'B', 'C',
		 0x00, 0x00, 0x00, 0xff, NOLINK_END);
	PACKS_TO("vers_1 5.0\n", NULLDEV, 0x15, 0x07, 0x05, 0x00, 0, 0, 0, 0, 0xff, NOLINK_END);
	PACKS_TO("vers_1 255.98, \"a#b;c\"\n", NULLDEV, 0x15, 0x0c, 0xff, 98, 'a', '#', 'b', ';', 'c',
		 0, 0, 0, 0, 0xff, NOLINK_END);
}

TEST(manfid)
{
	PACKS_TO("manfid 0x0101, 0x0556\n", NULLDEV, 0x20, 0x04, 0x01, 0x01, 0x56, 0x05, NOLINK_END);
}

TEST(funcid)
{
	PACKS_TO("funcid serial_port [rom] [post]\nfuncid 0x10\n", NULLDEV, 0x21, 0x02, 0x02, 0x03,
		 0x21, 0x02, 0x10, 0x00, NOLINK_END);
}

TEST(config)
{
	/* Base and mask in as few bytes as hold them, at least one. */
	PACKS_TO("config base 0x20000 mask 0x1ff last_index 0x3f\nconfig base 0 mask 0 last_index 0\n",
		 NULLDEV, 0x1a, 0x07, 0x06, 0x3f, 0x00, 0x00, 0x02, 0xff, 0x01, 0x1a, 0x04, 0x00, 0x00,
		 0x00, 0x00, NOLINK_END);
}

TEST(dev_info)
{
	/* dev_info first replaces the null device; 35ns needs an extended
	 * speed byte; sizes in units of 512 bytes times a power of 4. */
	PACKS_TO("dev_info no_info\n", 0x01, 0x01, 0xff, NOLINK_END);
	PACKS_TO("dev_info\n"
		 "  FLASH 150ns, 60kb\n"
		 "  EEPROM 35ns, 2mb\n"
		 "  fn_specific 0ns, 512b\n"
		 "attr_dev_info SRAM 250ns, 512b\n",
		 0x01, 0x08, 0x53, 0xe9, 0x47, 0x41, 0x7c, 0xd0, 0x00, 0xff, 0x17, 0x03, 0x61, 0x00, 0xff,
		 NOLINK_END);
}

TEST(power)
{
	/* Every parameter; 170mA takes an extension byte (1.0 + 0.70). */
	PACKS_TO("cftable_entry 1\n"
		 "  Vcc Vnom 5V Vmin 4500mV Vmax 5500mV Istatic 100mA Iavg 170mA Ipeak 200mA Idown 1uA\n"
		 "  Vpp1 Vnom 12V\n"
		 "  Vpp2 Vnom 3300mV\n",
		 NULLDEV, 0x1b, 0x11, 0x81, 0x01, 0x03, 0x7f, 0x55, 0x4d, 0x5d, 0x06, 0x86, 0x46, 0x26,
		 0x01, 0x01, 0x0e, 0x01, 0xb5, 0x1e, NOLINK_END);
}

TEST(io)
{
	/* A lone window at 0 is its size in address lines; others are
	 * ranges, [lines=N] then in the first byte. */
	PACKS_TO("cftable_entry 0x20 [default]\n"
		 "  io 0x0000-0x001f [8bit] [16bit]\n"
		 "cftable_entry 0x21\n"
		 "  io 0x03f8-0x03ff, 0x10000-0x1ffff [lines=26] [range] [8bit]\n",
		 NULLDEV, 0x1b, 0x04, 0xe0, 0x01, 0x08, 0x65, 0x1b, 0x11, 0xa1, 0x01, 0x08, 0xba, 0xb1,
		 0xf8, 0x03, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x01, 0x00, 0xff, 0xff, NOLINK_END);
}

TEST(irq)
{
	PACKS_TO("cftable_entry 2\n  irq 3 [pulse] [shared]\ncftable_entry 3\n  irq mask 0x9eb8 [level]\n",
		 NULLDEV, 0x1b, 0x04, 0x82, 0x01, 0x10, 0xc3, 0x1b, 0x06, 0x83, 0x01, 0x10, 0x30, 0xb8,
		 0x9e, NOLINK_END);
}

TEST(memory)
{
	/* Lengths and addresses in pages of 256; host addresses when any is
	 * not 0. */
	PACKS_TO("cftable_entry 4\n"
		 "  memory 0x0000-0x3fff @ 0xd0000, 0x10000-0x1ffff @ 0\n"
		 "cftable_entry 5\n"
		 "  memory 0x0000-0xff @ 0\n",
		 NULLDEV, 0x1b, 0x10, 0x84, 0x01, 0x60, 0xd1, 0x40, 0x00, 0x00, 0x00, 0x00, 0x0d, 0x00,
		 0x01, 0x00, 0x01, 0x00, 0x00, 0x1b, 0x06, 0x85, 0x01, 0x60, 0x28, 0x01, 0x00, NOLINK_END);
}

TEST(entry_flags)
{
	/* The index byte, the interface byte, the misc byte. */
	PACKS_TO("cftable_entry 0x3f [default] [bvd] [wp] [rdybsy] [mwait] [audio] [readonly] [pwrdown]\n",
		 NULLDEV, 0x1b, 0x04, 0xff, 0xf1, 0x80, 0x38, NOLINK_END);
}

TEST(timing_dropped)
{
	/* Read, and not written, as pack_cis does. */
	PACKS_TO("cftable_entry 1\n  timing wait 15us ready 1ms reserved 10ns\ncftable_entry 1\n",
		 NULLDEV, 0x1b, 0x03, 0x81, 0x01, 0x00, 0x1b, 0x03, 0x81, 0x01, 0x00, NOLINK_END);
}

TEST(mfc)
{
	/* LONGLINK_MFC with each function's offset, END, then per function
	 * LINKTARGET, its tuples, END; an empty function too. */
	PACKS_TO("funcid multi_function\nmfc {\n  funcid network_adapter\n}, {\n}\n", NULLDEV, 0x21,
		 0x02, 0x00, 0x00, 0x06, 0x0b, 0x02, 0x00, 0x18, 0x00, 0x00, 0x00, 0x00, 0x23, 0x00, 0x00,
		 0x00, 0xff, 0x00, 0x13, 0x03, 'C', 'I', 'S', 0x21, 0x02, 0x06, 0x00, 0xff, 0x00, 0x13,
		 0x03, 'C', 'I', 'S', 0xff, 0x00);
}

TEST(tamarack)
{
	/* Upstream's tamarack.cis, whole: comments, a power list across two
	 * lines, timing dropped. */
	PACKS_TO("#\n# Replacement CIS for Surecom, Tamarack NE2000 cards\n#\n"
		 "dev_info\n  fn_specific 100ns, 512b\n"
		 "attr_dev_info\n  EEPROM 250ns, 512b\n"
		 "vers_1 4.1, \"TAMARACK\", \"Ethernet\", \"A\", \"004743118001\"\n"
		 "funcid network_adapter\n"
		 "config base 0x03f8 mask 0x0003 last_index 0x20\n"
		 "cftable_entry 0x20 [default]\n"
		 "  [mwait]\n"
		 "  Vcc Vnom 5V Vmin 4500mV Vmax 5500mV Istatic 100mA\n"
		 "    Iavg 170mA Ipeak 200mA\n"
		 "  timing wait 15us\n"
		 "  io 0x0000-0x000f, 0x0010-0x001f [lines=5] [8bit] [16bit]\n"
		 "  irq mask 0xffff [level]\n",
		 0x01, 0x03, 0xd4, 0x00, 0xff, 0x17, 0x03, 0x41, 0x00, 0xff, 0x15, 0x24, 0x04, 0x01, 'T',
		 'A', 'M', 'A', 'R', 'A', 'C', 'K', 0x00, 'E', 't', 'h', 'e', 'r', 'n', 'e', 't', 0x00,
		 'A', 0x00, '0', '0', '4', '7', '4', '3', '1', '1', '8', '0', '0', '1', 0x00, 0xff, 0x21,
		 0x02, 0x06, 0x00, 0x1a, 0x05, 0x01, 0x20, 0xf8, 0x03, 0x03, 0x1b, 0x14, 0xe0, 0x81, 0x19,
		 0x3f, 0x55, 0x4d, 0x5d, 0x06, 0x86, 0x46, 0x26, 0xe5, 0x51, 0x00, 0x0f, 0x10, 0x0f, 0x30,
		 0xff, 0xff, NOLINK_END);
}

TEST(refuse_syntax)
{
	REFUSED("vers_1 4.1, \"a\"\nmanfid 0x101 0x556\n", 2, "manfid: expected ',', found '0x556'");
	REFUSED("funcid 2\nconfig base 0x100 last_index 1\n", 2,
		"config: expected mask, found 'last_index'");
	REFUSED("cftable_entry 1\n  io 0x100-\n", 3, "io: expected a number, found end of file");
	REFUSED("cftable_entry 1\n  Vcc 5V\n", 2,
		"Vcc: expected Vnom, Vmin, Vmax, Istatic, Iavg, Ipeak or Idown, found '5V'");
	REFUSED("funcid 2\n}\n", 2, "expected a tuple, found '}'");
	REFUSED("", 1, "expected a tuple before end of file");
	REFUSED("# only a comment\nmfc { funcid 2 }\n", 2, "expected a tuple before 'mfc'");
	REFUSED("funcid 0\nmfc { funcid 2 } funcid 3\n", 2,
		"expected end of file after mfc, found 'funcid'");
	REFUSED("funcid 0\nmfc { funcid 2 }, { mfc { } }\n", 2, "'mfc' is not valid here");
	REFUSED("manfid 1.5.3, 2\n", 1, "'1.5.3' is not a number");
	REFUSED("manfid 0x1g, 2\n", 1, "'0x1g' is not a number");
	REFUSED("manfid 12kV, 2\n", 1, "'12kV' is not a number");
	REFUSED("funcid 2 ?\n", 1, "unexpected character '?'");
	REFUSED("funcid 2\r\n", 1, "unexpected byte 0x0d");
	REFUSED("vers_1 4.1, \"abc\n", 1, "a string is not closed on its line");
	REFUSED("vers_1 4.1, \"a\\\"b\"\n", 1, "a backslash in a string (pack_cis has no escapes)");
	REFUSED("cftable_entry 1 [lines = 5]\n", 1, "'[' not followed by a flag name and ']'");
}

TEST(refuse_unknown)
{
	REFUSED("funcid 2\nbogus 1\n", 2, "unknown keyword 'bogus'");
	REFUSED("funcid 2\ncftable_entry 1 [level]\n", 2, "cftable_entry: '[level]' is not valid here");
	REFUSED("funcid 2\nio 0x0-0x7\n", 2, "'io' is not valid here");
	REFUSED("funcid 2\n  [8bit]\n", 2, "'[8bit]' is not valid here");
	REFUSED("checksum 0-10 = 0x5a\n", 1, "'checksum': a pack_cis tuple fwdist does not pack");
	REFUSED("vers_1 4.1\ndev_info no_info\n", 2,
		"dev_info must be the first tuple of the CIS (pack_cis would add a null one before "
		"it)");
	REFUSED("funcid 0\nmfc { attr_dev_info no_info }\n", 2, "attr_dev_info inside mfc");
	REFUSED("dev_info\n  NULL 0ns, 512b no_info\n", 2, "'no_info' is not valid here");
	REFUSED("dev_info\nvers_1 4.1\n", 2,
		"dev_info: expected no_info or a device type (NULL, ROM, EPROM, EEPROM, FLASH, SRAM, "
		"DRAM, fn_specific), found 'vers_1'");
}

TEST(refuse_range)
{
	REFUSED("manfid 0x10000, 1\n", 1, "manfid: '0x10000' is out of range (at most 0xffff)");
	REFUSED("cftable_entry 0x40\n", 1, "cftable_entry: '0x40' is out of range (at most 0x3f)");
	REFUSED("config base 0x100 mask 1 last_index 64\n", 1,
		"config last_index: '64' is out of range (at most 0x3f)");
	REFUSED("funcid 0x100\n", 1, "funcid: '0x100' is out of range (at most 0xff)");
	REFUSED("manfid 0x100000000, 1\n", 1, "'0x100000000' is out of range (at most 0xffffffff)");
	REFUSED("cftable_entry 1 irq 16\n", 1, "irq: '16' is out of range (at most 0xf)");
	REFUSED("cftable_entry 1 irq mask 0x10000\n", 1, "irq mask: '0x10000' is out of range (at most 0xffff)");
	REFUSED("cftable_entry 1 io 0x3f8-0x3f7\n", 1, "io: window 0x3f8-0x3f7 is backwards");
	REFUSED("cftable_entry 1 io 0x10-0x1f [lines=27]\n", 1, "io: '[lines=27]': N is not 0-26");
	REFUSED("vers_1 256.1\n", 1, "vers_1: major version '256.1' is out of range (at most 255)");
	REFUSED("vers_1 4.1, \"a\", \"b\", \"c\", \"d\", \"e\"\n", 1, "vers_1: more than 4 strings");
	REFUSED("dev_info\n NULL 0ns, 512b\n NULL 0ns, 512b\n NULL 0ns, 512b\n NULL 0ns, 512b\n"
		" NULL 0ns, 512b\n", 6, "dev_info: more than 4 devices");
	REFUSED("cftable_entry 1 Vcc Vnom 50000V\n", 1, "'50000V' is out of range");
}

TEST(refuse_inexact)
{
	/* What pack_cis would write other than as written. */
	REFUSED("manfid 010, 1\n", 1, "'010': a leading 0 (pack_cis reads 010 as octal 8)");
	REFUSED("cftable_entry 1 Vcc Vnom 4.5V\n", 1,
		"'4.5V': a unit takes a whole number (pack_cis reads a fraction through a float): use "
		"a smaller unit");
	REFUSED("cftable_entry 1 Vcc Vnom 5000uV\n", 1, "'5000uV': pack_cis reads every uV value as 0");
	REFUSED("cftable_entry 1 Vcc Vnom 9999V\n", 1,
		"'9999V': pack_cis reads it through a float, which does not hold it exactly");
	REFUSED("cftable_entry 1 Vcc Vnom 0V\n", 1,
		"Vcc Vnom: '0V' cannot be written exactly (not 0, at most 3 significant digits)");
	REFUSED("cftable_entry 1 Vcc Iavg 1234mA\n", 1,
		"Vcc Iavg: '1234mA' cannot be written exactly (not 0, at most 3 significant digits)");
	REFUSED("vers_1 4.99\n", 1,
		"vers_1: version '4.99' is not N.0, N.D or N.DD (pack_cis misreads a minor version "
		"with a 0 digit, 99 or more than 2 digits)");
	REFUSED("vers_1 4.10\n", 1,
		"vers_1: version '4.10' is not N.0, N.D or N.DD (pack_cis misreads a minor version "
		"with a 0 digit, 99 or more than 2 digits)");
	REFUSED("dev_info FLASH 85ns, 512b\n", 1, "dev_info: a speed of 85 ns cannot be written exactly");
	REFUSED("dev_info FLASH 100ns, 1000b\n", 1,
		"dev_info: a size of 1000 bytes cannot be written exactly (1 to 32 times 512 bytes "
		"times a power of 4 up to 4096)");
	REFUSED("cftable_entry 1\n  io 0x0-0x17\n", 2,
		"io: a lone window at 0 is written as a power of two long: 0x18 is not");
	REFUSED("cftable_entry 1\n  io 0x0-0xf [lines=10]\n", 2,
		"io: a lone window at 0 decodes 4 lines: [lines=10] would be dropped");
	REFUSED("cftable_entry 1\n  memory 0x0-0x3ff @ 0x80\n", 2,
		"memory: addresses and lengths must be multiples of 0x100 (pack_cis drops the low byte)");
	REFUSED("cftable_entry 1\n  irq 0\n", 2,
		"irq 0 needs [level], [pulse] or [shared] (pack_cis writes no IRQ byte of 0)");
	REFUSED("cftable_entry 1\n  Vpp1 Vnom 12V\n", 1,
		"cftable_entry: Vpp1 without Vcc (pack_cis drops it)");
	REFUSED("cftable_entry 1\n  Vcc Vnom 5V Vpp2 Vnom 12V\n", 1,
		"cftable_entry: Vpp2 without Vpp1 (pack_cis drops it)");
}

TEST(refuse_twice)
{
	REFUSED("cftable_entry 1 [mwait]\n [mwait]\n", 2, "cftable_entry: '[mwait]' given twice");
	REFUSED("cftable_entry 1 io 0x0-0x7 io 0x8-0xf\n", 1, "cftable_entry: 'io' given twice");
	REFUSED("cftable_entry 1 Vcc Vnom 5V Vnom 3V\n", 1, "Vcc Vnom given twice");
	REFUSED("funcid 2 [post] [post]\n", 1, "funcid: '[post]' given twice");
	REFUSED("cftable_entry 1 io 0x100-0x107 [lines=10] [lines=10]\n", 1,
		"io: [lines=N] given twice");
}

TEST(refuse_limits)
{
	char *big = malloc(FW_CIS_TEXT_MAX + 2), line[FW_CIS_LINE_MAX + 3];
	struct fw_diag d = { 0 };

	/* A line one byte too long. */
	memset(line, 'x', sizeof(line));
	memcpy(line, "# ", 2);
	line[FW_CIS_LINE_MAX + 1] = '\n';
	line[FW_CIS_LINE_MAX + 2] = '\0';
	REFUSED(line, 1, "line too long (513 bytes, limit 512)");
	CHECK_EQ_INT(fw_cis_pack("t.cis", "funcid 2\n# a\0b\n", 15, out, &outlen, &d), -EINVAL);
	CHECK_DIAG(&d, 0, 2, "NUL byte in line");
	fw_diag_free(&d);

	/* A text past 64 KiB. */
	CHECK(big != NULL);
	memset(big, '\n', FW_CIS_TEXT_MAX + 1);
	CHECK_EQ_INT(fw_cis_pack("t.cis", big, FW_CIS_TEXT_MAX + 1, out, &outlen, &d), -EINVAL);
	CHECK_DIAG(&d, 0, 0, "larger than 64 KiB");
	fw_diag_free(&d);
	free(big);

	/* A tuple past 255 bytes: four strings of 100. */
	{
		char text[600];
		char s[101];

		memset(s, 'a', 100);
		s[100] = '\0';
		snprintf(text, sizeof(text), "vers_1 4.1, \"%s\", \"%s\", \"%s\"\n", s, s, s);
		REFUSED(text, 1, "vers_1: the tuple would be 307 bytes, more than 255");
	}
	/* 110 entries of 5 bytes each pass 512 within the root chain (at
	 * the 103rd); 60 of them (300 bytes) and an mfc of 40 more (200) pass
	 * it as a whole (with the null device, the links and the ENDs). */
	{
		char text[4096] = "";

		for (int i = 0; i < 110; i++)
			strcat(text, "cftable_entry 1\n");
		REFUSED(text, 103, "cftable_entry: the CIS grows past 512 bytes");
		strcpy(text, "");
		for (int i = 0; i < 60; i++)
			strcat(text, "cftable_entry 1\n");
		strcat(text, "mfc {\n");
		for (int i = 0; i < 40; i++)
			strcat(text, "cftable_entry 1\n");
		strcat(text, "}\n");
		REFUSED(text, 0, "the CIS would be 522 bytes, more than 512");
	}
	REFUSED("funcid 0\nmfc {},{},{},{},{},{},{},{},{}\n", 2, "mfc: more than 8 functions");
}

TEST(file)
{
	char dir[64], path[128];
	struct fw_diag d = { 0 };
	int fd = unit_scratch(dir, "cis");

	CHECK(fd >= 0);
	unit_put(fd, "a.cis", "funcid 2\n");
	snprintf(path, sizeof(path), "%s/a.cis", dir);
	CHECK_EQ_INT(fw_cis_pack_file(path, out, &outlen, &d), 0);
	CHECK_EQ_INT(outlen, 13);
	snprintf(path, sizeof(path), "%s/none.cis", dir);
	CHECK_EQ_INT(fw_cis_pack_file(path, out, &outlen, &d), -EINVAL);
	CHECK_NDIAG(&d, 1);
	CHECK_EQ_STR(d.v[0].text, "cannot read: No such file or directory");
	fw_diag_free(&d);
	CHECK_EQ_INT(fw_cis_pack_file(dir, out, &outlen, &d), -EINVAL);
	CHECK_EQ_STR(d.v[0].text, "not a regular file");
	fw_diag_free(&d);
	close(fd);
	unit_cleanup(dir);
}
