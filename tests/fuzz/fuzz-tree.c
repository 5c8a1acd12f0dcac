/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the whole model: the input, cut at its NUL bytes,
 * is WHENCE, manifests/checksums, manifests/licenses, manifests/packages
 * and a selection file, laid out in a scratch tree (blobs are the names
 * WHENCE lists, made empty files where the name allows); then the tree is
 * loaded, checked, planned (every compression, dedup, the selection) and
 * the plan looked up, as every command does. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "plan.h"
#include "select.h"
#include "tree.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[64];

static void put(const char *rel, const uint8_t *p, size_t n)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	if (n && write(fd, p, n) < 0)
		perror(path);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const files[] = { "WHENCE", "manifests/checksums", "manifests/licenses",
					     "manifests/packages", "select" };
	const uint8_t *p = data, *end = data + size;
	struct fw_diag d = { 0 };
	struct fw_tree t;
	char sel[96];

	if (!*root) {
		strcpy(root, "/tmp/fwdist-fuzz-tree.XXXXXX");
		if (!mkdtemp(root))
			abort();
		snprintf(sel, sizeof(sel), "%s/manifests", root);
		mkdir(sel, 0755);
		snprintf(sel, sizeof(sel), "%s/firmware", root);
		mkdir(sel, 0755);
		snprintf(sel, sizeof(sel), "%s/LICENSES", root);
		mkdir(sel, 0755);
	}
	for (size_t i = 0; i < FW_ARRAY_SIZE(files); i++) {
		const uint8_t *z = memchr(p, '\0', (size_t)(end - p));
		const uint8_t *e = z ? z : end;

		put(files[i], p, (size_t)(e - p));
		p = z ? z + 1 : end;
	}
	if (fw_tree_load(&t, root, &d) == 0) {
		bool *blob = calloc(t.nblobs + 1, sizeof(*blob));
		bool *link = calloc(t.nlinks + 1, sizeof(*link));
		struct fw_diag sd = { 0 };

		fw_tree_check_model(&t, &d);
		for (int c = 0; c < 3; c++) {
			struct fw_plan_opts o = { .comp = (enum fw_compress)c, .dedup = c == 1 };
			struct fw_plan plan;

			if (c == 2 && blob && link) {
				snprintf(sel, sizeof(sel), "%s/select", root);
				if (fw_select_load(&t, sel, blob, link, &sd) == 0) {
					o.sel.blob = blob;
					o.sel.link = link;
				}
			}
			if (fw_plan_build(&plan, &t, &o, NULL) == 0) {
				for (size_t i = 0; i < plan.n; i++) {
					const struct fw_plan_entry *e = fw_plan_find(&plan, plan.v[i].final);

					if (!e || strcmp(e->final, plan.v[i].final))
						abort(); /* every final name is found */
					if (plan.v[i].needs >= (long)i)
						abort(); /* what an entry needs comes before it */
				}
				fw_plan_free(&plan);
			}
		}
		for (size_t i = 0; i < t.nblobs; i++)
			if (t.blobs[i].lproblems) {
				char *s = fw_licence_problem_text(&t, &t.blobs[i],
								  t.blobs[i].lproblems & -t.blobs[i].lproblems);
				free(s);
			}
		fw_diag_free(&sd);
		free(blob);
		free(link);
	}
	fw_tree_free(&t);
	fw_diag_free(&d);
	return 0;
}
