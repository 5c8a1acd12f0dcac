/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the plan of an install, computed from the base fixture's model. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "plan.h"
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

/* "KIND FINAL [-> TARGET] PACKAGE" for every entry, in plan order. */
static char *describe(const struct fw_plan *p)
{
	static const char *const kinds[] = { "file", "licence", "link", "dir" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	for (size_t i = 0; i < p->n; i++) {
		const struct fw_plan_entry *e = &p->v[i];
		const char *pkg = fw_plan_package(p, e);

		fprintf(f, "%s %s", kinds[e->kind], e->final);
		if (e->target)
			fprintf(f, " -> %s", e->target);
		fprintf(f, " %s\n", pkg ? pkg : "-");
	}
	fclose(f);
	return buf;
}

TEST(plan_whole_tree_xz)
{
	struct fw_plan_opts o = { .comp = FW_COMP_XZ };
	struct fw_tree t;
	struct fw_plan p;
	char *s;

	CHECK(load(&t) == 0);
	CHECK(fw_plan_build(&p, &t, &o, NULL) == 0);
	s = describe(&p);
	/* Copies first (blobs, then licence texts), links, then directories;
	 * RawFile: stays plain and its storage is the plan's, not the option's. */
	CHECK_EQ_STR(s, "file alpha/alpha.bin.xz firmware-free\n"
			"file beta/beta.bin.xz firmware-nonfree\n"
			"file beta/sub/beta2.bin.xz firmware-nonfree\n"
			"file beta/raw.bin firmware-nonfree\n"
			"licence LICENSES/firmware-free/GPL-2.0-or-later.txt firmware-free\n"
			"licence LICENSES/firmware-nonfree/LicenseRef-test-nonfree.txt firmware-nonfree\n"
			"link alpha/alpha-link.bin.xz -> alpha.bin.xz firmware-free\n"
			"link beta/compat/beta.bin.xz -> ../beta.bin.xz firmware-nonfree\n"
			"dir LICENSES -\n"
			"dir LICENSES/firmware-free -\n"
			"dir LICENSES/firmware-nonfree -\n"
			"dir alpha -\n"
			"dir beta -\n"
			"dir beta/compat -\n"
			"dir beta/sub -\n");
	CHECK_EQ_INT(p.ncopies, 6);
	CHECK_EQ_INT(p.nlinks, 2);
	CHECK_EQ_INT(p.ndirs, 7);
	CHECK(fw_plan_covers(&p, 0) && fw_plan_covers(&p, 1));
	/* Lookups by final name and by request name. */
	CHECK(fw_plan_find(&p, "beta/beta.bin.xz") && !fw_plan_find(&p, "beta/beta.bin"));
	CHECK(fw_plan_find_name(&p, "beta/beta.bin") == fw_plan_find(&p, "beta/beta.bin.xz"));
	CHECK(fw_plan_find(&p, "beta/sub")->kind == FW_PLAN_DIR);
	/* A link's content is its target's, and it waits for it. */
	{
		const struct fw_plan_entry *l = fw_plan_find_name(&p, "beta/compat/beta.bin");
		const struct fw_plan_entry *b = fw_plan_find_name(&p, "beta/beta.bin");

		CHECK(l && b && l->needs == b - p.v);
		CHECK(memcmp(l->sha256, b->sha256, sizeof(l->sha256)) == 0 && l->size == b->size);
	}
	free(s);
	fw_plan_free(&p);
	fw_tree_free(&t);
}

TEST(plan_package_and_no_licences)
{
	bool pkg[2] = { false, true };
	struct fw_plan_opts o = { .sel.pkg = pkg, .no_licences = true };
	struct fw_tree t;
	struct fw_plan p;
	char *s;

	CHECK(load(&t) == 0);
	CHECK(fw_plan_build(&p, &t, &o, NULL) == 0);
	s = describe(&p);
	CHECK_EQ_STR(s, "file beta/beta.bin firmware-nonfree\n"
			"file beta/sub/beta2.bin firmware-nonfree\n"
			"file beta/raw.bin firmware-nonfree\n"
			"link beta/compat/beta.bin -> ../beta.bin firmware-nonfree\n"
			"dir beta -\n"
			"dir beta/compat -\n"
			"dir beta/sub -\n");
	CHECK(!fw_plan_covers(&p, 0) && fw_plan_covers(&p, 1));
	free(s);
	fw_plan_free(&p);
	fw_tree_free(&t);
}

TEST(plan_select_covers_no_package)
{
	struct fw_plan_opts o = { 0 };
	struct fw_tree t;
	struct fw_plan p;
	bool *blob, *link;

	CHECK(load(&t) == 0);
	blob = calloc(t.nblobs, sizeof(*blob));
	link = calloc(t.nlinks, sizeof(*link));
	blob[1] = true; /* beta/beta.bin */
	o.sel.blob = blob;
	o.sel.link = link;
	CHECK(fw_plan_build(&p, &t, &o, NULL) == 0);
	/* A part of a package: its record keeps the rest. */
	CHECK(!fw_plan_covers(&p, 0) && !fw_plan_covers(&p, 1));
	CHECK_EQ_INT(p.ncopies, 2); /* the blob and its licence text */
	CHECK_EQ_INT(p.nlinks, 0);
	fw_plan_free(&p);
	free(blob);
	free(link);
	fw_tree_free(&t);
}

TEST(plan_dedup_within_package)
{
	struct fw_plan_opts o = { .comp = FW_COMP_ZSTD, .dedup = true };
	struct fw_tree t;
	struct fw_plan p;
	const struct fw_plan_entry *e;

	CHECK(load(&t) == 0);
	/* Give beta2 alpha's digest: they are in different packages, so no
	 * dedup link; give it beta's: one, to the first name of the group. */
	memcpy((void *)t.blobs[2].sum->sha256, t.blobs[0].sum->sha256, FW_SHA256_LEN);
	((struct fw_sum *)t.blobs[2].sum)->size = t.blobs[0].sum->size;
	CHECK(fw_plan_build(&p, &t, &o, NULL) == 0);
	CHECK(fw_plan_find_name(&p, "beta/sub/beta2.bin")->kind == FW_PLAN_FILE);
	fw_plan_free(&p);
	memcpy((void *)t.blobs[2].sum->sha256, t.blobs[1].sum->sha256, FW_SHA256_LEN);
	((struct fw_sum *)t.blobs[2].sum)->size = t.blobs[1].sum->size;
	CHECK(fw_plan_build(&p, &t, &o, NULL) == 0);
	e = fw_plan_find_name(&p, "beta/sub/beta2.bin");
	CHECK(e->kind == FW_PLAN_LINK && !e->link);
	CHECK_EQ_STR(e->final, "beta/sub/beta2.bin.zst");
	CHECK_EQ_STR(e->target, "../beta.bin.zst");
	CHECK(p.v[e->needs].blob == &t.blobs[1]);
	fw_plan_free(&p);
	fw_tree_free(&t);
}

TEST(plan_blob_without_checksum_left_out)
{
	struct fw_plan_opts o = { 0 };
	struct fw_diag d = { 0 };
	struct fw_tree t;
	struct fw_plan p;

	CHECK(load(&t) == 0);
	t.blobs[1].sum = NULL; /* beta/beta.bin */
	CHECK(fw_plan_build(&p, &t, &o, &d) == 0);
	CHECK_EQ_INT(p.unsummed, 1);
	CHECK_EQ_INT(d.n, 1);
	CHECK_EQ_STR(d.v[0].text, "File: beta/beta.bin: no checksum in manifests/checksums; "
				  "not installed");
	/* Its link goes with it. */
	CHECK(!fw_plan_find_name(&p, "beta/beta.bin") && !fw_plan_find_name(&p, "beta/compat/beta.bin"));
	fw_diag_free(&d);
	fw_plan_free(&p);
	fw_tree_free(&t);
}
