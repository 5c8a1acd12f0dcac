/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of dpkg.c: which names of a firmware directory dpkg's lists own, and the record's #packaged mark. */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dpkg.h"
#include "record.h"
#include "util.h"

static void mkdirs(int fd)
{
	mkdirat(fd, "var", 0755);
	mkdirat(fd, "var/lib", 0755);
	mkdirat(fd, "var/lib/dpkg", 0755);
	mkdirat(fd, "var/lib/dpkg/info", 0755);
}

TEST(dpkg_none)
{
	char dir[64];
	int fd = unit_scratch(dir, "dpkg");
	struct fw_dpkg db;
	struct fw_diag d = { 0 };

	CHECK(fd >= 0);
	CHECK(fw_dpkg_load(fd, "/lib/firmware", &db, &d) == 0);
	CHECK(!db.present);
	CHECK(fw_dpkg_owner(&db, "a.bin") == NULL);
	CHECK(fw_dpkg_owner(NULL, "a.bin") == NULL);
	fw_dpkg_free(&db);
	close(fd);
	unit_cleanup(dir);
}

TEST(dpkg_owner_split_root)
{
	char dir[64];
	int fd = unit_scratch(dir, "dpkg");
	struct fw_dpkg db;
	struct fw_diag d = { 0 };

	CHECK(fd >= 0);
	mkdirs(fd);
	unit_put(fd, "var/lib/dpkg/info/a.list", "/.\n/lib\n/lib/firmware\n/lib/firmware/x/a.bin\n"
	    "/lib/firmwarex/no.bin\n/usr/lib/firmware/u.bin\n/lib//firmware/./x/b.bin.xz");
	unit_put(fd, "var/lib/dpkg/info/b:amd64.list", "/lib/firmware/x/a.bin\n/lib/firmware/x/c.bin\n");
	unit_put(fd, "var/lib/dpkg/info/a.md5sums", "0  lib/firmware/m.bin\n");
	CHECK(fw_dpkg_load(fd, "/lib/firmware/", &db, &d) == 0);
	CHECK_NDIAG(&d, 0);
	CHECK(db.present);
	CHECK_EQ_STR(fw_dpkg_owner(&db, "x/a.bin"), "a"); /* the first list, by name */
	CHECK_EQ_STR(fw_dpkg_owner(&db, "x/c.bin"), "b:amd64");
	CHECK(fw_dpkg_owner(&db, "x") == NULL); /* no list names it */
	CHECK(fw_dpkg_owner(&db, "") == NULL);
	CHECK_EQ_STR(fw_dpkg_owner(&db, "x/b.bin.xz"), "a");
	CHECK(fw_dpkg_owner(&db, "x/b.bin") == NULL);
	/* Any storage of the name. */
	CHECK_EQ_STR(fw_dpkg_owner_any(&db, "x/b.bin"), "a");
	CHECK_EQ_STR(fw_dpkg_owner_any(&db, "x/b.bin.zst"), "a");
	CHECK_EQ_STR(fw_dpkg_owner_any(&db, "x/c.bin.xz"), "b:amd64");
	CHECK(fw_dpkg_owner(&db, "no.bin") == NULL);
	CHECK(fw_dpkg_owner(&db, "m.bin") == NULL);
	/* Not merged: /usr/lib/firmware is another directory. */
	CHECK(fw_dpkg_owner(&db, "u.bin") == NULL);
	fw_dpkg_free(&db);
	close(fd);
	unit_cleanup(dir);
}

TEST(dpkg_owner_merged_root)
{
	char dir[64];
	int fd = unit_scratch(dir, "dpkg");
	struct fw_dpkg db;
	struct fw_diag d = { 0 };

	CHECK(fd >= 0);
	mkdirs(fd);
	mkdirat(fd, "usr", 0755);
	mkdirat(fd, "usr/lib", 0755);
	CHECK(symlinkat("usr/lib", fd, "lib") == 0);
	unit_put(fd, "var/lib/dpkg/info/old.list", "/lib/firmware/o.bin\n");
	unit_put(fd, "var/lib/dpkg/info/new.list", "/usr/lib/firmware/n.bin\n/usr/lib/other/z\n");
	/* Either spelling of the firmware directory: the same names. */
	CHECK(fw_dpkg_load(fd, "/lib/firmware", &db, &d) == 0);
	CHECK_EQ_STR(fw_dpkg_owner(&db, "o.bin"), "old");
	CHECK_EQ_STR(fw_dpkg_owner(&db, "n.bin"), "new");
	CHECK_EQ_INT(db.n, 2);
	fw_dpkg_free(&db);
	CHECK(fw_dpkg_load(fd, "usr/lib/firmware", &db, &d) == 0);
	CHECK_EQ_STR(fw_dpkg_owner(&db, "o.bin"), "old");
	CHECK_EQ_STR(fw_dpkg_owner(&db, "n.bin"), "new");
	fw_dpkg_free(&db);
	CHECK_NDIAG(&d, 0);
	close(fd);
	unit_cleanup(dir);
}

TEST(dpkg_unreadable_refused)
{
	char dir[64];
	int fd = unit_scratch(dir, "dpkg");
	struct fw_dpkg db;
	struct fw_diag d = { 0 };

	CHECK(fd >= 0);
	mkdirs(fd);
	/* A list that is a symlink: refused, never followed. */
	CHECK(symlinkat("/etc/passwd", fd, "var/lib/dpkg/info/p.list") == 0);
	CHECK(fw_dpkg_load(fd, "/lib/firmware", &db, &d) == -ELOOP);
	CHECK_NDIAG(&d, 1);
	CHECK(!db.present && db.n == 0);
	fw_diag_free(&d);
	CHECK(unlinkat(fd, "var/lib/dpkg/info/p.list", 0) == 0);
	/* A directory in a list's place. */
	CHECK(mkdirat(fd, "var/lib/dpkg/info/q.list", 0755) == 0);
	CHECK(fw_dpkg_load(fd, "/lib/firmware", &db, &d) < 0);
	CHECK_NDIAG(&d, 1);
	fw_diag_free(&d);
	CHECK(unlinkat(fd, "var/lib/dpkg/info/q.list", AT_REMOVEDIR) == 0);
	/* var/lib/dpkg through a symlink out of the root. */
	CHECK(unlinkat(fd, "var/lib/dpkg/info", AT_REMOVEDIR) == 0);
	CHECK(unlinkat(fd, "var/lib/dpkg", AT_REMOVEDIR) == 0);
	CHECK(symlinkat("/var/lib/dpkg", fd, "var/lib/dpkg") == 0);
	CHECK(fw_dpkg_load(fd, "/lib/firmware", &db, &d) == -ELOOP);
	CHECK_NDIAG(&d, 1);
	fw_diag_free(&d);
	close(fd);
	unit_cleanup(dir);
}

TEST(dpkg_tally)
{
	struct fw_dpkg_tally t = { 0 };
	struct fw_diag d = { 0 };

	fw_dpkg_tally_add(&t, "p", "a", false);
	fw_dpkg_tally_add(&t, "q", "z", false);
	fw_dpkg_tally_add(&t, "p", "b", false);
	fw_dpkg_tally_add(&t, "p", "c", false);
	fw_dpkg_tally_add(&t, "p", "d", false);
	CHECK_EQ_INT(fw_dpkg_tally_report(&t, &d), 5);
	CHECK_NDIAG(&d, 2);
	CHECK_EQ_STR(d.v[0].text, "4 names belong to dpkg package p: left alone; use apt to change "
		     "them (a, b, c, ...)");
	CHECK_EQ_STR(d.v[1].text, "1 name belongs to dpkg package q: left alone; use apt to change "
		     "it (z)");
	fw_diag_free(&d);
	fw_dpkg_tally_free(&t);
}

TEST(record_packaged_mark)
{
	char dir[64];
	int fd = unit_scratch(dir, "dpkg");
	struct fw_record r = { .package = "firmware-free", .packaged = "firmware-free" };
	struct fw_records rs;
	struct fw_diag d = { 0 };
	char *buf = NULL;
	size_t len = 0;

	CHECK(fd >= 0);
	CHECK(fw_record_write(fd, &r) == 0);
	CHECK(fw_read_text(fd, ".fwdist/firmware-free.list", &buf, &len) == 0);
	CHECK_EQ_STR(buf, FW_RECORD_HEADER "\n#packaged\tfirmware-free\n");
	free(buf);
	CHECK(fw_records_load(fd, &rs, &d) == 0);
	CHECK_NDIAG(&d, 0);
	CHECK_EQ_STR(rs.v[0].packaged, "firmware-free");
	CHECK(!rs.damaged);
	fw_records_free(&rs);
	/* Whose it is is never guessed: twice, or no package's name. */
	unit_put(fd, ".fwdist/firmware-free.list", FW_RECORD_HEADER "\n#packaged\ta1\n#packaged\ta2\n");
	unit_put(fd, ".fwdist/a1.list", FW_RECORD_HEADER "\n#packaged\tA_b\n");
	unit_put(fd, ".fwdist/a2.list", FW_RECORD_HEADER "\n#packaged\t\n");
	CHECK(fw_records_load(fd, &rs, &d) == 0);
	CHECK_EQ_INT(rs.damaged, 3);
	CHECK_NDIAG(&d, 3);
	fw_records_free(&rs);
	fw_diag_free(&d);
	/* An old record, without the mark, is fwdist's. */
	unit_put(fd, ".fwdist/firmware-free.list", FW_RECORD_HEADER "\n");
	unlinkat(fd, ".fwdist/a1.list", 0);
	unlinkat(fd, ".fwdist/a2.list", 0);
	CHECK(fw_records_load(fd, &rs, &d) == 0);
	CHECK(rs.v[0].packaged == NULL && !rs.damaged);
	fw_records_free(&rs);
	close(fd);
	unit_cleanup(dir);
}
