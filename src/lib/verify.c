/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Verify an installed firmware directory against the tree's manifest. */
#include "verify.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compress.h"
#include "dpkg.h"
#include "fsutil.h"
#include "record.h"
#include "util.h"

static const enum fw_compress variants[] = { FW_COMP_NONE, FW_COMP_XZ, FW_COMP_ZSTD };

static int add(struct fw_verify_result *res, const char *kind, const char *name, char *detail)
{
	struct fw_verify_problem p = { .kind = kind, .name = strdup(name), .detail = detail };

	if (!p.name || fw_grow(&res->v, &res->cap, res->n, sizeof(*res->v)) < 0) {
		free(p.name);
		free(detail);
		return -ENOMEM;
	}
	res->v[res->n++] = p;
	return 0;
}

/* What a file decompressed and hashed to, and which file it was. */
struct hashed {
	int r;                   /* 0, or -errno (-EINVAL: not a regular file) */
	bool isdir;              /* -EINVAL: it is a directory */
	bool have_id;            /* dev, ino: the regular file opened */
	dev_t dev;
	ino_t ino;
	enum fw_compress comp;
	uint8_t dig[FW_SHA256_LEN];
	uint64_t size;
	unsigned flags;
};

/* Files already hashed, sorted by (dev, ino, comp): a link reaching one of
 * them takes its result instead of reading it again (in Debian 12's
 * firmware, links reach 225 MB besides the 635 MB of blobs). */
struct known {
	const struct hashed **v;
	size_t n;
};

static int cmp_hashed_id(const struct hashed *a, const struct hashed *b)
{
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return (int)a->comp - (int)b->comp;
}

static int cmp_hashed_ptr(const void *a, const void *b)
{
	return cmp_hashed_id(*(const struct hashed *const *)a, *(const struct hashed *const *)b);
}

static const struct hashed *known_find(const struct known *k, const struct hashed *h)
{
	const struct hashed *const *hit;

	if (!k || !k->n)
		return NULL;
	hit = bsearch(&h, k->v, k->n, sizeof(*k->v), cmp_hashed_ptr);
	return hit ? *hit : NULL;
}

/* Hash what name (following links inside the root) decompresses to, or
 * take the result of the same file from k. */
static void hash_installed(int rootfd, const char *name, enum fw_compress comp,
			   const struct known *k, struct hashed *h)
{
	const struct hashed *same;
	struct stat st;
	int fd = fw_open_resolve(rootfd, name, O_RDONLY | O_NONBLOCK);

	*h = (struct hashed){ .comp = comp };
	if (fd < 0) {
		h->r = fd;
		return;
	}
	if (fstat(fd, &st) < 0) {
		h->r = -errno;
	} else if (!S_ISREG(st.st_mode)) {
		h->isdir = S_ISDIR(st.st_mode);
		h->r = -EINVAL;
	} else {
		h->have_id = true;
		h->dev = st.st_dev;
		h->ino = st.st_ino;
		same = known_find(k, h);
		if (same)
			*h = *same;
		else
			h->r = fw_digest_decompress(fd, comp, h->dig, &h->size, &h->flags);
	}
	close(fd);
}

/* Which of NAME, NAME.xz, NAME.zst exist (lstat, in the parent directory). */
static int find_variants(int rootfd, const char *name, struct stat st[3], bool have[3])
{
	const char *leaf;
	int pfd = fw_open_parent(rootfd, name, 0, &leaf);

	for (size_t i = 0; i < 3; i++)
		have[i] = false;
	if (pfd < 0)
		return pfd == -ENOENT ? 0 : pfd;
	for (size_t i = 0; i < 3; i++) {
		char buf[512];

		snprintf(buf, sizeof(buf), "%s%s", leaf, fw_compress_suffix(variants[i]));
		have[i] = fstatat(pfd, buf, &st[i], AT_SYMLINK_NOFOLLOW) == 0;
	}
	if (pfd != rootfd)
		close(pfd);
	return 0;
}

static const char *kernel_flag_problem(unsigned flags)
{
	if (flags & FW_DECOMP_XZ_BAD_CHECK)
		return "xz check is not CRC32: the kernel refuses it";
	if (flags & FW_DECOMP_ZSTD_NO_SIZE)
		return "zstd frame without its content size: the kernel refuses it";
	if (flags & FW_DECOMP_TRAILING)
		return "data after the first xz stream or zstd frame";
	return NULL;
}

/* One planned name as the workers check it; its problem (at most one) is
 * reported in plan order once all are done. */
struct vjob {
	const struct fw_plan_entry *pe;
	char *vname;            /* the variant found, to hash (NAME, NAME.xz or NAME.zst) */
	enum fw_compress comp;  /* its compression */
	bool via_link;          /* it is a symlink: hashed after the files (see fw_verify) */
	struct hashed h;
	struct fw_verify_result out;
	int r;                  /* -errno: verify stops there */
};

/* The checks of a blob's name that read no content: which variant is there
 * and whether its type is right. A problem goes to j->out; else j->vname
 * is left to hash. is_link: a Link: entry, which must be a symlink. */
static int examine(int rootfd, bool is_link, struct vjob *j)
{
	const struct fw_plan_entry *pe = j->pe;
	const char *name = pe->name;
	struct stat st[3];
	bool have[3];
	size_t found = 0, which = 0;
	char *vname;
	int r;

	r = find_variants(rootfd, name, st, have);
	if (r < 0)
		return add(&j->out, "wrong type", name,
			   fw_asprintf("%s in its path", r == -ELOOP ? "a symlink" : strerror(-r)));
	for (size_t i = 0; i < 3; i++)
		if (have[i]) {
			if (!found)
				which = i;
			found++;
		}
	if (!found)
		return add(&j->out, "missing", name, NULL);
	vname = fw_asprintf("%s%s", name, fw_compress_suffix(variants[which]));
	if (!vname)
		return -ENOMEM;
	if (found > 1) {
		/* The kernel takes NAME before NAME.xz: an old copy would win. */
		r = add(&j->out, "wrong type", name,
			fw_asprintf("%zu variants present (plain, .xz, .zst): keep one", found));
	} else if (is_link && !S_ISLNK(st[which].st_mode)) {
		r = add(&j->out, "wrong type", vname, strdup("expected a symlink"));
	} else if (pe->blob->e->kind == FW_E_RAWFILE && variants[which] != FW_COMP_NONE) {
		r = add(&j->out, "wrong type", vname, strdup("RawFile: installed compressed"));
	} else {
		j->vname = vname;
		j->comp = variants[which];
		j->via_link = S_ISLNK(st[which].st_mode);
		return 0;
	}
	free(vname);
	return r;
}

/* The problem, if any, of what j->vname hashed to. */
static int judge(struct vjob *j)
{
	const struct fw_plan_entry *pe = j->pe;
	const struct hashed *h = &j->h;
	const char *vname = j->vname;
	int r = h->r;

	if (r == -EINVAL)
		return add(&j->out, "wrong type", vname,
			   strdup(h->isdir ? "a directory, expected a file" : "not a regular file"));
	if (r == -ENOENT || r == -EXDEV || r == -ELOOP)
		return add(&j->out, "wrong type", vname,
			   strdup(r == -ENOENT ? "dangling symlink" :
				  r == -EXDEV ? "symlink leading outside the root" :
						"symlink loop or symlink in its path"));
	if (r == -EBADMSG)
		return add(&j->out, "modified", vname, strdup("corrupt compressed data"));
	if (r < 0)
		return add(&j->out, "modified", vname, fw_asprintf("cannot read: %s", strerror(-r)));
	if (h->size != pe->size || memcmp(h->dig, pe->sha256, sizeof(h->dig)) != 0) {
		char want[FW_SHA256_HEX + 1], got[FW_SHA256_HEX + 1];

		fw_sha256_hex(pe->sha256, want);
		fw_sha256_hex(h->dig, got);
		return add(&j->out, "modified", vname,
			   fw_asprintf("SHA-256 %s (%llu bytes), manifest %s (%llu bytes)", got,
				       (unsigned long long)h->size, want, (unsigned long long)pe->size));
	}
	if (kernel_flag_problem(h->flags))
		return add(&j->out, "kernel", vname, strdup(kernel_flag_problem(h->flags)));
	return 0;
}

static int verify_dir_link(int rootfd, const struct fw_plan_entry *pe, struct fw_verify_result *res)
{
	struct stat st;
	const char *leaf;
	int pfd = fw_open_parent(rootfd, pe->name, 0, &leaf), fd, r = 0;

	if (pfd < 0)
		return add(res, pfd == -ENOENT ? "missing" : "wrong type", pe->name,
			   pfd == -ENOENT ? NULL : fw_asprintf("%s in its path", pfd == -ELOOP ?
							       "a symlink" : strerror(-pfd)));
	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0)
		r = add(res, "missing", pe->name, NULL);
	else if (!S_ISLNK(st.st_mode))
		r = add(res, "wrong type", pe->name, strdup("expected a symlink"));
	else if ((fd = fw_open_resolve(rootfd, pe->name, O_RDONLY | O_DIRECTORY)) < 0)
		r = add(res, "wrong type", pe->name,
			fw_asprintf("does not lead to the directory %s", pe->dir_target));
	else
		close(fd);
	if (pfd != rootfd)
		close(pfd);
	return r;
}

/* ---- unexpected entries ---- */

struct expect {
	char **names; /* sorted */
	size_t n;
	bool exact;   /* names as installed (records): no variant of them */
	const struct fw_dpkg *dpkg; /* what dpkg owns is no extra, or NULL */
};

static bool expected(const struct expect *x, const char *rel)
{
	size_t len = strlen(rel);
	char buf[4096];

	if (bsearch(&rel, x->names, x->n, sizeof(*x->names), fw_strcmp_ptr))
		return true;
	if (x->dpkg && fw_dpkg_owner_any(x->dpkg, rel))
		return true;
	for (size_t i = 1; i < 3 && !x->exact; i++) {
		const char *suf = fw_compress_suffix(variants[i]);
		size_t sl = strlen(suf);
		const char *key = buf;

		if (len > sl && len - sl < sizeof(buf) && strcmp(rel + len - sl, suf) == 0) {
			memcpy(buf, rel, len - sl);
			buf[len - sl] = '\0';
			if (bsearch(&key, x->names, x->n, sizeof(*x->names), fw_strcmp_ptr))
				return true;
		}
	}
	return false;
}

/* Does an expected name lie below directory rel? (records: a directory
 * whose recorded names are gone is theirs, not an extra) */
static bool expected_below(const struct expect *x, const char *rel)
{
	size_t len = strlen(rel), lo = 0, hi = x->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(x->names[mid], rel) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < x->n && strncmp(x->names[lo], rel, len) == 0; lo++)
		if (x->names[lo][len] == '/')
			return true;
	return false;
}

/* A licence text install put in LICENSES/<package>/: same bytes as the tree's. */
static int verify_licence(int rootfd, const struct fw_plan_entry *pe, struct fw_verify_result *res)
{
	struct hashed h;
	int r;

	if (pe->text->err)
		return add(res, "missing", pe->src, strdup(fw_text_problem(pe->text)));
	hash_installed(rootfd, pe->final, FW_COMP_NONE, NULL, &h);
	r = h.r;
	if (r == -ENOENT)
		return add(res, "missing", pe->final, NULL);
	if (r == -ELOOP || r == -ENOTDIR || r == -EXDEV)
		return add(res, "wrong type", pe->final, strdup("a symlink or a non-directory in its "
								 "path, or a symlink"));
	if (r < 0)
		return add(res, "wrong type", pe->final, strdup(h.isdir ? "a directory, expected a file" :
							       "not a readable regular file"));
	if (h.size != pe->size || memcmp(pe->sha256, h.dig, sizeof(h.dig)) != 0)
		return add(res, "modified", pe->final, fw_asprintf("differs from the tree's %s", pe->src));
	return 0;
}

static int walk_extra(const struct fw_plan *p, int dfd, const char *prefix,
		      const struct expect *x, struct fw_verify_result *res, int depth)
{
	char **names;
	size_t n;
	int r = fw_read_dir_sorted(dfd, &names, &n);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n && r == 0; i++) {
		char *rel;
		struct stat st;

		/* install's record: not firmware, not checked here. */
		if (!*prefix && !strcmp(names[i], FW_RECORD_DIR))
			continue;
		rel = *prefix ? fw_asprintf("%s/%s", prefix, names[i]) : strdup(names[i]);
		if (!rel) {
			r = -ENOMEM;
			break;
		}
		if (fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = add(res, "unexpected", rel, fw_asprintf("%s", strerror(errno)));
		} else if (fw_is_stale_tmp(dfd, names[i]) || !strcmp(names[i], FW_STAGE_MARK)) {
			/* Reported, not ignored: the last install did not
			 * finish, and its leftover (an old directory swapped
			 * out, a copy) takes space. One line for it, not one
			 * per file inside, saying what removes it. */
			r = add(res, "unexpected", rel,
				strdup("left by an interrupted install; the next install or uninstall "
				       "removes it"));
		} else if (fw_is_tmp_name(names[i])) {
			/* Named like ours but not marked (a directory, a
			 * FIFO): never removed by fwdist, so not ours to
			 * describe as such. */
			r = add(res, "unexpected", rel,
				strdup("named like fwdist's temporary files but not marked as fwdist's: "
				       "install and uninstall leave it alone"));
		} else if (S_ISDIR(st.st_mode)) {
			int sub = depth < 64 ? openat(dfd, names[i],
						      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;

			if (sub < 0) {
				r = add(res, "unexpected", rel, strdup("unreadable directory"));
			} else {
				char **in;
				size_t nin = 0;

				/* An empty directory no planned name explains is
				 * left over too (a failed install, a hand-made one). */
				if (fw_read_dir_sorted(sub, &in, &nin) == 0) {
					fw_free_strv(in, nin);
					if (nin == 0 && !(p ? fw_plan_find(p, rel) != NULL :
							      expected_below(x, rel)))
						r = add(res, "unexpected", rel, strdup("empty directory"));
				}
				if (r == 0)
					r = walk_extra(p, sub, rel, x, res, depth + 1);
				close(sub);
			}
		} else if (!expected(x, rel)) {
			r = add(res, "unexpected", rel, NULL);
		}
		free(rel);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return r;
}

/* fwdist's own directory: a symlink or a file there is a plant. */
static int verify_record_dir(int rootfd, struct fw_verify_result *res)
{
	struct stat st;

	if (fstatat(rootfd, FW_RECORD_DIR, &st, AT_SYMLINK_NOFOLLOW) < 0 || S_ISDIR(st.st_mode))
		return 0;
	return add(res, "wrong type", FW_RECORD_DIR,
		   strdup(S_ISLNK(st.st_mode) ? "a symlink, expected install's record directory" :
						"not a directory, expected install's record directory"));
}

/* ---- the names of the plan, on every core ---- */

struct vctx {
	int rootfd;
	struct vjob *jobs;   /* in the order of the report */
	size_t n;
	size_t *order;       /* the work order: largest first */
	size_t norder;
	struct known known;  /* the files the first stage hashed */
	struct fw_progress *progress; /* counted per name, or NULL */
};

/* What a name weighs in the progress: a file's or a text's bytes (a link
 * is nearly always the hash of a file already read). */
static uint64_t weight(const struct fw_plan_entry *pe)
{
	return pe->kind == FW_PLAN_FILE || pe->kind == FW_PLAN_LICENCE ? pe->size : 0;
}

static void count_done(struct vctx *c, const struct vjob *j)
{
	fw_progress_bytes(c->progress, weight(j->pe));
	fw_progress_files(c->progress, 1);
}

/* Largest first: the last item to start is then a small one, and no big
 * blob is left to hash on one core while the others idle. */
static int cmp_job_size(const void *a, const void *b, void *arg)
{
	const struct vjob *jobs = arg;
	size_t i = *(const size_t *)a, k = *(const size_t *)b;

	if (jobs[i].pe->size != jobs[k].pe->size)
		return jobs[i].pe->size < jobs[k].pe->size ? 1 : -1;
	return i < k ? -1 : 1;
}

static bool deferred(const struct vjob *j)
{
	return j->r == 0 && j->vname && j->via_link;
}

/* First stage: every check of every name, except the hashing of a variant
 * that is a symlink (a Link:, a dedup link), left to the second. */
static void verify_first(void *arg, size_t i)
{
	struct vctx *c = arg;
	struct vjob *j = &c->jobs[c->order[i]];
	const struct fw_plan_entry *pe = j->pe;

	if (pe->kind == FW_PLAN_LICENCE) {
		j->r = verify_licence(c->rootfd, pe, &j->out);
	} else if (!pe->blob) {
		j->r = verify_dir_link(c->rootfd, pe, &j->out);
	} else {
		j->r = examine(c->rootfd, pe->kind == FW_PLAN_LINK && pe->link, j);
		if (j->r == 0 && j->vname && !j->via_link) {
			hash_installed(c->rootfd, j->vname, j->comp, NULL, &j->h);
			j->r = judge(j);
		}
	}
	if (!deferred(j))
		count_done(c, j);
}

/* Second stage: a symlink's content, which is nearly always a file the
 * first stage hashed (the blob it links to): its result is taken. */
static void verify_second(void *arg, size_t i)
{
	struct vctx *c = arg;
	struct vjob *j = &c->jobs[c->order[i]];

	hash_installed(c->rootfd, j->vname, j->comp, &c->known, &j->h);
	j->r = judge(j);
	count_done(c, j);
}

static int verify_all(struct vctx *c, unsigned jobs)
{
	size_t nk = 0, n2 = 0;
	uint64_t bytes = 0;

	for (size_t i = 0; i < c->n; i++) {
		c->order[i] = i;
		bytes += weight(c->jobs[i].pe);
	}
	fw_progress_total(c->progress, c->n, bytes);
	qsort_r(c->order, c->n, sizeof(*c->order), cmp_job_size, c->jobs);
	fw_parallel_for(c->n, jobs, verify_first, c);
	for (size_t i = 0; i < c->n; i++)
		nk += c->jobs[i].h.have_id && !c->jobs[i].via_link;
	c->known.v = malloc((nk + 1) * sizeof(*c->known.v));
	if (!c->known.v)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++)
		if (c->jobs[i].h.have_id && !c->jobs[i].via_link)
			c->known.v[c->known.n++] = &c->jobs[i].h;
	qsort(c->known.v, c->known.n, sizeof(*c->known.v), cmp_hashed_ptr);
	/* The second stage's work, still largest first. */
	for (size_t i = 0; i < c->n; i++)
		if (deferred(&c->jobs[c->order[i]]))
			c->order[n2++] = c->order[i];
	fw_parallel_for(n2, jobs, verify_second, c);
	return 0;
}

/* Each name's problem into res, in the plan's order; the first error
 * stops it, as it stopped the loop of one thread. */
static int collect(struct vctx *c, struct fw_verify_result *res)
{
	for (size_t i = 0; i < c->n; i++) {
		struct vjob *j = &c->jobs[i];

		if (j->r < 0)
			return j->r;
		for (size_t m = 0; m < j->out.n; m++) {
			if (fw_grow(&res->v, &res->cap, res->n, sizeof(*res->v)) < 0)
				return -ENOMEM;
			res->v[res->n++] = j->out.v[m];
			j->out.v[m] = (struct fw_verify_problem){ 0 };
		}
	}
	return 0;
}

int fw_verify(const struct fw_plan *p, int rootfd, const struct fw_verify_opts *o,
	      struct fw_verify_result *res)
{
	struct expect x = { 0 };
	struct vctx c = { .rootfd = rootfd, .progress = o->progress };
	int r;

	memset(res, 0, sizeof(*res));
	x.names = calloc(p->n + 1, sizeof(*x.names));
	c.jobs = calloc(p->n + 1, sizeof(*c.jobs));
	c.order = calloc(p->n + 1, sizeof(*c.order));
	if (!x.names || !c.jobs || !c.order) {
		r = -ENOMEM;
		goto out;
	}
	r = verify_record_dir(rootfd, res);
	/* Blobs, links, then licence texts: the order of the report. */
	for (size_t k = 0; k < 3 * p->n; k++) {
		const struct fw_plan_entry *pe = &p->v[k % p->n];
		int pass = pe->kind == FW_PLAN_FILE ? 0 : pe->kind == FW_PLAN_LINK ? 1 : 2;

		if (pe->kind == FW_PLAN_DIR || (size_t)pass != k / p->n)
			continue;
		x.names[x.n++] = (char *)pe->name;
		c.jobs[c.n++].pe = pe;
	}
	if (r == 0)
		r = verify_all(&c, o->jobs);
	if (r == 0)
		r = collect(&c, res);
	res->checked = c.n;
	if (r == 0 && !o->ignore_extra) {
		if (x.n > 1)
			qsort(x.names, x.n, sizeof(*x.names), fw_strcmp_ptr);
		r = walk_extra(p, rootfd, "", &x, res, 0);
	}
out:
	for (size_t i = 0; c.jobs && i < c.n; i++) {
		free(c.jobs[i].vname);
		fw_verify_result_free(&c.jobs[i].out);
	}
	free(c.jobs);
	free(c.order);
	free(c.known.v);
	free(x.names);
	return r;
}

/* ---- from the install records, with no tree ---- */

struct rjob {
	const struct fw_record *rec;
	const struct fw_rec_entry *e;
	struct fw_verify_result out;
	int r;
};

struct rctx {
	int fwfd;
	struct rjob *jobs;
	struct fw_progress *progress;
};

static char *where(const struct rjob *j)
{
	return fw_asprintf("%s/%s.list:%u", FW_RECORD_DIR, j->rec->package, j->e->line);
}

/* A recorded file or licence text: a regular file at exactly its recorded
 * name (never through a symlink), whose content as recorded (decompressed
 * as the record says) has the recorded digest and size. */
static int verify_rec_file(int fwfd, struct rjob *j)
{
	const struct fw_rec_entry *e = j->e;
	enum fw_compress comp = e->type == FW_REC_FILE ? e->comp : FW_COMP_NONE;
	uint8_t dig[FW_SHA256_LEN];
	uint64_t size = 0;
	unsigned flags = 0;
	const char *leaf;
	struct stat st;
	int pfd = fw_open_parent(fwfd, e->name, 0, &leaf), fd, r;

	if (pfd == -ENOENT)
		return add(&j->out, "missing", e->name, NULL);
	if (pfd < 0)
		return add(&j->out, "wrong type", e->name,
			   fw_asprintf("%s in its path", pfd == -ELOOP ? "a symlink" : strerror(-pfd)));
	fd = openat(pfd, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		r = errno == ENOENT ? add(&j->out, "missing", e->name, NULL) :
		    errno == ELOOP  ? add(&j->out, "wrong type", e->name,
					  strdup("a symlink, recorded as a file")) :
				      add(&j->out, "modified", e->name,
					  fw_asprintf("cannot read: %s", strerror(errno)));
	} else if (fstat(fd, &st) < 0) {
		r = add(&j->out, "modified", e->name, fw_asprintf("cannot read: %s", strerror(errno)));
	} else if (!S_ISREG(st.st_mode)) {
		r = add(&j->out, "wrong type", e->name,
			strdup(S_ISDIR(st.st_mode) ? "a directory, recorded as a file" :
						     "not a regular file, recorded as one"));
	} else if ((r = fw_digest_decompress(fd, comp, dig, &size, &flags)) < 0) {
		r = add(&j->out, "modified", e->name,
			r == -EBADMSG ? strdup("corrupt compressed data") :
					fw_asprintf("cannot read: %s", strerror(-r)));
	} else if (size != e->size || memcmp(dig, e->sha256, sizeof(dig)) != 0) {
		char want[FW_SHA256_HEX + 1], got[FW_SHA256_HEX + 1], *at = where(j);

		fw_sha256_hex(e->sha256, want);
		fw_sha256_hex(dig, got);
		r = add(&j->out, "modified", e->name,
			fw_asprintf("SHA-256 %s (%llu bytes), recorded %s (%llu bytes) at %s", got,
				    (unsigned long long)size, want, (unsigned long long)e->size,
				    at ? at : "?"));
		free(at);
	} else if (kernel_flag_problem(flags)) {
		r = add(&j->out, "kernel", e->name, strdup(kernel_flag_problem(flags)));
	}
	if (fd >= 0)
		close(fd);
	if (pfd != fwfd)
		close(pfd);
	return r;
}

/* A recorded link: a symlink with the recorded text, reaching something
 * inside the firmware directory. */
static int verify_rec_link(int fwfd, struct rjob *j)
{
	const struct fw_rec_entry *e = j->e;
	enum fw_rec_state s = fw_rec_entry_state(fwfd, e);
	int fd;

	switch (s) {
	case FW_REC_SAME:
		break;
	case FW_REC_GONE:
		return add(&j->out, "missing", e->name, NULL);
	case FW_REC_CHANGED:
		return add(&j->out, "modified", e->name,
			   fw_asprintf("a symlink, recorded as one to %s", e->target));
	case FW_REC_OTHER_TYPE:
		return add(&j->out, "wrong type", e->name, strdup("expected a symlink"));
	case FW_REC_BLOCKED:
		return add(&j->out, "wrong type", e->name,
			   strdup("a symlink or a non-directory in its path"));
	}
	fd = fw_open_resolve(fwfd, e->name, O_RDONLY | O_NONBLOCK);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return add(&j->out, "wrong type", e->name,
		   strdup(fd == -ENOENT ? "dangling symlink" :
			  fd == -EXDEV ? "symlink leading outside the root" :
					 "symlink loop or symlink in its path"));
}

static void verify_rec_one(void *arg, size_t i)
{
	struct rctx *c = arg;
	struct rjob *j = &c->jobs[i];

	j->r = j->e->type == FW_REC_LINK ? verify_rec_link(c->fwfd, j) : verify_rec_file(c->fwfd, j);
	fw_progress_bytes(c->progress, j->e->type == FW_REC_LINK ? 0 : j->e->size);
	fw_progress_files(c->progress, 1);
}

int fw_verify_records(const struct fw_records *rs, int fwfd, const struct fw_dpkg *dpkg,
		      const bool *only, const struct fw_verify_opts *o, struct fw_verify_result *res)
{
	struct expect x = { .exact = true, .dpkg = dpkg };
	struct rctx c = { .fwfd = fwfd, .progress = o->progress };
	size_t total = 0, nj = 0;
	uint64_t bytes = 0;
	int r;

	memset(res, 0, sizeof(*res));
	for (size_t i = 0; i < rs->n; i++)
		total += rs->v[i].n;
	x.names = calloc(total + 1, sizeof(*x.names));
	c.jobs = calloc(total + 1, sizeof(*c.jobs));
	if (!x.names || !c.jobs) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < rs->n; i++)
		for (size_t k = 0; k < rs->v[i].n; k++) {
			const struct fw_rec_entry *e = &rs->v[i].v[k];

			/* Every record's names are expected; only the chosen
			 * packages' are checked. */
			x.names[x.n++] = e->name;
			if ((only && !only[i]) || (o->no_licences && e->type == FW_REC_LICENCE))
				continue;
			c.jobs[nj].rec = &rs->v[i];
			c.jobs[nj++].e = e;
			bytes += e->type == FW_REC_LINK ? 0 : e->size;
		}
	r = verify_record_dir(fwfd, res);
	fw_progress_total(c.progress, nj, bytes);
	if (r == 0)
		fw_parallel_for(nj, o->jobs, verify_rec_one, &c);
	for (size_t i = 0; i < nj && r == 0; i++) {
		struct rjob *j = &c.jobs[i];

		r = j->r;
		for (size_t m = 0; m < j->out.n && r == 0; m++) {
			if (fw_grow(&res->v, &res->cap, res->n, sizeof(*res->v)) < 0) {
				r = -ENOMEM;
				break;
			}
			res->v[res->n++] = j->out.v[m];
			j->out.v[m] = (struct fw_verify_problem){ 0 };
		}
	}
	res->checked = nj;
	if (r == 0 && !o->ignore_extra && !only) {
		if (x.n > 1)
			qsort(x.names, x.n, sizeof(*x.names), fw_strcmp_ptr);
		r = walk_extra(NULL, fwfd, "", &x, res, 0);
	}
out:
	for (size_t i = 0; c.jobs && i < nj; i++)
		fw_verify_result_free(&c.jobs[i].out);
	free(c.jobs);
	free(x.names);
	return r;
}

void fw_verify_result_free(struct fw_verify_result *res)
{
	for (size_t i = 0; i < res->n; i++) {
		free(res->v[i].name);
		free(res->v[i].detail);
	}
	free(res->v);
	memset(res, 0, sizeof(*res));
}

static bool recorded_any(const struct fw_records *rs, const char *name)
{
	char buf[4096];

	if (fw_records_find(rs, name, NULL))
		return true;
	for (size_t i = 0; i < 2; i++) {
		snprintf(buf, sizeof(buf), "%s%s", name, i ? ".zst" : ".xz");
		if (fw_records_find(rs, buf, NULL))
			return true;
	}
	return false;
}

int fw_verify_against_records(const struct fw_plan *p, int fwfd, struct fw_verify_result *res,
			      struct fw_verify_subset *a)
{
	struct fw_records rs = { 0 };
	struct fw_diag d = { 0 };
	size_t w = 0;
	int r = fw_records_load(fwfd, &rs, &d);

	fw_diag_free(&d);
	if (r < 0 || !rs.n || rs.damaged || rs.foreign) {
		fw_records_free(&rs);
		return r == -ENOMEM ? r : 0;
	}
	for (size_t i = 0; i < res->n; i++) {
		struct fw_verify_problem *v = &res->v[i];
		const struct fw_plan_entry *pe = NULL;
		bool keep = true;

		if (!strcmp(v->kind, "missing")) {
			pe = fw_plan_find_name(p, v->name);
			if (!pe)
				pe = fw_plan_find(p, v->name);
			const struct fw_record *pr =
				pe && pe->pkg >= 0 ? fw_records_get(&rs, p->t->split.pkgs[pe->pkg].name)
						   : NULL;

			if (pe && pe->pkg >= 0 && !(pr && pr->incomplete) &&
			    !recorded_any(&rs, v->name)) {
				keep = false;
				a->subset++;
				if (!fw_records_get(&rs, p->t->split.pkgs[pe->pkg].name))
					a->subset_pkg++;
			}
		}
		if (keep) {
			res->v[w++] = *v;
		} else {
			free(v->name);
			free(v->detail);
		}
	}
	res->n = w;
	fw_records_free(&rs);
	return 0;
}
