/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Serving a kernel build from the plan: CONFIG_EXTRA_FIRMWARE's directory and its check. */
#include "kbuild.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "kconfig.h"
#include "util.h"

/* Written into a prepared directory: only a directory holding it is ever
 * replaced, so --output cannot wipe a directory fwdist did not make. */
#define KCONFIG_MARK ".fwdist-kconfig"

/* Why the tree cannot serve name to a kernel build, or NULL. */
const char *fw_kbuild_why_not(const struct fw_plan *p, const char *name)
{
	const struct fw_tree *t = p->t;
	const struct fw_plan_entry *e = fw_plan_find_name(p, name);
	const struct fw_name *x;

	if (e && e->blob)
		return NULL;
	if (e)
		return "a link to a directory, not a file";
	x = fw_tree_find(t, name);
	if (!x || (x->blob < 0 && x->link < 0))
		return "absent: not in the tree";
	if (x->blob >= 0 && t->blobs[x->blob].cat == FW_CAT_UNDISTRIBUTABLE)
		return "undistributable: the tree never ships it";
	if (x->link >= 0 && t->links[x->link].blob >= 0 &&
	    t->blobs[t->links[x->link].blob].cat == FW_CAT_UNDISTRIBUTABLE)
		return "undistributable: the tree never ships its target";
	return "not installable (no package, or a finding of fwdist check)";
}

int fw_kbuild_check(const struct fw_plan *p, const char *config, struct fw_kbuild_report *rep)
{
	struct fw_kconfig k;
	int dirfd = -1, r;
	char *copy, *save = NULL;

	memset(rep, 0, sizeof(*rep));
	r = fw_kconfig_load(&k, config);
	if (r < 0)
		return r;
	rep->line = k.extra_fw_line;
	if (k.extra_fw_dir && *k.extra_fw_dir)
		dirfd = open(k.extra_fw_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	copy = strdup(k.extra_fw ? k.extra_fw : "");
	if (!copy)
		r = -ENOMEM;
	for (char *w = copy ? strtok_r(copy, " \t", &save) : NULL; w && r == 0;
	     w = strtok_r(NULL, " \t", &save)) {
		const char *why = fw_kbuild_why_not(p, w);
		int fd;

		/* A name of the tree kbuild cannot take must not pass as served:
		 * the build would run it through make and the shell. */
		if (!why && fw_kbuild_name_problem(w))
			why = "kbuild cannot take this name (only A-Z a-z 0-9 _ - . , /)";

		if (!why && dirfd >= 0) {
			/* The build reads CONFIG_EXTRA_FIRMWARE_DIR, not the tree:
			 * a name there only as .xz/.zst cannot be embedded. */
			fd = fw_open_resolve(dirfd, w, O_RDONLY);
			if (fd >= 0) {
				close(fd);
			} else {
				char *xz = fw_asprintf("%s.xz", w), *zst = fw_asprintf("%s.zst", w);
				int fx = xz ? fw_open_resolve(dirfd, xz, O_RDONLY) : -ENOMEM;
				int fz = zst ? fw_open_resolve(dirfd, zst, O_RDONLY) : -ENOMEM;

				why = fx >= 0 || fz >= 0 ? "only compressed in CONFIG_EXTRA_FIRMWARE_DIR" :
							   "not in CONFIG_EXTRA_FIRMWARE_DIR";
				if (fx >= 0)
					close(fx);
				if (fz >= 0)
					close(fz);
				free(xz);
				free(zst);
			}
		}
		if (fw_grow(&rep->v, &rep->cap, rep->n, sizeof(*rep->v)) < 0 ||
		    !(rep->v[rep->n].name = strdup(w))) {
			r = -ENOMEM;
			break;
		}
		rep->v[rep->n++].why = why;
		rep->bad += why != NULL;
	}
	if (dirfd >= 0)
		close(dirfd);
	free(copy);
	fw_kconfig_free(&k);
	if (r < 0)
		fw_kbuild_report_free(rep);
	return r;
}

void fw_kbuild_report_free(struct fw_kbuild_report *rep)
{
	for (size_t i = 0; i < rep->n; i++)
		free(rep->v[i].name);
	free(rep->v);
	memset(rep, 0, sizeof(*rep));
}

/* Copy the bytes of e (a blob, or a link's target) to dirfd/name, checked
 * against the manifest's digest as they are copied. 0 or -errno. */
static int put_file(const struct fw_tree *t, const struct fw_plan_entry *e, int dirfd)
{
	const char *leaf;
	char tmp[PATH_MAX];
	uint8_t dig[FW_SHA256_LEN];
	int pfd, src, fd, r;

	src = fw_open_beneath(t->fwfd, e->blob->e->name, O_RDONLY, 0);
	if (src < 0)
		return src;
	pfd = fw_open_parent(dirfd, e->name, 1, &leaf);
	if (pfd < 0) {
		close(src);
		return pfd;
	}
	fd = fw_tmp_create(pfd, leaf, tmp, sizeof(tmp));
	if (fd < 0) {
		r = fd;
		goto out;
	}
	r = fw_copy_compress(src, fd, FW_COMP_NONE, e->size, dig, NULL);
	if (r == 0 && memcmp(dig, e->sha256, sizeof(dig)) != 0)
		r = -EBADMSG;
	if (r < 0) {
		close(fd);
		unlinkat(pfd, tmp, 0);
		goto out;
	}
	r = fw_tmp_commit(pfd, fd, tmp, leaf, 0644);
	close(fd);
out:
	close(src);
	/* A name at the top of the tree (no '/') has dirfd itself as its
	 * parent: that is the caller's, still needed for the next name. */
	if (pfd != dirfd)
		close(pfd);
	return r;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct fw_plan_entry *x = *(const struct fw_plan_entry *const *)a;
	const struct fw_plan_entry *y = *(const struct fw_plan_entry *const *)b;

	return strcmp(x->name, y->name);
}

void fw_kbuild_sort(const struct fw_plan_entry **v, size_t *n)
{
	size_t w = 0;

	if (*n > 1)
		qsort(v, *n, sizeof(*v), cmp_entry);
	for (size_t i = 0; i < *n; i++)
		if (!w || v[w - 1] != v[i])
			v[w++] = v[i];
	*n = w;
}

/*
 * Which names kbuild can take, read from the kernel (6.1), not guessed.
 * drivers/base/firmware_loader/builtin/Makefile:
 *
 *	firmware  := $(addsuffix .gen.o, $(CONFIG_EXTRA_FIRMWARE))
 *	FWNAME    = $(patsubst $(obj)/%.gen.S,%,$@)
 *	FWSTR     = $(subst $(comma),_,$(subst /,_,$(subst .,_,$(subst -,_,$(FWNAME)))))
 *	filechk_fwbin = \
 *		echo "_fw_$(FWSTR)_bin:"				;\
 *		echo "    .incbin \"$(fwdir)/$(FWNAME)\""		;\
 *		echo "    .string \"$(FWNAME)\""			;\
 *	$(obj)/%.gen.S: FORCE
 *		$(call filechk,fwbin)
 *	$(addprefix $(obj)/, $(firmware)): $(obj)/%.gen.o: $(fwdir)/%
 *
 * and scripts/Kbuild.include's filechk runs { $(filechk_fwbin); } with
 * /bin/sh. So a name is, in turn: a word of a make list (a blank splits
 * it; '#' ends the line; '$' expands; ':', '%', '=', ';' mean something in a
 * rule), text inside "..." of a shell command (a '`' or '$' runs a command,
 * '"' and '\' end or escape the string), a GNU as string, and, with only
 * '-', '.', '/' and ',' turned into '_', part of an assembler label
 * (_fw_<FWSTR>_bin:), which holds letters, digits and '_' only.
 * (Kbuild.include's depfile replaces ',' for the same reason: kbuild itself
 * supports ',' in target names.) Bytes from 0x80 up are refused as well:
 * GNU as happens to take them in a label, but nothing in kbuild says so
 * and no upstream name needs them. Hence the allow-list below, and no escaping:
 * a name is embedded in four languages, and one quoting cannot be right
 * for all of them, so a name outside it is refused, never quoted.
 */
static bool kbuild_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.' || c == ',' || c == '/';
}

const char *fw_kbuild_name_problem(const char *name)
{
	static _Thread_local char why[96];

	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (kbuild_char(*p))
			continue;
		if (*p == ' ' || *p == '\t')
			return "a blank (make splits words on blanks)";
		if (*p == '\'')
			snprintf(why, sizeof(why), "\"'\"");
		else if (*p > 0x20 && *p < 0x7f)
			snprintf(why, sizeof(why), "'%c'", *p);
		else
			snprintf(why, sizeof(why), "the byte 0x%02x", *p);
		strncat(why, " (kbuild takes only A-Z a-z 0-9 _ - . , /)",
			sizeof(why) - strlen(why) - 1);
		return why;
	}
	return NULL;
}

const struct fw_whence_entry *fw_kbuild_entry(const struct fw_plan_entry *e)
{
	if (e->link)
		return e->link->e;
	return e->blob ? e->blob->e : NULL;
}

/* Build the directory under a temporary name beside out, then rename it
 * into place (exchanging it with an old one kconfig made). */
int fw_kbuild_prepare(const struct fw_plan *p, const struct fw_plan_entry **v, size_t n,
		      const char *out, char **abs, struct fw_diag *d)
{
	const struct fw_tree *t = p->t;
	char *dir = strdup(out), *leafp, *base;
	char tmp[PATH_MAX], real[PATH_MAX];
	const char *parent, *leaf;
	struct stat st;
	int pfd = -1, tfd = -1, r = 0;
	FILE *mark = NULL;
	char *mtext = NULL;
	size_t mlen = 0;

	*abs = NULL;
	if (!dir)
		return -ENOMEM;
	while (strlen(dir) > 1 && dir[strlen(dir) - 1] == '/')
		dir[strlen(dir) - 1] = '\0';
	leafp = strrchr(dir, '/');
	if (leafp) {
		*leafp = '\0';
		parent = leafp == dir ? "/" : dir;
		leaf = leafp + 1;
	} else {
		parent = ".";
		leaf = dir;
	}
	if (!*leaf || !strcmp(leaf, ".") || !strcmp(leaf, "..")) {
		fw_diag_add(d, "", 0, "--output %s: name a directory to create", out);
		r = -EINVAL;
		goto out;
	}
	/* The parent is the caller's, taken as given (like DESTDIR); below
	 * it nothing is followed. */
	pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0 || !realpath(parent, real)) {
		r = -errno;
		fw_diag_add(d, "", 0, "%s: %s", parent, strerror(-r));
		goto out;
	}
	base = fw_asprintf("%s%s%s", real, strcmp(real, "/") ? "/" : "", leaf);
	if (!base) {
		r = -ENOMEM;
		goto out;
	}
	*abs = base;
	/* The directory goes into the same make rule and shell command as the
	 * names (.incbin "$(fwdir)/$(FWNAME)"): checked before anything is made. */
	if (fw_kbuild_name_problem(base)) {
		fw_diag_add(d, "", 0, "--output %s: the path holds %s; kbuild cannot use it as CONFIG_EXTRA_FIRMWARE_DIR",
			    fw_esc(base), fw_kbuild_name_problem(base));
		r = -EINVAL;
		goto out;
	}
	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISDIR(st.st_mode)) {
			fw_diag_add(d, "", 0, "%s: %s", out, S_ISLNK(st.st_mode) ?
				       "a symlink is in the way; refusing to follow it" :
				       "not a directory");
			r = -EEXIST;
			goto out;
		}
		int ofd = openat(pfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		bool ours = ofd >= 0 && faccessat(ofd, KCONFIG_MARK, F_OK, AT_SYMLINK_NOFOLLOW) == 0;

		if (ofd >= 0)
			close(ofd);
		if (!ours) {
			fw_diag_add(d, "", 0, "%s exists and was not made by fwdist kconfig; refusing to replace it",
			       out);
			r = -EEXIST;
			goto out;
		}
	}
	r = fw_tmp_mkdir(pfd, leaf, tmp, sizeof(tmp));
	if (r < 0) {
		fw_diag_add(d, "", 0, "%s: cannot create a directory beside it: %s", out, strerror(-r));
		goto out;
	}
	tfd = openat(pfd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (tfd < 0) {
		r = -errno;
		goto fail;
	}
	/* Its own mark (KCONFIG_MARK) says whose it is, not install's. */
	unlinkat(tfd, FW_STAGE_MARK, 0);
	mark = open_memstream(&mtext, &mlen);
	if (!mark) {
		r = -ENOMEM;
		goto fail;
	}
	fprintf(mark, "# Made by fwdist kconfig for CONFIG_EXTRA_FIRMWARE_DIR; the names:\n");
	for (size_t i = 0; i < n; i++) {
		r = put_file(t, v[i], tfd);
		if (r < 0) {
			fw_diag_add(d, "", 0, "%s: %s", fw_esc(v[i]->name),
			       r == -EBADMSG ? "content differs from manifests/checksums" :
			       r == -ESTALE ? "size differs from manifests/checksums" :
					      strerror(-r));
			goto fail;
		}
		fprintf(mark, "%s\n", v[i]->name);
	}
	if (fw_memstream_close(mark, &mtext) < 0) {
		mark = NULL;
		r = -ENOMEM;
		goto fail;
	}
	mark = NULL;
	r = fw_write_atomic(tfd, KCONFIG_MARK, mtext, mlen, 0644);
	if (r < 0)
		goto fail;
	if (fsync(tfd) < 0) {
		r = -errno;
		goto fail;
	}
	/* Publish: a new name is renamed into place; an old directory is
	 * exchanged with the new one in one step, then removed. */
	if (renameat2(pfd, tmp, pfd, leaf, RENAME_NOREPLACE) < 0) {
		if (errno != EEXIST || renameat2(pfd, tmp, pfd, leaf, RENAME_EXCHANGE) < 0) {
			r = -errno;
			goto fail;
		}
		fw_rm_rf_at(pfd, tmp);
	}
	fsync(pfd);
	goto out;
fail:
	if (r < 0 && r != -EBADMSG && r != -ESTALE)
		fw_diag_add(d, "", 0, "%s: %s", out, strerror(-r));
	fw_rm_rf_at(pfd, tmp);
out:
	if (mark)
		fclose(mark);
	free(mtext);
	if (tfd >= 0)
		close(tfd);
	if (pfd >= 0)
		close(pfd);
	free(dir);
	return r;
}

