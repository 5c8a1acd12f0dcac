/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist import: where the tree goes (DIR, what stands there) and the switch into it, under a journal. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "import-int.h"
#include "manifest.h"
#include "sums.h"
#include "util.h"

/* The parts of an fwdist tree: what an import replaces in a checkout of
 * the repository (src/, debian/, tests/, .git and a user's notes stay). */
static const char *const tree_parts[] = {
	FW_TREE_WHENCE, FW_TREE_FIRMWARE, "manifests", FW_TREE_LICENSES,
};

/* Refuse DIR equal to SRC, inside it or holding it, by device and inode
 * walking up from each (a string compare misses symlinks, bind mounts,
 * "a/../b"): the import would replace the tree it reads, or a tree
 * holding it, and the old parts it removes would be SRC's own. */
static bool chain_has(int fd, const struct stat *want)
{
	int cur = dup(fd);

	for (int depth = 0; cur >= 0 && depth < 4096; depth++) {
		struct stat st, up;
		int next;

		if (fstat(cur, &st) < 0)
			break;
		if (st.st_dev == want->st_dev && st.st_ino == want->st_ino) {
			close(cur);
			return true;
		}
		next = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (next < 0 || fstat(next, &up) < 0 ||
		    (up.st_dev == st.st_dev && up.st_ino == st.st_ino)) {
			if (next >= 0)
				close(next);
			break; /* the root */
		}
		close(cur);
		cur = next;
	}
	if (cur >= 0)
		close(cur);
	return false;
}

int imp_refuse_overlap(struct imp *im)
{
	int srcroot = im->rootfd >= 0 ? im->rootfd : im->srcfd;
	struct stat src, dir;
	bool have_dir = fstatat(im->parentfd, im->leaf, &dir, 0) == 0;
	const char *why = NULL;

	if (fstat(srcroot, &src) < 0)
		return -errno;
	if (have_dir && dir.st_dev == src.st_dev && dir.st_ino == src.st_ino)
		why = "is SRC";
	else if (chain_has(im->parentfd, &src))
		why = "is inside SRC";
	else if (have_dir && S_ISDIR(dir.st_mode) && chain_has(srcroot, &dir))
		why = "is an ancestor of SRC";
	if (!why)
		return 0;
	fw_diag_add(im->d, im->o->into, 0, "%s (%s): refusing to import a tree into itself", why,
		    im->o->src);
	return -EINVAL;
}

/* An fwdist tree: WHENCE and manifests/checksums are regular files their
 * parsers read without an error. A checkout of this repository is one, a
 * previous import is one; a linux-firmware checkout (no manifests/) or
 * any other directory is not, and is never replaced unless --adopt. */
static bool is_fwdist_tree(int dirfd)
{
	struct fw_diag d = { 0 };
	struct fw_whence w = { 0 };
	struct fw_sums s = { 0 };
	char *buf = NULL;
	size_t len;
	bool ok = false;

	if (fw_read_text(dirfd, FW_TREE_WHENCE, &buf, &len) == 0 &&
	    fw_whence_parse(&w, FW_TREE_WHENCE, buf, len, &d) == 0 && !w.errors && !d.n) {
		free(buf);
		buf = NULL;
		ok = fw_read_text(dirfd, FW_TREE_SUMS, &buf, &len) == 0 &&
		     fw_sums_parse(&s, FW_TREE_SUMS, buf, len, &d) == 0 && !d.n;
		fw_sums_free(&s);
	}
	fw_whence_free(&w);
	free(buf);
	fw_diag_free(&d);
	return ok;
}

/* manifests/imported: what an import wrote at the top of DIR, so that the
 * next import replaces exactly that, and whether it generated the split
 * (regenerated next time) or kept the one the tree had (kept again). */
static int read_import_mark(int dirfd, struct fw_strv *parts, bool *split_generated,
			    char release[9], unsigned *revision)
{
	struct fw_lines it;
	const char *ls, *le;
	char *buf;
	size_t len;
	int r = fw_read_text(dirfd, FW_TREE_IMPORTED, &buf, &len);

	if (r < 0)
		return r;
	fw_lines_init(&it, buf, len);
	r = -EINVAL;
	while (fw_lines_next(&it, &ls, &le)) {
		size_t n = (size_t)(le - ls);

		if (it.line == 1) {
			if (n != strlen(FW_IMPORTED_HEADER) || memcmp(ls, FW_IMPORTED_HEADER, n) != 0)
				break;
			r = 0;
		} else if (n > 5 && memcmp(ls, "part ", 5) == 0) {
			char *p = fw_strndup(ls + 5, n - 5);

			/* One name at the top of DIR, nothing else. */
			if (p && (fw_name_problem(p) || strchr(p, '/'))) {
				free(p);
				r = -EINVAL;
				break;
			}
			if (imp_strv_take(parts, p) < 0) {
				r = -ENOMEM;
				break;
			}
		} else if (n == 15 && memcmp(ls, "split generated", 15) == 0) {
			*split_generated = true;
		} else if (n == 16 && memcmp(ls, "release ", 8) == 0 && fw_release_valid(ls + 8, 8)) {
			memcpy(release, ls + 8, 8);
			release[8] = '\0';
		} else if (n > 9 && memcmp(ls, "revision ", 9) == 0) {
			unsigned v;

			if (fw_revision_parse(ls + 9, n - 9, &v) == 0)
				*revision = v;
		}
	}
	free(buf);
	if (r < 0)
		fw_strv_free(parts);
	return r;
}

int imp_write_import_mark(struct imp *im, char **parts, size_t n)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int r = imp_add_line(&buf, &len, &cap, FW_IMPORTED_HEADER, strlen(FW_IMPORTED_HEADER));
	static const char why[] = "# What fwdist import wrote at the top of this tree: the next import "
				  "replaces these, and nothing else.";
	const char *split = im->kept_split ? "split kept" : "split generated";

	if (r == 0)
		r = imp_add_line(&buf, &len, &cap, why, strlen(why));
	if (r == 0)
		r = imp_add_line(&buf, &len, &cap, split, strlen(split));
	/* The upstream release (fwdist debian version: the firmware packages'
	 * version), and the packager's revision of it, kept while the release
	 * stays: a re-import of the same release is no new release. */
	if (r == 0 && im->o->release && *im->o->release) {
		char *l = fw_asprintf("release %s", im->o->release);

		r = l ? imp_add_line(&buf, &len, &cap, l, strlen(l)) : -ENOMEM;
		free(l);
		if (r == 0 && im->in.revision && strcmp(im->in.release, im->o->release) == 0) {
			l = fw_asprintf("revision %u", im->in.revision);
			r = l ? imp_add_line(&buf, &len, &cap, l, strlen(l)) : -ENOMEM;
			free(l);
		}
	}
	for (size_t i = 0; r == 0 && i < n; i++) {
		char *l = fw_asprintf("part %s", parts[i]);

		r = l ? imp_add_line(&buf, &len, &cap, l, strlen(l)) : -ENOMEM;
		free(l);
	}
	/* A text converted to UTF-8: from what, and the digest of upstream's
	 * bytes, which LICENSES/ no longer holds (a later import compares). */
	for (size_t i = 0; r == 0 && i < im->nids; i++) {
		const struct idinfo *x = &im->ids[i];
		char hex[FW_SHA256_HEX + 1], *l;

		if (!x->used || !x->text || !x->latin1)
			continue;
		fw_sha256_hex(x->orig, hex);
		l = fw_asprintf("converted %s/%s.txt ISO-8859-1 %s %s", FW_TREE_LICENSES, x->id, hex,
				x->found ? fw_esc(x->found) : "-");
		r = l ? imp_add_line(&buf, &len, &cap, l, strlen(l)) : -ENOMEM;
		free(l);
	}
	if (r == 0)
		r = fw_write_atomic(im->stagefd, FW_TREE_IMPORTED, buf, len, 0644);
	free(buf);
	return r;
}

void imp_into_free(struct into *in)
{
	if (in->fd >= 0)
		close(in->fd);
	fw_strv_free(&in->entries);
	fw_strv_free(&in->ours);
}

/* What stands at DIR, and so how it is replaced. Refused (-EEXIST, said in
 * d): a non-directory, and a directory that is neither empty, nor a tree a
 * previous import wrote, nor an fwdist tree, unless --adopt. */
int imp_look_at_into(struct imp *im, struct into *in)
{
	struct stat st;
	char **nm;
	size_t nn;
	int r;

	in->fd = -1;
	if (fstatat(im->parentfd, im->leaf, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			return -errno;
		in->kind = INTO_NEW;
		return 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		fw_diag_add(im->d, im->o->into, 0, "exists and is not a directory");
		return -ENOTDIR;
	}
	in->fd = openat(im->parentfd, im->leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (in->fd < 0)
		return -errno;
	r = fw_read_dir_sorted(in->fd, &nm, &nn);
	if (r < 0)
		return r;
	in->entries.v = nm;
	in->entries.n = in->entries.cap = nn;
	if (!nn) {
		in->kind = INTO_EMPTY;
		return 0;
	}
	in->fwdist_tree = is_fwdist_tree(in->fd);
	r = read_import_mark(in->fd, &in->ours, &in->split_generated, in->release, &in->revision);
	if (r == -ENOMEM)
		return r;
	in->marked = r == 0 && in->fwdist_tree;
	if (!in->marked) {
		fw_strv_free(&in->ours);
		in->split_generated = false;
		in->release[0] = '\0';
		in->revision = 0;
		for (size_t i = 0; in->fwdist_tree && i < FW_ARRAY_SIZE(tree_parts); i++)
			if (imp_strv_take(&in->ours, strdup(tree_parts[i])) < 0)
				return -ENOMEM;
	}
	if (!in->fwdist_tree && !im->o->adopt) {
		fw_diag_add(im->d, im->o->into, 0,
			    "not empty, and not an fwdist tree (a WHENCE and a manifests/checksums "
			    "that parse): refusing to replace what import did not write "
			    "(--adopt imports into it and keeps what is in the way)");
		return -EEXIST;
	}
	in->kind = INTO_IMPORT;
	/* A stage mark at DIR's top is what a kill during the last import's
	 * swap left (import_swap): that import's, not the user's. */
	for (size_t i = 0; i < nn; i++)
		if (strcmp(nm[i], FW_STAGE_MARK) != 0 && (!in->marked || !imp_strv_has(&in->ours, nm[i])))
			in->kind = INTO_PARTS;
	return 0;
}

/* The journal of a switch of parts: written in DIR before the first
 * switch, removed after the last step. An import that finds one completes
 * it first; check reports a tree that has one (part old, part new). Lines:
 *   stage NAME         the stage in DIR the new parts come from
 *   keep NAME          where old parts not import's own go (--adopt)
 *   part INO OLD NAME  a part: the inode of its new version (0: none, the
 *                      old one only goes), OLD "remove" or "keep"
 * A part is switched when DIR/NAME has the new inode: each step can be
 * redone, whatever moment a kill chose. */
struct jpart {
	char *name;
	unsigned long long ino;
	bool keep;
};

struct journal {
	char *stage, *keepdir;
	struct jpart *v;
	size_t n, cap;
};

static void journal_free(struct journal *j)
{
	for (size_t i = 0; i < j->n; i++)
		free(j->v[i].name);
	free(j->v);
	free(j->stage);
	free(j->keepdir);
	memset(j, 0, sizeof(*j));
}

static int journal_write(int dirfd, const struct journal *j)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int r = imp_add_line(&buf, &len, &cap, FW_JOURNAL_HEADER, strlen(FW_JOURNAL_HEADER));

	for (size_t i = 0; r == 0 && i <= j->n + 1; i++) {
		char *l = i == j->n ? fw_asprintf("stage %s", j->stage) :
			  i == j->n + 1 ? (j->keepdir ? fw_asprintf("keep %s", j->keepdir) : NULL) :
			  fw_asprintf("part %llu %s %s", j->v[i].ino, j->v[i].keep ? "keep" : "remove",
				      j->v[i].name);

		if (!l && (i != j->n + 1 || j->keepdir))
			r = -ENOMEM;
		else if (l)
			r = imp_add_line(&buf, &len, &cap, l, strlen(l));
		free(l);
	}
	if (r == 0)
		r = fw_write_atomic(dirfd, FW_TREE_IMPORT_JOURNAL, buf, len, 0644);
	free(buf);
	return r;
}

static int journal_read(int dirfd, struct journal *j)
{
	struct fw_lines it;
	const char *ls, *le;
	char *buf;
	size_t len;
	int r = fw_read_text(dirfd, FW_TREE_IMPORT_JOURNAL, &buf, &len);

	memset(j, 0, sizeof(*j));
	if (r < 0)
		return r;
	fw_lines_init(&it, buf, len);
	while (r == 0 && fw_lines_next(&it, &ls, &le)) {
		char *l = fw_strndup(ls, (size_t)(le - ls)), *end;

		if (!l) {
			r = -ENOMEM;
			break;
		}
		if (it.line == 1) {
			r = strcmp(l, FW_JOURNAL_HEADER) == 0 ? 0 : -EINVAL;
		} else if (strncmp(l, "stage ", 6) == 0 && !j->stage) {
			j->stage = strdup(l + 6);
			r = j->stage && fw_is_tmp_name(j->stage) ? 0 : -EINVAL;
		} else if (strncmp(l, "keep ", 5) == 0 && !j->keepdir) {
			j->keepdir = strdup(l + 5);
			r = j->keepdir && !fw_name_problem(j->keepdir) && !strchr(j->keepdir, '/') ? 0 :
			    -EINVAL;
		} else if (strncmp(l, "part ", 5) == 0) {
			unsigned long long ino = strtoull(l + 5, &end, 10);
			bool keep = strncmp(end, " keep ", 6) == 0;

			if (!keep && strncmp(end, " remove ", 8) != 0) {
				r = -EINVAL;
			} else {
				const char *name = end + (keep ? 6 : 8);

				/* A name at the top of DIR, never a path out of it. */
				if (fw_name_problem(name) || strchr(name, '/') ||
				    fw_grow(&j->v, &j->cap, j->n, sizeof(*j->v)) < 0) {
					r = -EINVAL;
				} else {
					j->v[j->n] = (struct jpart){ strdup(name), ino, keep };
					r = j->v[j->n++].name ? 0 : -ENOMEM;
				}
			}
		} else {
			r = -EINVAL;
		}
		free(l);
	}
	free(buf);
	if (r == 0 && !j->stage)
		r = -EINVAL;
	if (r < 0)
		journal_free(j);
	return r;
}

/* Carry out a journal to its end: each new part into DIR (exchanged with
 * the old one, which lands in the stage), the old parts kept or removed
 * with the stage, the journal last. Every step checks what is there by
 * inode first, so a second run after a kill redoes nothing twice; what is
 * neither the old nor the new the journal knows is left alone (-ESTALE). */
static int journal_apply(int dirfd, const struct journal *j, struct fw_diag *d, const char *into)
{
	int sfd = openat(dirfd, j->stage, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), kfd = -1;
	int r = 0;

	for (size_t i = 0; r == 0 && i < j->n; i++) {
		const struct jpart *p = &j->v[i];
		struct stat ds, ss;
		bool in_dir = fstatat(dirfd, p->name, &ds, AT_SYMLINK_NOFOLLOW) == 0;
		bool in_stage = sfd >= 0 && fstatat(sfd, p->name, &ss, AT_SYMLINK_NOFOLLOW) == 0;

		if (p->ino && in_dir && ds.st_ino == p->ino)
			continue; /* switched */
		if (p->ino && (!in_stage || ss.st_ino != p->ino)) {
			fw_diag_add(d, into, 0, "%s: neither the old nor the new part the import "
				    "journal %s names; left as it is", fw_esc(p->name),
				    FW_TREE_IMPORT_JOURNAL);
			r = -ESTALE;
			break;
		}
		if (p->ino)
			r = renameat2(sfd, p->name, dirfd, p->name,
				      in_dir ? RENAME_EXCHANGE : RENAME_NOREPLACE) < 0 ? -errno : 0;
		else if (in_dir && !in_stage && sfd >= 0)
			r = renameat(dirfd, p->name, sfd, p->name) < 0 ? -errno : 0;
	}
	if (r == 0 && fsync(dirfd) < 0)
		r = -errno;
	/* Every part is switched: the old ones are in the stage. */
	if (r == 0 && sfd >= 0 && j->keepdir) {
		r = fw_mkdirat(dirfd, j->keepdir, 0755);
		if (r == -EEXIST)
			r = 0;
		kfd = r == 0 ? openat(dirfd, j->keepdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				      O_CLOEXEC) : -1;
		if (r == 0 && kfd < 0)
			r = -errno;
		for (size_t i = 0; r == 0 && i < j->n; i++)
			if (j->v[i].keep && faccessat(sfd, j->v[i].name, F_OK, AT_SYMLINK_NOFOLLOW) == 0 &&
			    renameat2(sfd, j->v[i].name, kfd, j->v[i].name, RENAME_NOREPLACE) < 0)
				r = -errno;
		if (r == 0 && fsync(kfd) < 0)
			r = -errno;
	}
	if (sfd >= 0)
		close(sfd);
	if (kfd >= 0)
		close(kfd);
	if (r == 0)
		r = fw_rm_rf_at(dirfd, j->stage);
	if (r == 0 && unlinkat(dirfd, FW_TREE_IMPORT_JOURNAL, 0) < 0 && errno != ENOENT)
		r = -errno;
	if (r == 0 && fsync(dirfd) < 0)
		r = -errno;
	if (r < 0 && r != -ESTALE)
		fw_diag_add(d, into, 0, "cannot complete the switch of its parts: %s", strerror(-r));
	return r;
}

/* The temporaries of the journal itself (".<journal>.fwdist-XXXXXX", a
 * regular file): a kill while fw_write_atomic wrote it leaves one. The name
 * is fwdist's own (fw_is_tmp_name) and of no other file, so it is removed;
 * anything else of that name is left as it is. */
static void remove_journal_tmps(int dirfd)
{
	char prefix[64];
	int fd = dup(dirfd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	size_t n;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	n = (size_t)snprintf(prefix, sizeof(prefix), ".%s.fwdist-", FW_TREE_IMPORT_JOURNAL);
	while ((de = readdir(dir))) {
		struct stat st;

		if (strncmp(de->d_name, prefix, n) == 0 && strlen(de->d_name) == n + 6 &&
		    fw_is_tmp_name(de->d_name) &&
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			unlinkat(dirfd, de->d_name, 0);
	}
	closedir(dir);
}

/* An import into DIR that was cut short: complete it before anything else. */
int imp_complete_journal(struct imp *im, int dirfd)
{
	struct journal j;
	int r;

	remove_journal_tmps(dirfd);
	r = journal_read(dirfd, &j);

	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		fw_diag_add(im->d, im->o->into, 0, "%s: unreadable import journal (%s); left as it is",
			    FW_TREE_IMPORT_JOURNAL, strerror(-r));
		return r;
	}
	r = journal_apply(dirfd, &j, im->d, im->o->into);
	if (r == 0)
		r = imp_strv_take(&im->rep->notes, fw_asprintf("%s: an import cut short there was completed",
							   fw_esc(im->o->into)));
	journal_free(&j);
	return r;
}

/* Do regular files a and b hold the same bytes? */
static bool same_file(int afd, const char *a, int bfd, const char *b)
{
	char *x = NULL, *y = NULL;
	size_t xl, yl;
	bool same = fw_read_text(afd, a, &x, &xl) == 0 && fw_read_text(bfd, b, &y, &yl) == 0 &&
		    xl == yl && memcmp(x, y, xl) == 0;

	free(x);
	free(y);
	return same;
}

/* Switch the stage's parts into DIR (INTO_PARTS): what each replaces is
 * removed when an import wrote it or it is a part of the fwdist tree that
 * was there (or is a file with the same bytes: nothing is lost), kept in
 * DIR/fwdist-replaced.N with --adopt, else the import is refused; a part a
 * previous import wrote that this one does not write goes too. */
int imp_switch_parts(struct imp *im, const struct into *in)
{
	struct journal j = { 0 };
	char **parts = NULL;
	size_t nparts = 0;
	bool any_keep = false;
	int r = fw_read_dir_sorted(im->stagefd, &parts, &nparts);

	for (size_t i = 0; r == 0 && i <= nparts; i++) {
		const char *name = i < nparts ? parts[i] : NULL;
		struct stat st;
		bool keep = false;

		if (name && strcmp(name, FW_STAGE_MARK) == 0)
			continue;
		if (!name)
			break;
		if (imp_strv_has(&in->entries, name) && !imp_strv_has(&in->ours, name) &&
		    !same_file(in->fd, name, im->stagefd, name)) {
			if (!im->o->adopt) {
				fw_diag_add(im->d, im->o->into, 0,
					    "%s: there already, and not written by an import nor a part of "
					    "an fwdist tree: refusing to replace it (--adopt keeps it in "
					    "fwdist-replaced.N)", fw_esc(name));
				r = -EEXIST;
				break;
			}
			keep = any_keep = true;
		}
		if (fstatat(im->stagefd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = -errno;
			break;
		}
		if (fw_grow(&j.v, &j.cap, j.n, sizeof(*j.v)) < 0) {
			r = -ENOMEM;
			break;
		}
		j.v[j.n] = (struct jpart){ strdup(name), (unsigned long long)st.st_ino, keep };
		r = j.v[j.n++].name ? 0 : -ENOMEM;
	}
	/* What a previous import wrote and this one does not: it goes. */
	for (size_t i = 0; r == 0 && in->marked && i < in->ours.n; i++) {
		bool staged = false;

		for (size_t k = 0; k < nparts && !staged; k++)
			staged = strcmp(parts[k], in->ours.v[i]) == 0;
		if (staged || !imp_strv_has(&in->entries, in->ours.v[i]))
			continue;
		if (fw_grow(&j.v, &j.cap, j.n, sizeof(*j.v)) < 0) {
			r = -ENOMEM;
			break;
		}
		j.v[j.n] = (struct jpart){ strdup(in->ours.v[i]), 0, false };
		r = j.v[j.n++].name ? 0 : -ENOMEM;
	}
	fw_free_strv(parts, nparts);
	if (r == 0)
		j.stage = strdup(im->stage);
	if (r == 0 && !j.stage)
		r = -ENOMEM;
	for (unsigned k = 1; r == 0 && any_keep && !j.keepdir; k++) {
		char *name = fw_asprintf("fwdist-replaced.%u", k);

		if (!name)
			r = -ENOMEM;
		else if (faccessat(in->fd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			free(name);
		else
			j.keepdir = name;
	}
	/* The stage is complete and checked: from the journal on, the
	 * import goes forward, now or at the next run. */
	if (r == 0 && fsync(im->stagefd) < 0)
		r = -errno;
	if (r == 0)
		r = journal_write(in->fd, &j);
	if (r == 0) {
		im->stage[0] = '\0'; /* the journal owns it now */
		r = journal_apply(in->fd, &j, im->d, im->o->into);
		if (r == 0 && j.keepdir)
			r = imp_strv_take(&im->rep->notes,
				      fw_asprintf("%s/%s: what stood in the way, kept (--adopt)",
						  fw_esc(im->o->into), j.keepdir));
	}
	journal_free(&j);
	return r;
}

/* DIR's parent (where the stage goes when DIR is replaced whole) and
 * DIR's last component; *into keeps the storage. */
int imp_open_into(struct imp *im, char **into)
{
	char *slash;

	*into = strdup(im->o->into);
	if (!*into)
		return -ENOMEM;
	while (strlen(*into) > 1 && (*into)[strlen(*into) - 1] == '/')
		(*into)[strlen(*into) - 1] = '\0';
	slash = strrchr(*into, '/');
	if (strcmp(slash ? slash + 1 : *into, ".") == 0 || strcmp(slash ? slash + 1 : *into, "..") == 0) {
		/* "--into ." (a checkout, from inside it): the directory
		 * itself, by the path that names it in its parent. */
		char *real = realpath(*into, NULL);

		if (real) {
			free(*into);
			*into = real;
			slash = strrchr(*into, '/');
		}
	}
	im->leaf = slash ? slash + 1 : *into;
	if (slash == *into) {
		im->parentfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	} else if (slash) {
		*slash = '\0';
		im->parentfd = open(*into, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		*slash = '/';
	} else {
		im->parentfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (im->parentfd < 0 || !*im->leaf || strcmp(im->leaf, ".") == 0 ||
	    strcmp(im->leaf, "..") == 0) {
		int r = im->parentfd < 0 ? -errno : -EINVAL;

		fw_diag_add(im->d, im->o->into, 0, "cannot use as the destination: %s", strerror(-r));
		return r;
	}
	return 0;
}

bool fw_release_valid(const char *s, size_t n)
{
	unsigned month, day;

	if (n != 8)
		return false;
	for (size_t i = 0; i < 8; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	month = (unsigned)(s[4] - '0') * 10 + (unsigned)(s[5] - '0');
	day = (unsigned)(s[6] - '0') * 10 + (unsigned)(s[7] - '0');
	return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

int fw_release_from_name(const char *path, char out[9])
{
	const char *end = path + strlen(path), *start, *found = NULL;

	/* The last component, trailing slashes ignored. */
	while (end > path && end[-1] == '/')
		end--;
	start = end;
	while (start > path && start[-1] != '/')
		start--;
	/* Runs of digits, left to right; the last 8-digit one wins (a
	 * firmware-nonfree_20250410.orig, a linux-firmware-20230210). */
	for (const char *p = start; p < end;) {
		const char *q = p;

		while (q < end && *q >= '0' && *q <= '9')
			q++;
		if (q > p && fw_release_valid(p, (size_t)(q - p)))
			found = p;
		p = q > p ? q : p + 1;
	}
	if (!found)
		return -ENOENT;
	memcpy(out, found, 8);
	out[8] = '\0';
	return 0;
}

int fw_revision_parse(const char *s, size_t n, unsigned *out)
{
	unsigned v = 0;

	if (n == 0 || n > 4 || s[0] == '0')
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	*out = v;
	return 0;
}
