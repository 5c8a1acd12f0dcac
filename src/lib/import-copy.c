/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist import: copying blobs (hashed as they are copied, or hard-linked) and Source: directories. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "import-int.h"
#include "progress.h"
#include "util.h"

struct pool {
	struct job *jobs;
	int srcfd, fwfd;
	bool link;
	struct fw_progress *progress; /* blobs counted per chunk, or NULL */
};

static int copy_one(struct pool *p, struct job *j)
{
	char buf[1 << 17];
	struct fw_sha256 h;
	const char *leaf;
	int in, out = -1, pfd, r;
	struct stat st;
	bool linked = false;

	in = fw_open_resolve(p->srcfd, j->name, O_RDONLY | O_NONBLOCK);
	if (in < 0)
		return in;
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(in);
		return -EINVAL;
	}
	pfd = fw_open_parent(p->fwfd, j->name, 1, &leaf);
	if (pfd < 0) {
		close(in);
		return pfd;
	}
	if (p->link) {
		char proc[64];

		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", in);
		linked = linkat(AT_FDCWD, proc, pfd, leaf, AT_SYMLINK_FOLLOW) == 0;
	}
	if (!linked) {
		out = openat(pfd, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (out < 0) {
			r = -errno;
			goto done;
		}
	}
	r = fw_sha256_init(&h);
	if (r < 0)
		goto done;
	j->size = 0;
	for (;;) {
		ssize_t got = read(in, buf, sizeof(buf));

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -errno;
			break;
		}
		if (got == 0)
			break;
		j->size += (uint64_t)got;
		fw_progress_bytes(p->progress, (uint64_t)got);
		r = fw_sha256_update(&h, buf, (size_t)got);
		if (r == 0 && out >= 0)
			r = fw_write_all(out, buf, (size_t)got);
		if (r < 0)
			break;
	}
	if (r == 0)
		r = fw_sha256_final(&h, j->sha256);
	fw_sha256_free(&h);
	if (r == 0 && out >= 0 && fchmod(out, 0644) < 0)
		r = -errno;
	j->linked = linked;
done:
	if (out >= 0)
		close(out);
	if (pfd != p->fwfd)
		close(pfd);
	close(in);
	return r;
}

static void copy_job(void *arg, size_t i)
{
	struct pool *p = arg;

	p->jobs[i].err = copy_one(p, &p->jobs[i]);
	fw_progress_files(p->progress, 1);
}

static bool listed_blob(const struct fw_tree *t, const char *dir, const char *leaf)
{
	char *name = fw_asprintf("%s/%s", dir, leaf);
	const struct fw_name *x = name ? fw_tree_find(t, name) : NULL;

	free(name);
	return x && x->blob >= 0;
}

/* A Source: directory: its regular files and subdirectories, nothing followed. */
static int copy_dir(int from, int to, const char *rel, struct imp *im, const struct fw_tree *t)
{
	char **names;
	size_t n;
	int r = fw_read_dir_sorted(from, &names, &n);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n && r == 0; i++) {
		struct stat st;

		if (fstatat(from, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = -errno;
		} else if (S_ISDIR(st.st_mode)) {
			int a = openat(from, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), b;
			char *sub = fw_asprintf("%s/%s", rel, names[i]);

			r = fw_mkdirat(to, names[i], 0755);
			if (r == -EEXIST)
				r = 0;
			b = openat(to, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (a < 0 || b < 0 || !sub)
				r = r ? r : -EIO;
			if (r == 0)
				r = copy_dir(a, b, sub, im, t);
			if (a >= 0)
				close(a);
			if (b >= 0)
				close(b);
			/* Nothing in it was copied (only blobs that do not
			 * ship): no empty directory, which git would drop. */
			if (r == 0 && unlinkat(to, names[i], AT_REMOVEDIR) < 0 && errno != ENOTEMPTY &&
			    errno != EEXIST)
				r = -errno;
			free(sub);
		} else if (S_ISREG(st.st_mode) && listed_blob(t, rel, names[i])) {
			continue; /* a blob: copied as one when it ships, else never */
		} else if (S_ISREG(st.st_mode)) {
			int a = openat(from, names[i], O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
			int b = openat(to, names[i], O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				       0644);
			char buf[1 << 16];
			ssize_t got;

			if (b < 0 && errno == EEXIST) {
				/* Copied already, as a blob listed inside the source directory. */
				if (a >= 0)
					close(a);
				continue;
			}
			if (a < 0 || b < 0)
				r = -errno;
			while (r == 0 && (got = read(a, buf, sizeof(buf))) != 0) {
				if (got < 0 && errno == EINTR)
					continue;
				r = got < 0 ? -errno : fw_write_all(b, buf, (size_t)got);
			}
			if (r == 0 && fchmod(b, 0644) < 0)
				r = -errno;
			if (a >= 0)
				close(a);
			if (b >= 0)
				close(b);
		} else {
			r = imp_strv_take(&im->rep->notes,
				      fw_asprintf("Source: %s/%s: not a regular file, not copied",
						  fw_esc(rel), fw_esc(names[i])));
		}
	}
	fw_free_strv(names, n);
	return r;
}

/* Copy the blobs of jobs into fwfd (the stage's firmware/), each hashed as
 * it is copied, on two workers; the totals to the report. */
int imp_copy_blobs(struct imp *im, struct job *jobs, size_t njobs, int fwfd)
{
	struct pool p = { .jobs = jobs, .srcfd = im->srcfd, .fwfd = fwfd, .link = im->o->link,
			  .progress = im->o->progress };
	struct fw_import_report *rep = im->rep;
	uint64_t bytes = 0;

	/* Directories first, so the workers never race to make one. */
	for (size_t i = 0; i < njobs; i++) {
		const char *leaf;
		int pfd = fw_open_parent(fwfd, jobs[i].name, 1, &leaf);

		if (pfd >= 0 && pfd != fwfd)
			close(pfd);
		/* The total for the progress: the size each copy will read
		 * (opened as copy_one opens it: nothing outside SRC). */
		if (p.progress) {
			int fd = fw_open_resolve(im->srcfd, jobs[i].name, O_RDONLY | O_NONBLOCK);
			struct stat st;

			if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
				bytes += (uint64_t)st.st_size;
			if (fd >= 0)
				close(fd);
		}
	}
	fw_progress_total(p.progress, njobs, bytes);
	/* Two workers, as import has always run (it has no --jobs). */
	fw_parallel_for(njobs, 2, copy_job, &p);
	for (size_t i = 0; i < njobs; i++) {
		if (jobs[i].err) {
			fw_diag_add(im->d, im->o->src, 0, "%s: cannot copy: %s", fw_esc(jobs[i].name),
				    strerror(-jobs[i].err));
			return jobs[i].err;
		}
		rep->copied++;
		rep->linked += jobs[i].linked;
		rep->bytes += jobs[i].size;
	}
	return 0;
}

/* Copy every Source: found in SRC (a file, or a directory of them) into
 * fwfd; blobs listed inside a source directory are the model's (t). */
int imp_copy_sources(struct imp *im, const struct fw_tree *t, int fwfd)
{
	int r = 0;

	for (size_t i = 0; i < im->w.nentries; i++) {
		const struct fw_whence_entry *e = &im->w.entries[i];
		int from, pfd, to;
		const char *leaf;
		struct stat st;

		if (e->kind != FW_E_SOURCE || !im->named[i])
			continue;
		if (fstatat(fwfd, e->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
			continue; /* named twice, or a blob too */
		from = fw_open_resolve(im->srcfd, e->name, O_RDONLY | O_NONBLOCK);
		if (from < 0 || fstat(from, &st) < 0)
			return from < 0 ? from : -errno;
		im->rep->sources++;
		pfd = fw_open_parent(fwfd, e->name, 1, &leaf);
		if (pfd < 0) {
			close(from);
			return pfd;
		}
		if (S_ISDIR(st.st_mode)) {
			/* It may exist already: blobs can live in it (cis/). */
			r = fw_mkdirat(pfd, leaf, 0755);
			if (r == -EEXIST)
				r = 0;
			to = r == 0 ? openat(pfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
			if (to >= 0) {
				r = copy_dir(from, to, e->name, im, t);
				close(to);
			}
			close(from);
			/* A directory of blobs alone (linux-firmware's cis/, whose
			 * blobs are refused for want of their source) is no source:
			 * not left behind empty, and said so. */
			if (r == 0 && unlinkat(pfd, leaf, AT_REMOVEDIR) == 0) {
				im->rep->sources--;
				r = imp_strv_take(&im->rep->notes,
						  fw_asprintf("Source: %s: nothing but blobs that do not ship; not copied",
							      fw_esc(e->name)));
			} else if (r == 0 && errno != ENOTEMPTY && errno != EEXIST) {
				r = -errno;
			}
		} else {
			struct pool p = { .srcfd = im->srcfd, .fwfd = fwfd };
			struct job sj = { .name = e->name };

			close(from);
			r = copy_one(&p, &sj);
		}
		if (pfd != fwfd)
			close(pfd);
		if (r < 0) {
			fw_diag_add(im->d, im->o->src, 0, "Source: %s: cannot copy: %s", fw_esc(e->name),
				    strerror(-r));
			return r;
		}
	}
	return 0;
}
