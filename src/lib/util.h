/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by the library: growable arrays, file reading, escaping. */
#ifndef FWDIST_UTIL_H
#define FWDIST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest line any fwdist text format accepts. Names are bounded by PATH_MAX
 * (4096) and WHENCE lines by this: a longer line is refused, never split. */
#define FW_LINE_MAX 4096
/* Largest text file (WHENCE, manifests) read into memory: upstream's WHENCE
 * is under 1 MiB, so 16 MiB leaves room and bounds what a hostile file costs. */
#define FW_TEXT_MAX (16u << 20)

#define FW_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Make room for element n in *v (*cap allocated): with n used, room for
 * one more. The capacity doubles (16 at first), or becomes n + 1 when that
 * is more (room for a known size at once). The one growth helper of the
 * library: no hand-written realloc. Returns 0 or -ENOMEM; *v is untouched
 * on failure. */
int fw_grow(void *v, size_t *cap, size_t n, size_t elem);

char *fw_strndup(const char *s, size_t n);
/* printf into a new string; NULL on failure. */
char *fw_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Read a whole regular text file at dirfd/path (never following a final
 * symlink) into a NUL-terminated buffer. Returns 0, -EFBIG past FW_TEXT_MAX,
 * -EINVAL if not a regular file, or -errno. */
int fw_read_text(int dirfd, const char *path, char **buf, size_t *len);

/* write() all of buf, retrying EINTR and short writes. 0 or -errno. */
int fw_write_all(int fd, const void *buf, size_t len);

/* Length of the valid UTF-8 sequence at s (1 for ASCII, NUL included), or 0
 * if none starts there: strict, no overlong forms, surrogates, code points
 * past U+10FFFF or sequences cut short. */
size_t fw_utf8_len(const char *s);
/* The whole string is valid UTF-8, by fw_utf8_len's rules. */
bool fw_utf8_valid(const char *s);

/* Escape a name for a diagnostic or report: control characters, DEL, every
 * byte from 0x80 up and backslash become \xNN / \\, so a hostile name
 * cannot drive the terminal (C1 controls, broken UTF-8) and the text shown
 * is plain ASCII.
 * Returns a pointer to a thread-local ring buffer, valid for a few calls. */
const char *fw_esc(const char *s);

/* A request name is safe: relative, no empty, "." or ".." components, no
 * trailing slash, no control character, DEL or backslash, each component at
 * most 255 bytes, the whole under 4096. Returns NULL if safe, else a short
 * reason ("absolute name", ...). */
const char *fw_name_problem(const char *name);
/* The last component of path, trailing slashes ignored ("/lib/modules/6.1/"
 * gives "6.1"; "/" and "" give ""). A new string, or NULL. */
char *fw_dir_basename(const char *path);

/* Join a link's directory and its target, and normalise "." and ".."
 * components. Returns a new string, or NULL with *outside set when the
 * result would leave the tree (or NULL on ENOMEM with *outside false). */
char *fw_link_resolve(const char *link, const char *target, bool *outside);

/* The relative path from the directory holding `from` to `to` (both tree
 * names), e.g. ("a/b/x", "a/c/y") -> "../c/y". New string or NULL. */
char *fw_relpath(const char *from, const char *to);

int fw_strcmp_ptr(const void *a, const void *b);
/* Close an open_memstream stream whose buffer is *buf: 0, or -ENOMEM when
 * any write to it failed (a stream that could not grow loses what was
 * written after, and fclose alone would not say so) or the close did: glibc's
 * fclose returns 0 even when its last realloc fails, leaving *buf NULL. */
#include <stdio.h>
int fw_memstream_close(FILE *f, char **buf);
/* Free n strings and the array. */
void fw_free_strv(char **v, size_t n);
/* Drop the repeats among the *n strings of v (freed), each first one kept
 * in its place: by sorting, so n log n where a scan of the kept ones per
 * string was quadratic (a module may list 20k firmware names). 0 or
 * -ENOMEM (v untouched). */
int fw_strv_uniq(char **v, size_t *n);


/* Strict decimal: digits only, no sign, no leading zero, at most 2^63-1.
 * 0 or -EINVAL. */
int fw_parse_u64(const char *s, size_t n, uint64_t *out);

/* The entries of a directory but "." and "..", sorted in byte order (new
 * strings; free with fw_free_strv). 0 or -errno. */
int fw_read_dir_sorted(int dfd, char ***names, size_t *n);

/* The same, with each entry's type as readdir gives it (DT_DIR, DT_REG,
 * DT_LNK, ..., or DT_UNKNOWN where the file system does not say) in
 * *types, an array of *n bytes (free it). 0 or -errno. */
int fw_read_dir_typed(int dfd, char ***names, unsigned char **types, size_t *n);

/* Most worker threads a command runs (--jobs takes 1 to this). */
#define FW_JOBS_MAX 64

/* The number of workers jobs asks for: jobs, or one per online CPU for 0;
 * at least 1, at most FW_JOBS_MAX. */
unsigned fw_jobs(unsigned jobs);

/* Call fn(ctx, i) once for each i below n, on fw_jobs(jobs) workers (never
 * more than n), the calling thread being one of them. Each worker takes
 * the next index from one atomic counter, so a long item holds up only its
 * own worker: order the items largest first. When no thread can be
 * started the caller does all the work. Returns once every call returned. */
void fw_parallel_for(size_t n, unsigned jobs, void (*fn)(void *ctx, size_t i), void *ctx);
/* Run fn(ctx) on workers threads at once (at least 1), the calling thread
 * being one of them, for a worker that keeps state of its own across its
 * items (install's batches); returns once every call returned. */
void fw_parallel_run(unsigned workers, void *(*fn)(void *ctx), void *ctx);
/* The line iterator lives in lines.h (it reports diagnostics, and util.c
 * must not depend on diag.c, which depends on util.c). Included here only
 * for import.c and kconfig.c, which reach it through util.h and are being
 * reworked elsewhere: once they include lines.h, drop this line. It adds no
 * dependency between objects (tests/deps-cycles reads those). */
#include "lines.h"
#endif
