/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The builder: each recipe of manifests/build run in a sandbox, its outputs compared with the tree's blobs. */
#include "build.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "sums.h"
#include "tree.h"
#include "util.h"

/* Outputs are read back at most this large (a blob of the tree is smaller). */
#define OUTPUT_MAX (256u << 20)
/* Bytes of a failed build's output kept (its last lines are shown). */
#define LOG_MAX 65536
/* The user the commands run as when fwdist is root: nobody. */
#define BUILD_UID 65534
#define BUILD_GID 65534

void fw_build_result_free(struct fw_build_result *r)
{
	free(r->why);
	free(r->log);
	r->why = r->log = NULL;
}

static int cmp_res(const void *a, const void *b)
{
	const struct fw_build_result *const *x = a, *const *y = b;

	return strcmp((*x)->blob, (*y)->blob);
}

/* A field of a record: no tab or newline in it, "-" for none. */
static void put_field(FILE *f, const char *s)
{
	if (!s || !*s) {
		fputc('-', f);
		return;
	}
	for (; *s; s++)
		fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

int fw_verdicts_format(const struct fw_build_result *res, size_t n, char **buf, size_t *len)
{
	const struct fw_build_result **v = calloc(n + 1, sizeof(*v));
	size_t sz = 0;
	FILE *f;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = &res[i];
	qsort(v, n, sizeof(*v), cmp_res);
	f = open_memstream(buf, &sz);
	if (!f) {
		free(v);
		return -ENOMEM;
	}
	fprintf(f, "%s\n", FW_VERDICTS_HEADER);
	fprintf(f, "# Written by `fwdist build --record`; do not edit. A line per blob:\n"
		   "# blob, verdict, recipe, SHA-256 of the rebuilt output, why (tab-separated).\n");
	for (size_t i = 0; i < n; i++) {
		char hex[2 * FW_SHA256_LEN + 1];

		put_field(f, v[i]->blob);
		fprintf(f, "\t%s\t", fw_build_verdict_name(v[i]->v));
		put_field(f, v[i]->recipe ? v[i]->recipe->name : NULL);
		fputc('\t', f);
		if (v[i]->built) {
			fw_sha256_hex(v[i]->sha256, hex);
			fputs(hex, f);
		} else {
			fputc('-', f);
		}
		fputc('\t', f);
		put_field(f, v[i]->why);
		fputc('\n', f);
	}
	free(v);
	if (fw_memstream_close(f, buf) < 0)
		return -ENOMEM;
	*len = strlen(*buf);
	return 0;
}

int64_t fw_build_epoch(const struct fw_tree *t)
{
	const char *env = getenv("SOURCE_DATE_EPOCH");
	static const char *const files[] = { "WHENCE", "manifests/build" };
	uint64_t v;
	int64_t best = 0;

	if (env && *env && fw_parse_u64(env, strlen(env), &v) == 0 && v <= INT64_MAX)
		return (int64_t)v;
	for (size_t i = 0; i < FW_ARRAY_SIZE(files); i++) {
		struct stat st;

		if (fstatat(t->rootfd, files[i], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    st.st_mtime > best)
			best = st.st_mtime;
	}
	return best;
}

/* A program on the sandbox's PATH (the host's /usr/bin and /bin, which
 * the sandbox mounts as they are). */
static bool on_path(const char *cmd)
{
	static const char *const dirs[] = { "/usr/bin", "/bin" };

	for (size_t i = 0; i < FW_ARRAY_SIZE(dirs); i++) {
		char p[4096];

		snprintf(p, sizeof(p), "%s/%s", dirs[i], cmd);
		if (faccessat(AT_FDCWD, p, X_OK, AT_EACCESS) == 0)
			return true;
	}
	return false;
}

/* Every output gets the same verdict (a recipe not run, or failed). */
static int verdict_all(const struct fw_recipe *r, struct fw_build_result *res,
		       enum fw_build_verdict v, char *why, const char *log)
{
	int ret = 0;

	for (size_t i = 0; i < r->noutputs; i++) {
		res[i].v = v;
		res[i].why = i ? (why ? strdup(why) : NULL) : why;
		res[i].log = log ? strdup(log) : NULL;
		if ((why && !res[i].why) || (log && !res[i].log))
			ret = -ENOMEM;
	}
	if (!r->noutputs)
		free(why);
	return ret;
}

/* ---- the child: pid 1 of the sandbox ---- */

struct child_report {
	int stage;  /* 0: sandbox set-up failed; 1: a run line failed; 2: all ran */
	int run;    /* the run line that failed (index) */
	int status; /* its wait status */
	int err;    /* errno of the set-up step */
	char what[200];
};

struct child_args {
	const char *top;  /* the scratch top: root/ (the new /) and work/ (/build) */
	const struct fw_recipe *r;
	const char *self; /* NULL unless the recipe declares tool fwdist */
	int64_t epoch;
	bool as_nobody;   /* fwdist is root: the commands run as nobody */
	bool userns;      /* in a new user namespace: map our uid to root */
	uid_t uid;
	gid_t gid;
	int outfd, repfd, gofd;
};

static void report(const struct child_args *a, int stage, int run, int status, int err,
		   const char *what)
{
	struct child_report rep = { .stage = stage, .run = run, .status = status, .err = err };

	snprintf(rep.what, sizeof(rep.what), "%s", what ? what : "");
	if (write(a->repfd, &rep, sizeof(rep)) < 0) {
		/* nothing to do: the parent sees no report and says so */
	}
}

#define SETUP(cond, what)                                   \
	do {                                                \
		if (!(cond)) {                              \
			report(a, 0, 0, 0, errno, (what)); \
			_exit(125);                         \
		}                                           \
	} while (0)

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Remount the bind at path nosuid, read-only (else nodev), keeping the flags it has: in a user
 * namespace those of a mount from outside are locked, and a remount that
 * would clear one is refused. */
static int remount(const char *path, bool ro)
{
	unsigned long flags = MS_BIND | MS_REMOUNT | MS_NOSUID | (ro ? MS_RDONLY : MS_NODEV);
	struct statvfs sv;

	if (statvfs(path, &sv) == 0) {
		if (sv.f_flag & ST_NODEV)
			flags |= MS_NODEV;
		if (sv.f_flag & ST_NOEXEC)
			flags |= MS_NOEXEC;
		if (sv.f_flag & ST_NOATIME)
			flags |= MS_NOATIME;
		if (sv.f_flag & ST_NODIRATIME)
			flags |= MS_NODIRATIME;
		if (sv.f_flag & ST_RELATIME)
			flags |= MS_RELATIME;
	}
	return mount("none", path, "none", flags, NULL);
}

/* Undo mountinfo's octal escapes (\040 for a blank) in place. */
static void unescape_mountinfo(char *s)
{
	char *o = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
}

static void remount_below_ro(const struct child_args *a, const char *dst)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	size_t n = strlen(dst);
	char line[8192];

	SETUP(f != NULL, "/proc/self/mountinfo");
	while (fgets(line, sizeof(line), f)) {
		char *mp = line;

		/* Field 5 is the mount point. */
		for (int i = 0; i < 4 && mp; i++) {
			mp = strchr(mp, ' ');
			if (mp)
				mp++;
		}
		if (!mp)
			continue;
		*strchrnul(mp, ' ') = '\0';
		unescape_mountinfo(mp);
		if (strncmp(mp, dst, n) != 0 || mp[n] != '/')
			continue;
		if (remount(mp, true) < 0) {
			fclose(f);
			SETUP(0, mp);
		}
	}
	fclose(f);
}

/* Bind the host's path read-only at root+path; a merged-/usr alias (a
 * symlink such as /bin -> usr/bin) is made as the same symlink. */
static void bind_ro(const struct child_args *a, const char *root, const char *path, bool file)
{
	char dst[4096], target[4096];
	struct stat st;
	ssize_t n;

	if (lstat(path, &st) < 0)
		return; /* /lib64 is absent on some architectures */
	snprintf(dst, sizeof(dst), "%s%s", root, path);
	if (S_ISLNK(st.st_mode)) {
		n = readlink(path, target, sizeof(target) - 1);
		SETUP(n > 0, path);
		target[n] = '\0';
		SETUP(symlink(target, dst) == 0, path);
		return;
	}
	if (file) {
		int fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

		SETUP(fd >= 0, dst);
		close(fd);
	} else {
		SETUP(mkdir(dst, 0755) == 0, dst);
	}
	SETUP(mount(path, dst, "none", MS_BIND | MS_REC, NULL) == 0, path);
	SETUP(remount(dst, true) == 0, path);
	/* A recursive bind brings the mounts below along (a container's
	 * /etc/hosts, /etc/resolv.conf), and the remount above makes only the
	 * top one read-only: each of them is made read-only too. */
	remount_below_ro(a, dst);
}

static void drop_caps(const struct child_args *a)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct c[2] = { 0 };

	SETUP(syscall(SYS_capset, &h, c) == 0, "dropping capabilities");
}

static void child(const struct child_args *a)
{
	static const char *const dirs[] = { "/usr", "/bin", "/lib", "/lib64", "/sbin", "/etc" };
	static const char *const devs[] = { "/dev/null", "/dev/zero", "/dev/urandom" };
	const struct fw_recipe *r = a->r;
	char root[64], work[64], p[256], map[64], epoch[64];
	char *env[8];
	size_t ne = 0;
	int nul;

	char go;

	/* The parent says go once the scratch directory is the user's the
	 * commands run as (known only once the namespaces exist). */
	if (read(a->gofd, &go, 1) != 1)
		_exit(125);
	snprintf(root, sizeof(root), "%s/root", a->top);
	snprintf(work, sizeof(work), "%s/work", a->top);
	if (a->userns) {
		SETUP(write_file("/proc/self/setgroups", "deny") == 0, "user namespace: setgroups");
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)a->uid);
		SETUP(write_file("/proc/self/uid_map", map) == 0, "user namespace: uid_map");
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)a->gid);
		SETUP(write_file("/proc/self/gid_map", map) == 0, "user namespace: gid_map");
	}
	/* Nothing mounted here propagates back to the host. */
	SETUP(mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) == 0, "making / private");
	SETUP(mount("fwdist-build", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m") == 0,
	      "mounting the sandbox's root");
	for (size_t i = 0; i < FW_ARRAY_SIZE(dirs); i++)
		bind_ro(a, root, dirs[i], false);
	snprintf(p, sizeof(p), "%s/dev", root);
	SETUP(mkdir(p, 0755) == 0, "/dev");
	for (size_t i = 0; i < FW_ARRAY_SIZE(devs); i++)
		bind_ro(a, root, devs[i], true);
	/* /dev/null is written to, read-only or not: a device node's
	 * writes do not go through the mount. */
	snprintf(p, sizeof(p), "%s/tmp", root);
	SETUP(mkdir(p, 01777) == 0, "/tmp");
	SETUP(mount("fwdist-tmp", p, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=256m") == 0,
	      "mounting /tmp");
	/* The sandbox's own proc (its pid namespace shows only the build's
	 * processes): tools read /proc/self, and a sanitizer-built fwdist
	 * reads /proc/PID/task. A user namespace may be refused a proc
	 * mount where the host's proc is partly masked (a container); the
	 * build then runs without one. */
	snprintf(p, sizeof(p), "%s/proc", root);
	SETUP(mkdir(p, 0555) == 0, "/proc");
	if (mount("proc", p, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		SETUP(a->userns && (errno == EPERM || errno == EACCES), "mounting /proc");
	snprintf(p, sizeof(p), "%s%s", root, FW_BUILD_DIR);
	SETUP(mkdir(p, 0755) == 0, FW_BUILD_DIR);
	SETUP(mount(work, p, "none", MS_BIND, NULL) == 0, "mounting the scratch directory");
	SETUP(remount(p, false) == 0, "mounting the scratch directory");
	if (a->self) {
		snprintf(p, sizeof(p), "%s/opt", root);
		SETUP(mkdir(p, 0755) == 0, "/opt");
		snprintf(p, sizeof(p), "%s/opt/fwdist", root);
		SETUP(mkdir(p, 0755) == 0, "/opt/fwdist");
		snprintf(p, sizeof(p), "%s%s", root, FW_BUILD_SELF_DIR);
		SETUP(mkdir(p, 0755) == 0, FW_BUILD_SELF_DIR);
		snprintf(p, sizeof(p), "%s%s/fwdist", root, FW_BUILD_SELF_DIR);
		nul = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
		SETUP(nul >= 0, "fwdist in the sandbox");
		close(nul);
		SETUP(mount(a->self, p, "none", MS_BIND, NULL) == 0, "fwdist in the sandbox");
		SETUP(remount(p, true) == 0, "fwdist in the sandbox");
	}
	/* The root itself read-only: nothing is written but /build and /tmp. */
	SETUP(mount("none", root, "tmpfs", MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, "mode=0755") ==
		      0,
	      "making the sandbox's root read-only");
	SETUP(chdir(root) == 0, "entering the sandbox");
	SETUP(syscall(SYS_pivot_root, ".", ".") == 0, "pivot_root");
	SETUP(umount2(".", MNT_DETACH) == 0, "detaching the host's root");
	SETUP(chdir("/") == 0, "/");
	SETUP(chdir(FW_BUILD_DIR) == 0, FW_BUILD_DIR);
	/* The bounding set first: dropping it needs the capability that
	 * setuid below takes away. */
	for (int cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL)
			SETUP(0, "dropping capabilities");
	/* As root, the commands run as nobody (the scratch directory was
	 * given to it): a root shell could remount what is read-only. */
	if (a->as_nobody) {
		SETUP(setgroups(0, NULL) == 0, "setgroups");
		SETUP(setresgid(BUILD_GID, BUILD_GID, BUILD_GID) == 0, "setgid nobody");
		SETUP(setresuid(BUILD_UID, BUILD_UID, BUILD_UID) == 0, "setuid nobody");
	}
	SETUP(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "no_new_privs");
	drop_caps(a);
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	SETUP(nul >= 0 && dup2(nul, 0) == 0, "/dev/null");
	SETUP(dup2(a->outfd, 1) == 1 && dup2(a->outfd, 2) == 2, "output");

	env[ne++] = "LC_ALL=C";
	env[ne++] = "TZ=UTC";
	env[ne++] = a->self ? "PATH=" FW_BUILD_SELF_DIR ":" FW_BUILD_PATH : "PATH=" FW_BUILD_PATH;
	snprintf(epoch, sizeof(epoch), "SOURCE_DATE_EPOCH=%" PRId64, a->epoch);
	env[ne++] = epoch;
	env[ne++] = "TMPDIR=/tmp";
	env[ne++] = "PWD=" FW_BUILD_DIR;
	env[ne] = NULL;
	for (size_t i = 0; i < r->nruns; i++) {
		pid_t pid = fork();
		int st;

		SETUP(pid >= 0, "fork");
		if (pid == 0) {
			char *argv[] = { "sh", "-c", r->runs[i].text, NULL };

			/* Nothing fwdist's caller left open (a directory of
			 * the host, make's jobserver) reaches the command:
			 * an inherited descriptor would lead out of the
			 * sandbox. */
			if (close_range(3, ~0U, 0) < 0)
				for (int fd = 3; fd < 65536; fd++)
					close(fd);
			execve("/bin/sh", argv, env);
			_exit(127);
		}
		/* pid 1 reaps every orphan; the command's own status is ours. */
		for (;;) {
			pid_t w = wait(&st);

			if (w == pid)
				break;
			if (w < 0 && errno != EINTR)
				SETUP(0, "wait");
		}
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			report(a, 1, (int)i, st, 0, NULL);
			_exit(1);
		}
	}
	report(a, 2, 0, 0, 0, NULL);
	_exit(0);
}

/* ---- the parent ---- */

/* Give the scratch directory to nobody: the commands write there. */
static int chown_tree(int dfd)
{
	char **names = NULL;
	unsigned char *types = NULL;
	size_t n = 0;
	int r = fw_read_dir_typed(dfd, &names, &types, &n);

	if (r < 0)
		return r;
	for (size_t i = 0; i < n && r == 0; i++) {
		if (fchownat(dfd, names[i], BUILD_UID, BUILD_GID, AT_SYMLINK_NOFOLLOW) < 0) {
			r = -errno;
			break;
		}
		if (types[i] == DT_DIR) {
			int sub = openat(dfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			r = sub < 0 ? -errno : chown_tree(sub);
			if (sub >= 0)
				close(sub);
		}
	}
	fw_free_strv(names, n);
	free(types);
	return r;
}

static int copy_source(const struct fw_tree *t, int workfd, const char *name)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	const char *leaf;
	int in, dir, out, r;

	in = fw_open_beneath(t->fwfd, name, O_RDONLY, 0);
	if (in < 0)
		return in;
	r = fw_read_fd(in, OUTPUT_MAX, &buf, &len);
	close(in);
	if (r < 0)
		return r;
	dir = fw_open_parent(workfd, name, 1, &leaf);
	if (dir < 0) {
		free(buf);
		return dir;
	}
	out = openat(dir, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	r = out < 0 ? -errno : fw_write_all(out, buf, len);
	if (out >= 0)
		close(out);
	close(dir);
	free(buf);
	return r;
}

/* The last n lines of text (a pointer into it). */
static const char *last_lines(const char *s, size_t len, unsigned n)
{
	const char *p = s + len;

	if (p > s && p[-1] == '\n')
		p--;
	while (p > s) {
		p--;
		if (*p == '\n' && --n == 0)
			return p + 1;
	}
	return s;
}

static char *status_text(int st)
{
	if (WIFEXITED(st))
		return fw_asprintf("exit status %d", WEXITSTATUS(st));
	if (WIFSIGNALED(st))
		return fw_asprintf("killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	return fw_asprintf("wait status %d", st);
}

/* Compare an output with the tree: the blob in firmware/ when present,
 * else its checksum line (a tree whose built blobs are not there yet, as
 * a fresh checkout before make firmware). */
static int compare(const struct fw_tree *t, struct fw_build_result *res, const uint8_t *buf,
		   size_t len, bool *present)
{
	const struct fw_sum *sum = t->have_sums ? fw_sums_find(&t->sums, res->blob) : NULL;
	uint8_t *tb = NULL;
	size_t tlen = 0;
	int fd = fw_open_beneath(t->fwfd, res->blob, O_RDONLY, 0), r;

	res->first_diff = -1;
	*present = fd >= 0;
	if (fd >= 0) {
		r = fw_read_fd(fd, OUTPUT_MAX, &tb, &tlen);
		close(fd);
		if (r < 0)
			return r;
		res->tree_size = tlen;
		if (tlen == len && memcmp(tb, buf, len) == 0) {
			res->v = FW_BV_IDENTICAL;
		} else {
			size_t i = 0;

			while (i < len && i < tlen && tb[i] == buf[i])
				i++;
			res->first_diff = (int64_t)i;
			res->v = FW_BV_DIFFERS;
			res->why = fw_asprintf("rebuilt %zu bytes, the tree's blob %zu bytes; first "
					       "difference at offset %zu (0x%zx)",
					       len, tlen, i, i);
		}
		free(tb);
		return res->why || res->v == FW_BV_IDENTICAL ? 0 : -ENOMEM;
	}
	if (fd != -ENOENT) {
		res->v = FW_BV_DIFFERS;
		res->why = fw_asprintf("the tree's blob cannot be read: %s", fw_path_error(fd));
		return res->why ? 0 : -ENOMEM;
	}
	if (sum) {
		res->tree_size = sum->size;
		if (sum->size == len && memcmp(sum->sha256, res->sha256, FW_SHA256_LEN) == 0) {
			res->v = FW_BV_IDENTICAL;
			return 0;
		}
		res->v = FW_BV_DIFFERS;
		res->why = fw_asprintf("rebuilt %zu bytes, %s says %" PRIu64
				       " bytes and another SHA-256 (the blob is absent: no offset)",
				       len, FW_TREE_SUMS, sum->size);
	} else {
		res->v = FW_BV_DIFFERS;
		res->why = fw_asprintf("rebuilt %zu bytes; the tree has no such blob and no "
				       "checksum line to compare with", len);
	}
	return res->why ? 0 : -ENOMEM;
}

static int read_outputs(const struct fw_tree *t, int workfd, const struct fw_recipe *r,
			const struct fw_build_opts *o, struct fw_build_result *res)
{
	for (size_t i = 0; i < r->noutputs; i++) {
		uint8_t *buf = NULL;
		size_t len = 0;
		struct stat st;
		bool present = false;
		int fd, ret;

		/* Only what the scratch directory holds, no symlink at any
		 * step (a recipe could point one at a file of the host). */
		fd = fw_open_beneath(workfd, res[i].blob, O_RDONLY | O_NONBLOCK, 0);
		if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
			close(fd);
			fd = -EINVAL;
		}
		if (fd < 0) {
			res[i].v = FW_BV_FAILED;
			res[i].why = fw_asprintf("the commands did not write output %s: %s",
						 res[i].blob,
						 fd == -ENOENT ? "no such file"
						 : fd == -EINVAL ? "not a regular file"
								 : fw_path_error(fd));
			if (!res[i].why)
				return -ENOMEM;
			continue;
		}
		ret = fw_read_fd(fd, OUTPUT_MAX, &buf, &len);
		close(fd);
		if (ret < 0) {
			res[i].v = FW_BV_FAILED;
			res[i].why = fw_asprintf("output %s cannot be read: %s", res[i].blob,
						 strerror(-ret));
			if (!res[i].why)
				return -ENOMEM;
			continue;
		}
		res[i].built = true;
		res[i].built_size = len;
		ret = fw_sha256_buf(buf, len, res[i].sha256);
		if (ret == 0)
			ret = compare(t, &res[i], buf, len, &present);
		/* make firmware: the built blob takes its place in firmware/
		 * (a new file, atomically), unless the same bytes are there. */
		if (ret == 0 && o->write && !(present && res[i].v == FW_BV_IDENTICAL)) {
			/* Its directory too, where a fresh checkout has none
			 * (beneath firmware/: a symlink in the way is refused). */
			const char *leaf;
			int pfd = fw_open_parent(t->fwfd, res[i].blob, 1, &leaf);

			if (pfd < 0) {
				ret = pfd;
			} else {
				ret = fw_write_atomic(pfd, leaf, buf, len, 0644);
				if (pfd != t->fwfd)
					close(pfd);
			}
		}
		free(buf);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int fw_build_recipe(const struct fw_tree *t, const struct fw_recipe *r,
		    const struct fw_build_opts *o, struct fw_build_result *res)
{
	char top[] = "/tmp/fwdist-build-XXXXXX", path[4096];
	struct child_args a = { .top = top, .r = r, .epoch = o->epoch };
	struct child_report rep = { .stage = -1 };
	char *log = NULL;
	size_t loglen = 0;
	int out[2] = { -1, -1 }, rp[2] = { -1, -1 }, go[2] = { -1, -1 }, workfd = -1, ret = 0, st = 0;
	unsigned timeout = o->timeout ? o->timeout : r->timeout;
	bool timed_out = false;
	pid_t pid;
	struct timespec t0, now;

	for (size_t i = 0; i < r->noutputs; i++) {
		memset(&res[i], 0, sizeof(res[i]));
		res[i].recipe = r;
		res[i].blob = r->outputs[i].text;
		res[i].first_diff = -1;
	}
	/* Tools first: a recipe that cannot run here is not run at all. */
	for (size_t i = 0; i < r->ntools; i++) {
		const struct fw_recipe_tool *tl = &r->tools[i];

		if (strcmp(tl->package, FW_RECIPE_NO_PACKAGE) == 0) {
			int e = verdict_all(r, res, FW_BV_NOT_REBUILT,
					    fw_asprintf("tool %s is in no Debian package", tl->command),
					    NULL);

			for (size_t k = 0; k < r->noutputs; k++)
				res[k].no_package = true;
			return e;
		}
		if (strcmp(tl->package, FW_RECIPE_SELF_PACKAGE) == 0) {
			if (!o->self)
				return verdict_all(r, res, FW_BV_NOT_REBUILT,
						   fw_asprintf("tool fwdist: the running fwdist's binary is unknown"),
						   NULL);
			a.self = o->self;
			continue;
		}
		if (!on_path(tl->command))
			return verdict_all(r, res, FW_BV_NOT_REBUILT,
					   fw_asprintf("tool %s missing: install Debian package %s",
						       tl->command, tl->package), NULL);
	}
	for (size_t i = 0; i < r->nsources; i++) {
		int fd = fw_open_beneath(t->fwfd, r->sources[i].text, O_RDONLY, 0);

		if (fd < 0)
			return verdict_all(r, res, FW_BV_NOT_REBUILT,
					   fw_asprintf("source %s not in the tree: %s",
						       r->sources[i].text,
						       fd == -ENOENT ? "no such file" : fw_path_error(fd)),
					   NULL);
		close(fd);
	}

	if (!mkdtemp(top))
		return -errno;
	snprintf(path, sizeof(path), "%s/root", top);
	if (mkdir(path, 0755) < 0) {
		ret = -errno;
		goto out;
	}
	snprintf(path, sizeof(path), "%s/work", top);
	if (mkdir(path, 0755) < 0) {
		ret = -errno;
		goto out;
	}
	workfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (workfd < 0) {
		ret = -errno;
		goto out;
	}
	for (size_t i = 0; i < r->nsources; i++) {
		ret = copy_source(t, workfd, r->sources[i].text);
		if (ret < 0) {
			ret = verdict_all(r, res, FW_BV_FAILED,
					  fw_asprintf("source %s cannot be copied: %s",
						      r->sources[i].text, strerror(-ret)),
					  NULL);
			goto out;
		}
	}
	a.as_nobody = geteuid() == 0;
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(rp, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0) {
		ret = -errno;
		goto out;
	}
	a.outfd = out[1];
	a.repfd = rp[1];
	a.gofd = go[0];
	a.uid = geteuid();
	a.gid = getegid();
	fflush(NULL);
	/* A raw clone without a stack acts as fork: the child is pid 1 of
	 * its own PID namespace, so killing it on a timeout ends every
	 * process the commands started. Without the privilege for the
	 * namespaces, a user namespace gives it; without that, nothing runs. */
	{
		unsigned long flags = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC |
				      CLONE_NEWUTS | SIGCHLD;

		pid = (pid_t)syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
		if (pid < 0 && (errno == EPERM || errno == EINVAL)) {
			a.userns = true;
			a.as_nobody = false;
			pid = (pid_t)syscall(SYS_clone, flags | CLONE_NEWUSER, NULL, NULL, NULL, NULL);
		}
	}
	if (pid == 0) {
		close(out[0]);
		close(rp[0]);
		close(go[1]);
		child(&a);
		_exit(125);
	}
	if (pid < 0) {
		ret = verdict_all(r, res, FW_BV_FAILED,
				  fw_asprintf("no sandbox: the kernel refuses new namespaces (%s), "
					      "as root and in a user namespace; not building "
					      "without one", strerror(errno)),
				  NULL);
		goto out;
	}
	close(out[1]);
	close(rp[1]);
	close(go[0]);
	out[1] = rp[1] = go[0] = -1;
	/* As root (not in a user namespace), the commands run as nobody:
	 * the scratch directory is given to it. */
	if (a.as_nobody) {
		ret = fchown(workfd, BUILD_UID, BUILD_GID) < 0 ? -errno : chown_tree(workfd);
		if (ret < 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			goto out;
		}
	}
	if (write(go[1], "g", 1) != 1) {
		ret = -errno;
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		goto out;
	}
	log = malloc(LOG_MAX + 1);
	if (!log) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		ret = -ENOMEM;
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd pf = { .fd = out[0], .events = POLLIN };
		char chunk[4096];
		long left;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (long)timeout * 1000 - ((now.tv_sec - t0.tv_sec) * 1000 +
					       (now.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0) {
			timed_out = true;
			kill(pid, SIGKILL);
			break;
		}
		if (poll(&pf, 1, (int)(left > 1000 ? 1000 : left)) < 0 && errno != EINTR)
			break;
		if (!(pf.revents & (POLLIN | POLLHUP)))
			continue;
		n = read(out[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		/* Keep the last LOG_MAX bytes (a chunk is smaller). */
		if (loglen + (size_t)n > LOG_MAX) {
			size_t drop = loglen + (size_t)n - LOG_MAX;

			memmove(log, log + drop, loglen - drop);
			loglen -= drop;
		}
		memcpy(log + loglen, chunk, (size_t)n);
		loglen += (size_t)n;
	}
	/* The output closes when pid 1 and every command exit; a command
	 * that forks a daemon keeping it open is ended with the rest. */
	if (!timed_out) {
		int w;

		for (;;) {
			w = waitpid(pid, &st, WNOHANG);
			if (w != 0)
				break;
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec - t0.tv_sec >= (time_t)timeout) {
				timed_out = true;
				kill(pid, SIGKILL);
				waitpid(pid, &st, 0);
				break;
			}
			usleep(10000);
		}
	} else {
		waitpid(pid, &st, 0);
	}
	log[loglen] = '\0';
	if (read(rp[0], &rep, sizeof(rep)) != (ssize_t)sizeof(rep))
		rep.stage = -1;
	{
		const char *tail = last_lines(log, loglen, o->log_lines ? o->log_lines : 10);
		char *why;

		if (timed_out) {
			ret = verdict_all(r, res, FW_BV_FAILED,
					  fw_asprintf("time limit of %u s reached: the sandbox was killed",
						      timeout),
					  tail);
		} else if (rep.stage == 0) {
			ret = verdict_all(r, res, FW_BV_FAILED,
					  fw_asprintf("no sandbox: %s: %s; not building without one",
						      rep.what, strerror(rep.err)),
					  tail);
		} else if (rep.stage == 1 && (rep.run < 0 || (size_t)rep.run >= r->nruns)) {
			/* Not a report pid 1 could have sent: forged. */
			ret = verdict_all(r, res, FW_BV_FAILED,
					  fw_asprintf("the sandbox ended without a report"), tail);
		} else if (rep.stage == 1) {
			char *s = status_text(rep.status);

			why = s ? fw_asprintf("run line %u (%s) failed: %s",
					      r->runs[rep.run].line, r->runs[rep.run].text, s)
				: NULL;
			free(s);
			ret = verdict_all(r, res, FW_BV_FAILED, why, tail);
		} else if (rep.stage != 2) {
			char *s = status_text(st);

			ret = verdict_all(r, res, FW_BV_FAILED,
					  s ? fw_asprintf("the sandbox ended without a report: %s", s)
					    : NULL,
					  tail);
			free(s);
		} else {
			ret = read_outputs(t, workfd, r, o, res);
			for (size_t i = 0; ret == 0 && i < r->noutputs; i++)
				if (res[i].v == FW_BV_FAILED) {
					res[i].log = strdup(tail);
					if (!res[i].log)
						ret = -ENOMEM;
				}
		}
	}
out:
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (rp[i] >= 0)
			close(rp[i]);
		if (go[i] >= 0)
			close(go[i]);
	}
	if (workfd >= 0)
		close(workfd);
	free(log);
	{
		int r2 = fw_rm_rf_at(AT_FDCWD, top);

		if (ret == 0 && r2 < 0)
			ret = r2;
	}
	return ret;
}

/* A Source: of block blk names src, or a directory above it. */
static bool block_sources(const struct fw_tree *t, unsigned blk, const char *src)
{
	const struct fw_whence *w = &t->whence;
	const struct fw_whence_block *b = &w->blocks[blk];

	for (unsigned i = b->first; i < b->first + b->count && i < w->nentries; i++) {
		const struct fw_whence_entry *e = &w->entries[i];
		size_t n = strlen(e->name);

		while (n && e->name[n - 1] == '/')
			n--;
		if (e->kind != FW_E_SOURCE || !n)
			continue;
		if (strncmp(src, e->name, n) == 0 && (src[n] == '\0' || src[n] == '/'))
			return true;
	}
	return false;
}

void fw_tree_check_recipes(const struct fw_tree *t, struct fw_diag *d)
{
	const struct fw_recipes *rs = &t->recipes;
	const char *path = FW_TREE_RECIPES;

	for (size_t i = 0; i < rs->n; i++) {
		const struct fw_recipe *r = &rs->v[i];

		for (size_t j = 0; j < r->noutputs; j++) {
			const struct fw_recipe_item *o = &r->outputs[j];
			const struct fw_name *nm = fw_tree_find(t, o->text);
			unsigned line = 0;
			const struct fw_recipe *first = fw_recipes_output(rs, o->text, &line);

			if (first != r || line != o->line)
				fw_diag_add(d, path, o->line,
					    "recipe %s: output %s is also the output of recipe %s (line %u)",
					    r->name, fw_esc(o->text), first->name, line);
			if (!nm || nm->blob < 0) {
				fw_diag_add(d, path, o->line,
					    "recipe %s: output %s is no File: or RawFile: of %s",
					    r->name, fw_esc(o->text), FW_TREE_WHENCE);
				continue;
			}
			for (size_t k = 0; k < r->nsources; k++) {
				const struct fw_recipe_item *s = &r->sources[k];
				const struct fw_name *sn = fw_tree_find(t, s->text);

				if (block_sources(t, nm->e->block, s->text) || (sn && sn->blob >= 0))
					continue;
				fw_diag_add(d, path, s->line,
					    "recipe %s: source %s is named by no Source: of the block "
					    "listing %s (%s:%u)",
					    r->name, fw_esc(s->text), fw_esc(o->text), FW_TREE_WHENCE,
					    t->whence.blocks[nm->e->block].line);
			}
		}
		for (size_t k = 0; k < r->nsources; k++) {
			const struct fw_recipe_item *s = &r->sources[k];
			int fd = t->fwfd >= 0 ? fw_open_beneath(t->fwfd, s->text, O_RDONLY, 0) : -ENOENT;
			struct stat st;

			if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
				close(fd);
				continue;
			}
			/* A blob the recipe reads may be built by another
			 * recipe first (an absent blob is check's finding). */
			if (fd >= 0)
				close(fd);
			fw_diag_add(d, path, s->line, "recipe %s: source %s: %s", r->name,
				    fw_esc(s->text),
				    fd >= 0 ? "not a regular file"
				    : fd == -ENOENT ? "no such file in firmware/"
						    : fw_path_error(fd));
		}
	}
	for (size_t i = 0; i < t->verdicts.n; i++) {
		const struct fw_verdict_rec *v = &t->verdicts.v[i];
		const struct fw_name *nm = fw_tree_find(t, v->blob);

		if (!nm || nm->blob < 0)
			fw_diag_add(d, FW_TREE_VERDICTS, v->line, "%s: no blob of %s (run fwdist build --record)",
				    fw_esc(v->blob), FW_TREE_WHENCE);
	}
}

const char *fw_freeness_name(enum fw_freeness f)
{
	switch (f) {
	case FW_FREE_REBUILT:
		return "rebuilt-identical";
	case FW_FREE_OWN_FORM:
		return "own-preferred-form";
	case FW_FREE_NOT_REBUILT:
		return "source-not-rebuilt";
	}
	return "?";
}

char *fw_blob_freeness(const struct fw_tree *t, const struct fw_blob *b, enum fw_freeness *f)
{
	const struct fw_verdict_rec *v = fw_verdicts_find(&t->verdicts, b->e->name);
	const struct fw_recipe *r = fw_recipes_output(&t->recipes, b->e->name, NULL);
	bool current = v && v->built && b->sum &&
		       memcmp(v->sha256, b->sum->sha256, FW_SHA256_LEN) == 0;

	if (!b->has_source && b->self_source) {
		*f = FW_FREE_OWN_FORM;
		if (b->preferred)
			return fw_asprintf("its own preferred form (manifests/preferred-form: %s), "
					   "no build needed", b->preferred);
		return strdup("its own preferred form (text), no build needed");
	}
	if (v && v->v == FW_BV_IDENTICAL && current) {
		*f = FW_FREE_REBUILT;
		return fw_asprintf("source in the tree, rebuilt identical by recipe %s (%s:%u)",
				   v->recipe ? v->recipe : "-", FW_TREE_VERDICTS, v->line);
	}
	*f = FW_FREE_NOT_REBUILT;
	if (v && v->v == FW_BV_IDENTICAL)
		return fw_asprintf("source in the tree, not rebuilt: the verdict of %s:%u is "
				   "about other bytes (run fwdist build --record)",
				   FW_TREE_VERDICTS, v->line);
	if (v && v->v == FW_BV_DIFFERS)
		return fw_asprintf("source in the tree, rebuilt but not identical: %s (%s:%u)",
				   v->why ? v->why : "-", FW_TREE_VERDICTS, v->line);
	if (v && v->v == FW_BV_FAILED)
		return fw_asprintf("source in the tree, but it does not build: %s (%s:%u)",
				   v->why ? v->why : "-", FW_TREE_VERDICTS, v->line);
	if (v)
		return fw_asprintf("source in the tree, not rebuilt: %s (%s:%u)",
				   v->why ? v->why : "-", FW_TREE_VERDICTS, v->line);
	if (r)
		return fw_asprintf("source in the tree, not rebuilt: no verdict recorded for "
				   "recipe %s (run fwdist build --record)", r->name);
	return fw_asprintf("source in the tree, not rebuilt: no recipe in %s", FW_TREE_RECIPES);
}

void fw_tree_check_rebuilt(const struct fw_tree *t, struct fw_diag *d)
{
	if (!t->recipes.n)
		return;
	for (size_t i = 0; i < t->nblobs; i++) {
		const struct fw_blob *b = &t->blobs[i];
		enum fw_freeness how;
		char *why;

		if (b->duplicate || b->cat != FW_CAT_FREE || !b->copyleft_id || b->pkg < 0 ||
		    strcmp(t->split.pkgs[b->pkg].section, "main") != 0)
			continue;
		why = fw_blob_freeness(t, b, &how);
		if (!why) {
			d->nomem++;
			return;
		}
		if (how == FW_FREE_NOT_REBUILT)
			fw_diag_add(d, t->whence.path, b->e->line,
				    "%s: %s, in main (%s), but no rebuild shows its source builds it: "
				    "%s; record one (fwdist build --record) or declare it its own "
				    "preferred form (%s)",
				    fw_esc(b->e->name), b->copyleft_id, t->split.pkgs[b->pkg].name, why,
				    FW_TREE_PREFERRED);
		free(why);
	}
}

int fw_tree_freeness_counts(const struct fw_tree *t, size_t how[3])
{
	how[0] = how[1] = how[2] = 0;
	for (size_t i = 0; i < t->nblobs; i++) {
		enum fw_freeness f;
		char *why;

		if (t->blobs[i].cat != FW_CAT_FREE || t->blobs[i].duplicate)
			continue;
		why = fw_blob_freeness(t, &t->blobs[i], &f);
		if (!why)
			return -ENOMEM;
		free(why);
		if ((size_t)f < 3)
			how[f]++;
	}
	return 0;
}
