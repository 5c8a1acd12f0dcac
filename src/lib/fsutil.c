/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Filesystem helpers: opening beneath a directory without following symlinks, atomic writes. */
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util.h"

static int try_openat2(int dirfd, const char *name, int flags, mode_t mode)
{
#ifdef SYS_openat2
	struct open_how how = {
		.flags = (unsigned)(flags | O_NOFOLLOW | O_CLOEXEC),
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, dirfd, name, &how, sizeof(how));

	if (fd < 0)
		return -errno;
	return (int)fd;
#else
	(void)dirfd, (void)name, (void)flags, (void)mode;
	return -ENOSYS;
#endif
}

static int walk_open(int dirfd, const char *name, int flags, mode_t mode)
{
	const char *leaf;
	int pfd = fw_open_parent(dirfd, name, 0, &leaf), fd;

	if (pfd < 0)
		return pfd;
	fd = openat(pfd, leaf, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	fd = fd < 0 ? -errno : fd;
	if (pfd != dirfd)
		close(pfd);
	return fd;
}

int fw_open_beneath(int dirfd, const char *name, int flags, mode_t mode)
{
	static int have_openat2 = 1;
	int fd;

	if (fw_name_problem(name))
		return -EINVAL;
	if (__atomic_load_n(&have_openat2, __ATOMIC_RELAXED)) {
		fd = try_openat2(dirfd, name, flags, mode);
		/* ENOSYS: old kernel; EPERM: a seccomp filter refusing it. */
		if (fd != -ENOSYS && fd != -EPERM)
			return fd == -EXDEV ? -ELOOP : fd;
		__atomic_store_n(&have_openat2, 0, __ATOMIC_RELAXED);
	}
	return walk_open(dirfd, name, flags, mode);
}

int fw_open_parent(int dirfd, const char *name, int create, const char **leaf)
{
	const char *p = name, *slash;
	int cur = dirfd;

	while ((slash = strchr(p, '/'))) {
		char comp[256];
		size_t n = (size_t)(slash - p);
		int next;

		if (n == 0 || n >= sizeof(comp)) {
			if (cur != dirfd)
				close(cur);
			return -EINVAL;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		/* O_NOFOLLOW|O_DIRECTORY: a symlink planted in place of a
		 * directory fails with ELOOP or ENOTDIR instead of leading out. */
		next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && create) {
			int e = fw_mkdirat(cur, comp, 0755);

			if (e < 0 && e != -EEXIST) {
				if (cur != dirfd)
					close(cur);
				return e;
			}
			next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (next < 0) {
			int e = errno == ENOTDIR ? -ENOTDIR : errno == ELOOP ? -ELOOP : -errno;
			struct stat st;

			/* openat(O_NOFOLLOW|O_DIRECTORY) on a symlink gives ENOTDIR on Linux. */
			if (e == -ENOTDIR && fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				e = -ELOOP;
			if (cur != dirfd)
				close(cur);
			return e;
		}
		if (cur != dirfd)
			close(cur);
		cur = next;
		p = slash + 1;
	}
	*leaf = p;
	return cur;
}

static void tmp_suffix(char suffix[7]);

int fw_tmp_create(int dirfd, const char *leaf, char *tmpname, size_t tmplen)
{
	for (int tries = 0; tries < 100; tries++) {
		char suffix[7];
		int fd;

		tmp_suffix(suffix);
		/* Keep the name within NAME_MAX: long leaves are cut, the
		 * random suffix keeps it unique. */
		if (snprintf(tmpname, tmplen, ".%.200s.fwdist-%s", leaf, suffix) >= (int)tmplen)
			return -ENAMETOOLONG;
		fd = openat(dirfd, tmpname, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int fw_tmp_commit(int dirfd, int fd, const char *tmpname, const char *leaf, mode_t mode)
{
	int r = 0;

	/* Durable before visible: the data reaches the disk before the
	 * rename publishes it, and the directory after, so a crash leaves
	 * either the old or the new file, never an empty one. */
	if (fchmod(fd, mode) < 0 || fsync(fd) < 0)
		r = -errno;
	if (!r && renameat(dirfd, tmpname, dirfd, leaf) < 0)
		r = -errno;
	if (r) {
		unlinkat(dirfd, tmpname, 0);
		return r;
	}
	if (fsync(dirfd) < 0 && errno != EINVAL)
		return -errno;
	return 0;
}

int fw_read_file(const char *path, size_t max, uint8_t **buf, size_t *len)
{
	/* O_NOFOLLOW: a final symlink is refused (-ELOOP), not followed;
	 * O_NONBLOCK: a FIFO does not hang the open (fw_read_fd refuses it). */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK), r;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	r = fw_read_fd(fd, max, buf, len);
	close(fd);
	return r;
}

int fw_read_fd(int fd, size_t max, uint8_t **buf, size_t *len)
{
	struct stat st;
	uint8_t *b = NULL;
	size_t n = 0, cap = 0;
	int r = 0;

	*buf = NULL;
	*len = 0;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if ((uint64_t)st.st_size > max)
		return -EFBIG;
	/* Room for the file and one byte more, so the read that sees EOF
	 * needs no growth. The size is a hint (the file may change under
	 * us): the bound is on what is read, not on what stat claimed. */
	if (fw_grow(&b, &cap, (size_t)st.st_size, 1) < 0)
		return -ENOMEM;
	for (;;) {
		ssize_t got;

		if (n == cap && (cap > max || fw_grow(&b, &cap, n, 1) < 0)) {
			r = cap > max ? -EFBIG : -ENOMEM;
			goto out;
		}
		got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r = -errno;
			goto out;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if (n > max) {
			r = -EFBIG;
			goto out;
		}
	}
	*buf = b;
	b = NULL;
	*len = n;
out:
	free(b);
	return r;
}

int fw_write_leaf(int dfd, const char *leaf, const void *buf, size_t len, mode_t mode)
{
	char tmp[320];
	int fd = fw_tmp_create(dfd, leaf, tmp, sizeof(tmp)), r;

	if (fd < 0)
		return fd;
	r = fw_write_all(fd, buf, len);
	if (r == 0)
		r = fw_tmp_commit(dfd, fd, tmp, leaf, mode);
	else
		unlinkat(dfd, tmp, 0);
	close(fd);
	return r;
}

int fw_write_atomic(int dirfd, const char *path, const void *buf, size_t len, mode_t mode)
{
	const char *leaf;
	int pfd = fw_open_parent(dirfd, path, 0, &leaf), r;

	if (pfd < 0)
		return pfd;
	r = fw_write_leaf(pfd, leaf, buf, len, mode);
	if (pfd != dirfd)
		close(pfd);
	return r;
}

static void tmp_suffix(char suffix[7])
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[6];

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		memset(rnd, 0, sizeof(rnd)); /* collisions then retry via EEXIST */
	for (size_t i = 0; i < sizeof(rnd); i++)
		suffix[i] = alnum[rnd[i] % (sizeof(alnum) - 1)];
	suffix[6] = '\0';
}

int fw_tmp_symlink(int dirfd, const char *leaf, const char *target, char *tmpname, size_t tmplen)
{
	for (int tries = 0; tries < 100; tries++) {
		char suffix[7];

		tmp_suffix(suffix);
		if (snprintf(tmpname, tmplen, ".%.200s.fwdist-%s", leaf, suffix) >= (int)tmplen)
			return -ENAMETOOLONG;
		if (symlinkat(target, dirfd, tmpname) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* mkdir with exactly mode, whatever the umask: a firmware directory that
 * the kernel's loader (and users) cannot read is no use. 0 if it was
 * created, -EEXIST if something is there, or -errno. */
int fw_mkdirat(int dirfd, const char *name, mode_t mode)
{
	int fd;

	if (mkdirat(dirfd, name, mode) < 0)
		return -errno;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, mode) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	close(fd);
	return 0;
}

static int dest_step(int cur, const char *comp, bool create, bool follow)
{
	int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW);
	int fd = openat(cur, comp, flags), r;
	struct stat st;

	if (fd >= 0)
		return fd;
	if (errno == ENOENT && create) {
		r = fw_mkdirat(cur, comp, 0755);
		if (r < 0 && r != -EEXIST)
			return r;
		fd = openat(cur, comp, flags);
		if (fd >= 0)
			return fd;
	}
	r = -errno;
	/* openat(O_NOFOLLOW | O_DIRECTORY) on a symlink gives ENOTDIR or ELOOP. */
	if (fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0)
		r = S_ISLNK(st.st_mode) && !follow ? -ELOOP : !S_ISDIR(st.st_mode) ? -ENOTDIR : r;
	return r;
}

/* Walk path from cur (consumed), one component at a time, appending each to
 * *where. */
static int dest_walk(int cur, const char *path, bool create, bool follow, char **where)
{
	const char *p = path;

	while (*p) {
		const char *e = strchr(p, '/');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char comp[256], *w;
		int next;

		if (n == 0) {
			p++;
			continue;
		}
		if (n >= sizeof(comp)) {
			close(cur);
			return -ENAMETOOLONG;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		w = fw_asprintf("%s%s%s", *where ? *where : "",
				*where && **where && (*where)[strlen(*where) - 1] != '/' ? "/" : "", comp);
		free(*where);
		*where = w;
		if (!w) {
			close(cur);
			return -ENOMEM;
		}
		next = dest_step(cur, comp, create, follow);
		close(cur);
		if (next < 0)
			return next;
		cur = next;
		p += n;
	}
	return cur;
}

bool fw_root_is_merged(int rootfd)
{
	int u, l;

	/* Exactly what Debian's merged /usr makes (usrmerge, debootstrap,
	 * DEP-17): a relative "usr/lib", which stays inside the root. An
	 * absolute "/usr/lib" in a DESTDIR would point at the host's. */
	if (!fw_symlink_is(rootfd, "lib", FW_USRMERGE_LIB))
		return false;
	u = openat(rootfd, "usr", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (u < 0)
		return false;
	l = openat(u, "lib", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(u);
	if (l < 0)
		return false;
	close(l);
	return true;
}

const char *fw_default_fwdir(int rootfd)
{
	return fw_root_is_merged(rootfd) ? "/usr/lib/firmware" : "/lib/firmware";
}

/* The firmware directory's path below the root, with the root's own
 * lib -> usr/lib alias resolved (fw_root_is_merged): the one symlink
 * followed below a DESTDIR. p has no leading '/'. A new string, or NULL. */
static char *resolve_alias(int rootfd, const char *p)
{
	if (strncmp(p, "lib", 3) == 0 && (p[3] == '/' || p[3] == '\0') && fw_root_is_merged(rootfd))
		return fw_asprintf("usr/%s", p);
	return strdup(p);
}

int fw_dest_open(const char *destdir, const char *fwdir, bool create, char **where)
{
	const char *p = fwdir;
	char *real;
	int fd;

	*where = NULL;
	if (!destdir || !*destdir) {
		/* The system's own firmware directory: its layout is followed. */
		*where = strdup("/");
		if (!*where)
			return -ENOMEM;
		fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (!fwdir)
			fwdir = fw_default_fwdir(fd);
		if (*fwdir != '/') {
			free(*where);
			*where = NULL;
			close(fd);
			fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0)
				return -errno;
		}
		return dest_walk(fd, fwdir, create, true, where);
	}
	/* DESTDIR itself is what the caller named: follow it as given. */
	*where = strdup(*destdir == '/' ? "/" : "");
	if (!*where)
		return -ENOMEM;
	fd = open(*destdir == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	fd = dest_walk(fd, destdir, create, true, where);
	if (fd < 0)
		return fd;
	p = fwdir ? fwdir : fw_default_fwdir(fd);
	while (*p == '/')
		p++;
	for (const char *q = p; *q;) {
		const char *e = strchr(q, '/');
		size_t n = e ? (size_t)(e - q) : strlen(q);

		if ((n == 1 && q[0] == '.') || (n == 2 && q[0] == '.' && q[1] == '.')) {
			close(fd);
			return -EINVAL; /* --firmware-dir may not climb out of DESTDIR */
		}
		q += n;
		while (*q == '/')
			q++;
	}
	/* Below DESTDIR nothing is followed but the root's own merged-/usr
	 * alias: a planted DESTDIR/lib -> /etc must not turn a package build
	 * or an uninstall into a change of the host. */
	real = resolve_alias(fd, p);
	if (!real) {
		close(fd);
		return -ENOMEM;
	}
	fd = dest_walk(fd, real, create, false, where);
	free(real);
	return fd;
}

const char *fw_path_error(int r)
{
	if (r == -ELOOP)
		return "a symlink is in the way; refusing to follow it";
	if (r == -ENOTDIR)
		return "not a directory";
	return strerror(-r);
}

int fw_open_resolve(int rootfd, const char *name, int flags)
{
	char *cur = strdup(name);
	int r = -ELOOP;

	if (!cur)
		return -ENOMEM;
	for (int hops = 0; hops <= 40; hops++) {
		const char *leaf;
		char target[4096];
		struct stat st;
		ssize_t n;
		bool outside;
		char *next;
		int pfd;

		if (fw_name_problem(cur)) {
			r = -EXDEV;
			break;
		}
		pfd = fw_open_parent(rootfd, cur, 0, &leaf);
		if (pfd < 0) {
			r = pfd;
			break;
		}
		if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = -errno;
		} else if (!S_ISLNK(st.st_mode)) {
			r = openat(pfd, leaf, flags | O_NOFOLLOW | O_CLOEXEC);
			r = r < 0 ? -errno : r;
		} else if ((n = readlinkat(pfd, leaf, target, sizeof(target) - 1)) < 0) {
			r = -errno;
		} else {
			target[n] = '\0';
			next = fw_link_resolve(cur, target, &outside);
			if (pfd != rootfd)
				close(pfd);
			if (!next) {
				r = outside ? -EXDEV : -ENOMEM;
				break;
			}
			free(cur);
			cur = next;
			r = -ELOOP;
			continue;
		}
		if (pfd != rootfd)
			close(pfd);
		break;
	}
	free(cur);
	return r;
}

int fw_tmp_mkdir(int dirfd, const char *leaf, char *tmpname, size_t tmplen)
{
	for (int tries = 0; tries < 100; tries++) {
		char suffix[7];
		int r;

		tmp_suffix(suffix);
		if (snprintf(tmpname, tmplen, ".%.200s.fwdist-%s", leaf, suffix) >= (int)tmplen)
			return -ENAMETOOLONG;
		r = fw_mkdirat(dirfd, tmpname, 0755);
		if (r == -EEXIST)
			continue;
		if (r < 0)
			return r;
		/* The mark that makes it fwdist's to clean up if the install
		 * is killed: a directory merely named like this is not. */
		r = fw_stage_mark(dirfd, tmpname);
		if (r < 0)
			unlinkat(dirfd, tmpname, AT_REMOVEDIR);
		return r;
	}
	return -EEXIST;
}

int fw_stage_mark(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), m, r = 0;

	if (fd < 0)
		return -errno;
	/* O_NOFOLLOW: a symlink planted at the mark's name is refused, not
	 * followed to create a file elsewhere. No O_EXCL: a mark left by an
	 * earlier, killed run is the same mark. */
	m = openat(fd, FW_STAGE_MARK, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (m < 0)
		r = -errno;
	else
		close(m);
	close(fd);
	return r;
}

void fw_stage_unmark(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	unlinkat(fd, FW_STAGE_MARK, 0);
	close(fd);
}

int fw_tmp_rename(int dirfd, const char *from, const char *leaf, char *tmpname, size_t tmplen)
{
	for (int tries = 0; tries < 100; tries++) {
		char suffix[7];
		struct stat st;

		tmp_suffix(suffix);
		if (snprintf(tmpname, tmplen, ".%.200s.fwdist-%s", leaf, suffix) >= (int)tmplen)
			return -ENAMETOOLONG;
		/* Never over an existing entry. RENAME_NOREPLACE says so
		 * atomically where the filesystem has it; where it has not
		 * (the same filesystems that lack RENAME_EXCHANGE), a name
		 * found free is ours to take: the caller holds the
		 * destination's lock, and nobody else makes such names. */
		if (renameat2(dirfd, from, dirfd, tmpname, RENAME_NOREPLACE) == 0)
			return 0;
		if (errno == EEXIST)
			continue;
		if (errno != EINVAL && errno != ENOSYS)
			return -errno;
		if (fstatat(dirfd, tmpname, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		if (errno != ENOENT)
			return -errno;
		return renameat(dirfd, from, dirfd, tmpname) < 0 ? -errno : 0;
	}
	return -EEXIST;
}

bool fw_is_tmp_name(const char *n)
{
	size_t len = strlen(n);

	if (n[0] != '.' || len < 1 + 1 + 8 + 6 || memcmp(n + len - 14, ".fwdist-", 8) != 0)
		return false;
	for (size_t i = len - 6; i < len; i++)
		if (!((n[i] >= 'a' && n[i] <= 'z') || (n[i] >= '0' && n[i] <= '9')))
			return false;
	return true;
}

const char *fw_name_reserved(const char *name)
{
	static const char *const top[] = { FW_RECORD_DIR, FW_DEST_LICENSES };
	const char *p = name;

	for (size_t i = 0; i < FW_ARRAY_SIZE(top); i++) {
		size_t n = strlen(top[i]);

		if (strncmp(name, top[i], n) == 0 && (name[n] == '/' || name[n] == '\0'))
			return i == 0 ? "name in .fwdist/, where install keeps its record" :
				       "name in LICENSES/, where install puts the licence texts";
	}
	/* A blob named like a temporary file would be taken for the leftover
	 * of a killed install and removed. */
	while (p) {
		const char *slash = strchr(p, '/');
		char comp[256];
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if (n < sizeof(comp)) {
			memcpy(comp, p, n);
			comp[n] = '\0';
			if (fw_is_tmp_name(comp))
				return "name shaped like fwdist's temporary files (.NAME.fwdist-XXXXXX)";
		}
		p = slash ? slash + 1 : NULL;
	}
	return NULL;
}

int fw_rm_rf_at(int at, const char *name)
{
	struct stat st;
	char **names;
	size_t n;
	int fd, r;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(at, name, 0) < 0 ? -errno : 0;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = fw_read_dir_sorted(fd, &names, &n);
	if (r == 0) {
		/* The stage mark goes last ("." sorts it first): a removal
		 * killed half-way leaves a directory still marked as ours,
		 * which the next run recognises and finishes removing. */
		for (size_t i = 0; r == 0 && i < n; i++)
			if (strcmp(names[i], FW_STAGE_MARK) != 0)
				r = fw_rm_rf_at(fd, names[i]);
		if (r == 0 && unlinkat(fd, FW_STAGE_MARK, 0) < 0 && errno != ENOENT)
			r = -errno;
		fw_free_strv(names, n);
	}
	close(fd);
	if (r == 0 && unlinkat(at, name, AT_REMOVEDIR) < 0)
		r = -errno;
	return r;
}

char *fw_dir_of(const char *name)
{
	const char *slash = strrchr(name, '/');

	return slash ? fw_strndup(name, (size_t)(slash - name)) : strdup(".");
}

bool fw_dirset_add(struct fw_dirset *s, char *dir)
{
	size_t lo = 0, hi = s->n;

	if (!dir)
		return false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(dir, s->v[mid]);

		if (c == 0) {
			free(dir);
			return false;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (fw_grow(&s->v, &s->cap, s->n, sizeof(*s->v)) < 0) {
		free(dir);
		return false;
	}
	memmove(&s->v[lo + 1], &s->v[lo], (s->n - lo) * sizeof(*s->v));
	s->v[lo] = dir;
	s->n++;
	return true;
}

void fw_dirset_free(struct fw_dirset *s)
{
	fw_free_strv(s->v, s->n);
	memset(s, 0, sizeof(*s));
}

int fw_remove_name(int fwfd, const char *name, struct fw_dirset *touched)
{
	const char *leaf;
	int pfd = fw_open_parent(fwfd, name, 0, &leaf), r = 0;

	if (pfd == -ENOENT)
		return 0;
	if (pfd < 0)
		return pfd;
	if (unlinkat(pfd, leaf, 0) < 0 && errno != ENOENT)
		r = -errno;
	if (pfd != fwfd)
		close(pfd);
	if (r == 0)
		fw_dirset_add(touched, fw_dir_of(name));
	return r;
}

void fw_settle_dirs(int fwfd, struct fw_dirset *touched)
{
	struct fw_dirset synced = { 0 };

	for (size_t i = touched->n; i-- > 0;) {
		char *path = strdup(touched->v[i]);

		while (path) {
			char *slash;
			int fd;

			if (strcmp(path, ".") != 0 && fw_remove_empty_dir(fwfd, path) == 0) {
				slash = strrchr(path, '/');
				if (slash)
					*slash = '\0';
				else
					strcpy(path, ".");
				continue;
			}
			if (!fw_dirset_add(&synced, path))
				break; /* done already; path was freed */
			fd = strcmp(path, ".") == 0 ? fwfd :
			     fw_open_beneath(fwfd, path, O_RDONLY | O_DIRECTORY, 0);
			if (fd >= 0) {
				fsync(fd);
				if (fd != fwfd)
					close(fd);
			}
			break;
		}
	}
	fw_dirset_free(&synced);
	fw_dirset_free(touched);
}

static bool dir_is_empty(int fd)
{
	char **names;
	size_t n;

	if (fw_read_dir_sorted(fd, &names, &n) < 0)
		return false;
	fw_free_strv(names, n);
	return n == 0;
}

bool fw_is_stale_tmp(int dfd, const char *name)
{
	struct stat st;
	int fd;
	bool staged;

	if (!fw_is_tmp_name(name) || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
		return true;
	if (!S_ISDIR(st.st_mode))
		return false;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	staged = fd >= 0 && fstatat(fd, FW_STAGE_MARK, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		 S_ISREG(st.st_mode);
	/* An empty one is what a kill between fw_tmp_mkdir's mkdir and its
	 * mark leaves; removing an empty directory loses nothing. */
	if (fd >= 0 && !staged)
		staged = dir_is_empty(fd);
	if (fd >= 0)
		close(fd);
	return staged;
}

void fw_clean_tmp_in(int dfd)
{
	char **names;
	size_t n;

	if (fw_read_dir_sorted(dfd, &names, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (fw_is_stale_tmp(dfd, names[i]))
			fw_rm_rf_at(dfd, names[i]);
		else if (strcmp(names[i], FW_STAGE_MARK) == 0)
			unlinkat(dfd, names[i], 0); /* swapped in, then killed */
	fw_free_strv(names, n);
}

void fw_clean_tmp_near(int fwfd, const char *name, struct fw_dirset *cl)
{
	const char *leaf;
	int pfd;

	if (!fw_dirset_add(cl, fw_dir_of(name)))
		return;
	pfd = fw_open_parent(fwfd, name, 0, &leaf);
	if (pfd < 0)
		return;
	fw_clean_tmp_in(pfd);
	if (pfd != fwfd)
		close(pfd);
}

enum fw_compress fw_comp_of_name(const char *name)
{
	static const enum fw_compress comp[] = { FW_COMP_XZ, FW_COMP_ZSTD };
	size_t n = strlen(name);

	for (size_t i = 0; i < FW_ARRAY_SIZE(comp); i++) {
		const char *suf = fw_compress_suffix(comp[i]);
		size_t sl = strlen(suf);

		if (n > sl && strcmp(name + n - sl, suf) == 0)
			return comp[i];
	}
	return FW_COMP_NONE;
}

bool fw_symlink_is(int dirfd, const char *leaf, const char *target)
{
	char cur[4096];
	ssize_t n = readlinkat(dirfd, leaf, cur, sizeof(cur) - 1);

	return n >= 0 && (size_t)n == strlen(target) && memcmp(cur, target, (size_t)n) == 0;
}

bool fw_fd_holds(int fd, enum fw_compress c, const uint8_t sha256[FW_SHA256_LEN], uint64_t size,
		 unsigned *flags)
{
	uint8_t dig[FW_SHA256_LEN];
	uint64_t got;
	unsigned fl = 0;
	bool same = fw_digest_decompress(fd, c, dig, &got, &fl) == 0 && got == size &&
		    memcmp(dig, sha256, FW_SHA256_LEN) == 0;

	if (flags)
		*flags = fl;
	return same;
}

int fw_remove_empty_dir(int dirfd, const char *name)
{
	const char *leaf;
	int pfd = fw_open_parent(dirfd, name, 0, &leaf), r = 0;

	if (pfd < 0)
		return pfd;
	if (unlinkat(pfd, leaf, AT_REMOVEDIR) < 0)
		r = -errno;
	if (pfd != dirfd)
		close(pfd);
	return r;
}

void fw_ident_of(struct fw_ident *id, const struct stat *st)
{
	id->dev = st->st_dev;
	id->ino = st->st_ino;
	id->mode = st->st_mode;
	id->size = st->st_size;
	id->mtime_sec = (long long)st->st_mtim.tv_sec;
	id->mtime_nsec = st->st_mtim.tv_nsec;
}

bool fw_ident_same(const struct fw_ident *id, const struct stat *st)
{
	if (!id->mode || st->st_dev != id->dev || st->st_ino != id->ino ||
	    (st->st_mode & S_IFMT) != (id->mode & S_IFMT))
		return false;
	if (S_ISDIR(st->st_mode))
		return true;
	return st->st_size == id->size && (long long)st->st_mtim.tv_sec == id->mtime_sec &&
	       st->st_mtim.tv_nsec == id->mtime_nsec;
}

/* The final step of a write: what was checked is what is replaced. The
 * checks before (what stands at the name: ours, or the same content, or
 * --force) take time, a large install minutes, and dpkg and other writers
 * do not take fwdist's lock: a file put at the name meanwhile was never
 * looked at, and a plain rename would destroy it without a word. */
int fw_replace_checked(int dirfd, const char *tmp, const char *leaf, const struct fw_ident *was)
{
	struct stat st;

	if (!was || !was->mode) {
		if (renameat2(dirfd, tmp, dirfd, leaf, RENAME_NOREPLACE) == 0)
			return 0;
		if (errno != EINVAL && errno != ENOSYS)
			return -errno; /* EEXIST: appeared since the check */
		if (fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0)
			return -EEXIST;
		if (errno != ENOENT)
			return -errno;
		return renameat(dirfd, tmp, dirfd, leaf) < 0 ? -errno : 0;
	}
	if (renameat2(dirfd, tmp, dirfd, leaf, RENAME_EXCHANGE) == 0) {
		if (fstatat(dirfd, tmp, &st, AT_SYMLINK_NOFOLLOW) == 0 && fw_ident_same(was, &st)) {
			/* The name is ours now, whatever becomes of what it
			 * held: a removal that fails (the filesystem gone
			 * read-only meanwhile) leaves a stale temporary that
			 * the next run removes, not a name half installed. */
			fw_rm_rf_at(dirfd, tmp);
			return 0;
		}
		/* Someone else's: back to its name, ours back to tmp. */
		if (renameat2(dirfd, tmp, dirfd, leaf, RENAME_EXCHANGE) < 0)
			return -errno;
		return -ESTALE;
	}
	if (errno == ENOENT) {
		/* What was checked went meanwhile: the name is taken only if
		 * it is still free. */
		struct fw_ident none = { 0 };

		return fw_replace_checked(dirfd, tmp, leaf, &none);
	}
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	if (fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? -ESTALE : -errno;
	if (!fw_ident_same(was, &st))
		return -ESTALE;
	if (S_ISDIR(st.st_mode))
		return -EINVAL;
	/* A directory cannot be renamed over a file either. */
	if (fstatat(dirfd, tmp, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EINVAL;
	return renameat(dirfd, tmp, dirfd, leaf) < 0 ? -errno : 0;
}

/* A removal takes the name away first (to a private name nobody else
 * writes: fwdist's temporaries, under its lock), then looks at what it
 * took: a file renamed over the checked one in the meantime is put back,
 * never unlinked. */
int fw_unlink_checked(int dirfd, const char *leaf, const struct fw_ident *was, char *aside,
		      size_t asidelen)
{
	struct stat st;
	int r = fw_tmp_rename(dirfd, leaf, leaf, aside, asidelen);

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (fstatat(dirfd, aside, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode) &&
	    fw_ident_same(was, &st)) {
		if (unlinkat(dirfd, aside, 0) == 0)
			return 0;
		r = -errno;
	} else {
		r = -ESTALE;
	}
	if (renameat2(dirfd, aside, dirfd, leaf, RENAME_NOREPLACE) == 0)
		return r;
	if ((errno == EINVAL || errno == ENOSYS) &&
	    fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT &&
	    renameat(dirfd, aside, dirfd, leaf) == 0)
		return r;
	/* The name was taken again meanwhile. What went aside is another
	 * writer's file (or the checked one, if the unlink failed): it must
	 * not keep a temporary's name, which the next run's clean-up would
	 * take for a stale one of fwdist's and delete. NAME.fwdist-kept-X
	 * has no leading dot, so fw_is_tmp_name never matches it. */
	for (int tries = 0; tries < 100; tries++) {
		char kept[300], suffix[7];

		tmp_suffix(suffix);
		if (snprintf(kept, sizeof(kept), "%.200s.fwdist-kept-%s", leaf, suffix) >=
		    (int)sizeof(kept))
			break;
		if (renameat2(dirfd, aside, dirfd, kept, RENAME_NOREPLACE) < 0) {
			if (errno == EEXIST)
				continue;
			if ((errno != EINVAL && errno != ENOSYS) ||
			    fstatat(dirfd, kept, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT ||
			    renameat(dirfd, aside, dirfd, kept) < 0)
				break;
		}
		if (strlen(kept) < asidelen)
			memcpy(aside, kept, strlen(kept) + 1);
		break;
	}
	return -EADDRINUSE;
}

int fw_remove_checked(int fwfd, const char *name, const struct fw_ident *was,
		      struct fw_dirset *touched, char *aside, size_t asidelen)
{
	const char *leaf;
	int pfd = fw_open_parent(fwfd, name, 0, &leaf), r;

	if (pfd == -ENOENT)
		return 0;
	if (pfd < 0)
		return pfd;
	r = fw_unlink_checked(pfd, leaf, was, aside, asidelen);
	if (pfd != fwfd)
		close(pfd);
	if (r == 0)
		fw_dirset_add(touched, fw_dir_of(name));
	return r;
}
