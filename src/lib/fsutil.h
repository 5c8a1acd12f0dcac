/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Filesystem helpers: opening beneath a directory without following symlinks, atomic writes. */
#ifndef FWDIST_FSUTIL_H
#define FWDIST_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Where install keeps its record, and the licence texts, at the top of a
 * firmware directory: no blob or link may take a name there. */
#define FW_RECORD_DIR ".fwdist"
#define FW_DEST_LICENSES "LICENSES"

/* ".LEAF.fwdist-XXXXXX" (six of [a-z0-9]): the temporary files, symlinks and
 * staged directories install makes, and only they. */
bool fw_is_tmp_name(const char *leaf);

/* Why a request name cannot be installed because fwdist's own files live
 * there (below .fwdist/ or LICENSES/ at the top, or a component shaped like
 * a temporary file), or NULL. */
const char *fw_name_reserved(const char *name);

/* Open name (relative, "a/b/c") beneath dirfd, following no symlink in any
 * component and never leaving dirfd: openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS) where the kernel has it, else a component walk with
 * O_NOFOLLOW. flags are open(2) flags for the last component (O_NOFOLLOW and
 * O_CLOEXEC are added). Returns an fd or -errno (-ELOOP for a symlink). */
int fw_open_beneath(int dirfd, const char *name, int flags, mode_t mode);

/* Open the directory holding name beneath dirfd (creating missing
 * directories with mode 0755 if create is set) and return its fd; *leaf
 * points into name at the last component. -errno on failure; a symlink or
 * non-directory in the way gives -ELOOP / -ENOTDIR. */
int fw_open_parent(int dirfd, const char *name, int create, const char **leaf);

/* Create a new temporary file ".LEAF.fwdist-XXXXXX" in dirfd (O_EXCL,
 * O_NOFOLLOW, mode 0600 until committed). Writes its name to tmpname
 * (at least 300 bytes). Returns an fd or -errno. */
int fw_tmp_create(int dirfd, const char *leaf, char *tmpname, size_t tmplen);

/* fsync fd, set mode, rename dirfd/tmpname over dirfd/leaf, fsync dirfd.
 * On failure the temporary file is removed. 0 or -errno. */
int fw_tmp_commit(int dirfd, int fd, const char *tmpname, const char *leaf, mode_t mode);

/* Read a regular file (no symlink followed at the end) with a read() loop,
 * at most max bytes (images: FW_IMAGE_MAX). 0 or -errno (-EFBIG past max,
 * -EINVAL not a regular file). */
int fw_read_file(const char *path, size_t max, uint8_t **buf, size_t *len);
/* The same from an open fd (not closed). */
int fw_read_fd(int fd, size_t max, uint8_t **buf, size_t *len);

/* Write buf to dfd/leaf (one component) atomically: a temporary beside it,
 * fsync, rename, fsync of the directory. 0 or -errno; nothing is left
 * behind on failure, and an old file stays as it was. */
int fw_write_leaf(int dfd, const char *leaf, const void *buf, size_t len, mode_t mode);
/* Write buf to dirfd/path atomically (temporary file, fsync, rename,
 * fsync of the directory). 0 or -errno; nothing is left behind on failure. */
int fw_write_atomic(int dirfd, const char *path, const void *buf, size_t len, mode_t mode);


/* Create a symlink to target under a new temporary name beside leaf in
 * dirfd (name written to tmpname). 0 or -errno. */
int fw_tmp_symlink(int dirfd, const char *leaf, const char *target, char *tmpname, size_t tmplen);

/* Open the destination DESTDIR + FWDIR: the one way install, verify and
 * uninstall get at a firmware directory. DESTDIR is the caller's choice and
 * is taken as given (created with create); below it nothing is followed but
 * the root's own merged-/usr alias (fw_root_is_merged: DESTDIR/lib ->
 * usr/lib, exactly): every component of FWDIR is opened with O_NOFOLLOW,
 * created (mode 0755) when create is set, and a symlink there gives -ELOOP,
 * anything but a directory -ENOTDIR. Without a DESTDIR, FWDIR is the
 * system's own path and is opened as it is. FWDIR NULL: the root's default
 * (fw_default_fwdir). *where receives the path at which it stopped, or the
 * whole path on success, the alias resolved (a new string; NULL when out
 * of memory). Returns an fd or -errno. */
int fw_dest_open(const char *destdir, const char *fwdir, bool create, char **where);
/* What Debian's merged /usr makes of a root: lib is a symlink whose text is
 * exactly FW_USRMERGE_LIB, and usr/lib a directory (no symlink on the way). */
#define FW_USRMERGE_LIB "usr/lib"
bool fw_root_is_merged(int rootfd);
/* The firmware directory of the root open on rootfd: /usr/lib/firmware on
 * a merged-/usr root (where the kernel's loader finds it through /lib, and
 * where Debian 13's packages put it), else /lib/firmware. */
const char *fw_default_fwdir(int rootfd);
/* mkdirat with exactly mode, whatever the umask. 0 or -errno (-EEXIST). */
int fw_mkdirat(int dirfd, const char *name, mode_t mode);
/* Remove a directory tree (or a file) without following any symlink in it. */
int fw_rm_rf_at(int at, const char *name);
/* Remove the directory name below dirfd if it is empty (never following a
 * symlink). 0, or -errno (-ENOTEMPTY, -ENOENT, ...). */
int fw_remove_empty_dir(int dirfd, const char *name);
/* A sorted set of directory paths below the firmware directory ("." for
 * itself). Removals collect the directories they touch in one, and settle
 * each once, not once per name (110,000 names in a few thousand
 * directories must not mean 110,000 fsyncs); uninstall also keeps the
 * directories already cleaned of stale temporaries in one. */
struct fw_dirset {
	char **v;
	size_t n, cap;
};
/* The directory part of a name below the firmware directory, "." for
 * none (a new string, NULL when out of memory). */
char *fw_dir_of(const char *name);
/* Add dir (taken over; NULL is refused) unless it is there: true if it
 * was added. */
bool fw_dirset_add(struct fw_dirset *s, char *dir);
void fw_dirset_free(struct fw_dirset *s);
/* Remove the file or symlink name below fwfd, never following a symlink;
 * its directory joins touched. 0 or -errno; gone already is 0. */
int fw_remove_name(int fwfd, const char *name, struct fw_dirset *touched);
/* What stood at a name when it was checked: an install or an uninstall
 * replaces or removes only that (fw_replace_checked, fw_unlink_checked),
 * never what another writer (dpkg, a package manager, a user) put there
 * since. mode 0: nothing was there. A file is the same while its device,
 * inode, type, size and mtime are: a rename over it gives another inode, a
 * write in place another mtime. A directory's mtime is not compared: a
 * stage mark written into it changes that. */
struct fw_ident {
	dev_t dev;
	ino_t ino;
	mode_t mode;
	off_t size;
	long long mtime_sec;
	long mtime_nsec;
};
struct stat;
void fw_ident_of(struct fw_ident *id, const struct stat *st);
bool fw_ident_same(const struct fw_ident *id, const struct stat *st);
/* Rename dirfd/tmp to dirfd/leaf only if what stands at leaf is still
 * what was checked (was; mode 0: nothing): RENAME_NOREPLACE where nothing
 * was, else RENAME_EXCHANGE and a look at what came out, swapped back if it
 * is not what was checked, and removed (a directory with its tree) if it
 * is. -EEXIST: something is at leaf where nothing was; -ESTALE: what is at
 * leaf is not what was checked. In both cases leaf is left as it is and tmp
 * is still the caller's. A filesystem without renameat2 (EINVAL): a look,
 * then a plain rename (a writer between the two still loses; the window is
 * two system calls, not the install); a directory at leaf or tmp gives
 * -EINVAL (a plain rename cannot switch one: the caller moves it aside). 0 or
 * -errno. */
int fw_replace_checked(int dirfd, const char *tmp, const char *leaf, const struct fw_ident *was);
/* Remove the file or symlink dirfd/leaf only if it is still what was
 * checked: it is first renamed aside to a private temporary name, looked
 * at there, and only then unlinked; what is not the one checked goes back
 * (-ESTALE). Gone already is 0. Without renameat2, a look and unlink. If
 * it cannot go back because its name was taken again meanwhile, it is
 * kept beside it as NAME.fwdist-kept-XXXXXX (a name no clean-up of
 * fwdist's removes; the temporary name if that rename fails), written to
 * aside (at least 300 bytes), and -EADDRINUSE is returned. 0 or -errno. */
int fw_unlink_checked(int dirfd, const char *leaf, const struct fw_ident *was, char *aside,
		      size_t asidelen);
/* fw_remove_name, only if what is there is still what was checked
 * (fw_unlink_checked). */
int fw_remove_checked(int fwfd, const char *name, const struct fw_ident *was,
		      struct fw_dirset *touched, char *aside, size_t asidelen);
/* Make the removals durable before a record says so: each touched
 * directory, deepest first, is removed if it is now empty (and then its
 * parent is looked at in turn), else fsynced, each once. Frees touched. */
void fw_settle_dirs(int fwfd, struct fw_dirset *touched);
/* The file inside a staged directory (fw_tmp_mkdir) that marks it as
 * fwdist's: removed once the directory is swapped in. */
#define FW_STAGE_MARK ".fwdist-staged"
/* Is dfd/name what a killed install left: a regular file or symlink named
 * by fw_is_tmp_name, or such a directory holding FW_STAGE_MARK? Anything
 * else of that name is someone's, and never removed. */
bool fw_is_stale_tmp(int dfd, const char *name);
/* Remove from the directory dfd what killed installs left (fw_is_stale_tmp),
 * and a stage mark left in a directory already swapped in. */
void fw_clean_tmp_in(int dfd);
/* fw_clean_tmp_in on the directory of fwfd/name, once per directory (those
 * done are kept in cl): for a caller that walks many names. */
void fw_clean_tmp_near(int fwfd, const char *name, struct fw_dirset *cl);
/* The storage a name's suffix says (.xz, .zst), else none. */
#include "compress.h"
enum fw_compress fw_comp_of_name(const char *name);

/* Is dirfd/leaf a symlink whose text is exactly target? */
bool fw_symlink_is(int dirfd, const char *leaf, const char *target);
/* Does fd (read to its end) hold, stored as c, exactly the content of this
 * digest and size? With flags, the decoder's kernel findings are returned
 * (see fw_digest_decompress); without, they do not matter. */
#include "digest.h"
bool fw_fd_holds(int fd, enum fw_compress c, const uint8_t sha256[FW_SHA256_LEN], uint64_t size,
		 unsigned *flags);

/* Words for an error of fw_dest_open or fw_open_parent: "a symlink is in
 * the way; refusing to follow it", "not a directory", or strerror. */
const char *fw_path_error(int r);


/* Open name beneath rootfd, following symlinks in its last component (as
 * the kernel's loader does for links and dedup links) but never out of
 * rootfd: each link target is resolved as a tree name and must stay inside.
 * Symlinks in directory components are refused (-ELOOP). At most 40 hops.
 * Returns an fd or -errno; -EXDEV for a link leading outside. */
int fw_open_resolve(int rootfd, const char *name, int flags);


/* Create a new directory ".LEAF.fwdist-XXXXXX" in dirfd (mode 0755) holding
 * only FW_STAGE_MARK, its name written to tmpname. 0 or -errno. */
int fw_tmp_mkdir(int dirfd, const char *leaf, char *tmpname, size_t tmplen);

/* Mark the directory dirfd/name as fwdist's (FW_STAGE_MARK in it, never
 * following a symlink): a stage being built, or an old directory about to
 * be swapped out and removed (install's switch of a directory to a link or
 * a file, import's old tree). Once its name has the temporary pattern, a
 * kill at any point of its removal leaves what fw_is_stale_tmp recognises
 * and the next run removes; fw_rm_rf_at removes the mark last. 0 or -errno. */
int fw_stage_mark(int dirfd, const char *name);
/* Remove the mark from dirfd/name again (a swap that did not happen). */
void fw_stage_unmark(int dirfd, const char *name);
/* Rename dirfd/from to a new temporary name ".LEAF.fwdist-XXXXXX" (written
 * to tmpname), never over an existing entry. 0 or -errno. */
int fw_tmp_rename(int dirfd, const char *from, const char *leaf, char *tmpname, size_t tmplen);

#endif
