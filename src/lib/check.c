/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist check: findings about the model, then about the files behind it. */
#include "check.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "debian.h"
#include "digest.h"
#include "fsutil.h"
#include "progress.h"
#include "tree.h"
#include "image.h"
#include "modmap.h"
#include "replaces.h"
#include "util.h"

#define KIND(e) fw_entry_kind_name((e)->kind)

static void check_names(const struct fw_tree *t, struct fw_diag *d)
{
	const struct fw_whence *w = &t->whence;

	for (size_t i = 0; i < w->nentries; i++) {
		const struct fw_whence_entry *e = &w->entries[i];
		const struct fw_name *first = fw_tree_find(t, e->name);
		const char *problem = fw_name_problem(e->name);

		if (problem) {
			fw_diag_add(d, w->path, e->line, "%s: %s: %s", KIND(e), fw_esc(e->name), problem);
			continue;
		}
		if (e->kind != FW_E_SOURCE && fw_name_reserved(e->name))
			fw_diag_add(d, w->path, e->line, "%s: %s: %s", KIND(e), fw_esc(e->name),
				    fw_name_reserved(e->name));
		if (e->flags & FW_E_UNQUOTED_SPACE)
			fw_diag_add(d, w->path, e->line,
				    "%s: %s: bare space in name (quote the name or write '\\ ')",
				    KIND(e), fw_esc(e->name));
		/* A finding, not a path-safety refusal (fw_name_problem
		 * decides what may be installed, and Linux takes any byte in
		 * a file name): a name that is not UTF-8 shows as garbage in
		 * every listing, log and package built from the tree, and
		 * no upstream name needs it. */
		if (!fw_utf8_valid(e->name))
			fw_diag_add(d, w->path, e->line, "%s: %s: name is not valid UTF-8", KIND(e),
				    fw_esc(e->name));
		if (first && first->e != e) {
			if (first->e->kind == e->kind)
				fw_diag_add(d, w->path, e->line, "%s: %s: listed twice (first at line %u)",
					    KIND(e), fw_esc(e->name), first->e->line);
			else
				fw_diag_add(d, w->path, e->line, "%s: %s: already listed as %s: at line %u",
					    KIND(e), fw_esc(e->name), KIND(first->e), first->e->line);
			continue;
		}
		if ((e->kind == FW_E_FILE || e->kind == FW_E_RAWFILE || e->kind == FW_E_LINK) &&
		    fw_tree_is_dir(t, e->name))
			fw_diag_add(d, w->path, e->line, "%s: %s: is also a directory of other files",
				    KIND(e), fw_esc(e->name));
	}
	for (size_t i = 0; i < w->nblocks; i++)
		if (!w->blocks[i].driver && w->blocks[i].count > 0)
			fw_diag_add(d, w->path, w->blocks[i].line, "block has no Driver: line");
}

/* A blob every package of the split must not share: name them all. */
static void report_packages(const struct fw_tree *t, const struct fw_blob *b, struct fw_diag *d)
{
	char *list = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&list, &len);

	if (!f) {
		fw_diag_add(d, t->whence.path, b->e->line, "%s: %s: in several packages", KIND(b->e),
			    fw_esc(b->e->name));
		return;
	}
	fprintf(f, "%s (%s:%u)", t->split.pkgs[b->pkg].name, FW_TREE_SPLIT, b->pkg_line);
	for (size_t i = 0; i < b->nmore; i++)
		fprintf(f, "%s%s (%s:%u)", i + 1 == b->nmore ? " and " : ", ",
			t->split.pkgs[b->more[i].pkg].name, FW_TREE_SPLIT, b->more[i].line);
	if (fw_memstream_close(f, &list) < 0 || !list) {
		free(list);
		list = NULL;
	}
	if (b->nmore == 1)
		fw_diag_add(d, t->whence.path, b->e->line, "%s: %s: in two packages: %s", KIND(b->e),
			    fw_esc(b->e->name), list ? list : "(out of memory)");
	else
		fw_diag_add(d, t->whence.path, b->e->line, "%s: %s: in %zu packages: %s", KIND(b->e),
			    fw_esc(b->e->name), b->nmore + 1, list ? list : "(out of memory)");
	free(list);
}

static void check_licences(const struct fw_tree *t, struct fw_diag *d)
{
	const struct fw_whence *w = &t->whence;

	/* Expression problems once per licence line, not once per file. */
	for (size_t i = 0; i < w->nlicences; i++) {
		const struct fw_whence_licence *l = &w->licences[i];
		const struct fw_lic_eval *ev = &t->levals[i];

		char *text;

		if (!l->spdx || !(text = fw_lic_eval_text(ev, l->spdx)))
			continue;
		fw_diag_add(d, w->path, l->spdx_line, "SPDX-License-Identifier: %s", text);
		free(text);
	}
	for (size_t i = 0; i < t->nblobs; i++) {
		const struct fw_blob *b = &t->blobs[i];
		const char *name = fw_esc(b->e->name);
		/* Expression and text problems are reported once per licence
		 * line and policy line; these belong to the blob itself. */
		static const unsigned per_blob[] = {
			FW_LP_NO_LICENCE, FW_LP_UNDIST_PRESENT, FW_LP_WORDING_FILE,
		};

		if (b->duplicate || fw_name_problem(b->e->name))
			continue;
		for (size_t k = 0; k < FW_ARRAY_SIZE(per_blob); k++) {
			char *text;

			/* The model's findings: what licenses counts too. */
			if (!(b->findings & per_blob[k]))
				continue;
			text = fw_licence_problem_text(t, b, per_blob[k]);
			fw_diag_add(d, w->path, b->e->line, "%s: %s: %s", KIND(b->e), name,
				    text ? text : "out of memory");
			free(text);
		}
		if (!b->lic)
			continue;
		if (b->cat != FW_CAT_FREE && b->cat != FW_CAT_NONFREE)
			continue;
		if (!t->have_split)
			continue;
		if (b->pkg < 0 && b->empty)
			continue; /* said once, as an empty file (check_blob_file) */
		if (b->pkg < 0) {
			fw_diag_add(d, w->path, b->e->line, "%s: %s: in no package of %s", KIND(b->e),
				    name, FW_TREE_SPLIT);
			continue;
		}
		if (b->nmore)
			report_packages(t, b, d);
		if (!fw_section_allows(t->split.pkgs[b->pkg].section, b->cat))
			fw_diag_add(d, w->path, b->e->line, "%s: %s: %s blob in package %s (section %s)",
				    KIND(b->e), name, fw_category_name(b->cat),
				    t->split.pkgs[b->pkg].name, t->split.pkgs[b->pkg].section);
	}
}

static void check_links(const struct fw_tree *t, struct fw_diag *d)
{
	const char *path = t->whence.path;

	for (size_t i = 0; i < t->nlinks; i++) {
		const struct fw_link *l = &t->links[i];
		const char *n = fw_esc(l->e->name), *tg = fw_esc(l->e->target);

		if (l->duplicate)
			continue;
		switch (l->state) {
		case FW_LINK_OK:
		case FW_LINK_BAD_NAME: /* reported with the names */
			break;
		case FW_LINK_OUTSIDE:
			fw_diag_add(d, path, l->e->line, "Link: %s -> %s: target resolves outside the tree",
				    n, tg);
			break;
		case FW_LINK_MISSING:
			fw_diag_add(d, path, l->e->line, "Link: %s -> %s: target %s is not in the tree",
				    n, tg, fw_esc(l->resolved));
			break;
		case FW_LINK_TO_LINK: /* resolved into one of the others */
			break;
		case FW_LINK_TO_BROKEN:
			fw_diag_add(d, path, l->e->line,
				    "Link: %s -> %s: target %s is a link that leads to no blob or directory (line %u)", n,
				    tg, fw_esc(l->resolved), t->links[l->via].e->line);
			break;
		case FW_LINK_TOO_DEEP:
			fw_diag_add(d, path, l->e->line,
				    "Link: %s -> %s: a chain of more than %u links", n, tg,
				    FW_LINK_MAX_CHAIN);
			break;
		case FW_LINK_LOOP:
			fw_diag_add(d, path, l->e->line, "Link: %s -> %s: links form a loop", n, tg);
			break;
		}
	}
}

static void check_split(const struct fw_tree *t, struct fw_diag *d)
{
	bool *used = fw_tree_packages_used(t);

	if (!used) {
		fw_diag_add(d, FW_TREE_SPLIT, 0, "out of memory");
		return;
	}
	for (size_t p = 0; p < t->split.npkgs; p++)
		if (!used[p])
			fw_diag_add(d, FW_TREE_SPLIT, t->split.pkgs[p].line,
				    "%s: takes no blob (a package of an earlier release that takes "
				    "nothing now is a line '%s %s dropped')",
				    t->split.pkgs[p].name, t->split.pkgs[p].name, t->split.pkgs[p].section);
	/* A dropped package is one the metapackage Breaks: a line that also
	 * takes blobs for it would have apt remove what it installs. */
	for (size_t k = 0; k < t->split.ndropped; k++) {
		int p = fw_split_find(&t->split, t->split.dropped[k].name);

		if (p >= 0)
			fw_diag_add(d, FW_TREE_SPLIT, t->split.dropped[k].line,
				    "%s: dropped, but line %u has it take blobs: keep one of the two",
				    t->split.dropped[k].name, t->split.pkgs[p].line);
	}
	free(used);
}

/* A manifest the model lacks: absent, or there but not read (the loader
 * said why). */
static void missing(const struct fw_tree *t, bool have, const char *path, const char *what,
		    struct fw_diag *d)
{
	if (!have && faccessat(t->rootfd, path, F_OK, AT_SYMLINK_NOFOLLOW) != 0)
		fw_diag_add(d, path, 0, "missing%s", what);
}

void fw_tree_check_model(const struct fw_tree *t, struct fw_diag *d)
{
	/* An import switching the tree's parts one by one was cut short:
	 * what the model read may be part old, part new. */
	if (faccessat(t->rootfd, FW_TREE_IMPORT_JOURNAL, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		fw_diag_add(d, FW_TREE_IMPORT_JOURNAL, 0,
			    "an import into this tree was cut short: WHENCE, firmware/, manifests/ "
			    "and LICENSES/ may be part old, part new (the same import run again "
			    "completes it)");
	missing(t, t->have_sums, FW_TREE_SUMS, " (run fwdist manifest)", d);
	missing(t, t->have_text_sums, FW_TREE_TEXT_SUMS, " (run fwdist manifest)", d);
	missing(t, t->have_policy, FW_TREE_POLICY, ": every licence needs a policy line", d);
	missing(t, t->have_split, FW_TREE_SPLIT, ": the package split is required", d);
	check_names(t, d);
	/* The texts were read and hashed with the model: a missing or
	 * changed one refuses the tree before anything is written. */
	for (size_t i = 0; i < t->policy.n; i++) {
		const struct fw_text *x = &t->texts[i];
		const char *why = fw_text_problem(x);

		if (why)
			fw_diag_add(d, t->policy.path, x->pol->line, "%s: %s", fw_esc(x->pol->id), why);
	}
	check_licences(t, d);
	check_links(t, d);
	check_split(t, d);
	fw_tree_check_recipes(t, d);
}

/* ---- files ---- */

/* A blob file the walk found to hash: the workers hash them after the
 * walk, and each finding goes where the walk met the file, so the report
 * is what one thread hashing in walk order gave. */
struct hash_job {
	char *rel;               /* its name below firmware/ */
	const struct fw_sum *sum;
	uint64_t st_size;        /* as the walk saw it: the work order */
	size_t pos;              /* findings the walk had made before it */
	int err;                 /* -errno of the open (open_err) or of the read */
	bool open_err;
	uint64_t size;
	uint8_t dig[FW_SHA256_LEN];
};

struct walk {
	const struct fw_tree *t;
	struct fw_diag *d;
	bool *blob_seen;   /* per blob */
	bool *source_seen; /* per whence entry */
	int fwfd;          /* firmware/, as the walk opened it */
	struct hash_job *jobs;
	size_t njobs, cap;
	size_t *order;     /* indices into jobs, largest file first */
	struct fw_progress *progress; /* the hashing, counted per file; or NULL */
};

static bool under_source_dir(const struct walk *wk, const char *rel)
{
	const struct fw_whence *w = &wk->t->whence;

	for (size_t i = 0; i < w->nentries; i++) {
		const struct fw_whence_entry *e = &w->entries[i];
		size_t n = strlen(e->name);

		if (e->kind == FW_E_SOURCE && strncmp(rel, e->name, n) == 0 && rel[n] == '/')
			return true;
	}
	return false;
}

/* A blob that declares its format (WHENCE "Info: format: NAME", see
 * fwimage(5)) must be well formed in it: a tg3 length that disagrees with
 * the file, a malformed ihex record or a wrong fwimage digest would make
 * the driver refuse it, or worse load it wrong. */
static void check_format(struct walk *wk, int dfd, const char *leaf, const char *rel,
			 const struct fw_blob *b)
{
	const char *wp = wk->t->whence.path, *nm;
	struct fw_diag tmp = { 0 };
	enum fw_blob_format f;
	uint8_t *buf;
	size_t nl, len;
	int k = fw_info_format(b->e->info, &f, &nm, &nl), fd, r;

	if (k == 0)
		return;
	if (k < 0) {
		fw_diag_add(wk->d, wp, b->e->info_line,
			    "%s: %s: Info: unknown format '%.*s' (fwimage, ihex, ihex-bin, tg3)",
			    KIND(b->e), fw_esc(rel), (int)nl, nm);
		return;
	}
	fd = openat(dfd, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return; /* reported by check_blob_file */
	r = fw_read_fd(fd, FW_IMAGE_MAX, &buf, &len);
	close(fd);
	if (r < 0) {
		fw_diag_add(wk->d, FW_TREE_FIRMWARE, 0, "%s: cannot read: %s", fw_esc(rel), strerror(-r));
		return;
	}
	fw_image_validate(f, buf, len, rel, &tmp);
	for (size_t i = 0; i < tmp.n; i++)
		fw_diag_add(wk->d, wp, b->e->info_line, "%s: %s: %s (the format Info: declares)", KIND(b->e),
			    fw_esc(rel), tmp.v[i].text);
	fw_diag_free(&tmp);
	free(buf);
}

/* Hash it later, with the others (hash_files); 0 or -ENOMEM. */
static int defer_hash(struct walk *wk, const char *rel, const struct stat *st,
		      const struct fw_sum *sum)
{
	struct hash_job *j;

	if (fw_grow(&wk->jobs, &wk->cap, wk->njobs, sizeof(*wk->jobs)) < 0)
		return -ENOMEM;
	j = &wk->jobs[wk->njobs];
	*j = (struct hash_job){ .rel = strdup(rel), .sum = sum, .st_size = (uint64_t)st->st_size,
				.pos = wk->d->n };
	if (!j->rel)
		return -ENOMEM;
	wk->njobs++;
	return 0;
}

static int check_blob_file(struct walk *wk, int dfd, const char *leaf, const char *rel,
			   const struct stat *st, long bi)
{
	const struct fw_tree *t = wk->t;
	const struct fw_blob *b = &t->blobs[bi];
	const char *wp = t->whence.path;

	wk->blob_seen[bi] = true;
	if (b->cat == FW_CAT_UNDISTRIBUTABLE)
		return 0; /* a licence problem of the model (check_licences) */
	if (st->st_mode & 0111)
		fw_diag_add(wk->d, wp, b->e->line, "%s: %s: executable bit set (mode %04o)", KIND(b->e),
			    fw_esc(rel), (unsigned)(st->st_mode & 07777));
	/* The kernel's loader refuses a zero-length firmware file (-EINVAL):
	 * an empty blob can never be loaded, so it is a mistake unless the
	 * split ships it deliberately (empty:yes), as upstream ships some. */
	if (st->st_size == 0 && b->pkg < 0)
		fw_diag_add(wk->d, wp, b->e->line,
			    "%s: %s: empty file (the kernel refuses empty firmware; only an empty:yes "
			    "line of %s ships it)", KIND(b->e), fw_esc(rel), FW_TREE_SPLIT);
	if (st->st_size > 0)
		check_format(wk, dfd, leaf, rel, b);
	if (!b->sum) {
		/* Without the file at all, one line says so (check_model). */
		if (t->have_sums)
			fw_diag_add(wk->d, wp, b->e->line, "%s: %s: no checksum in %s (run fwdist manifest)",
				    KIND(b->e), fw_esc(rel), FW_TREE_SUMS);
		return 0;
	}
	return defer_hash(wk, rel, st, b->sum);
}

static int walk_dir(struct walk *wk, int dfd, const char *prefix, int depth)
{
	const struct fw_tree *t = wk->t;
	const char *wp = t->whence.path;
	char **names;
	size_t n;
	int r = fw_read_dir_sorted(dfd, &names, &n);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		char *rel = *prefix ? fw_asprintf("%s/%s", prefix, names[i]) : strdup(names[i]);
		const struct fw_name *x;

		if (!rel) {
			r = -ENOMEM;
			break;
		}
		x = fw_tree_find(t, rel);
		if (fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			fw_diag_add(wk->d, FW_TREE_FIRMWARE, 0, "%s: %s", fw_esc(rel), strerror(errno));
		} else if (x && x->e->kind != FW_E_SOURCE && x->e->kind != FW_E_LINK &&
			   !S_ISREG(st.st_mode)) {
			/* Listed as File:/RawFile:, but not a regular file. */
			fw_diag_add(wk->d, wp, x->e->line, "%s: %s: is %s", KIND(x->e), fw_esc(rel),
				    S_ISDIR(st.st_mode) ? "a directory" :
				    S_ISLNK(st.st_mode) ? "a symlink (links are Link: lines)" :
							  "not a regular file");
			if (x->blob >= 0)
				wk->blob_seen[x->blob] = true;
		} else if (x && x->e->kind == FW_E_LINK) {
			fw_diag_add(wk->d, wp, x->e->line,
				    "Link: %s: a file of that name is in %s/ (install creates links)",
				    fw_esc(rel), FW_TREE_FIRMWARE);
		} else if (x && x->e->kind == FW_E_SOURCE && !S_ISDIR(st.st_mode)) {
			wk->source_seen[x->e - t->whence.entries] = true;
		} else if (x && x->blob >= 0) {
			r = check_blob_file(wk, dfd, names[i], rel, &st, x->blob);
		} else if (S_ISDIR(st.st_mode)) {
			/* A Source: directory is walked too: upstream's cis/
			 * holds the blobs beside their sources (cis/src/). */
			if (x && x->e->kind == FW_E_SOURCE)
				wk->source_seen[x->e - t->whence.entries] = true;
			int sub;

			if (depth > 64) {
				fw_diag_add(wk->d, FW_TREE_FIRMWARE, 0, "%s: directories nested too deeply",
					    fw_esc(rel));
			} else if ((sub = openat(dfd, names[i],
						 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
				fw_diag_add(wk->d, FW_TREE_FIRMWARE, 0, "%s: %s", fw_esc(rel),
					    strerror(errno));
			} else {
				r = walk_dir(wk, sub, rel, depth + 1);
				close(sub);
			}
		} else if (!under_source_dir(wk, rel)) {
			const char *problem = fw_name_problem(rel);

			if (problem)
				fw_diag_add(wk->d, FW_TREE_FIRMWARE "/", 0,
					    "%s: not listed in WHENCE (%s)", fw_esc(rel), problem);
			else if (S_ISLNK(st.st_mode))
				fw_diag_add(wk->d, FW_TREE_FIRMWARE "/", 0,
					    "%s: symlink not listed in WHENCE (links are Link: lines)",
					    fw_esc(rel));
			else
				fw_diag_add(wk->d, FW_TREE_FIRMWARE "/", 0, "%s: not listed in WHENCE",
					    fw_esc(rel));
		}
		free(rel);
		if (r < 0)
			break;
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return r;
}

/* One worker's file: opened as the walk would have (each directory and
 * the file itself without following a symlink), hashed with the worker's
 * own buffer (fw_sha256_fd). */
static void hash_one(void *arg, size_t i)
{
	struct walk *wk = arg;
	struct hash_job *j = &wk->jobs[wk->order[i]];
	const char *leaf;
	int pfd = fw_open_parent(wk->fwfd, j->rel, 0, &leaf), fd;

	if (pfd < 0) {
		j->open_err = true;
		j->err = pfd;
		return;
	}
	fd = openat(pfd, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		j->open_err = true;
		j->err = -errno;
	} else {
		j->err = fw_sha256_fd(fd, j->dig, &j->size);
		close(fd);
	}
	if (pfd != wk->fwfd)
		close(pfd);
	fw_progress_bytes(wk->progress, j->st_size);
	fw_progress_files(wk->progress, 1);
}

/* Largest first: the last file to start is then a small one, and no big
 * blob is left to hash on one core while the others idle. */
static int cmp_job_size(const void *a, const void *b, void *arg)
{
	const struct hash_job *jobs = arg;
	const struct hash_job *x = &jobs[*(const size_t *)a], *y = &jobs[*(const size_t *)b];

	if (x->st_size != y->st_size)
		return x->st_size < y->st_size ? 1 : -1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int hash_files(struct walk *wk, unsigned jobs)
{
	uint64_t bytes = 0;

	if (!wk->njobs)
		return 0;
	for (size_t i = 0; i < wk->njobs; i++)
		bytes += wk->jobs[i].st_size;
	fw_progress_total(wk->progress, wk->njobs, bytes);
	wk->order = malloc(wk->njobs * sizeof(*wk->order));
	if (!wk->order)
		return -ENOMEM;
	for (size_t i = 0; i < wk->njobs; i++)
		wk->order[i] = i;
	qsort_r(wk->order, wk->njobs, sizeof(*wk->order), cmp_job_size, wk->jobs);
	fw_parallel_for(wk->njobs, jobs, hash_one, wk);
	return 0;
}

static void report_hash(const struct hash_job *j, struct fw_diag *d)
{
	const char *rel = fw_esc(j->rel);

	if (j->open_err) {
		fw_diag_add(d, FW_TREE_FIRMWARE, 0, "%s: cannot open: %s", rel, strerror(-j->err));
	} else if (j->err < 0) {
		fw_diag_add(d, FW_TREE_FIRMWARE, 0, "%s: cannot read: %s", rel, strerror(-j->err));
	} else if (j->size != j->sum->size) {
		fw_diag_add(d, FW_TREE_SUMS, j->sum->line,
			    "%s: size mismatch: manifest %llu bytes, file %llu bytes", rel,
			    (unsigned long long)j->sum->size, (unsigned long long)j->size);
	} else if (memcmp(j->dig, j->sum->sha256, sizeof(j->dig)) != 0) {
		char want[FW_SHA256_HEX + 1], got[FW_SHA256_HEX + 1];

		fw_sha256_hex(j->sum->sha256, want);
		fw_sha256_hex(j->dig, got);
		fw_diag_add(d, FW_TREE_SUMS, j->sum->line, "%s: SHA-256 mismatch: manifest %s, file %s",
			    rel, want, got);
	}
}

/* The walk's findings (walkd) into d and, once hashed, each hash finding
 * where the walk met its file. */
static void merge_findings(const struct walk *wk, const struct fw_diag *walkd, bool hashed,
			   struct fw_diag *d)
{
	size_t k = 0;

	for (size_t i = 0; i <= walkd->n; i++) {
		for (; hashed && k < wk->njobs && wk->jobs[k].pos == i; k++)
			report_hash(&wk->jobs[k], d);
		if (i < walkd->n)
			fw_diag_add(d, walkd->v[i].file, walkd->v[i].line, "%s", walkd->v[i].text);
	}
	if (walkd->nomem)
		d->nomem = 1;
}

static int check_licence_texts(const struct fw_tree *t, struct fw_diag *d)
{
	int dfd = openat(t->rootfd, FW_TREE_LICENSES, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char **names = NULL;
	size_t n = 0;
	int r;

	if (dfd < 0) {
		fw_diag_add(d, FW_TREE_LICENSES "/", 0, "cannot open: %s", strerror(errno));
		return 0;
	}
	r = fw_read_dir_sorted(dfd, &names, &n);
	close(dfd);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		char *stem;

		if (len <= 4 || strcmp(names[i] + len - 4, ".txt") != 0) {
			fw_diag_add(d, FW_TREE_LICENSES "/", 0,
				    "%s: not a licence text (expected LICENSES/<id>.txt)", fw_esc(names[i]));
			continue;
		}
		stem = fw_strndup(names[i], len - 4);
		if (stem && !fw_policy_find(&t->policy, stem))
			fw_diag_add(d, FW_TREE_LICENSES "/", 0, "%s: not in %s", fw_esc(names[i]),
				    FW_TREE_POLICY);
		free(stem);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return 0;
}

/* The policy's text a checksum line of a licence text is for, or NULL. */
static const struct fw_text *text_of_sum(const struct fw_tree *t, const struct fw_sum *s)
{
	const char *leaf = s->name;
	size_t n = strlen(leaf);
	const struct fw_text *x = NULL;
	char *id;

	if (n <= 4)
		return NULL;
	id = fw_strndup(leaf, n - 4);
	if (id)
		x = fw_tree_text(t, id);
	free(id);
	return x;
}

/* A Source: line is needed while a blob of its group ships. When every one
 * is undistributable (the source named is absent, so the GPL forbids
 * shipping them: import's tree of such a release), the line documents the
 * refusal as their File: lines do, and its absence is no finding. */
static bool source_needed(const struct fw_tree *t, const struct fw_whence_entry *e)
{
	for (size_t i = 0; i < t->nblobs; i++) {
		const struct fw_whence_entry *f = t->blobs[i].e;

		if (f->block == e->block && f->group == e->group &&
		    t->blobs[i].cat != FW_CAT_UNDISTRIBUTABLE)
			return true;
	}
	return false;
}

int fw_tree_check_files(const struct fw_tree *t, unsigned jobs, struct fw_progress *progress,
			struct fw_diag *d)
{
	struct fw_diag walkd = { 0 };
	struct walk wk = { .t = t, .d = &walkd, .progress = progress };
	const char *wp = t->whence.path;
	int r = 0;

	wk.blob_seen = calloc(t->nblobs + 1, sizeof(bool));
	wk.source_seen = calloc(t->whence.nentries + 1, sizeof(bool));
	if (!wk.blob_seen || !wk.source_seen) {
		r = -ENOMEM;
		goto out;
	}
	wk.fwfd = openat(t->rootfd, FW_TREE_FIRMWARE, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (wk.fwfd < 0) {
		fw_diag_add(d, FW_TREE_FIRMWARE "/", 0, "cannot open: %s", strerror(errno));
	} else {
		/* The walk reads directories and metadata; the digests, nearly
		 * all of the work, are then computed on every core. */
		r = walk_dir(&wk, wk.fwfd, "", 0);
		if (r == 0)
			r = hash_files(&wk, jobs);
		close(wk.fwfd);
		/* What the walk found stands even when it stopped short. */
		merge_findings(&wk, &walkd, r == 0, d);
		if (r < 0)
			goto out;
	}
	for (size_t i = 0; i < t->nblobs; i++) {
		const struct fw_blob *b = &t->blobs[i];

		/* An undistributable File: documents a blob we refuse to
		 * ship: its absence is the correct state. */
		if (wk.blob_seen[i] || b->duplicate || fw_name_problem(b->e->name) ||
		    b->cat == FW_CAT_UNDISTRIBUTABLE)
			continue;
		fw_diag_add(d, wp, b->e->line, "%s: %s: no such file in %s/", KIND(b->e),
			    fw_esc(b->e->name), FW_TREE_FIRMWARE);
	}
	for (size_t i = 0; i < t->whence.nentries; i++) {
		const struct fw_whence_entry *e = &t->whence.entries[i];
		const struct fw_name *x = fw_tree_find(t, e->name);

		if (e->kind != FW_E_SOURCE || wk.source_seen[i] || !x || x->e != e ||
		    fw_name_problem(e->name) || !source_needed(t, e))
			continue;
		fw_diag_add(d, wp, e->line, "Source: %s: no such file in %s/", fw_esc(e->name),
			    FW_TREE_FIRMWARE);
	}
	for (size_t i = 0; i < t->sums.n; i++) {
		const struct fw_sum *s = &t->sums.v[i];
		const struct fw_name *x = fw_tree_find(t, s->name);

		if (!x || x->blob < 0)
			fw_diag_add(d, t->sums.path, s->line, "%s: no File: or RawFile: of that name in %s",
				    fw_esc(s->name), wp);
	}
	for (size_t i = 0; i < t->text_sums.n; i++) {
		const struct fw_sum *s = &t->text_sums.v[i];

		if (!text_of_sum(t, s))
			fw_diag_add(d, t->text_sums.path, s->line, "%s: no licence of that id in %s",
				    fw_esc(s->name), FW_TREE_POLICY);
	}
	r = check_licence_texts(t, d);
out:
	for (size_t i = 0; i < wk.njobs; i++)
		free(wk.jobs[i].rel);
	free(wk.jobs);
	free(wk.order);
	fw_diag_free(&walkd);
	free(wk.blob_seen);
	free(wk.source_seen);
	return r;
}

int fw_tree_check(const struct fw_tree *t, unsigned jobs, struct fw_progress *progress,
		  struct fw_diag *d, struct fw_check_counts *c)
{
	struct fw_replaces rp;
	struct fw_modmap mm;
	int r;

	fw_tree_check_model(t, d);
	/* What main means where the tree has recipes: copyleft rebuilt. */
	fw_tree_check_rebuilt(t, d);
	/* manifests/replaces: its findings name its lines. */
	if (fw_replaces_load(&rp, &t->split, t->rootfd, d) == -ENOMEM)
		d->nomem++;
	fw_replaces_free(&rp);
	/* manifests/modules: check refuses what make deb would ship. */
	if (fw_modmap_load(&mm, t->rootfd, d) == -ENOMEM)
		d->nomem++;
	fw_modmap_free(&mm);
	r = fw_tree_check_files(t, jobs, progress, d);
	if (r < 0)
		fw_diag_add(d, t->root, 0, "check stopped: %s", strerror(-r));
	/* The committed generated packaging must still be what the model gives. */
	if (r == 0 && !d->n) {
		r = fw_debian_check(t, d);
		if (r < 0)
			fw_diag_add(d, t->root, 0, "check stopped: %s", strerror(-r));
	}
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < t->nblobs; i++) {
		c->free += t->blobs[i].cat == FW_CAT_FREE;
		c->nonfree += t->blobs[i].cat == FW_CAT_NONFREE;
		c->undistributable += t->blobs[i].cat == FW_CAT_UNDISTRIBUTABLE;
	}
	c->has_recipes = t->recipes.n > 0;
	if (c->has_recipes && fw_tree_freeness_counts(t, c->how) < 0)
		return -ENOMEM;
	return r;
}
