/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Debian packaging generated from the plan and the model: control stanzas, DEP-5 copyright, AppStream metainfo. */
#include "debian.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "import.h"
#include "lines.h"
#include "modmap.h"
#include "recipe.h"
#include "util.h"

#define CONTROL_IN "debian/control.in"
#define COPYRIGHT_IN "debian/copyright.in"
/* AppStream ids are reverse-DNS; the package name follows, '-' as '_'. */
#define METAINFO_ID_PREFIX "org.fwdist."

static const char *pkg_name(const struct fw_plan *p, int pkg)
{
	return p->t->split.pkgs[pkg].name;
}

/* A field value must be one line of valid UTF-8 without control
 * characters: a name that is not cannot be written into a deb822 file. */
static bool field_ok(const char *s)
{
	if (!fw_utf8_valid(s))
		return false;
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return false;
	return true;
}

/* The plan's entries of one kind (FILE, or FILE and LINK to a blob) of
 * package pkg (-1: all), in name order. */
static const struct fw_plan_entry **entries_of(const struct fw_plan *p, int pkg, bool links,
					       size_t *n)
{
	const struct fw_plan_entry **v = calloc(p->nnames + 1, sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < p->nnames; i++) {
		const struct fw_plan_entry *e = &p->v[p->by_name[i]];

		if (pkg >= 0 && e->pkg != pkg)
			continue;
		if (e->kind == FW_PLAN_FILE || (links && e->kind == FW_PLAN_LINK && e->blob))
			v[(*n)++] = e;
	}
	return v;
}

/* The licences of package pkg whose policy line demands acceptance
 * (non-free+accept), as new strings, sorted. 0 or -ENOMEM. */
static int accept_ids(const struct fw_plan *p, int pkg, char ***ids, size_t *n)
{
	const struct fw_tree *t = p->t;
	size_t k = 0;
	int r = fw_tree_licence_closure(t, &p->o.sel, pkg, ids, n);

	if (r < 0)
		return r;
	for (size_t i = 0; i < *n; i++) {
		const struct fw_policy_entry *e = fw_policy_find(&t->policy, (*ids)[i]);

		if (e && e->accept)
			(*ids)[k++] = (*ids)[i];
		else
			free((*ids)[i]);
	}
	*n = k;
	return 0;
}

static void free_ids(char **ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

/* ---- control ---- */

static const char *section_of(const char *component, char *buf, size_t len)
{
	if (strcmp(component, "main") == 0)
		return "kernel";
	snprintf(buf, len, "%s/kernel", component);
	return buf;
}

static bool nonfree_section(const char *section)
{
	return strcmp(section, "non-free") == 0 || strcmp(section, "non-free-firmware") == 0;
}

/* The metapackage: every non-free package of the split in one install, as
 * Debian's firmware-linux-nonfree. In non-free-firmware, or in non-free
 * when a package it depends on is there; none without a non-free package
 * (the free source package of make dist). It holds no firmware: debian/rules
 * leaves it out of what it fills. */
static int control_meta(FILE *f, const struct fw_tree *t, struct fw_diag *d)
{
	const char *component = NULL;
	size_t k;

	for (k = 0; k < t->split.npkgs; k++) {
		const struct fw_package *fp = &t->split.pkgs[k];

		if (strcmp(fp->name, FW_DEBIAN_META) == 0) {
			fw_diag_add(d, t->split.path, fp->line,
				    "%s: the name of the metapackage of the non-free packages; "
				    "name the package otherwise", fp->name);
			return -EINVAL;
		}
		if (nonfree_section(fp->section) && (!component || strcmp(fp->section, "non-free") == 0))
			component = fp->section;
	}
	if (!component)
		return 0;
	fprintf(f, "\nPackage: %s\nSection: %s/kernel\nArchitecture: all\nMulti-Arch: foreign\n"
		   "Depends: ${misc:Depends}",
		FW_DEBIAN_META, component);
	for (k = 0; k < t->split.npkgs; k++)
		if (nonfree_section(t->split.pkgs[k].section))
			fprintf(f, ",\n         %s (= ${binary:Version})", t->split.pkgs[k].name);
	/* A package an earlier release had and this one drops (a vendor
	 * whose blobs are gone): Breaks, so that `apt full-upgrade` from the
	 * previous release's packages removes it rather than keep an orphan
	 * whose files no package of this release owns. */
	for (k = 0; k < t->split.ndropped; k++)
		fprintf(f, "%s%s (<< ${binary:Version})", k ? ",\n        " : "\nBreaks: ",
			t->split.dropped[k].name);
	fputs("\nDescription: Linux firmware of the fwdist split: every non-free package\n"
	      " This metapackage depends on every package of the fwdist split that\n"
	      " holds non-free firmware, so that installing it installs all of them,\n"
	      " as Debian's firmware-linux-nonfree does for Debian's. It holds no\n"
	      " firmware itself.\n", f);
	return 0;
}

int fw_debian_control(FILE *f, const struct fw_plan *p, struct fw_diag *d)
{
	const struct fw_tree *t = p->t;
	const struct fw_plan_entry **v;
	size_t n;
	int r = 0;

	v = entries_of(p, -1, false, &n);
	if (!v)
		return -ENOMEM;
	for (size_t k = 0; k < t->split.npkgs; k++) {
		const struct fw_package *fp = &t->split.pkgs[k];
		char sec[96];
		size_t nfiles = 0, ndrivers = 0;

		char **acc = NULL;
		size_t nacc = 0;

		for (size_t i = 0; i < n; i++)
			nfiles += v[i]->pkg == (int)k;
		r = accept_ids(p, (int)k, &acc, &nacc);
		if (r < 0)
			break;
		free_ids(acc, nacc);
		fprintf(f, "\nPackage: %s\nSection: %s\nArchitecture: all\nMulti-Arch: foreign\n"
			   "Pre-Depends: %s${fwdist:Pre-Depends}\n"
			   "Depends: ${misc:Depends}\n"
			   /* The tools package ships the initramfs-tools hook and
			    * the dracut module that copy compressed firmware. */
			   "Recommends: fwdist\n"
			   /* What it takes over of Debian's own firmware
			    * packages, per suite: manifests/replaces, through
			    * `fwdist debian substvars` in debian/rules. */
			   "Provides: ${fwdist:Provides}\n"
			   "Conflicts: ${fwdist:Conflicts}\n"
			   "Replaces: ${fwdist:Replaces}\n"
			   "Description: Linux firmware of the fwdist split: %s\n"
			   " The firmware files that the package split of this fwdist tree puts\n"
			   " in this package, installed in the kernel's firmware directory\n"
			   " (where its request_firmware() finds them), with their licence\n"
			   " texts and fwdist's record of the install.\n .\n"
			   " Split: %s line %u, component %s.\n"
			   " %zu file%s, for these drivers:\n",
			fp->name, section_of(fp->section, sec, sizeof(sec)),
			/* Its preinst asks for the licence through debconf. */
			nacc ? "debconf (>= 0.5) | debconf-2.0, " : "", fp->name, t->split.path,
			fp->line, fp->section, nfiles, nfiles == 1 ? "" : "s");
		/* Each driver once, in the order of its first file's name. */
		for (size_t i = 0; i < n; i++) {
			const char *drv = v[i]->blob->driver;
			bool seen = false;

			if (v[i]->pkg != (int)k || !drv)
				continue;
			for (size_t j = 0; j < i && !seen; j++)
				seen = v[j]->pkg == (int)k && v[j]->blob->driver &&
				       strcmp(v[j]->blob->driver, drv) == 0;
			if (seen)
				continue;
			if (!field_ok(drv)) {
				fw_diag_add(d, t->whence.path, t->whence.blocks[v[i]->blob->e->block].line,
					    "Driver: not one line of UTF-8 text; debian/control cannot carry it");
				r = -EINVAL;
				continue;
			}
			fprintf(f, "  * %s\n", drv);
			ndrivers++;
		}
		if (!ndrivers)
			fputs("  (none)\n", f);
	}
	free(v);
	if (r == 0)
		r = control_meta(f, t, d);
	return r;
}

static void dep5_text(FILE *f, const char *s);

/* ---- licences to accept ---- */

int fw_debian_templates(FILE *f, const struct fw_plan *p, int pkg, struct fw_diag *d)
{
	const struct fw_tree *t = p->t;
	const char *name = pkg_name(p, pkg);
	char **acc = NULL;
	size_t nacc = 0;
	int r = accept_ids(p, pkg, &acc, &nacc);

	if (r < 0 || !nacc)
		goto out;
	fprintf(f, "Template: %s/license/accepted\nType: boolean\nDefault: false\n"
		   "Description: Do you accept the licence terms of %s?\n"
		   " The firmware in %s may be installed only by those who accept\n"
		   " the licence terms below. Installation is aborted otherwise.\n",
		name, name, name);
	for (size_t i = 0; i < nacc; i++) {
		const struct fw_text *x = fw_tree_text(t, acc[i]);
		char *buf = NULL;
		size_t len;
		int rr = x && !x->err ? fw_tree_read_text(t, x, &buf, &len) : -ENOENT;

		if (rr == -ENOMEM) {
			r = rr;
			goto out;
		}
		if (rr == 0 && !fw_utf8_valid(buf))
			rr = -EILSEQ;
		if (rr < 0) {
			fw_diag_add(d, x ? x->path : t->policy.path, 0, "%s: %s", acc[i],
				    rr == -EILSEQ ? "not UTF-8 text: debconf cannot show it" :
				    x && x->err ? fw_text_problem(x) : strerror(-rr));
			free(buf);
			r = -EINVAL;
			continue;
		}
		fprintf(f, " .\n %s:\n .\n", acc[i]);
		dep5_text(f, buf);
		free(buf);
	}
	fprintf(f, "\nTemplate: %s/license/error\nType: error\n"
		   "Description: Licence terms of %s not accepted\n"
		   " The installation of %s is aborted because its licence terms\n"
		   " were not accepted. To accept them for a non-interactive install,\n"
		   " preseed this answer:\n .\n"
		   "   %s %s/license/accepted boolean true\n",
		name, name, name, name, name);
out:
	free_ids(acc, nacc);
	return r;
}

/* ---- copyright ---- */

/* A DEP-5 Files pattern matching exactly this name: '*', '?' and '\'
 * escaped, and a space (which separates patterns) as '?'. */
static void dep5_pattern(FILE *f, const char *name)
{
	fputs(FW_TREE_FIRMWARE "/", f);
	for (const char *c = name; *c; c++) {
		if (*c == '*' || *c == '?' || *c == '\\')
			fputc('\\', f);
		fputc(*c == ' ' ? '?' : *c, f);
	}
}

/* Text as a deb822 continuation: each line indented, empty lines " .".
 * A tab becomes the blanks up to the next multiple of 8 columns of the
 * original line, as the text shows: a tab in a licence text of
 * debian/copyright is a lintian warning (tab-in-license-text), and many
 * upstream licence files indent with them. */
static void dep5_text(FILE *f, const char *s)
{
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s), col = 0;
		bool blank = true;

		for (size_t i = 0; i < len; i++)
			blank = blank && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r');
		if (blank) {
			fputs(" .\n", f);
		} else {
			fputc(' ', f);
			for (size_t i = 0; i < len; i++) {
				if (s[i] != '\t') {
					fputc(s[i], f);
					/* Columns count characters: not UTF-8's continuation bytes. */
					col += ((unsigned char)s[i] & 0xc0) != 0x80;
					continue;
				}
				do
					fputc(' ', f);
				while (++col % 8);
			}
			fputc('\n', f);
		}
		s += len + (nl != NULL);
	}
}

/* The licences /usr/share/common-licenses (base-files) holds: the SPDX id
 * prefix, its file there, and its name as Debian's copyright files give it
 * ("On Debian systems, the full text of NAME can be found in ..."). */
static const struct common {
	const char *prefix, *file, *name;
} commons[] = {
	{ "GPL-1.0", "GPL-1", "the GNU General Public License version 1" },
	{ "GPL-2.0", "GPL-2", "the GNU General Public License version 2" },
	{ "GPL-3.0", "GPL-3", "the GNU General Public License version 3" },
	{ "LGPL-2.0", "LGPL-2", "the GNU Library General Public License version 2" },
	{ "LGPL-2.1", "LGPL-2.1", "the GNU Lesser General Public License version 2.1" },
	{ "LGPL-3.0", "LGPL-3", "the GNU Lesser General Public License version 3" },
	{ "GFDL-1.2", "GFDL-1.2", "the GNU Free Documentation License version 1.2" },
	{ "GFDL-1.3", "GFDL-1.3", "the GNU Free Documentation License version 1.3" },
	{ "Apache-2.0", "Apache-2.0", "the Apache License version 2.0" },
	{ "MPL-1.1", "MPL-1.1", "the Mozilla Public License version 1.1" },
	{ "MPL-2.0", "MPL-2.0", "the Mozilla Public License version 2.0" },
	{ "CC0-1.0", "CC0-1.0", "the Creative Commons CC0 1.0 Universal license" },
	{ "Artistic-1.0", "Artistic", "the Artistic License" },
};

/* The common-licenses entry of an SPDX id, or NULL. */
static const struct common *common_entry(const char *id)
{
	static const char *const suffix[] = { "", "-only", "-or-later", "+" };

	for (size_t i = 0; i < sizeof(commons) / sizeof(commons[0]); i++) {
		size_t n = strlen(commons[i].prefix);

		if (strncmp(id, commons[i].prefix, n) != 0)
			continue;
		for (size_t k = 0; k < sizeof(suffix) / sizeof(suffix[0]); k++)
			if (strcmp(id + n, suffix[k]) == 0)
				return &commons[i];
	}
	return NULL;
}

/* Debian's sentence for a licence in common-licenses (Policy 12.5: it is
 * referred to there, never copied; lintian errs on a copied GPL or Apache
 * licence). */
static void common_ref(FILE *f, const struct common *c)
{
	fprintf(f, " On Debian systems, the full text of %s\n"
		   " can be found in /usr/share/common-licenses/%s.\n", c->name, c->file);
}

/* Full texts of common licences that upstream licence files quote inside
 * their own (cirrus's LICENSE quotes the whole Apache License after its
 * notices): the title line, the version line that follows it (after blank
 * lines), the line that ends the terms, and the common-licenses entry. */
static const struct embedded {
	const char *title, *version, *end, *prefix;
} embeddeds[] = {
	{ "Apache License", "Version 2.0, January 2004", "END OF TERMS AND CONDITIONS", "Apache-2.0" },
	{ "GNU GENERAL PUBLIC LICENSE", "Version 2, June 1991", "END OF TERMS AND CONDITIONS",
	  "GPL-2.0" },
	{ "GNU GENERAL PUBLIC LICENSE", "Version 3, 29 June 2007", "END OF TERMS AND CONDITIONS",
	  "GPL-3.0" },
	{ "GNU LESSER GENERAL PUBLIC LICENSE", "Version 2.1, February 1999",
	  "END OF TERMS AND CONDITIONS", "LGPL-2.1" },
	{ "GNU LIBRARY GENERAL PUBLIC LICENSE", "Version 2, June 1991", "END OF TERMS AND CONDITIONS",
	  "LGPL-2.0" },
};

/* s[0..n) without blanks at either end. */
static void trim(const char **s, size_t *n)
{
	while (*n && (**s == ' ' || **s == '\t' || **s == '\r')) {
		(*s)++;
		(*n)--;
	}
	while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r'))
		(*n)--;
}

static bool line_is(const char *l, size_t n, const char *want)
{
	trim(&l, &n);
	return n == strlen(want) && memcmp(l, want, n) == 0;
}

static bool line_starts(const char *l, size_t n, const char *want)
{
	trim(&l, &n);
	return n >= strlen(want) && memcmp(l, want, strlen(want)) == 0;
}

/* The next line of s from *at: its start, length; *at moves past it. */
static bool next_line(const char *s, size_t *at, const char **l, size_t *n)
{
	const char *nl;

	if (!s[*at])
		return false;
	*l = s + *at;
	nl = strchr(*l, '\n');
	*n = nl ? (size_t)(nl - *l) : strlen(*l);
	*at += *n + (nl != NULL);
	return true;
}

/* A licence text as debian/copyright gives it: a full common licence it
 * quotes (embeddeds: from its title to the end of its terms, and GPL's
 * "How to Apply These Terms" appendix up to its last line, which ends
 * "instead of this License.") replaced by Debian's reference to
 * common-licenses. A new string in *out (NULL: s as it is). 0 or -ENOMEM. */
static int common_texts_referred(const char *s, char **out)
{
	char *buf = NULL;
	size_t blen = 0, at = 0;
	FILE *f;
	const char *l;
	size_t n;
	bool any = false;

	*out = NULL;
	f = open_memstream(&buf, &blen);
	if (!f)
		return -ENOMEM;
	while (next_line(s, &at, &l, &n)) {
		const struct embedded *e = NULL;
		size_t end = 0;

		for (size_t k = 0; !e && k < sizeof(embeddeds) / sizeof(embeddeds[0]); k++) {
			size_t a = at, vn = 0;
			const char *v = "";

			if (!line_is(l, n, embeddeds[k].title))
				continue;
			/* The version line, after blank lines only. */
			while (next_line(s, &a, &v, &vn)) {
				const char *tv = v;
				size_t tn = vn;

				trim(&tv, &tn);
				if (tn)
					break;
			}
			if (!line_starts(v, vn, embeddeds[k].version))
				continue;
			/* Then the end of the terms. */
			while (next_line(s, &a, &v, &vn))
				if (line_starts(v, vn, embeddeds[k].end)) {
					e = &embeddeds[k];
					end = a;
					break;
				}
		}
		if (!e) {
			fwrite(l, 1, n, f);
			fputc('\n', f);
			continue;
		}
		/* GPL's appendix: "How to Apply These Terms ..." up to the
		 * line that ends "instead of this License.", when it follows. */
		if (strncmp(e->prefix, "Apache", 6) != 0) {
			size_t a = end, vn = 0;
			const char *v = "";
			bool appendix = false;

			while (next_line(s, &a, &v, &vn)) {
				const char *tv = v;
				size_t tn = vn;

				trim(&tv, &tn);
				if (!appendix && !tn)
					continue;
				if (!appendix && !line_starts(v, vn, "How to Apply These Terms"))
					break;
				appendix = true;
				if (tn >= 24 && memcmp(tv + tn - 24, "instead of this License.", 24) == 0) {
					end = a;
					break;
				}
			}
		}
		fprintf(f, "[The %s text, quoted here in full upstream. On Debian systems,\n"
			   "the full text of %s can be found in\n"
			   "/usr/share/common-licenses/%s.]\n",
			e->prefix, common_entry(e->prefix)->name, common_entry(e->prefix)->file);
		at = end;
		any = true;
	}
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	if (any)
		*out = buf;
	else
		free(buf);
	return 0;
}

struct used_ctx {
	const struct fw_policy *pol;
	bool *used; /* per policy entry */
};

static int mark_used(void *ctx, const char *id, size_t len)
{
	struct used_ctx *c = ctx;
	char buf[256];
	const struct fw_policy_entry *e;

	if (len >= sizeof(buf))
		return 0;
	memcpy(buf, id, len);
	buf[len] = '\0';
	e = fw_policy_find(c->pol, buf);
	if (e)
		c->used[e - c->pol->v] = true;
	return 0;
}

/* Licence ids read from debian/copyright.in, each once, with the line
 * that first names it. */
struct head_ids {
	char **v;
	unsigned *line;
	size_t n, cap, lcap;
};

static void head_ids_free(struct head_ids *h)
{
	fw_free_strv(h->v, h->n);
	free(h->line);
	*h = (struct head_ids){ 0 };
}

static bool has_id(const struct head_ids *h, const char *id, size_t len)
{
	for (size_t k = 0; k < h->n; k++)
		if (strlen(h->v[k]) == len && memcmp(h->v[k], id, len) == 0)
			return true;
	return false;
}

static bool is_op(const char *w, size_t len)
{
	static const char *const ops[] = { "and", "or", "with" };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strlen(ops[i]) == len && strncasecmp(w, ops[i], len) == 0)
			return true;
	return false;
}

/* The words of a License: field's first line, v to le (line number
 * line), into h: all but "and", "or" and "with" (DEP-5's operators) and
 * those already there. */
static int field_ids(const char *v, const char *le, unsigned line, struct head_ids *h)
{
	static const char sep[] = " \t\r(),";

	for (;;) {
		const char *w;
		char *id;

		while (v < le && strchr(sep, *v))
			v++;
		for (w = v; w < le && !strchr(sep, *w); w++)
			;
		if (w == v)
			return 0;
		if (!is_op(v, (size_t)(w - v)) && !has_id(h, v, (size_t)(w - v))) {
			if (fw_grow(&h->v, &h->cap, h->n, sizeof(*h->v)) < 0 ||
			    fw_grow(&h->line, &h->lcap, h->n, sizeof(*h->line)) < 0 ||
			    !(id = fw_strndup(v, (size_t)(w - v))))
				return -ENOMEM;
			h->line[h->n] = line;
			h->v[h->n++] = id;
		}
		v = w;
	}
}

/* The licences debian/copyright.in's Files paragraphs name (named) and
 * those it has a License paragraph of its own for (own). A named licence
 * with none needs one from the generated part, as the blobs' licences do,
 * or lintian finds none (missing-license-paragraph-in-dep5-copyright): a
 * tree imported from upstream has blobs under other licences than the
 * tools'. */
static int head_licences(const char *head, size_t hlen, struct head_ids *named,
			 struct head_ids *own)
{
	const char *s = head, *end = head + hlen;
	bool first = true, standalone = false;

	for (unsigned line = 1; s < end; line++) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		size_t len = (size_t)(le - s);
		int r = 0;

		if (len == 0 || (len == 1 && *s == '\r')) {
			first = true; /* a paragraph ends */
		} else if (*s != ' ' && *s != '\t') {
			bool lic = len >= 8 && strncasecmp(s, "License:", 8) == 0;

			if (first)
				standalone = lic;
			first = false;
			if (lic)
				r = field_ids(s + 8, le, line, standalone ? own : named);
		}
		if (r < 0)
			return r;
		s = nl ? nl + 1 : end;
	}
	return 0;
}

/* Mark used the licences of the head with a text in the tree, and not
 * those the head has a paragraph for; the others (no text in the tree)
 * are left in hd. 0 or -ENOMEM. */
static int head_mark(const struct fw_tree *t, const char *head, size_t hlen, bool *used,
		     struct head_ids *hd)
{
	struct head_ids own = { 0 };

	if (head_licences(head, hlen, hd, &own) < 0) {
		head_ids_free(hd);
		head_ids_free(&own);
		return -ENOMEM;
	}
	for (size_t k = 0; k < hd->n; k++) {
		const struct fw_policy_entry *e = fw_policy_find(&t->policy, hd->v[k]);
		bool mine = has_id(&own, hd->v[k], strlen(hd->v[k]));

		if (e && !mine)
			used[e - t->policy.v] = true;
		if (e || mine) {
			free(hd->v[k]);
			hd->v[k] = NULL;
		}
	}
	/* A licence with a paragraph in the head gets no second one. */
	for (size_t k = 0; k < own.n; k++) {
		const struct fw_policy_entry *e = fw_policy_find(&t->policy, own.v[k]);

		if (e)
			used[e - t->policy.v] = false;
	}
	head_ids_free(&own);
	return 0;
}

/* A License paragraph referring to common-licenses for each licence left
 * in hd (then freed); a licence not there is a finding. 0 or -EINVAL. */
static int head_refs(FILE *f, struct head_ids *hd, struct fw_diag *d)
{
	int r = 0;

	for (size_t k = 0; k < hd->n; k++) {
		const struct common *common;

		if (!hd->v[k])
			continue;
		common = common_entry(hd->v[k]);
		if (!common) {
			fw_diag_add(d, COPYRIGHT_IN, hd->line[k],
				    "licence %s: no text in LICENSES/ and none in /usr/share/common-licenses; "
				    "add its text to the tree (manifests/licenses, LICENSES/%s.txt)",
				    fw_esc(hd->v[k]), fw_esc(hd->v[k]));
			r = -EINVAL;
			continue;
		}
		fprintf(f, "\nLicense: %s\n", hd->v[k]);
		common_ref(f, common);
	}
	head_ids_free(hd);
	return r;
}

int fw_debian_copyright(FILE *f, const struct fw_plan *p, const char *head, size_t hlen,
			struct fw_diag *d)
{
	const struct fw_tree *t = p->t;
	const struct fw_whence *w = &t->whence;
	struct head_ids hd = { 0 };
	const struct fw_plan_entry **v;
	bool *used;
	size_t n;
	int r = 0;

	/* The licences the Files: paragraphs name, and only those, get a
	 * License: paragraph: one for a licence nothing shipped carries is
	 * stale (and may quote what lintian refuses, such as a pointer to
	 * /usr/doc/copyright). */
	used = calloc(t->policy.n + 1, sizeof(*used));
	v = used ? entries_of(p, -1, false, &n) : NULL;
	if (!v) {
		free(used);
		return -ENOMEM;
	}
	for (size_t li = 0; li < w->nlicences; li++) {
		const struct fw_whence_licence *l = &w->licences[li];
		const struct fw_whence_block *b = &w->blocks[l->block];
		bool any = false;

		for (size_t i = 0; i < n; i++) {
			const struct fw_whence_entry *e = v[i]->blob->e;

			if (e->licence != li + 1)
				continue;
			if (!field_ok(e->name)) {
				fw_diag_add(d, w->path, e->line,
					    "%s: not one line of UTF-8 text; debian/copyright cannot name it",
					    fw_esc(e->name));
				r = -EINVAL;
				continue;
			}
			fputs(any ? "\n       " : "\nFiles: ", f);
			dep5_pattern(f, v[i]->src);
			any = true;
		}
		if (!any)
			continue; /* nothing of this group is shipped */
		if (l->spdx)
			fw_spdx_eval(NULL, l->spdx, &(enum fw_category){ 0 }, mark_used,
				     &(struct used_ctx){ &t->policy, used }, &(const char *){ NULL });
		/* The sources the group ships beside its blobs (free firmware). */
		for (size_t i = 0; i < w->nentries; i++) {
			const struct fw_whence_entry *e = &w->entries[i];

			if (e->kind != FW_E_SOURCE || e->licence != li + 1)
				continue;
			if (!field_ok(e->name)) {
				fw_diag_add(d, w->path, e->line,
					    "%s: not one line of UTF-8 text; debian/copyright cannot name it",
					    fw_esc(e->name));
				r = -EINVAL;
				continue;
			}
			fputs("\n       ", f);
			dep5_pattern(f, e->name);
			/* A directory (upstream's "Source: cis/"): its files, as
			 * a DEP-5 pattern matches files, not directories. */
			{
				struct stat st;

				if (t->fwfd >= 0 &&
				    fstatat(t->fwfd, e->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				    S_ISDIR(st.st_mode))
					fputs("/*", f);
			}
		}
		fprintf(f, "\nCopyright: not recorded in WHENCE; see the licence text\n"
			   "License: %s\nComment: %s:%u", l->spdx ? l->spdx : "UNKNOWN", w->path,
			l->spdx_line);
		if (b->driver && field_ok(b->driver))
			fprintf(f, ", Driver: %s", b->driver);
		if (l->text && field_ok(l->text))
			fprintf(f, "\n Licence: %s", l->text);
		/* A blob manifests/preferred-form declares its own preferred
		 * form: the reason it ships without a separate source. */
		for (size_t i = 0; i < n; i++) {
			const struct fw_blob *bl = v[i]->blob;

			if (bl->e->licence == li + 1 && bl->preferred && field_ok(bl->preferred) &&
			    field_ok(bl->e->name))
				fprintf(f, "\n %s is its own preferred form for modification: %s",
					bl->e->name, bl->preferred);
		}
		fputc('\n', f);
	}
	free(v);
	/* The head's licences: from LICENSES/ with the others, or where the
	 * tree has no text, a reference to common-licenses (after them). */
	if (head_mark(t, head, hlen, used, &hd) < 0) {
		free(used);
		return -ENOMEM;
	}
	/* Every licence text of LICENSES/, as the policy lists them (sorted). */
	for (size_t i = 0; i < t->policy.n; i++) {
		const struct fw_text *x = &t->texts[i];
		const struct common *common;
		char *buf = NULL, *referred = NULL;
		size_t len;
		int rr;

		if (!used[i])
			continue;
		if (x->err) {
			fw_diag_add(d, x->path, 0, "%s", fw_text_problem(x));
			r = -EINVAL;
			continue;
		}
		rr = fw_tree_read_text(t, x, &buf, &len);
		if (rr == -ENOMEM) {
			head_ids_free(&hd);
			free(used);
			return rr;
		}
		if (rr == 0 && !fw_utf8_valid(buf))
			rr = -EILSEQ;
		if (rr < 0) {
			fw_diag_add(d, x->path, 0, "%s",
				    rr == -ESTALE ? "changed since the tree was loaded" :
				    rr == -EILSEQ ? "not UTF-8 text: debian/copyright cannot quote it" :
				    strerror(-rr));
			free(buf);
			r = -EINVAL;
			continue;
		}
		fprintf(f, "\nLicense: %s\n", x->pol->id);
		common = common_entry(x->pol->id);
		if (common) {
			/* Debian Policy 12.5: a licence in common-licenses is
			 * referred to there, not copied (lintian errs otherwise). */
			fprintf(f, " The full text is %s in the source package.\n .\n", x->path);
			common_ref(f, common);
		} else if (common_texts_referred(buf, &referred) < 0) {
			free(buf);
			head_ids_free(&hd);
			free(used);
			return -ENOMEM;
		} else {
			dep5_text(f, referred ? referred : buf);
		}
		free(referred);
		free(buf);
	}
	if (head_refs(f, &hd, d) < 0)
		r = -EINVAL;
	free(used);
	return r;
}

/* ---- metainfo ---- */

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* Of the valid UTF-8 that field_ok lets through, what XML 1.0's Char
 * production still leaves out: U+FFFE and U+FFFF (surrogates are not
 * valid UTF-8; every other control is refused by field_ok). A metainfo
 * holding one is not XML, and appstreamcli rejects the whole file. Its code
 * point in hex, or NULL. */
static const char *xml_nonchar(const char *s)
{
	if (strstr(s, "\xef\xbf\xbe"))
		return "FFFE";
	if (strstr(s, "\xef\xbf\xbf"))
		return "FFFF";
	return NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The Homepage: field of the source paragraph (the first) of TEXT, a
 * debian/control.in: its value, trimmed, into out (size outlen), or "" when
 * the paragraph has none or the value is no http(s) URL of printable ASCII
 * without blanks (AppStream's <url> then is left out rather than wrong). */
static void control_homepage(const char *text, size_t len, char *out, size_t outlen)
{
	const char *end = text + len;

	out[0] = '\0';
	for (const char *l = text; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		const char *le = nl ? nl : end;
		size_t n;

		if (le == l)
			return; /* the end of the source paragraph */
		if ((size_t)(le - l) > 9 && strncasecmp(l, "Homepage:", 9) == 0) {
			const char *v = l + 9;

			while (v < le && (*v == ' ' || *v == '\t'))
				v++;
			while (le > v && (le[-1] == ' ' || le[-1] == '\t' || le[-1] == '\r'))
				le--;
			n = (size_t)(le - v);
			if (n >= outlen || (strncmp(v, "https://", 8) != 0 && strncmp(v, "http://", 7) != 0))
				return;
			for (size_t i = 0; i < n; i++)
				if (v[i] <= ' ' || v[i] > '~')
					return;
			memcpy(out, v, n);
			out[n] = '\0';
			return;
		}
		l = nl ? nl + 1 : end;
	}
}

char *fw_debian_metainfo_id(const char *pkg)
{
	char *id = fw_asprintf(METAINFO_ID_PREFIX "%s", pkg);

	for (char *c = id ? id + strlen(METAINFO_ID_PREFIX) : NULL; c && *c; c++)
		if (*c == '-')
			*c = '_';
	return id;
}

static int metainfo_with(FILE *f, const struct fw_plan *p, int pkg, const struct fw_modmap *m,
			 const char *homepage, struct fw_diag *d)
{
	const struct fw_tree *t = p->t;
	const struct fw_plan_entry **v;
	const char **lic = NULL, **alias = NULL;
	char *id;
	size_t n, nlic = 0, nalias = 0, cap = 0;
	int r = 0;

	v = entries_of(p, pkg, true, &n);
	lic = calloc(n + 1, sizeof(*lic));
	if (!v || !lic) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const char *spdx = v[i]->blob->lic ? v[i]->blob->lic->spdx : NULL;
		bool seen = false;

		if (!field_ok(v[i]->name)) {
			fw_diag_add(d, t->whence.path, v[i]->link ? v[i]->link->e->line : v[i]->blob->e->line,
				    "%s: not one line of UTF-8 text; AppStream cannot name it",
				    fw_esc(v[i]->name));
			r = -EINVAL;
		} else if (xml_nonchar(v[i]->name)) {
			fw_diag_add(d, t->whence.path, v[i]->link ? v[i]->link->e->line : v[i]->blob->e->line,
				    "%s: holds U+%s, which XML cannot carry; AppStream cannot name it",
				    fw_esc(v[i]->name), xml_nonchar(v[i]->name));
			r = -EINVAL;
		}
		for (size_t k = 0; k < nlic && spdx && !seen; k++)
			seen = strcmp(lic[k], spdx) == 0;
		if (spdx && !seen)
			lic[nlic++] = spdx;
		/* The aliases of every module the map gives this name. */
		for (size_t k = 0; m && k < m->n; k++) {
			const char **ma;
			size_t nma;

			if (strcmp(m->v[k].firmware, v[i]->name) != 0)
				continue;
			if (fw_modmap_module_aliases(m, m->v[k].module, &ma, &nma) < 0) {
				r = -ENOMEM;
				goto out;
			}
			for (size_t a = 0; a < nma; a++) {
				if (fw_grow(&alias, &cap, nalias, sizeof(*alias)) < 0) {
					free(ma);
					r = -ENOMEM;
					goto out;
				}
				alias[nalias++] = ma[a];
			}
			free(ma);
		}
	}
	if (r < 0)
		goto out;
	qsort(lic, nlic, sizeof(*lic), cmp_str);
	if (nalias)
		qsort(alias, nalias, sizeof(*alias), cmp_str);
	id = fw_debian_metainfo_id(pkg_name(p, pkg));
	if (!id) {
		r = -ENOMEM;
		goto out;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<!-- Generated by fwdist debian metainfo from the tree's install plan. -->\n"
		   "<component type=\"firmware\">\n  <id>%s", id);
	free(id);
	fputs("</id>\n  <metadata_license>CC0-1.0</metadata_license>\n", f);
	if (nlic) {
		fputs("  <project_license>", f);
		for (size_t k = 0; k < nlic; k++) {
			bool paren = nlic > 1 && strchr(lic[k], ' ');

			fputs(k ? " AND " : "", f);
			fputs(paren ? "(" : "", f);
			xml_text(f, lic[k]);
			fputs(paren ? ")" : "", f);
		}
		fputs("</project_license>\n", f);
	}
	fputs("  <name>", f);
	xml_text(f, pkg_name(p, pkg));
	fputs("</name>\n  <summary>Linux firmware of the fwdist split</summary>\n"
	      "  <description>\n    <p>Firmware files for Linux drivers, installed in "
	      "the kernel's firmware directory, where its request_firmware() finds them, with "
	      "their licence texts; one package of the split of the fwdist firmware "
	      "tree.</p>\n  </description>\n", f);
	if (*homepage) {
		fputs("  <url type=\"homepage\">", f);
		xml_text(f, homepage);
		fputs("</url>\n", f);
	}
	if (n) {
		fputs("  <provides>\n", f);
		for (size_t i = 0; i < nalias; i++) {
			if (i && strcmp(alias[i], alias[i - 1]) == 0)
				continue;
			fputs("    <modalias>", f);
			xml_text(f, alias[i]);
			fputs("</modalias>\n", f);
		}
		for (size_t i = 0; i < n; i++) {
			fputs("    <firmware type=\"runtime\">", f);
			xml_text(f, v[i]->name);
			fputs("</firmware>\n", f);
		}
		fputs("  </provides>\n", f);
	}
	fputs("</component>\n", f);
out:
	free(v);
	free(lic);
	free(alias);
	return r;
}

int fw_debian_metainfo(FILE *f, const struct fw_plan *p, int pkg, struct fw_diag *d)
{
	struct fw_modmap m = { 0 };
	char homepage[512];
	char *in = NULL;
	size_t inlen = 0;
	int r = fw_modmap_load(&m, p->t->rootfd, d);

	/* The packages' homepage, as debian/control.in gives it. */
	if (r == 0) {
		r = fw_read_text(p->t->rootfd, CONTROL_IN, &in, &inlen);
		if (r == -ENOENT)
			r = 0;
	}
	homepage[0] = '\0';
	if (r == 0 && in)
		control_homepage(in, inlen, homepage, sizeof(homepage));
	if (r == 0)
		r = metainfo_with(f, p, pkg, &m, homepage, d);
	free(in);
	fw_modmap_free(&m);
	return r;
}

/* ---- the committed files ---- */

/* Packages a Build-Depends need not name: build-essential's and the
 * Essential ones a recipe may run (lintian warns when they are named). */
static bool implied_build_dep(const char *pkg)
{
	static const char *const implied[] = {
		"bash", "coreutils", "dash", "diffutils", "dpkg-dev", "findutils", "g++", "gcc",
		"grep", "gzip", "libc6-dev", "make", "perl-base", "sed", "tar", "util-linux",
	};

	for (size_t i = 0; i < FW_ARRAY_SIZE(implied); i++)
		if (strcmp(pkg, implied[i]) == 0)
			return true;
	return false;
}

/* Whether the field text [s, e) names pkg (an alternative of a relation,
 * before any version, architecture or profile). */
static bool field_names(const char *s, const char *e, const char *pkg)
{
	size_t n = strlen(pkg);

	while (s < e) {
		while (s < e && (*s == ' ' || *s == '\t' || *s == '\n' || *s == ',' || *s == '|'))
			s++;
		if ((size_t)(e - s) >= n && memcmp(s, pkg, n) == 0 &&
		    (s + n == e || !(s[n] == '-' || s[n] == '.' || s[n] == '+' ||
				     (s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9'))))
			return true;
		while (s < e && *s != ',' && *s != '|')
			s++;
	}
	return false;
}

/* debian/control.in's head, its Build-Depends completed with the Debian
 * packages of manifests/build's tools (sorted; fwdist's own and those
 * build-essential or Essential imply left out): the free firmware builds
 * from source in the package build, from what the archive has. */
static void control_head(FILE *f, const char *head, size_t hlen, const struct fw_tree *t)
{
	const char *end = head + hlen, *fs = NULL, *fe, *indent = " ";
	size_t ilen = 1;
	const char *last = NULL;

	for (const char *l = head; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));

		if ((size_t)(end - l) > 14 && memcmp(l, "Build-Depends:", 14) == 0) {
			fs = l;
			break;
		}
		l = nl ? nl + 1 : end;
	}
	if (!fs) {
		fwrite(head, 1, hlen, f);
		return;
	}
	/* The field: its line and the continuation lines after it. */
	fe = memchr(fs, '\n', (size_t)(end - fs));
	fe = fe ? fe : end;
	while (fe < end && fe + 1 < end && (fe[1] == ' ' || fe[1] == '\t')) {
		const char *nl = memchr(fe + 1, '\n', (size_t)(end - fe - 1));
		const char *w = fe + 1;

		indent = w;
		for (ilen = 0; w + ilen < end && (w[ilen] == ' ' || w[ilen] == '\t'); ilen++)
			;
		fe = nl ? nl : end;
	}
	fwrite(head, 1, (size_t)(fe - head), f);
	for (;;) {
		const char *next = NULL;

		/* The least package name above last, each once: sorted output. */
		for (size_t i = 0; i < t->recipes.n; i++)
			for (size_t k = 0; k < t->recipes.v[i].ntools; k++) {
				const char *pkg = t->recipes.v[i].tools[k].package;

				if (strcmp(pkg, FW_RECIPE_NO_PACKAGE) == 0 ||
				    strcmp(pkg, FW_RECIPE_SELF_PACKAGE) == 0 || implied_build_dep(pkg) ||
				    (last && strcmp(pkg, last) <= 0) || (next && strcmp(pkg, next) >= 0) ||
				    field_names(fs + 14, fe, pkg))
					continue;
				next = pkg;
			}
		if (!next)
			break;
		fprintf(f, ",\n%.*s%s", (int)ilen, indent, next);
		last = next;
	}
	fwrite(fe, 1, (size_t)(end - fe), f);
}

int fw_debian_generate(const struct fw_tree *t, enum fw_debian_file which, char **buf,
		       size_t *len, struct fw_diag *d)
{
	const char *in = which == FW_DEB_CONTROL ? CONTROL_IN : COPYRIGHT_IN;
	struct fw_plan p = { 0 };
	char *head = NULL;
	size_t hlen;
	FILE *f = NULL;
	int r;

	*buf = NULL;
	r = fw_read_text(t->rootfd, in, &head, &hlen);
	if (r < 0)
		return r;
	r = fw_plan_build(&p, t, &(struct fw_plan_opts){ .comp = FW_COMP_NONE, .no_licences = true },
			  d);
	if (r < 0) {
		free(head);
		return r;
	}
	f = open_memstream(buf, len);
	if (!f) {
		r = -errno;
		goto out;
	}
	/* The head is the hand-kept part (debian/control's Build-Depends
	 * completed from the recipes); the generated part follows it. */
	if (which == FW_DEB_CONTROL)
		control_head(f, head, hlen, t);
	else
		fwrite(head, 1, hlen, f);
	r = which == FW_DEB_CONTROL ? fw_debian_control(f, &p, d) :
				      fw_debian_copyright(f, &p, head, hlen, d);
	if (fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	if (r < 0) {
		free(*buf);
		*buf = NULL;
	}
out:
	fw_plan_free(&p);
	free(head);
	return r;
}

int fw_debian_check(const struct fw_tree *t, struct fw_diag *d)
{
	static const struct {
		enum fw_debian_file which;
		const char *path, *cmd;
	} files[] = {
		{ FW_DEB_CONTROL, FW_DEBIAN_CONTROL, "control" },
		{ FW_DEB_COPYRIGHT, FW_DEBIAN_COPYRIGHT, "copyright" },
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *want = NULL, *have = NULL;
		size_t wlen, hlen;
		int r = fw_debian_generate(t, files[i].which, &want, &wlen, d);

		if (r == -ENOENT)
			continue; /* not packaged with fwdist's generators */
		if (r == -EINVAL)
			continue; /* the finding is in d */
		if (r < 0)
			return r;
		r = fw_read_text(t->rootfd, files[i].path, &have, &hlen);
		if (r == -ENOMEM) {
			free(want);
			return r;
		}
		if (r < 0)
			fw_diag_add(d, files[i].path, 0, "cannot read: %s; run `fwdist debian %s -o %s`",
				    strerror(-r), files[i].cmd, files[i].path);
		else if (hlen != wlen || memcmp(have, want, wlen) != 0)
			fw_diag_add(d, files[i].path, 0,
				    "stale: not what WHENCE and manifests/ give; run `fwdist debian %s -o %s`",
				    files[i].cmd, files[i].path);
		free(want);
		free(have);
	}
	return 0;
}

/* ---- version ---- */

int fw_debian_version(int rootfd, char **out, const char **from, struct fw_diag *d)
{
	struct fw_lines it;
	const char *ls, *le;
	char *buf = NULL, release[9] = "";
	unsigned revision = 1;
	size_t len;
	int r = fw_read_text(rootfd, FW_TREE_IMPORTED, &buf, &len);

	*out = NULL;
	if (r < 0 && r != -ENOENT)
		return r;
	if (r == 0) {
		fw_lines_init(&it, buf, len);
		while (fw_lines_next(&it, &ls, &le)) {
			size_t n = (size_t)(le - ls);

			if (n > 8 && memcmp(ls, "release ", 8) == 0) {
				if (!fw_release_valid(ls + 8, n - 8)) {
					fw_diag_add(d, FW_TREE_IMPORTED, it.line,
						    "release: not a release date YYYYMMDD");
					r = -EINVAL;
					break;
				}
				memcpy(release, ls + 8, 8);
			} else if (n > 9 && memcmp(ls, "revision ", 9) == 0) {
				if (fw_revision_parse(ls + 9, n - 9, &revision) < 0) {
					fw_diag_add(d, FW_TREE_IMPORTED, it.line,
						    "revision: not a number from 1 to 9999");
					r = -EINVAL;
					break;
				}
			}
		}
		free(buf);
		buf = NULL;
		if (r < 0)
			return r;
		if (*release) {
			*out = fw_asprintf("%s+fwdist%u", release, revision);
			*from = FW_TREE_IMPORTED;
			return *out ? 0 : -ENOMEM;
		}
	}
	/* No release: the first line of debian/changelog, "SOURCE (VERSION) ...". */
	r = fw_read_text(rootfd, FW_DEBIAN_CHANGELOG, &buf, &len);
	if (r < 0)
		return r;
	{
		const char *open_ = memchr(buf, '(', len), *nl = memchr(buf, '\n', len);
		const char *close_ = open_ ? memchr(open_, ')', len - (size_t)(open_ - buf)) : NULL;

		if (!open_ || !close_ || (nl && close_ > nl) || close_ == open_ + 1) {
			fw_diag_add(d, FW_DEBIAN_CHANGELOG, 1, "no version: not SOURCE (VERSION) ...");
			free(buf);
			return -EINVAL;
		}
		*out = fw_strndup(open_ + 1, (size_t)(close_ - open_ - 1));
		*from = FW_DEBIAN_CHANGELOG;
	}
	free(buf);
	return *out ? 0 : -ENOMEM;
}
