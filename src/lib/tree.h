/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The model of a firmware tree: WHENCE, manifests/ and LICENSES/ loaded once and cross-referenced. */
#ifndef FWDIST_TREE_H
#define FWDIST_TREE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "digest.h"
#include "policy.h"
#include "recipe.h"
#include "split.h"
#include "sums.h"
#include "whence.h"

#define FW_TREE_WHENCE "WHENCE"
#define FW_TREE_FIRMWARE "firmware"
#define FW_TREE_LICENSES "LICENSES"
#define FW_TREE_SUMS "manifests/checksums"
#define FW_TREE_TEXT_SUMS "manifests/licence-checksums"
#define FW_TREE_POLICY "manifests/licenses"
#define FW_TREE_SPLIT "manifests/packages"
/* Optional: the recipes that build free blobs from source (fwdist build). */
#define FW_TREE_RECIPES "manifests/build"
/* Optional: what fwdist build --record found, a verdict per blob. */
#define FW_TREE_VERDICTS "manifests/build-verdicts"
/* Blobs that are their own preferred form for modification: GLOB<TAB>REASON. */
#define FW_TREE_PREFERRED "manifests/preferred-form"
#define FW_PREFERRED_HEADER "# fwdist preferred form 1"
/* What an import wrote at the top of the tree (the next one replaces that). */
#define FW_TREE_IMPORTED "manifests/imported"
#define FW_IMPORTED_HEADER "# fwdist import 1"
/* Present while an import switches the parts of a tree (a checkout):
 * some may be old, some new. The next import completes the switch. */
#define FW_TREE_IMPORT_JOURNAL ".fwdist-import"
#define FW_JOURNAL_HEADER "# fwdist import journal 1"

/* A licence group of WHENCE, its SPDX expression evaluated against the policy. */
struct fw_lic_eval {
	enum fw_category cat;
	char *unknown;      /* first id the policy lacks, or NULL */
	const char *syntax; /* syntax error in the expression, or NULL */
	char *absent_file;  /* a file the Licence: wording points at ("See LICENCE.foo")
			     * that is not in the tree, or NULL */
};

/* What stands at firmware/<name> (looked at once, at load, never followed). */
enum fw_presence {
	FW_ABSENT,      /* nothing there */
	FW_PRESENT,     /* a regular file */
	FW_NOT_REGULAR, /* a directory, a symlink or another type */
	FW_UNREACHABLE, /* a directory of its path is missing a step (symlink, file, error) */
};

/* The licence problems of a blob, as a mask: one rule, worded by
 * fw_licence_problem_text for every report (check, licenses, install). */
enum fw_lic_problem {
	FW_LP_NO_LICENCE = 1u << 0,     /* no SPDX-License-Identifier line applies */
	FW_LP_SYNTAX = 1u << 1,         /* the expression does not parse */
	FW_LP_NOT_IN_POLICY = 1u << 2,  /* an id manifests/licenses lacks (unknown category) */
	FW_LP_NO_TEXT = 1u << 3,        /* an id whose LICENSES/<id>.txt is missing or unusable */
	FW_LP_UNDIST_PRESENT = 1u << 4, /* undistributable, yet the blob is in firmware/ */
	FW_LP_FREE_NO_SOURCE = 1u << 5, /* a free licence, but no Source: in the block: the
					 * blob is non-free (a fact, not a check finding) */
	FW_LP_WORDING_FILE = 1u << 6,   /* the Licence: wording only names a file that is absent */
	FW_LP_COPYLEFT_NO_SOURCE = 1u << 7, /* a copyleft licence, no Source: in the block:
					     * undistributable (a fact of the tree, not a
					     * check finding unless the blob is present) */
};
/* The facts among those bits: a verdict and its cause, not a finding. */
#define FW_LP_FACTS (FW_LP_FREE_NO_SOURCE | FW_LP_COPYLEFT_NO_SOURCE)

/* A blob is its own source (its preferred form of modification) when it is
 * text, as NVRAM and configuration files are: at most this many bytes,
 * valid UTF-8 without NUL or control characters but tab, CR and LF, and not
 * an encoding of binary data (Intel HEX, S-records, a hex dump). */
#define FW_SELF_SOURCE_MAX (1u << 20)
bool fw_blob_is_text(const char *buf, size_t len);

/* A further package whose split line also takes a blob. */
struct fw_pkg_match {
	int pkg;
	unsigned line;
};

/* One installable blob: a File: or RawFile: entry. */
struct fw_blob {
	struct fw_whence_entry *e;
	const struct fw_whence_licence *lic; /* NULL: no licence line applies */
	const char *driver;                  /* NULL: block without Driver: */
	enum fw_category licence_cat;        /* category of the licence expression */
	enum fw_category cat;                /* effective: free needs a Source: too */
	const struct fw_lic_eval *lev;       /* NULL: no licence line applies */
	int pkg;                             /* package of the first rule that matched, or -1 */
	unsigned pkg_line;                   /* that rule's line */
	struct fw_pkg_match *more;           /* every other package a rule matched: an error */
	size_t nmore, cap_more;
	const struct fw_sum *sum;            /* NULL: no checksum line */
	bool duplicate;                      /* a second listing of an earlier name */
	enum fw_presence presence;           /* firmware/<name> */
	unsigned mode;                       /* its st_mode when FW_PRESENT */
	uint64_t fsize;                      /* its size when FW_PRESENT */
	unsigned lproblems;                  /* enum fw_lic_problem bits */
	const char *missing_text;            /* FW_LP_NO_TEXT: the first id without a text */
	const char *copyleft_id;             /* first id the policy calls copyleft, or NULL */
	bool empty;                          /* zero bytes: shipped only by an empty:yes rule */
	/* The verdict (cat), computed once here for every command and import. */
	bool has_source;                     /* a Source: of its group names source files
					      * present in the tree (not blobs, not only
					      * a directory of blobs) */
	bool self_source;                    /* no such source, but the blob is text:
					      * its own preferred form (fw_blob_is_text),
					      * or manifests/preferred-form says so */
	const char *preferred;               /* that line's reason, or NULL */
	bool free_with_source;               /* its licence makes it free with source */
	char *branch;                        /* a dual licence (A OR B): the operand it
					      * ships under, else NULL */
	unsigned findings;                   /* the lproblems bits that are findings
					      * (check reports them, licenses exits 1) */
};

/* A licence text of LICENSES/, one per policy entry. */
struct fw_text {
	const struct fw_policy_entry *pol;
	char *path;                    /* "LICENSES/<id>.txt", below the tree root */
	int err;                       /* 0: a regular file, hashed, as its line of
					* manifests/licence-checksums says; -ENOENT absent,
					* -ELOOP a symlink, -EINVAL not a regular file,
					* -EMLINK hard-linked, -ENODATA hashed but no
					* checksum line, -EBADMSG hashed but not what its
					* checksum line says, or the read error */
	uint8_t sha256[FW_SHA256_LEN]; /* when fw_text_hashed() */
	uint64_t size;
	const struct fw_sum *sum;      /* its manifests/licence-checksums line, or NULL */
};

/* The file was read and its digest taken (whatever its checksum line says). */
static inline bool fw_text_hashed(const struct fw_text *x)
{
	return x->err == 0 || x->err == -ENODATA || x->err == -EBADMSG;
}

/* Links may lead to links, as upstream's do (the kernel follows up to 40):
 * a chain of at most this many Link: entries, the first included, is
 * installed as it is; a longer one is refused. */
#define FW_LINK_MAX_CHAIN 8

enum fw_link_state {
	FW_LINK_OK,
	FW_LINK_OUTSIDE,   /* target leaves the tree */
	FW_LINK_MISSING,   /* target is no blob and no directory of the tree */
	FW_LINK_TO_LINK,   /* (while resolving) target is itself a Link: */
	FW_LINK_LOOP,      /* following links comes back */
	FW_LINK_BAD_NAME,  /* the link's own name is unsafe */
	FW_LINK_TO_BROKEN, /* target is a link that leads nowhere */
	FW_LINK_TOO_DEEP,  /* a chain longer than FW_LINK_MAX_CHAIN */
};

struct fw_link {
	struct fw_whence_entry *e;
	char *resolved;   /* target as a tree name (NULL if it leaves the tree) */
	const char *end;  /* FW_LINK_OK: where the chain ends (a blob or a directory) */
	long blob;        /* FW_LINK_OK: index of the blob it serves, -1 for a directory */
	long via;         /* the link its target is, or -1 */
	unsigned depth;   /* FW_LINK_OK: links in its chain, itself included (1: direct) */
	enum fw_link_state state;
	bool to_dir;      /* FW_LINK_OK: the chain ends at a directory of the tree */
	bool duplicate;
};

/* Name index entry: every name WHENCE gives, sorted. */
struct fw_name {
	const char *name;
	struct fw_whence_entry *e;
	long blob, link; /* index into blobs / links, or -1 */
};

/* A file of the tree whose bytes the model was built from, each read once:
 * the digest of exactly the bytes parsed or judged. The pins of a tree
 * (fw_pins_collect) take these digests instead of reading the files again,
 * so a signed install checks the very bytes its model holds: a writer who
 * swaps a file between two reads cannot slip unsigned content in. */
struct fw_tree_read {
	char *path;                    /* below the root: "WHENCE", "manifests/packages", ... */
	uint8_t sha256[FW_SHA256_LEN]; /* unless presence */
	bool presence;                 /* not read: only that it is there counted (a
					* source file behind a blob's verdict) */
	bool changed;                  /* read twice, and the bytes differed */
};

struct fw_selection;

struct fw_tree {
	char *root;
	int rootfd;
	struct fw_whence whence;
	struct fw_sums sums;
	struct fw_sums text_sums; /* the licence texts', named "<id>.txt" */
	struct fw_policy policy;
	struct fw_split split;
	struct fw_recipes recipes; /* empty without manifests/build */
	struct fw_verdicts verdicts; /* empty without manifests/build-verdicts */
	bool have_sums, have_text_sums, have_policy, have_split, have_recipes, have_verdicts;
	char *prefbuf;            /* manifests/preferred-form, its lines cut in place */
	const char **pref_globs, **pref_reasons;
	size_t npref;
	struct fw_blob *blobs;
	size_t nblobs;
	struct fw_link *links;
	size_t nlinks;
	struct fw_name *index; /* sorted by name, first listing first */
	size_t nindex;
	struct fw_lic_eval *levals; /* one per whence.licences */
	char **dirs;           /* every directory that holds a blob, sorted */
	size_t ndirs;
	struct fw_text *texts; /* one per policy.v entry, same order */
	int fwfd;              /* firmware/, or -1 when it cannot be opened */
	int fw_err;            /* why not (-errno), else 0 */
	struct fw_tree_read *reads; /* sorted by path, one per path */
	size_t nreads, cap_reads;
};

/* Load the tree at root. Syntax errors in its files go to d; the model is
 * built regardless so one run reports everything. Returns 0, or -errno when
 * root or its WHENCE cannot be read at all (nothing to report on). */
int fw_tree_load(struct fw_tree *t, const char *root, struct fw_diag *d);
/* The same, the facts a verdict rests on (sources present, a blob's text)
 * looked up in contentfd, a directory laid out as firmware/: import judges
 * its stage by the upstream tree it copies from, so the tree it writes gets
 * the verdicts import gave. */
int fw_tree_load_content(struct fw_tree *t, const char *root, int contentfd, struct fw_diag *d);
void fw_tree_free(struct fw_tree *t);

/* What the model took from the tree file at path (below the root), or NULL
 * when it did not read it. */
const struct fw_tree_read *fw_tree_read_find(const struct fw_tree *t, const char *path);

/* The licence text of a policy id, or NULL when the policy lacks it. */
const struct fw_text *fw_tree_text(const struct fw_tree *t, const char *id);
/* Read a licence text the model loaded (x->err == 0) into a new
 * NUL-terminated buffer, the way load read it (no symlink followed), and
 * only if it still has the digest the model took: -ESTALE when it changed
 * since, -EINVAL when it holds a NUL, else 0 or -errno. */
int fw_tree_read_text(const struct fw_tree *t, const struct fw_text *x, char **buf, size_t *len);
/* Why a licence text cannot be shipped, as "licence text LICENSES/X.txt
 * missing" (static wording with the path), or NULL when it is fine. The
 * string is thread-local, valid until the next call. */
const char *fw_text_problem(const struct fw_text *x);
/* The words for one licence problem bit of b (a new string, NULL on ENOMEM);
 * check and licenses print the same words. */
char *fw_licence_problem_text(const struct fw_tree *t, const struct fw_blob *b, unsigned bit);
/* Why b has its category (cat), in one line: the verdict every command
 * shows ("free: GPL-2.0-only, source in the tree", "non-free: free licence
 * MIT without its source: binary only", ...). A new string, NULL on ENOMEM. */
char *fw_blob_verdict_text(const struct fw_tree *t, const struct fw_blob *b);
/* The same for a licence line's expression: syntax error or unknown id. */
char *fw_lic_eval_text(const struct fw_lic_eval *ev, const char *spdx);

/* For each policy entry, how many blobs of sel (fw_blob_selected) name it
 * in their SPDX expression: counts[policy.n]. 0 or -ENOMEM. */
int fw_tree_licence_counts(const struct fw_tree *t, const struct fw_selection *sel,
			   unsigned *counts);

/* Look a name up in the index; NULL if WHENCE does not name it. */
const struct fw_name *fw_tree_find(const struct fw_tree *t, const char *name);
/* Which packages of the split take a blob, one pass over the blobs: an
 * array of split.npkgs + 1 flags, or NULL (out of memory). A blob several
 * packages match (a duplicate) is left out here: check reports it as such;
 * its other matches still show those packages are not empty. */
bool *fw_tree_packages_used(const struct fw_tree *t);
bool fw_tree_is_dir(const struct fw_tree *t, const char *name);

/* Whether install puts a blob / link in place for this package selection
 * (NULL: every package). Undistributable and unpackaged blobs never are; a
 * link goes with its target blob, a directory link with any blob below it. */
struct fw_selection {
	const bool *pkg;  /* per split package; NULL: every package */
	const bool *blob; /* per blob (a --select file); NULL: every blob */
	const bool *link; /* per link; NULL: every link */
};
bool fw_blob_installable(const struct fw_tree *t, const struct fw_blob *b,
			 const struct fw_selection *sel);
/* Whether sel takes b, installable or not (its package and the --select
 * file), for reports that show every blob of a selection. */
bool fw_blob_selected(const struct fw_tree *t, const struct fw_blob *b,
		      const struct fw_selection *sel);
bool fw_link_installable(const struct fw_tree *t, const struct fw_link *l,
			 const struct fw_selection *sel);
/* The distinct licence ids (sorted, new strings) that the installable blobs
 * of sel (and of package pkg, if pkg >= 0) name in their SPDX expressions:
 * the licence texts shipping them requires. 0 or -ENOMEM. */
int fw_tree_licence_closure(const struct fw_tree *t, const struct fw_selection *sel, int pkg,
			    char ***ids, size_t *n);

/* The package a link goes with: its target's, or for a directory link the
 * first installable blob's below it; -1 if none. */
int fw_link_package(const struct fw_tree *t, const struct fw_link *l, const struct fw_selection *sel);

/* The name of the package the split puts b in, or NULL. */
const char *fw_blob_package(const struct fw_tree *t, const struct fw_blob *b);

/* check.c's and select.c's API has its own headers. Included here only for
 * import.c, which reaches fw_tree_check_model through tree.h and is being
 * reworked elsewhere: once it includes check.h, drop this line. */
#include "check.h"
#endif
