/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwdist import, private: the state one import shares between its steps (import*.c). */
#ifndef FWDIST_IMPORT_INT_H
#define FWDIST_IMPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "digest.h"
#include "import.h"
#include "tree.h"
#include "whence.h"

#define DEP5_WORDING "Debian copyright: "

struct dep5_para {
	char **globs;
	size_t nglobs;
	char *licence; /* short name (first line of License:) */
};

struct dep5_file {
	struct dep5_para *paras;
	size_t n, cap;
	const char *pkg; /* the package whose copyright file it is */
};

struct dep5 {
	struct dep5_file *files;
	size_t nfiles, cap_files;
	char **names;  /* licence short names with a text */
	char **texts;  /* their texts (the License: body, " ." lines blank) */
	size_t ntexts, cap_texts;
};

/* Debian's firmware packages list every file they ship in their AppStream
 * metainfo (usr/share/metainfo/PACKAGE.metainfo.xml, one <firmware
 * type="runtime">NAME</firmware> each): in an unpacked root that is the one
 * record of which package a file came from. */
struct owner {
	char *name;
	const char *pkg; /* into owners.pkgs */
};

struct owners {
	struct owner *v;
	size_t n, cap;
	struct fw_strv pkgs;
};

enum into_kind {
	INTO_NEW,     /* DIR is absent: the stage is renamed to it */
	INTO_EMPTY,   /* an empty directory: swapped whole, the empty one removed */
	INTO_IMPORT,  /* a previous import's tree and nothing else: swapped whole */
	INTO_PARTS,   /* a tree with more beside it (a checkout): the parts switched */
};

struct into {
	enum into_kind kind;
	int fd;                  /* DIR, when it exists */
	struct fw_strv entries;  /* DIR's top-level names */
	struct fw_strv ours;     /* the names at DIR's top an import may replace */
	bool fwdist_tree, marked, split_generated;
	/* The previous import's release line ("" when none) and its revision
	 * line (0 when none): a revision is kept while the release is. */
	char release[9];
	unsigned revision;
};

/* Why a licence group was refused, for the report's summary. */
enum imp_refusal {
	IMP_REFUSED_NOT,        /* not refused */
	IMP_REFUSED_UNKNOWN,    /* the map does not classify it (or it does not parse) */
	IMP_REFUSED_NO_LICENCE, /* no licence line at all */
	IMP_REFUSED_NO_TEXT,    /* an id of its expression has no text */
};

struct group {                 /* one licence group of upstream's WHENCE */
	char *expr;            /* the SPDX expression it gets, NULL: refused */
	char *wording;         /* its Licence: text, normalised */
	unsigned para_end;     /* last line of its Licence: paragraph, 0 none */
	bool refused;
	bool left;             /* an entry of it is imported */
	const char *why;       /* refused: why (static) */
	enum imp_refusal cause; /* refused: why, for the summary */
	const char *inline_id; /* an id classified by this wording (text: key) */
};

struct idinfo {                /* one licence id the import uses */
	char *id;
	const struct fw_licmap_entry *map;
	char *text;            /* its text (LF line ends), NULL: not found */
	size_t len;
	bool used;
	bool wanted;           /* without a text, by a group that has entries left */
	bool latin1;           /* its text was ISO-8859-1, converted to UTF-8 */
	uint8_t orig[FW_SHA256_LEN]; /* latin1: the SHA-256 of the text as upstream has it */
	char *found;           /* the file its text was read from (SRC's, or a --licence-dir's) */
	char *bad;             /* a file found for it that is neither UTF-8 nor ISO-8859-1 text */
	char *named_as;        /* the file a wording names for it ("See LICENCE.foo"), or NULL */
};

struct job {                   /* one file to copy */
	const char *name;      /* tree name (the model's string) */
	uint8_t sha256[FW_SHA256_LEN];
	uint64_t size;
	int err;
	bool linked;
	bool is_blob;
	enum fw_category cat;
};

struct imp {
	const struct fw_import_opts *o;
	struct fw_import_report *rep;
	struct fw_diag *d;
	int srcfd;             /* the tree WHENCE's names are relative to */
	int rootfd;            /* SRC itself (--no-whence: may hold usr/share/doc) */
	struct dep5 dep5;      /* --debian-copyright */
	int *licfds;           /* --licence-dir, opened */
	char *wbuf;            /* upstream WHENCE text */
	size_t wlen;
	const char **lines;    /* 1-based: lines[i], lens[i] */
	size_t *lens, nlines;
	struct fw_whence w;
	struct fw_licmap map;
	struct group *groups;
	struct idinfo *ids;
	size_t nids, cap_ids;
	char **replace;        /* per line: new text, NULL keep */
	char **after;          /* per line: lines to add after it, NULL none */
	bool *named;           /* per entry: a listed name found in SRC */
	struct fw_strv absent; /* the File:/RawFile: names listed and absent from SRC */
	unsigned *orig;        /* per line of the WHENCE written: upstream's line, 0 added */
	size_t norig;
	int parentfd;
	char stage[320];       /* the stage's name in stagedir; "" once it is not ours to remove */
	int stagedir;          /* parentfd (beside DIR), or DIR itself (its parts switched) */
	char *stage_path;      /* the stage by path, for the model */
	int stagefd;
	const char *leaf;
	char *kept_split;      /* DIR's manifests/packages, kept across releases */
	size_t kept_len;
	char *tmpl;            /* the split template the split is proposed from, or NULL */
	size_t tmpl_len;
	char *tmpl_path;       /* its name, as its diagnostics and the split give it */
	struct fw_split tmpl_split;
	char *into;            /* o->into, the storage of leaf */
	struct into in;        /* what stands at DIR */
	struct fw_tree t;      /* the model of the stage */
	struct fw_tree old;    /* the model of the tree that was at DIR */
	bool have_t, have_old;
	struct job *jobs;      /* the blobs to copy */
	size_t njobs;
	int fwfd;              /* the stage's firmware/ */
};

/* ---- helpers every step uses (import-util.c, a leaf: it calls no other
 * import file, so the steps and the driver form no cycle) ---- */

/* Take str (NULL: out of memory) into s. 0 or -ENOMEM. */
int imp_strv_take(struct fw_strv *s, char *str);
bool imp_strv_has(const struct fw_strv *s, const char *str);
/* Append [s, s + len) and a newline to the growable *buf (n used, *cap
 * allocated), keeping it NUL-terminated. On failure *buf is freed (and
 * NULL): -ENOMEM. */
int imp_add_line(char **buf, size_t *n, size_t *cap, const char *s, size_t len);
/* Why check would refuse this name (or NULL). */
const char *imp_name_refusal(const char *name);
/* im->lines and im->lens from im->wbuf; im->replace and im->after. */
int imp_split_lines(struct imp *im);
/* Replace line ln of the WHENCE written (once: the first reason stands);
 * text is taken (NULL: out of memory). 0 or -ENOMEM. */
int imp_set_replace(struct imp *im, unsigned ln, char *text);
/* DIR's parent (im->parentfd, where the stage goes when DIR is replaced
 * whole) and DIR's last component (im->leaf); *into keeps the storage. */
int imp_open_into(struct imp *im, char **into);
/* Refuse DIR equal to SRC, inside it or holding it (-EINVAL, said in d). */
int imp_refuse_overlap(struct imp *im);
/* An import into DIR (dirfd) that was cut short: complete it first. */
int imp_complete_journal(struct imp *im, int dirfd);
/* What stands at DIR, and so how it is replaced (in->kind); refused
 * (-EEXIST or -ENOTDIR, said in d) unless import may replace it. */
int imp_look_at_into(struct imp *im, struct into *in);
void imp_into_free(struct into *in);
/* manifests/imported in the stage: the n parts this import writes. */
int imp_write_import_mark(struct imp *im, char **parts, size_t n);
/* Switch the stage's parts into DIR (INTO_PARTS), under a journal. */
int imp_switch_parts(struct imp *im, const struct into *in);
/* A split selector for a name or a directory (len bytes of name) at
 * buf + *n: path: with the glob characters escaped and blanks as '?'. */
void imp_put_path(char *buf, size_t *n, const char *name, size_t len);
/* Every limit of the tree's formats is checked per entry at import, so
 * that one entry too long for a file is refused alone, with the message its
 * reader gives (file: line too long (N bytes, limit 4096)), in buf; NULL
 * when it fits. imp_line_limit: a line of len bytes in file;
 * imp_blob_limits: a blob's checksum line and, empty, its split line. */
const char *imp_line_limit(const char *file, size_t len, char *buf, size_t n);
const char *imp_blob_limits(const char *name, bool empty, char *buf, size_t n);
/* A prose line import writes is cut to what the WHENCE reader takes. */
void imp_cap_prose(char *text);
/* The licence id [id, id + len) in im->ids, added if new. 0 or -ENOMEM. */
int imp_add_id(struct imp *im, const char *id, size_t len, struct idinfo **out);
/* fw_spdx_eval callback: mark an id used (ctx: the imp). */
int imp_mark_used(void *ctx, const char *id, size_t len);


/* ---- the WHENCE written (import-whence.c) ---- */

/* Plan the rewrite: presence of listed files, licence lines. */
int imp_plan_whence(struct imp *im);
/* The planned WHENCE into the stage (and im->orig). */
int imp_write_whence(struct imp *im);
/* The upstream entry a model entry (of the WHENCE written) stands for, or NULL. */
const struct fw_whence_entry *imp_upstream_entry(const struct imp *im,
						 const struct fw_whence_entry *e);
/* Drop what the model t of the written WHENCE rejects; how many, or -errno. */
int imp_prune(struct imp *im, const struct fw_tree *t);

/* ---- licences (import-licences.c) ---- */

/* --vouch: the installed tree's wording classified as FW_IMPORT_VOUCHED. */
int imp_licmap_vouch(struct fw_licmap *m);
/* Classify every licence group (im->groups). */
int imp_classify(struct imp *im);
/* Find the text of every id in use. */
int imp_find_texts(struct imp *im);
/* The file names a text of x is looked for under (the map's file: keys for
 * it, ID.txt, ID), into names. 0 or -ENOMEM. */
int imp_text_names(const struct imp *im, const struct idinfo *x, struct fw_strv *names);
/* The texts the report names as missing. */
int imp_report_no_text(struct imp *im);
/* fw_spdx_eval callback: mark an id without a text wanted (ctx: a struct
 * notext_ctx). */
struct notext_ctx {
	struct imp *im;
	bool missing;          /* an id has no text */
};
int imp_notext_id(void *ctx, const char *id, size_t len);
/* The file an inline wording points at ("See LICENCE.foo"), or NULL. */
char *imp_wording_file(const char *s);
/* A licence text at dirfd/name (never out of dirfd): LF line ends. */
int imp_read_licence(int dirfd, const char *name, char **buf, size_t *len, bool *crlf,
		     bool *latin1, uint8_t *orig);
/* manifests/licenses and LICENSES/ of the stage. */
int imp_write_policy(struct imp *im);
int imp_write_texts(struct imp *im);

/* ---- the build recipes (import-recipes.c) ---- */

/* manifests/build of the stage: the recipes of o->recipes_path whose
 * sources and outputs are all in the stage, each other one named in the
 * notes; and the lines of manifests/build-verdicts beside it about a blob
 * of the stage. 0 or -errno. */
int imp_keep_recipes(struct imp *im);

/* ---- the refused summary (import-refused.c) ---- */

/* rep->refused: the blobs of the stage's model im->t that its verdicts
 * refuse, and the files listed and absent, counted per cause with the step
 * that admits them. 0 or -ENOMEM. */
int imp_report_refused(struct imp *im);

/* ---- where the tree goes (import-repo.c) ---- */


/* ---- --debian-copyright (import-debian.c) ---- */

/* Which binary package ships each file: every <firmware type="runtime">
 * of usr/share/metainfo/PACKAGE.metainfo.xml under rootfd. 0 or -errno. */
int imp_owners_load(struct owners *ow, int rootfd);
void imp_owners_free(struct owners *ow);
/* usr/share/doc/<package>/copyright of every package unpacked in root;
 * the packages found go to pkgs. 0 or -errno. */
int imp_dep5_load(struct dep5 *d, int rootfd, struct fw_strv *pkgs);
void imp_dep5_free(struct dep5 *d);
/* The licence DEP-5 gives a file, NULL if none. */
const char *imp_dep5_licence(const struct dep5 *d, const struct owners *ow, const char *name);
/* The package lines of a Debian root for the split, appended to the
 * growable *bufp (*np used, *capp allocated). 0 or -ENOMEM. */
int imp_debian_split(struct imp *im, const struct job *jobs, size_t njobs, char **bufp,
		     size_t *np, size_t *capp);
/* ---- copying (import-copy.c) ---- */

/* The blobs of jobs into fwfd, hashed as copied (jobs[i].sha256, size). */
int imp_copy_blobs(struct imp *im, struct job *jobs, size_t njobs, int fwfd);
/* Every Source: found in SRC into fwfd. */
int imp_copy_sources(struct imp *im, const struct fw_tree *t, int fwfd);

/* ---- walking SRC (import-synth.c) ---- */

/* What is on disk in SRC that no entry lists, to rep->unlisted. */
int imp_report_unlisted(struct imp *im);
/* --no-whence: a WHENCE for an installed tree, into im->wbuf. */
int imp_synth_whence(struct imp *im);

#endif
