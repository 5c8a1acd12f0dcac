/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of modinfo.c: ELF objects built here byte by byte, both classes and byte orders, and every refusal. */
#include "modinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include "util.h"
#include "unit.h"

/*
 * A minimal relocatable object: ELF header, then the section name string
 * table, then .modinfo, then the section header table (null section,
 * .shstrtab, .text, .modinfo). Offsets of the fields below are written down
 * so the tests can corrupt them.
 */
struct obj {
	unsigned char b[1024];
	size_t len;
	bool is64, msb;
	size_t shoff, shentsize, ehsize;
};

static void put(struct obj *o, size_t off, uint64_t v, unsigned width)
{
	for (unsigned i = 0; i < width; i++) {
		unsigned shift = o->msb ? 8 * (width - 1 - i) : 8 * i;

		o->b[off + i] = (unsigned char)(v >> shift);
	}
}

static const char shstr[] = "\0.shstrtab\0.text\0.modinfo\0";
#define NAME_SHSTRTAB 1
#define NAME_TEXT 11
#define NAME_MODINFO 17

static void shdr(struct obj *o, unsigned i, uint64_t name, uint64_t type, uint64_t off,
		 uint64_t size)
{
	size_t s = o->shoff + i * o->shentsize;

	put(o, s, name, 4);
	put(o, s + 4, type, 4);
	if (o->is64) {
		put(o, s + 24, off, 8);
		put(o, s + 32, size, 8);
	} else {
		put(o, s + 16, off, 4);
		put(o, s + 20, size, 4);
	}
}

/* modinfo: the section's bytes (mlen of them, NULs included). */
static void build(struct obj *o, bool is64, bool msb, const char *modinfo, size_t mlen)
{
	size_t pos;

	memset(o, 0, sizeof(*o));
	o->is64 = is64;
	o->msb = msb;
	o->ehsize = is64 ? 64 : 52;
	o->shentsize = is64 ? 64 : 40;
	memcpy(o->b, "\177ELF", 4);
	o->b[4] = is64 ? 2 : 1;
	o->b[5] = msb ? 2 : 1;
	o->b[6] = 1;
	put(o, 16, 1, 2); /* ET_REL */
	pos = o->ehsize;
	memcpy(o->b + pos, shstr, sizeof(shstr));
	size_t stroff = pos;
	pos += sizeof(shstr);
	memcpy(o->b + pos, modinfo, mlen);
	size_t modoff = pos;
	pos += mlen;
	pos = (pos + 7) & ~(size_t)7;
	o->shoff = pos;
	o->len = pos + 4 * o->shentsize;
	if (is64) {
		put(o, 40, o->shoff, 8);
		put(o, 52, o->ehsize, 2);
		put(o, 58, o->shentsize, 2);
		put(o, 60, 4, 2);
		put(o, 62, 1, 2);
	} else {
		put(o, 32, o->shoff, 4);
		put(o, 40, o->ehsize, 2);
		put(o, 46, o->shentsize, 2);
		put(o, 48, 4, 2);
		put(o, 50, 1, 2);
	}
	shdr(o, 1, NAME_SHSTRTAB, 3, stroff, sizeof(shstr));
	shdr(o, 2, NAME_TEXT, 1, 0, 0);
	shdr(o, 3, NAME_MODINFO, 1, modoff, mlen);
}

static const char good[] = "license=GPL\0firmware=a/b.bin\0\0\0alias=pci:v00008086d*\0"
			   "firmware=iwlwifi-x-72.ucode\0name=foo_bar\0firmware=a/b.bin\0"
			   "alias=usb:v1234p*\0";

static int parse(struct fw_modinfo *m, struct fw_diag *d, const struct obj *o)
{
	memset(d, 0, sizeof(*d));
	return fw_modinfo_parse(m, "m.ko", o->b, o->len, d);
}

#define CHECK_DIAG(d, i, txt) CHECK_DIAG_IN(d, i, "m.ko", 0, txt)

static void check_good(int *unit_failed, bool is64, bool msb)
{
	struct obj o;
	struct fw_modinfo m;
	struct fw_diag d;

	build(&o, is64, msb, good, sizeof(good) - 1);
	CHECK_EQ_INT(parse(&m, &d, &o), 0);
	CHECK_NDIAG(&d, 0);
	CHECK_EQ_STR(m.name, "foo_bar");
	CHECK_EQ_INT(m.nfirmware, 2);
	CHECK_EQ_STR(m.firmware[0], "a/b.bin");
	CHECK_EQ_STR(m.firmware[1], "iwlwifi-x-72.ucode");
	CHECK_EQ_INT(m.nalias, 2);
	CHECK_EQ_STR(m.alias[0], "pci:v00008086d*");
	CHECK_EQ_STR(m.alias[1], "usb:v1234p*");
	fw_modinfo_free(&m);
	fw_diag_free(&d);
}

TEST(elf64_lsb) { check_good(unit_failed, true, false); }
TEST(elf64_msb) { check_good(unit_failed, true, true); }
TEST(elf32_lsb) { check_good(unit_failed, false, false); }
TEST(elf32_msb) { check_good(unit_failed, false, true); }

/* Parse o, expect -EBADMSG (or r) and exactly one finding with text. */
static void check_bad(int *unit_failed, const struct obj *o, int want, const char *text)
{
	struct fw_modinfo m;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&m, &d, o), want);
	CHECK_NDIAG(&d, 1);
	CHECK_DIAG(&d, 0, text);
	fw_modinfo_free(&m);
	fw_diag_free(&d);
}

TEST(truncated_everywhere)
{
	struct obj o;

	/* Every prefix of a good object is refused, never read past. */
	build(&o, true, false, good, sizeof(good) - 1);
	for (size_t n = 0; n < o.len; n++) {
		struct fw_modinfo m;
		struct fw_diag d = { 0 };
		unsigned char *copy = malloc(n ? n : 1);

		CHECK(copy);
		memcpy(copy, o.b, n);
		/* A heap copy of exactly n bytes: ASan sees any read past it. */
		int r = fw_modinfo_parse(&m, "m.ko", copy, n, &d);
		free(copy);
		fw_modinfo_free(&m);
		CHECK_EQ_INT(d.n, 1);
		fw_diag_free(&d);
		CHECK(r == -EBADMSG);
	}
}

TEST(not_elf)
{
	struct obj o;

	build(&o, true, false, good, sizeof(good) - 1);
	o.b[1] = 'X';
	check_bad(unit_failed, &o, -EBADMSG, "malformed module: not an ELF object");
	build(&o, true, false, good, sizeof(good) - 1);
	o.b[4] = 3;
	check_bad(unit_failed, &o, -EBADMSG, "malformed module: unknown ELF class");
	build(&o, true, false, good, sizeof(good) - 1);
	o.b[5] = 0;
	check_bad(unit_failed, &o, -EBADMSG, "malformed module: unknown ELF byte order");
}

TEST(bad_section_table)
{
	struct obj o;

	build(&o, true, false, good, sizeof(good) - 1);
	put(&o, 40, UINT64_MAX - 8, 8); /* e_shoff: would wrap */
	check_bad(unit_failed, &o, -EBADMSG, "malformed module: section header table outside the file");
	build(&o, false, true, good, sizeof(good) - 1);
	put(&o, 48, 5, 2); /* e_shnum one past the table */
	check_bad(unit_failed, &o, -EBADMSG, "malformed module: section header table outside the file");
	build(&o, true, false, good, sizeof(good) - 1);
	put(&o, 58, 16, 2); /* e_shentsize too small to hold a header */
	check_bad(unit_failed, &o, -EBADMSG, "malformed module: section header entries too small");
	build(&o, true, false, good, sizeof(good) - 1);
	put(&o, 62, 9, 2); /* e_shstrndx past the table */
	check_bad(unit_failed, &o, -EBADMSG, "malformed module: no section name string table");
	build(&o, true, false, good, sizeof(good) - 1);
	put(&o, 40, 0, 8);
	check_bad(unit_failed, &o, -EBADMSG, "malformed module: no section header table");
}

TEST(bad_section_offsets)
{
	struct obj o;

	/* The string table reaching past the end. */
	build(&o, true, false, good, sizeof(good) - 1);
	shdr(&o, 1, NAME_SHSTRTAB, 3, o.len - 4, 5);
	check_bad(unit_failed, &o, -EBADMSG,
		  "malformed module: section name string table outside the file");
	/* offset + size wrapping around. */
	build(&o, false, false, good, sizeof(good) - 1);
	shdr(&o, 3, NAME_MODINFO, 1, 0xfffffff0u, 0x20);
	check_bad(unit_failed, &o, -EBADMSG, "malformed module: .modinfo section outside the file");
	build(&o, true, true, good, sizeof(good) - 1);
	shdr(&o, 3, NAME_MODINFO, 1, 64, UINT64_MAX);
	check_bad(unit_failed, &o, -EBADMSG, "malformed module: .modinfo section outside the file");
	/* A section name index past the string table. */
	build(&o, true, false, good, sizeof(good) - 1);
	shdr(&o, 2, 1000, 1, 0, 0);
	check_bad(unit_failed, &o, -EBADMSG,
		  "malformed module: section name outside the string table");
	/* .modinfo of type NOBITS has no bytes in the file. */
	build(&o, true, false, good, sizeof(good) - 1);
	shdr(&o, 3, NAME_MODINFO, 8, 64, 10);
	check_bad(unit_failed, &o, -EBADMSG, "malformed module: .modinfo section outside the file");
}

TEST(string_table_not_terminated)
{
	struct obj o;

	build(&o, true, false, good, sizeof(good) - 1);
	/* Cut the string table inside ".modinfo": its last name has no NUL. */
	shdr(&o, 1, NAME_SHSTRTAB, 3, o.ehsize, NAME_MODINFO + 3);
	check_bad(unit_failed, &o, -EBADMSG, "malformed module: section name not NUL-terminated");
}

TEST(modinfo_missing)
{
	struct obj o;

	build(&o, true, false, good, sizeof(good) - 1);
	shdr(&o, 3, NAME_TEXT, 1, 0, 0);
	check_bad(unit_failed, &o, -ENOENT, "no .modinfo section: not a kernel module");
}

TEST(entry_not_terminated)
{
	static const char last[] = "firmware=a.bin\0firmware=b.b";
	struct obj o;

	build(&o, false, false, last, sizeof(last) - 1);
	check_bad(unit_failed, &o, -EBADMSG, "malformed module: .modinfo entry not NUL-terminated");
}

TEST(two_modinfo)
{
	struct obj o;

	build(&o, true, false, good, sizeof(good) - 1);
	shdr(&o, 2, NAME_MODINFO, 1, 0, 0);
	check_bad(unit_failed, &o, -EBADMSG, "malformed module: two .modinfo sections");
}

TEST(empty_modinfo_name_from_file)
{
	struct obj o;
	struct fw_modinfo m;
	struct fw_diag d = { 0 };

	build(&o, true, false, "", 0);
	CHECK_EQ_INT(fw_modinfo_parse(&m, "dir/snd-hda-intel.ko.zst", o.b, o.len, &d), 0);
	CHECK_EQ_STR(m.name, "snd_hda_intel");
	CHECK_EQ_INT(m.nfirmware, 0);
	fw_modinfo_free(&m);
	fw_diag_free(&d);
}

TEST(extended_numbering)
{
	struct obj o;
	struct fw_modinfo m;
	struct fw_diag d = { 0 };

	/* e_shnum 0 and e_shstrndx SHN_XINDEX: section 0 holds both. */
	build(&o, true, true, good, sizeof(good) - 1);
	put(&o, 60, 0, 2);
	put(&o, 62, 0xffff, 2);
	put(&o, o.shoff + 32, 4, 8); /* sh_size of section 0: the count */
	put(&o, o.shoff + 40, 1, 4); /* sh_link of section 0: the string table */
	CHECK_EQ_INT(fw_modinfo_parse(&m, "m.ko", o.b, o.len, &d), 0);
	CHECK_EQ_INT(m.nfirmware, 2);
	fw_modinfo_free(&m);
	fw_diag_free(&d);
}

TEST(load_compressed_corrupt)
{
	char dir[] = "/tmp/fwdist-modinfo.XXXXXX";
	struct fw_modinfo m;
	struct fw_diag d = { 0 };
	int dfd, fd;

	CHECK(mkdtemp(dir));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	CHECK(dfd >= 0);
	fd = openat(dfd, "x.ko.xz", O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0);
	CHECK(write(fd, "\xfd" "7zXZ\0garbage", 12) == 12);
	close(fd);
	CHECK_EQ_INT(fw_modinfo_load(&m, dfd, "x.ko.xz", &d), -EBADMSG);
	CHECK_NDIAG(&d, 1);
	CHECK_DIAG_IN(&d, 0, "x.ko.xz", 0, "malformed module: corrupt or truncated xz data");
	fw_modinfo_free(&m);
	fw_diag_free(&d);
	unlinkat(dfd, "x.ko.xz", 0);
	close(dfd);
	rmdir(dir);
}

TEST(is_module)
{
	CHECK(fw_modinfo_is_module("a.ko"));
	CHECK(fw_modinfo_is_module("a.ko.xz"));
	CHECK(fw_modinfo_is_module("a.ko.zst"));
	CHECK(!fw_modinfo_is_module(".ko"));
	CHECK(!fw_modinfo_is_module("a.ko.gz"));
	CHECK(!fw_modinfo_is_module("a.o"));
}
