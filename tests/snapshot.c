// SPDX-License-Identifier: GPL-2.0-or-later
// tests/snapshot: the picture of a tree that tests/lib.sh's snapshot takes
// with find, sha256sum and sort, byte for byte, in one process.
//
// Usage: snapshot DIR
// Prints, sorted as LC_ALL=C sort does (by bytes, split at every newline):
//   for every path P below DIR, DIR itself as ".":  "%y %m P -> %l" as
//     find -printf gives it (type letter, permission bits in octal, the
//     symbolic link's text, empty for other types);
//   for every regular file:  its SHA-256 in hex, two spaces, P; a path
//     holding a backslash, newline or carriage return is written escaped
//     (\\, \n, \r) after a leading backslash, as sha256sum 9.1 writes it.
// P starts with "./". Symbolic links are not followed; nothing but a
// regular file is opened (a FIFO would block). A path that cannot be read
// is said on stderr, as find and sha256sum say it, and the exit is 1.
//
// Why: a command-line case takes this picture before and after its
// command (tests/run-cases); the pipeline is five processes, and a process
// costs about 10 ms of CPU on a small VM: 600 pictures were 20 s of
// `make quick`. The digest is OpenSSL's (libcrypto's EVP), not fwdist's
// library: the picture does not trust the code under test.
// tests/runners checks that both pictures are the same on a tree of odd names.

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

// ---- the picture ----
static char *out;
static size_t out_len, out_cap;
static int status;

static void put(const char *p, size_t n)
{
	if (out_len + n > out_cap) {
		out_cap = (out_len + n) * 2 + 4096;
		out = realloc(out, out_cap);
		if (!out) {
			fputs("snapshot: out of memory\n", stderr);
			exit(2);
		}
	}
	memcpy(out + out_len, p, n);
	out_len += n;
}

static void puts_(const char *p) { put(p, strlen(p)); }

static void hash_line(int dirfd, const char *name, const char *path)
{
	static unsigned char buf[1 << 16];
	EVP_MD_CTX *s = EVP_MD_CTX_new();
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	char hex[65];
	ssize_t r;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (!s || EVP_DigestInit_ex(s, EVP_sha256(), NULL) != 1) {
		fputs("snapshot: cannot set up SHA-256\n", stderr);
		exit(2);
	}
	if (fd < 0) {
		fprintf(stderr, "sha256sum: %s: %s\n", path, strerror(errno));
		status = 1;
		EVP_MD_CTX_free(s);
		return;
	}
	while ((r = read(fd, buf, sizeof(buf))) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "sha256sum: %s: %s\n", path, strerror(errno));
			status = 1;
			close(fd);
			EVP_MD_CTX_free(s);
			return;
		}
		if (EVP_DigestUpdate(s, buf, (size_t)r) != 1) {
			fputs("snapshot: SHA-256 failed\n", stderr);
			exit(2);
		}
	}
	close(fd);
	if (EVP_DigestFinal_ex(s, md, &mdlen) != 1 || mdlen != 32) {
		fputs("snapshot: SHA-256 failed\n", stderr);
		exit(2);
	}
	EVP_MD_CTX_free(s);
	for (unsigned i = 0; i < 32; i++)
		sprintf(hex + 2 * i, "%02x", md[i]);
	if (strpbrk(path, "\\\n\r"))
		put("\\", 1);
	put(hex, 64);
	put("  ", 2);
	for (const char *p = path; *p; p++) {
		switch (*p) {
		case '\\': put("\\\\", 2); break;
		case '\n': put("\\n", 2); break;
		case '\r': put("\\r", 2); break;
		default: put(p, 1);
		}
	}
	put("\n", 1);
}

static char type_letter(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG: return 'f';
	case S_IFDIR: return 'd';
	case S_IFLNK: return 'l';
	case S_IFIFO: return 'p';
	case S_IFSOCK: return 's';
	case S_IFCHR: return 'c';
	case S_IFBLK: return 'b';
	default: return 'U';
	}
}

static int compare(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t lx = strcspn(x, "\n"), ly = strcspn(y, "\n");
	int c = memcmp(x, y, lx < ly ? lx : ly);

	if (c != 0)
		return c;
	return lx < ly ? -1 : lx > ly;
}

// PATH (below the start) is NAME in DIRFD, with its lstat ST.
static void walk(int dirfd, const char *name, const char *path, const struct stat *st)
{
	char mode[16];

	if (S_ISREG(st->st_mode))
		hash_line(dirfd, name, path);
	snprintf(mode, sizeof(mode), " %o ", (unsigned)(st->st_mode & 07777));
	put(&(char){ type_letter(st->st_mode) }, 1);
	puts_(mode);
	puts_(path);
	puts_(" -> ");
	if (S_ISLNK(st->st_mode)) {
		size_t cap = (size_t)st->st_size + 1;
		char *t = malloc(cap);
		ssize_t n = t ? readlinkat(dirfd, name, t, cap) : -1;

		if (n >= 0 && (size_t)n < cap)
			put(t, (size_t)n);
		free(t);
	}
	puts_("\n");
	if (!S_ISDIR(st->st_mode))
		return;

	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;

	if (!d) {
		fprintf(stderr, "find: '%s': %s\n", path, strerror(errno));
		status = 1;
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((errno = 0, e = readdir(d))) {
		struct stat cst;
		size_t lp = strlen(path), ln = strlen(e->d_name);
		char *child;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		child = malloc(lp + ln + 2);
		if (!child) {
			fputs("snapshot: out of memory\n", stderr);
			exit(2);
		}
		memcpy(child, path, lp);
		child[lp] = '/';
		memcpy(child + lp + 1, e->d_name, ln + 1);
		if (fstatat(fd, e->d_name, &cst, AT_SYMLINK_NOFOLLOW) < 0) {
			fprintf(stderr, "find: '%s': %s\n", child, strerror(errno));
			status = 1;
		} else {
			walk(fd, e->d_name, child, &cst);
		}
		free(child);
	}
	if (errno) {
		fprintf(stderr, "find: '%s': %s\n", path, strerror(errno));
		status = 1;
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	struct stat st;
	char **lines;
	size_t n = 0, i;

	if (argc != 2) {
		fputs("usage: snapshot DIR\n", stderr);
		return 2;
	}
	if (chdir(argv[1]) < 0) {
		fprintf(stderr, "snapshot: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	if (lstat(".", &st) < 0) {
		fprintf(stderr, "find: '.': %s\n", strerror(errno));
		return 1;
	}
	walk(AT_FDCWD, ".", ".", &st);

	// sort sees lines: a newline inside a name splits its line too.
	for (i = 0; i < out_len; i++)
		n += out[i] == '\n';
	lines = malloc((n + 1) * sizeof(*lines));
	if (!lines) {
		fputs("snapshot: out of memory\n", stderr);
		return 2;
	}
	n = 0;
	for (i = 0; i < out_len; i++)
		if (i == 0 || out[i - 1] == '\n')
			lines[n++] = out + i;
	qsort(lines, n, sizeof(*lines), compare);
	for (i = 0; i < n; i++)
		fwrite(lines[i], 1, strcspn(lines[i], "\n") + 1, stdout);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "snapshot: write error: %s\n", strerror(errno));
		return 1;
	}
	return status;
}
