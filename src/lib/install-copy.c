/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Install's verified copies: the workers, their order, batches written back and renamed together. */
#include "install-int.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "membudget.h"
#include "util.h"

/* Where a copy reads from: the tree's firmware/ or, for a text, its root. */
static int open_src(const struct ctx *c, const struct item *it)
{
	return fw_open_beneath(inst_is_licence(it) ? c->t->rootfd : c->t->fwfd, it->pe->src,
			       O_RDONLY | O_NONBLOCK, 0);
}

static const char *src_prefix(const struct item *it)
{
	return inst_is_licence(it) ? "" : "firmware/";
}

/* Copies written and verified, not yet in place: one syncfs writes back
 * the batch (and anything else pending), then each is renamed to its final
 * name, durable before visible. Bounded: at most BATCH_BYTES of temporary
 * files beside the old ones per worker (the extra space an upgrade needs),
 * and a directory descriptor an entry (c->batch_max keeps all workers'
 * under 256). */
#define BATCH_MAX 128
#define BATCH_BYTES (64u << 20)

struct batch {
	size_t n;
	uint64_t bytes;
	struct {
		struct item *it;
		int pfd;
		const char *leaf; /* in it->dest */
		char tmp[320];
	} v[BATCH_MAX];
};

static void commit_batch(struct ctx *c, struct batch *b)
{
	int err = 0;

	/* A package's build tree (--packaged) is not what a system boots
	 * from: dpkg makes the files durable when it unpacks them. */
	if (b->n && !c->o->packaged && syncfs(c->destfd) < 0)
		err = -errno;
	for (size_t k = 0; k < b->n; k++) {
		struct item *it = b->v[k].it;
		int pfd = b->v[k].pfd, r = err;

		if (r == 0)
			r = inst_replace(pfd, b->v[k].tmp, b->v[k].leaf, it->exchange, c->d, &c->lock,
					 it->pe->final, &it->seen[it->pe->comp]);
		if (r < 0) {
			unlinkat(pfd, b->v[k].tmp, 0);
			inst_fail(it, "%s: %s; not installed", fw_esc(it->pe->final),
				  inst_replace_error(r));
		} else {
			/* The old variants (NAME when NAME.xz was installed) go
			 * only after the links: an old link may still point at
			 * them (see fw_install). */
			inst_changed(c);
			it->ok = 1;
		}
		if (pfd != c->destfd)
			close(pfd);
	}
	b->n = 0;
	b->bytes = 0;
}

/* Queue a written copy (its temporary name in pfd, which the batch now
 * owns); the worker commits a full batch (batch_full). */
static void batch_add(struct batch *b, struct item *it, int pfd, const char *leaf, const char *tmp)
{
	b->v[b->n].it = it;
	b->v[b->n].pfd = pfd;
	b->v[b->n].leaf = leaf;
	snprintf(b->v[b->n].tmp, sizeof(b->v[b->n].tmp), "%s", tmp);
	b->n++;
	b->bytes += it->out;
}

static bool batch_full(const struct ctx *c, const struct batch *b)
{
	return b->n >= c->batch_max || b->bytes >= BATCH_BYTES;
}

static void do_copy(struct ctx *c, struct item *it, struct batch *b)
{
	const struct fw_plan_entry *pe = it->pe;
	const char *leaf;
	char tmp[320], want[FW_SHA256_HEX + 1], got[FW_SHA256_HEX + 1];
	uint8_t dig[FW_SHA256_LEN];
	struct stat st;
	int src, pfd, fd, r;

	if (pe->kind == FW_PLAN_LICENCE && pe->text->err) {
		inst_fail(it, "%s; not installed", fw_text_problem(pe->text));
		return;
	}
	/* Unchanged since the last install (the record says so and the bytes
	 * in place hash to it): nothing to write. Reading back is cheaper than
	 * compressing again, and a modified file is still repaired. */
	if (it->recorded_same && !it->exchange && strcmp(it->dest, pe->final) == 0) {
		unsigned flags = 0;

		pfd = fw_open_parent(c->destfd, pe->final, 0, &leaf);
		fd = pfd < 0 ? -1 : openat(pfd, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		r = fd >= 0 && fw_fd_holds(fd, pe->comp, pe->sha256, pe->size, &flags) ? 0 : -1;
		if (fd >= 0)
			close(fd);
		if (pfd >= 0 && pfd != c->destfd)
			close(pfd);
		/* The tree's copy must still have the plan's size: a blob
		 * truncated or grown since is refused below, not skipped. */
		src = open_src(c, it);
		if (src < 0 || fstat(src, &st) < 0 || (uint64_t)st.st_size != pe->size)
			r = -1;
		if (src >= 0)
			close(src);
		if (r == 0 && flags == 0) {
			it->ok = 1;
			it->unchanged = true;
			return;
		}
	}
	src = open_src(c, it);
	if (src < 0) {
		inst_fail(it, "%s%s: %s; not installed", src_prefix(it), fw_esc(pe->src),
			  src == -ELOOP ? "is a symlink" : strerror(-src));
		return;
	}
	if (fstat(src, &st) < 0 || !S_ISREG(st.st_mode)) {
		inst_fail(it, "%s%s: not a regular file; not installed", src_prefix(it), fw_esc(pe->src));
		close(src);
		return;
	}
	pfd = fw_open_parent(c->destfd, it->dest, 1, &leaf);
	if (pfd < 0) {
		inst_fail(it, "%s: %s", fw_esc(pe->final), inst_parent_error(pfd));
		close(src);
		return;
	}
	fd = fw_tmp_create(pfd, leaf, tmp, sizeof(tmp));
	if (fd < 0) {
		inst_fail(it, "%s: cannot create a temporary file: %s", fw_esc(pe->final), strerror(-fd));
		goto out;
	}
	r = fw_copy_compress_counted(src, fd, pe->comp, pe->size, dig, &it->in, c->o->progress);
	if (r == -ESTALE) {
		inst_fail(it, "%s%s: size differs from the manifest's %llu bytes; not installed",
			  src_prefix(it), fw_esc(pe->src), (unsigned long long)pe->size);
	} else if (r < 0) {
		inst_fail(it, "%s: %s; not installed", fw_esc(pe->final), strerror(-r));
	} else if (memcmp(dig, pe->sha256, sizeof(dig)) != 0) {
		fw_sha256_hex(pe->sha256, want);
		fw_sha256_hex(dig, got);
		inst_fail(it, "%s%s: SHA-256 mismatch: manifest %s, file %s; not installed",
			  src_prefix(it), fw_esc(pe->src), want, got);
	}
	if (it->err) {
		/* Verify before replace: a bad copy never reaches the final name. */
		unlinkat(pfd, tmp, 0);
		close(fd);
		goto out;
	}
	if (fstat(fd, &st) == 0)
		it->out = (uint64_t)st.st_size;
	if (fchmod(fd, 0644) < 0) {
		inst_fail(it, "%s: %s; not installed", fw_esc(pe->final), strerror(errno));
		unlinkat(pfd, tmp, 0);
		close(fd);
		goto out;
	}
	/* Start the write-back now, so that it overlaps the next copies and
	 * the batch's syncfs finds the data (mostly) on disk already. */
	if (!c->o->packaged)
		sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
	close(fd);
	close(src);
	batch_add(b, it, pfd, leaf, tmp); /* takes pfd */
	return;
out:
	if (pfd != c->destfd)
		close(pfd);
	close(src);
}

/* If dest is a symlink (a dedup link of an earlier install) that this
 * install will replace by something else, replace it first by a copy of
 * the bytes it leads to now. Otherwise it would serve another blob's new
 * content as soon as that blob is replaced, and keep serving it if its own
 * copy fails or the install is killed: neither its old nor its new
 * content. Best effort: a symlink that leads nowhere valid is left be. */
void inst_materialize(int destfd, struct item *it)
{
	struct fw_ident *seen = &it->seen[it->pe->comp];
	const char *leaf;
	char tmp[320];
	uint8_t dig[FW_SHA256_LEN];
	struct stat st;
	int pfd, src = -1, fd;

	pfd = fw_open_parent(destfd, it->dest, 0, &leaf);
	if (pfd < 0)
		return;
	/* Only the link the preflight checked: another writer's is left to
	 * the final step, which keeps it. */
	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode) ||
	    !fw_ident_same(seen, &st))
		goto out;
	if (it->pe->kind == FW_PLAN_LINK && fw_symlink_is(pfd, leaf, it->pe->target))
		goto out; /* stays as it is */
	src = fw_open_resolve(destfd, it->dest, O_RDONLY | O_NONBLOCK);
	if (src < 0 || fstat(src, &st) < 0 || !S_ISREG(st.st_mode))
		goto out;
	fd = fw_tmp_create(pfd, leaf, tmp, sizeof(tmp));
	if (fd < 0)
		goto out;
	if (fw_copy_compress(src, fd, FW_COMP_NONE, (uint64_t)st.st_size, dig, NULL) < 0 ||
	    fchmod(fd, 0644) < 0 || fsync(fd) < 0 || fstat(fd, &st) < 0 ||
	    inst_replace(pfd, tmp, leaf, false, NULL, NULL, it->pe->final, seen) < 0) {
		unlinkat(pfd, tmp, 0);
	} else {
		/* The copy is what stands there now, made by this install. */
		fw_ident_of(seen, &st);
		fsync(pfd);
	}
	close(fd);
out:
	if (src >= 0)
		close(src);
	if (pfd != destfd)
		close(pfd);
}

static void *worker(void *arg)
{
	struct ctx *c = arg;
	struct batch b = { .n = 0 };

	for (;;) {
		size_t k = atomic_fetch_add(&c->next, 1), i;
		uint64_t need;

		if (k >= c->ncopies)
			break;
		i = c->order ? c->order[k] : k;
		if (!c->items[i].err && !c->items[i].dpkg) {
			need = fw_compress_memusage(c->items[i].pe->comp, c->items[i].pe->size);
			fw_mem_acquire(need);
			do_copy(c, &c->items[i], &b);
			fw_mem_release(need);
			if (batch_full(c, &b))
				commit_batch(c, &b);
		}
		/* The copy counted the chunks it read; what it did not read
		 * (unchanged, failed early) is done too. */
		if (c->items[i].in < c->items[i].pe->size)
			fw_progress_bytes(c->o->progress, c->items[i].pe->size - c->items[i].in);
		fw_progress_files(c->o->progress, 1);
	}
	commit_batch(c, &b);
	return NULL;
}

static int cmp_larger(const void *a, const void *b, void *arg)
{
	const struct item *v = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t sx = v[x].pe->size, sy = v[y].pe->size;

	if (sx != sy)
		return sx > sy ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The largest copies first: compressing costs about its size, and a large
 * blob taken last would end the install on one core while the others
 * idle. Only the workers' order changes: items, links, the record and
 * every message keep the plan's. Without memory, the plan's order. */
void inst_order_copies(struct ctx *c)
{
	c->order = malloc((c->ncopies + 1) * sizeof(*c->order));
	if (!c->order)
		return;
	for (size_t i = 0; i < c->ncopies; i++)
		c->order[i] = i;
	qsort_r(c->order, c->ncopies, sizeof(*c->order), cmp_larger, c->items);
}

void inst_run_workers(struct ctx *c)
{
	unsigned jobs = fw_jobs(c->o->jobs);

	if (jobs > c->ncopies)
		jobs = c->ncopies ? (unsigned)c->ncopies : 1;
	/* The budget counts what the running encoders need; for the process
	 * to hold no more, their buffers must go back to the system when
	 * freed. glibc's mmap threshold grows to 32 MiB as large blocks are
	 * freed, and then they come from per-thread arenas, which keep them:
	 * each thread's high-water mark stays. That is bounded by the budget
	 * only while the workers' encoders all fit in it; otherwise (xz with
	 * --jobs 64 and --memory-limit 1, one encoder at a time, held 863 MB)
	 * a fixed threshold maps each large buffer alone and unmaps it on
	 * free, at the cost of faulting it in anew for each blob (5% more
	 * time with xz, which is why it is not always set). */
	if (c->p->o.comp != FW_COMP_NONE && (uint64_t)jobs * FW_COMPRESS_MEM_MAX > fw_mem_limit())
		mallopt(M_MMAP_THRESHOLD, 1 << 20);
	c->batch_max = 256 / jobs;
	if (c->batch_max > BATCH_MAX)
		c->batch_max = BATCH_MAX;
	if (c->batch_max == 0)
		c->batch_max = 1;
	fw_parallel_run(jobs, worker, c);
}
