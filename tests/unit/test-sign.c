/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the signed pins: their format (written, read back, every malformed form refused) and what they vouch for. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "digest.h"
#include "util.h"

#include "sign.h"

#define SHA_A "f8dad59f03baeb28470b7ea7932fef06993a60491e162a4ea440913afecb1be3"
#define SHA_B "a656c4c72f5434f4c2afef6fc62af254eb77293245dc3d657c002850f730e364"
#define HEAD FW_PINS_HEADER "\n# a comment\n"

/* parse text; expect one finding at line with text (line 0: whole file). */
static int refused(const char *text, unsigned line, const char *why)
{
	struct fw_pins p;
	struct fw_diag d = { 0 };
	int ok = fw_pins_parse(text, strlen(text), &p, &d) == -EBADMSG && d.n == 1 &&
		 d.v[0].line == line && strcmp(d.v[0].file, FW_PINS) == 0 &&
		 strstr(d.v[0].text, why) != NULL && p.n == 0 && p.v == NULL;

	if (!ok)
		for (size_t i = 0; i < d.n; i++)
			fprintf(stderr, "  %s:%u: %s\n", d.v[i].file, d.v[i].line, d.v[i].text);
	fw_diag_free(&d);
	return ok;
}

TEST(pins_written_are_read_back)
{
	struct fw_pin v[2] = { { .path = "WHENCE" }, { .path = "firmware/a b.bin" } };
	struct fw_pins p = { .serial = 20250301, .v = v, .n = 2 }, q;
	struct fw_diag d = { 0 };
	char *buf = NULL;
	size_t len = 0;

	memset(v[1].sha256, 0xab, FW_SHA256_LEN);
	CHECK_EQ_INT(fw_pins_format(&p, &buf, &len), 0);
	CHECK(strncmp(buf, FW_PINS_HEADER "\n", strlen(FW_PINS_HEADER) + 1) == 0);
	CHECK(strstr(buf, "\n#serial 20250301\n") != NULL);
	CHECK_EQ_INT(fw_pins_parse(buf, len, &q, &d), 0);
	free(buf);
	CHECK_EQ_INT(d.n, 0);
	CHECK_EQ_INT(q.serial, 20250301);
	CHECK_EQ_INT(q.n, 2);
	CHECK_EQ_STR(q.v[1].path, "firmware/a b.bin");
	CHECK(memcmp(q.v[1].sha256, v[1].sha256, FW_SHA256_LEN) == 0);
	/* The same pins compare equal; a changed digest, a missing and an
	 * added path are each named. */
	CHECK_EQ_INT(fw_pins_compare(&p, &q, &d), 0);
	q.v[0].sha256[0] ^= 1;
	q.n = 1;
	CHECK_EQ_INT(fw_pins_compare(&p, &q, &d), -EBADMSG);
	CHECK_NDIAG(&d, 2);
	CHECK_EQ_STR(d.v[0].text, "WHENCE: differs from the signed pins");
	CHECK_EQ_STR(d.v[1].text, "firmware/a b.bin: signed, but no longer in the tree");
	fw_diag_free(&d);
	CHECK_EQ_INT(fw_pins_compare(&q, &p, &d), -EBADMSG);
	CHECK_EQ_STR(d.v[1].text, "firmware/a b.bin: in the tree, but not signed");
	q.n = 2;
	fw_pins_free(&q);
	fw_diag_free(&d);
}

TEST(pins_malformed_refused)
{
	/* Another format is named, never read as this one. */
	CHECK(refused("# fwdist pins 1\n" SHA_A "  WHENCE\n", 1,
		      "pins of format 1, not 2: an older fwdist signed them"));
	CHECK(refused("# fwdist pins 3\n#serial 1\n", 1, "pins of format 3, not 2: a newer fwdist"));
	CHECK(refused(SHA_A "  WHENCE\n", 1, "missing header line '# fwdist pins 2'"));
	CHECK(refused("", 0, "not fwdist pins"));
	CHECK(refused(HEAD "#serial 1\n" SHA_A "  WHENCE", 0, "no final newline"));
	/* One serial, from 1, before the pins. */
	CHECK(refused(HEAD SHA_A "  WHENCE\n", 3, "a pin before the #serial line"));
	CHECK(refused(HEAD, 0, "no #serial line"));
	CHECK(refused(HEAD "#serial 0\n", 3, "#serial takes a decimal number from 1"));
	CHECK(refused(HEAD "#serial 012\n", 3, "#serial takes a decimal number from 1"));
	CHECK(refused(HEAD "#serial 1 \n", 3, "#serial takes a decimal number from 1"));
	CHECK(refused(HEAD "#serial 2\n#serial 3\n", 4, "a second or late #serial line"));
	CHECK(refused(HEAD "#serial 2\n" SHA_A "  WHENCE\n#serial 3\n", 5,
		      "a second or late #serial line"));
	/* sha256sum's format exactly, sorted, each path once and safe. */
	CHECK(refused(HEAD "#serial 1\n" SHA_A " WHENCE\n", 4, "malformed line"));
	CHECK(refused(HEAD "#serial 1\nF8DAD59F03BAEB28470B7EA7932FEF06993A60491E162A4EA440913AFECB1BE3"
			   "  WHENCE\n", 4, "malformed line"));
	CHECK(refused(HEAD "#serial 1\n" SHA_A "  WHENCE\r\n", 4, "malformed line"));
	CHECK(refused(HEAD "#serial 1\n" SHA_A "  \n", 4, "malformed line"));
	CHECK(refused(HEAD "#serial 1\n" SHA_A "  b\n" SHA_B "  a\n", 5, "a: out of order or repeated"));
	CHECK(refused(HEAD "#serial 1\n" SHA_A "  a\n" SHA_B "  a\n", 5, "a: out of order or repeated"));
	CHECK(refused(HEAD "#serial 1\n" SHA_A "  ../etc/passwd\n", 4, "../etc/passwd"));
	CHECK(refused(HEAD "#serial 1\n" SHA_A "  /etc/passwd\n", 4, "absolute name"));
}

/* The pins vouch for what the model was built from: a file the model read
 * is pinned with the digest of the bytes it read, not read again (a file
 * changed since is not what the pins take), and a source file a verdict
 * rested on, gone since, is refused by name. */
TEST(pins_are_what_the_model_read)
{
	char dir[] = "/tmp/fwdist-unit-sign.XXXXXX", cmd[512], *whence = NULL;
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	struct fw_pins p = { 0 };
	struct fw_diag d = { 0 };
	const struct fw_tree_read *rd;
	uint8_t sum[FW_SHA256_LEN];
	size_t k;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	/* The base fixture, alpha's source a directory with one file in it. */
	snprintf(cmd, sizeof(cmd), "cp -a tests/fixtures/base/. %s && mkdir %s/firmware/alpha/src.d && "
		 "echo a >%s/firmware/alpha/src.d/a.S && sed -i 's|^Source: alpha/alpha.src$|Source: "
		 "alpha/src.d|' %s/WHENCE", dir, dir, dir, dir);
	CHECK_EQ_INT(system(cmd), 0);
	CHECK_EQ_INT(fw_tree_load(&t, dir, &d), 0);
	rd = fw_tree_read_find(&t, "WHENCE");
	CHECK(rd && !rd->presence && !rd->changed);
	rd = fw_tree_read_find(&t, "firmware/alpha/src.d/a.S");
	CHECK(rd && rd->presence);
	CHECK(fw_tree_read_find(&t, "manifests/packages") != NULL);
	CHECK(fw_tree_read_find(&t, "LICENSES/GPL-2.0-or-later.txt") != NULL);
	CHECK_EQ_INT(fw_pins_collect(&t, &p, &d), 0);
	CHECK_NDIAG(&d, 0);
	/* WHENCE changed after the model read it: pinned as read. */
	snprintf(cmd, sizeof(cmd), "%s/WHENCE", dir);
	CHECK((f = fopen(cmd, "ae")) != NULL);
	fputs("Link: evil.bin -> alpha/alpha.bin\n", f);
	fclose(f);
	fw_pins_free(&p);
	CHECK_EQ_INT(fw_pins_collect(&t, &p, &d), 0);
	for (k = 0; k < p.n && strcmp(p.v[k].path, "WHENCE") != 0; k++)
		;
	CHECK(k < p.n);
	CHECK(memcmp(p.v[k].sha256, fw_tree_read_find(&t, "WHENCE")->sha256, FW_SHA256_LEN) == 0);
	CHECK_EQ_INT(fw_read_text(t.rootfd, "WHENCE", &whence, &(size_t){ 0 }), 0);
	CHECK_EQ_INT(fw_sha256_buf(whence, strlen(whence), sum), 0);
	free(whence);
	CHECK(memcmp(p.v[k].sha256, sum, FW_SHA256_LEN) != 0);
	fw_pins_free(&p);
	/* The source that made alpha free, gone: refused by name. */
	snprintf(cmd, sizeof(cmd), "%s/firmware/alpha/src.d/a.S", dir);
	CHECK_EQ_INT(unlink(cmd), 0);
	CHECK_EQ_INT(fw_pins_collect(&t, &p, &d), -EBADMSG);
	CHECK_NDIAG(&d, 1);
	CHECK_DIAG_IN(&d, 0, "firmware/alpha/src.d/a.S", 0, "cannot be pinned: gone since fwdist found it");
	CHECK(p.n == 0);
	fw_diag_free(&d);
	fw_tree_free(&t);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK_EQ_INT(system(cmd), 0);
}
