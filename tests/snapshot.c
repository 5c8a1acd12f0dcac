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
// `make quick`. The hash is written here, not taken from fwdist's library
// or libcrypto, so that the picture does not trust the code under test
// (and loading libcrypto alone costs as much as the processes saved).
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

// ---- SHA-256 (FIPS 180-4) ----
struct sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
	size_t n;
};

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(struct sha256 *s, const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = (ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10)) + w[i - 7] +
		       (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3)) + w[i - 16];
	a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
	e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
	}
	s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d;
	s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

static void sha256_init(struct sha256 *s)
{
	static const uint32_t h0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	memcpy(s->h, h0, sizeof(h0));
	s->len = 0;
	s->n = 0;
}

static void sha256_update(struct sha256 *s, const unsigned char *p, size_t len)
{
	s->len += len;
	if (s->n > 0) {
		size_t take = 64 - s->n < len ? 64 - s->n : len;
		memcpy(s->buf + s->n, p, take);
		s->n += take, p += take, len -= take;
		if (s->n < 64)
			return;
		sha256_block(s, s->buf);
		s->n = 0;
	}
	for (; len >= 64; p += 64, len -= 64)
		sha256_block(s, p);
	memcpy(s->buf, p, len);
	s->n = len;
}

static void sha256_hex(struct sha256 *s, char out[65])
{
	uint64_t bits = s->len * 8;
	unsigned char pad[72] = { 0x80 };
	size_t padlen = (s->n < 56 ? 56 : 120) - s->n;
	int i;

	for (i = 0; i < 8; i++)
		pad[padlen + i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_update(s, pad, padlen + 8);
	for (i = 0; i < 32; i++)
		sprintf(out + 2 * i, "%02x", (unsigned)(s->h[i / 4] >> (24 - 8 * (i % 4))) & 0xff);
}

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
	struct sha256 s;
	char hex[65];
	ssize_t r;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "sha256sum: %s: %s\n", path, strerror(errno));
		status = 1;
		return;
	}
	sha256_init(&s);
	while ((r = read(fd, buf, sizeof(buf))) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "sha256sum: %s: %s\n", path, strerror(errno));
			status = 1;
			close(fd);
			return;
		}
		sha256_update(&s, buf, (size_t)r);
	}
	close(fd);
	sha256_hex(&s, hex);
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
