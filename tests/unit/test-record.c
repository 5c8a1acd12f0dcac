/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the install record: what fwdist wrote, and what it did not. */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"
#include "util.h"

#define SHA_A "f8dad59f03baeb28470b7ea7932fef06993a60491e162a4ea440913afecb1be3"

/* path below fd, in the record directory (made if absent). */
static void put(int fd, const char *path, const char *text)
{
	mkdirat(fd, FW_RECORD_DIR, 0755);
	unit_put(fd, path, text);
}

TEST(record_written_is_read_back)
{
	char dir[64];
	int fd = unit_scratch(dir, "record");
	struct fw_record r = { .package = "firmware-nonfree" };
	struct fw_rec_entry e = { .type = FW_REC_FILE, .name = "beta/beta.bin.xz", .size = 8,
				  .comp = FW_COMP_XZ };
	struct fw_rec_entry l = { .type = FW_REC_LINK, .name = "beta/compat/beta.bin.xz",
				  .target = "../beta.bin.xz" };
	struct fw_rec_entry x = { .type = FW_REC_LICENCE,
				  .name = "LICENSES/firmware-nonfree/LicenseRef-test-nonfree.txt",
				  .size = 3 };
	struct fw_records rs;
	struct fw_diag d = { 0 };

	CHECK(fd >= 0);
	CHECK(fw_record_add(&r, &e) == 0 && fw_record_add(&r, &l) == 0 && fw_record_add(&r, &x) == 0);
	CHECK(fw_record_write(fd, &r) == 0);
	CHECK(fw_records_load(fd, &rs, &d) == 0);
	CHECK_EQ_INT(d.n, 0);
	CHECK_EQ_INT(rs.n, 1);
	CHECK_EQ_INT(rs.damaged + rs.foreign, 0);
	CHECK_EQ_STR(rs.v[0].package, "firmware-nonfree");
	CHECK_EQ_INT(rs.v[0].n, 3);
	CHECK(fw_records_find(&rs, "beta/compat/beta.bin.xz", NULL)->type == FW_REC_LINK);
	for (size_t i = 0; i < r.n; i++) {
		free(r.v[i].name);
		free(r.v[i].target);
	}
	free(r.v);
	fw_records_free(&rs);
	close(fd);
	unit_cleanup(dir);
}

TEST(record_not_written_by_fwdist)
{
	char dir[64];
	int fd = unit_scratch(dir, "record");
	struct fw_records rs;
	struct fw_diag d = { 0 };

	CHECK(fd >= 0);
	/* Malformed lines, names fwdist never records, a licence text of
	 * another package, a file with no header, foreign entries. */
	put(fd, ".fwdist/firmware-free.list",
	    "# fwdist install record 1\n"
	    "file\talpha/alpha.bin\t" SHA_A "\t18\tnone\n"
	    "garbage\n"
	    "file\t../etc/passwd\t" SHA_A "\t18\tnone\n"
	    "file\t.fwdist/firmware-free.list\t" SHA_A "\t18\tnone\n"
	    "licence\tLICENSES/firmware-nonfree/x.txt\t" SHA_A "\t18\n"
	    "licence\tLICENSES/firmware-free/GPL-2.0-or-later.txt\t" SHA_A "\t18\n");
	put(fd, ".fwdist/firmware-nonfree.list", "file\tbeta/beta.bin\t" SHA_A "\t8\tnone\n");
	put(fd, ".fwdist/notes.txt", "mine\n");
	put(fd, ".fwdist/Bad_Name.list", "# fwdist install record 1\n");
	CHECK(mkfifoat(fd, ".fwdist/fifo.list", 0644) == 0);
	put(fd, ".fwdist/.firmware-free.list.fwdist-abc123", "half written\n");
	CHECK(fw_records_load(fd, &rs, &d) == 0);
	CHECK_EQ_INT(rs.foreign, 3);
	CHECK_EQ_INT(rs.damaged, 2);
	CHECK_EQ_INT(d.n, 8);
	/* In byte order of the names: Bad_Name, fifo, firmware-free, ... */
	CHECK_EQ_STR(d.v[0].text, ".fwdist/Bad_Name.list: not an install record fwdist writes "
				  "(PACKAGE.list)");
	CHECK_EQ_STR(d.v[1].text, ".fwdist/fifo.list: not a regular file, not an install record");
	for (int i = 2; i < 6; i++)
		CHECK_DIAG_IN(&d, i, ".fwdist/firmware-free.list", (unsigned)i + 1,
			      "malformed line (fwdist did not write it; it is never acted on)");
	CHECK_DIAG_IN(&d, 6, ".fwdist/firmware-nonfree.list", 1,
		      "missing header line '# fwdist install record 1'");
	CHECK_EQ_STR(d.v[7].text, ".fwdist/notes.txt: not an install record fwdist writes "
				  "(PACKAGE.list)");
	/* The well-formed lines are still read; they are never acted on
	 * without --force, which the callers decide. */
	CHECK_EQ_INT(rs.n, 2);
	CHECK_EQ_INT(fw_records_get(&rs, "firmware-free")->n, 2);
	fw_diag_free(&d);
	fw_records_free(&rs);
	close(fd);
	unit_cleanup(dir);
}

TEST(record_dir_planted)
{
	char dir[64];
	int fd = unit_scratch(dir, "record");
	struct fw_records rs;
	struct fw_diag d = { 0 };

	CHECK(fd >= 0);
	CHECK(symlinkat("/etc", fd, FW_RECORD_DIR) == 0);
	CHECK_EQ_INT(fw_records_load(fd, &rs, &d), -ELOOP);
	CHECK(unlinkat(fd, FW_RECORD_DIR, 0) == 0);
	CHECK(mknodat(fd, FW_RECORD_DIR, S_IFREG | 0644, 0) == 0);
	CHECK_EQ_INT(fw_records_load(fd, &rs, &d), -ENOTDIR);
	CHECK_EQ_INT(d.n, 0);
	close(fd);
	unit_cleanup(dir);
}

TEST(record_entry_state)
{
	char dir[64];
	int fd = unit_scratch(dir, "record");
	struct fw_rec_entry f = { .type = FW_REC_FILE, .name = "a/x.bin", .comp = FW_COMP_NONE };
	struct fw_rec_entry l = { .type = FW_REC_LINK, .name = "a/l.bin", .target = "x.bin" };
	struct fw_rec_entry g = { .type = FW_REC_FILE, .name = "b/y.bin" };

	CHECK(fd >= 0);
	CHECK(mkdirat(fd, "a", 0755) == 0);
	put(fd, "a/x.bin", "hello\n");
	CHECK(fw_sha256_parse("5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03",
			      64, f.sha256) == 0);
	f.size = 6;
	CHECK_EQ_INT(fw_rec_entry_state(fd, &g), FW_REC_GONE);
	CHECK_EQ_INT(fw_rec_entry_state(fd, &f), FW_REC_SAME);
	put(fd, "a/x.bin", "PATCHED\n");
	CHECK_EQ_INT(fw_rec_entry_state(fd, &f), FW_REC_CHANGED);
	CHECK(symlinkat("x.bin", fd, "a/l.bin") == 0);
	CHECK_EQ_INT(fw_rec_entry_state(fd, &l), FW_REC_SAME);
	l.target = "other.bin";
	CHECK_EQ_INT(fw_rec_entry_state(fd, &l), FW_REC_CHANGED);
	/* A symlink where a file was: another type, never removed as it. */
	f.name = "a/l.bin";
	CHECK_EQ_INT(fw_rec_entry_state(fd, &f), FW_REC_OTHER_TYPE);
	/* A planted directory symlink in the path blocks, and is not followed. */
	CHECK(symlinkat("/etc", fd, "b") == 0);
	g.name = "b/passwd";
	CHECK_EQ_INT(fw_rec_entry_state(fd, &g), FW_REC_BLOCKED);
	close(fd);
	unit_cleanup(dir);
}

TEST(record_release)
{
	char dir[64];
	int fd = unit_scratch(dir, "record");
	struct fw_record r = { .package = "firmware-free",
			       .release = { .set = true, .serial = 20250301 } };
	struct fw_rec_entry e = { .type = FW_REC_FILE, .name = "alpha/alpha.bin", .size = 18 };
	struct fw_records rs;
	struct fw_diag d = { 0 };
	char *buf = NULL;
	size_t len = 0;

	CHECK(fd >= 0);
	memset(r.release.pins, 0xab, FW_SHA256_LEN);
	CHECK(fw_record_add(&r, &e) == 0);
	CHECK(fw_record_write(fd, &r) == 0);
	free(r.v[0].name);
	free(r.v);
	/* After the header, a comment to a reader that predates it. */
	CHECK(fw_read_text(fd, ".fwdist/firmware-free.list", &buf, &len) == 0);
	CHECK(strncmp(buf, FW_RECORD_HEADER "\n#release\t20250301\tabababab", 35) == 0);
	free(buf);
	CHECK(fw_records_load(fd, &rs, &d) == 0);
	CHECK_NDIAG(&d, 0);
	CHECK(rs.v[0].release.set);
	CHECK_EQ_INT(rs.v[0].release.serial, 20250301);
	CHECK(rs.v[0].release.pins[31] == 0xab);
	CHECK_EQ_INT(rs.v[0].n, 1);
	fw_records_free(&rs);
	/* What refuses a downgrade is never guessed: a second line, serial 0
	 * or with a leading zero, a short digest, a missing or extra field. */
	put(fd, ".fwdist/firmware-free.list",
	    "# fwdist install record 1\n"
	    "#release\t7\t" SHA_A "\n"
	    "#release\t8\t" SHA_A "\n");
	put(fd, ".fwdist/firmware-nonfree.list",
	    "# fwdist install record 1\n"
	    "#release\t0\t" SHA_A "\n");
	put(fd, ".fwdist/a1.list", "# fwdist install record 1\n#release\t07\t" SHA_A "\n");
	put(fd, ".fwdist/a2.list", "# fwdist install record 1\n#release\t7\tabc\n");
	put(fd, ".fwdist/a3.list", "# fwdist install record 1\n#release\t7\n");
	put(fd, ".fwdist/a4.list", "# fwdist install record 1\n#release\t7\t" SHA_A "\tx\n");
	CHECK(fw_records_load(fd, &rs, &d) == 0);
	CHECK_EQ_INT(rs.damaged, 6);
	CHECK_NDIAG(&d, 6);
	CHECK_DIAG_IN(&d, 4, ".fwdist/firmware-free.list", 3,
		      "malformed line (fwdist did not write it; it is never acted on)");
	CHECK(fw_records_get(&rs, "firmware-free")->release.serial == 7);
	fw_diag_free(&d);
	fw_records_free(&rs);
	close(fd);
	unit_cleanup(dir);
}
