/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of hwselect.c and fw_select_request: versions, request names through links, a hardware selection of the base fixture. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "hwselect.h"
#include "select.h"
#include "util.h"

#define BASE "tests/fixtures/base"

static int load(struct fw_tree *t)
{
	struct fw_diag d = { 0 };
	int r = fw_tree_load(t, BASE, &d);

	if (r == 0 && d.n)
		r = -1;
	fw_diag_free(&d);
	return r;
}

static long blob_of(const struct fw_tree *t, const char *name)
{
	const struct fw_name *x = fw_tree_find(t, name);

	return x ? x->blob : -1;
}

static long link_of(const struct fw_tree *t, const char *name)
{
	const struct fw_name *x = fw_tree_find(t, name);

	return x ? x->link : -1;
}

TEST(version_cmp)
{
	/* Numbers, not bytes: -10 after -9; leading zeros do not count. */
	CHECK(fw_hwsel_version_cmp("x-10.bin", "x-9.bin") > 0);
	CHECK(fw_hwsel_version_cmp("x-9.bin", "x-10.bin") < 0);
	CHECK(fw_hwsel_version_cmp("x-072.ucode", "x-71.ucode") > 0);
	CHECK(fw_hwsel_version_cmp("dir-1/x-2.bin", "dir-9/x-1.bin") > 0);
	CHECK(fw_hwsel_version_cmp("x-72.ucode", "x-72.ucode") == 0);
}

TEST(request)
{
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	bool *bs, *ls;

	CHECK_EQ_INT(load(&t), 0);
	bs = calloc(t.nblobs + 1, sizeof(*bs));
	ls = calloc(t.nlinks + 1, sizeof(*ls));
	CHECK(bs && ls);
	/* A probe marks nothing. */
	CHECK(fw_select_request(&t, "alpha/alpha-link.bin", NULL, NULL));
	CHECK(!bs[blob_of(&t, "alpha/alpha.bin")]);
	/* A link brings its blob, and nothing else. */
	CHECK(fw_select_request(&t, "beta/compat/beta.bin", bs, ls));
	CHECK(bs[blob_of(&t, "beta/beta.bin")]);
	CHECK(ls[link_of(&t, "beta/compat/beta.bin")]);
	CHECK(!ls[link_of(&t, "alpha/alpha-link.bin")]);
	CHECK(!bs[blob_of(&t, "alpha/alpha.bin")]);
	/* Not in the tree, the source of a blob, a name leaving it. */
	CHECK(!fw_select_request(&t, "nope.bin", bs, ls));
	CHECK(!fw_select_request(&t, "alpha/alpha.src", bs, ls));
	CHECK(!fw_select_request(&t, "alpha/../alpha/alpha.bin", bs, ls));
	free(bs);
	free(ls);
	fw_tree_free(&t);
}

TEST(hwsel_add)
{
	struct fw_tree t = { .rootfd = -1, .fwfd = -1 };
	char *fw[] = { "alpha/alpha-link.bin", "beta/beta.bin", "absent.bin", "y-1.bin", "y-2.bin" };
	struct fw_modinfo m = { .name = "drv", .firmware = fw, .nfirmware = 5 };
	struct fw_hw_mod hm = { .bound = true };
	struct fw_hw h = { .mods = { .v = &m, .n = 1 }, .mod = &hm };
	struct fw_hwsel s = { .newest = true };
	struct fw_hwsel_counts c;
	bool *bs, *ls;

	CHECK_EQ_INT(load(&t), 0);
	bs = calloc(t.nblobs + 1, sizeof(*bs));
	ls = calloc(t.nlinks + 1, sizeof(*ls));
	CHECK(bs && ls);
	CHECK_EQ_INT(fw_hwsel_add(&s, &h, &t, bs, ls, &c), 0);
	CHECK_EQ_INT(fw_hwsel_done(&s), 0);
	CHECK_EQ_INT(c.names, 5);
	CHECK_EQ_INT(c.selected, 2);
	CHECK_EQ_INT(c.absent, 2);
	CHECK_EQ_INT(s.nselected, 2);
	CHECK_EQ_STR(s.selected[0], "alpha/alpha-link.bin");
	CHECK_EQ_STR(s.selected[1], "beta/beta.bin");
	CHECK_EQ_INT(s.nabsent, 2);
	CHECK_EQ_STR(s.absent[0], "absent.bin (drv)");
	CHECK_EQ_STR(s.absent[1], "y-*.bin (drv, none of 2 alternatives)");
	CHECK(bs[blob_of(&t, "alpha/alpha.bin")] && ls[link_of(&t, "alpha/alpha-link.bin")]);
	CHECK(bs[blob_of(&t, "beta/beta.bin")] && !bs[blob_of(&t, "beta/raw.bin")]);
	fw_hwsel_free(&s);
	free(bs);
	free(ls);
	fw_tree_free(&t);
}
