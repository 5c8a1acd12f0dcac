/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SBOMs of an install plan: CycloneDX 1.6 JSON and SPDX 2.3 tag-value, byte for byte reproducible. */
#include "sbom.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build.h"
#include "digest.h"
#include "fsutil.h"
#include "json.h"
#include "recipe.h"
#include "policy.h"
#include "util.h"

#define SHA1_LEN 20

struct ref_text {
	const struct fw_text *x;
	char *buf; /* its content */
};

/* A free blob's provenance, as name/value properties: how its freeness
 * was established, and for a blob a recipe builds, the recipe, each
 * source with its SHA-256 and each tool with its Debian package and the
 * version installed when the SBOM is written. */
struct prov_item {
	const char *name;
	char *value;
};
struct prov {
	struct prov_item *v;
	size_t n, cap;
};

struct sbom {
	const struct fw_plan *p;
	const struct fw_sbom_opts *o;
	const struct fw_plan_entry **files; /* FILE entries by package, then name */
	uint8_t (*sha1)[SHA1_LEN];          /* of files[i], read from firmware/ */
	size_t nfiles;
	const struct fw_plan_entry **lics;  /* LICENCE entries by package, then id */
	size_t nlics;
	struct ref_text *refs;              /* distinct LicenseRef-* texts, by id */
	size_t nrefs;
	char uuid[37];
	struct prov *prov;                  /* of files[i]: its build provenance */
	char *status;                       /* dpkg-query's list, read once */
	size_t status_len;
	bool status_read;
};

int fw_sbom_format_parse(const char *s, enum fw_sbom_format *f)
{
	if (strcmp(s, "cyclonedx") == 0)
		*f = FW_SBOM_CYCLONEDX;
	else if (strcmp(s, "spdx") == 0)
		*f = FW_SBOM_SPDX;
	else
		return -EINVAL;
	return 0;
}

static const char *pkg_name(const struct sbom *s, const struct fw_plan_entry *e)
{
	return s->p->t->split.pkgs[e->pkg].name;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct fw_plan_entry *x = *(const struct fw_plan_entry *const *)a;
	const struct fw_plan_entry *y = *(const struct fw_plan_entry *const *)b;

	if (x->pkg != y->pkg)
		return x->pkg < y->pkg ? -1 : 1;
	if (x->kind == FW_PLAN_LICENCE)
		return strcmp(x->text->pol->id, y->text->pol->id);
	return strcmp(x->name, y->name);
}

static int cmp_ref(const void *a, const void *b)
{
	return strcmp(((const struct ref_text *)a)->x->pol->id,
		      ((const struct ref_text *)b)->x->pol->id);
}

static const char *blob_spdx(const struct fw_plan_entry *e)
{
	return e->blob->lic && e->blob->lic->spdx ? e->blob->lic->spdx : NULL;
}

/* SHA-1 of the blob as firmware/ holds it now, which must also be the
 * manifest's SHA-256 and size: an SBOM never vouches for other bytes. */
static int hash_blob(const struct sbom *s, const struct fw_plan_entry *e, uint8_t sha1[SHA1_LEN],
		     struct fw_diag *d)
{
	static _Thread_local unsigned char buf[1 << 16];
	const struct fw_tree *t = s->p->t;
	EVP_MD_CTX *c1 = EVP_MD_CTX_new(), *c256 = EVP_MD_CTX_new();
	uint8_t sha256[FW_SHA256_LEN];
	uint64_t total = 0;
	struct stat st;
	int fd = -1, r = 0;

	if (!c1 || !c256) {
		r = -ENOMEM;
		goto out;
	}
	fd = t->fwfd < 0 ? t->fw_err : fw_open_beneath(t->fwfd, e->src, O_RDONLY | O_NONBLOCK, 0);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		fw_diag_add(d, "", 0, FW_TREE_FIRMWARE "/%s: cannot read: %s", fw_esc(e->src),
			    fd < 0 ? strerror(-fd) : "not a regular file");
		r = -EINVAL;
		goto out;
	}
	if (EVP_DigestInit_ex(c1, EVP_sha1(), NULL) != 1 ||
	    EVP_DigestInit_ex(c256, EVP_sha256(), NULL) != 1) {
		r = -EIO;
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fw_diag_add(d, "", 0, FW_TREE_FIRMWARE "/%s: cannot read: %s", fw_esc(e->src),
				    strerror(errno));
			r = -EINVAL;
			goto out;
		}
		if (n == 0)
			break;
		total += (uint64_t)n;
		if (EVP_DigestUpdate(c1, buf, (size_t)n) != 1 ||
		    EVP_DigestUpdate(c256, buf, (size_t)n) != 1) {
			r = -EIO;
			goto out;
		}
	}
	if (EVP_DigestFinal_ex(c1, sha1, NULL) != 1 || EVP_DigestFinal_ex(c256, sha256, NULL) != 1) {
		r = -EIO;
		goto out;
	}
	if (total != e->size || memcmp(sha256, e->sha256, FW_SHA256_LEN) != 0) {
		fw_diag_add(d, "", 0, FW_TREE_FIRMWARE "/%s: content differs from %s",
			    fw_esc(e->src), FW_TREE_SUMS);
		r = -EINVAL;
	}
out:
	if (fd >= 0)
		close(fd);
	EVP_MD_CTX_free(c1);
	EVP_MD_CTX_free(c256);
	return r;
}

/* A value the SBOM carries as text must be UTF-8 (both formats are), and
 * for SPDX's <text> blocks must not close the block early. */
static bool text_ok(const char *v, bool spdx_text)
{
	return fw_utf8_valid(v) && !(spdx_text && strstr(v, "</text>"));
}

/* dpkg-query's list of what is installed (status, package, version), read
 * once into s->status: dpkg's database is read through dpkg's own tool. */
static void read_installed(struct sbom *s)
{
	static char *const argv[] = { "dpkg-query", "-W", "-f",
				      "${db:Status-Abbrev}\t${Package}\t${Version}\n", NULL };
	posix_spawn_file_actions_t fa;
	size_t cap = 0;
	int p[2], status;
	pid_t pid;

	s->status_read = true;
	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, "dpkg-query", &fa, NULL, argv, environ) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		close(p[0]);
		close(p[1]);
		return;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	for (;;) {
		ssize_t n;

		if (s->status_len + 4096 > cap) {
			if (cap >= (16u << 20) || fw_grow(&s->status, &cap, s->status_len + 4096, 1) < 0)
				break;
		}
		n = read(p[0], s->status + s->status_len, cap - s->status_len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		s->status_len += (size_t)n;
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!s->status || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		free(s->status);
		s->status = NULL;
		s->status_len = 0;
		return;
	}
	s->status[s->status_len] = '\0';
}

/* The version dpkg has installed of pkg, or NULL. */
static const char *installed_version(struct sbom *s, const char *pkg, char *out, size_t outlen)
{
	size_t n = strlen(pkg);

	if (!s->status_read)
		read_installed(s);
	if (!s->status)
		return NULL;
	/* Lines "ii \tPACKAGE\tVERSION": installed and configured. */
	for (const char *p = s->status, *end = s->status + s->status_len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *t1 = memchr(p, '\t', (size_t)(le - p));

		if (t1 && le - p > 2 && p[0] == 'i' && p[1] == 'i' && (size_t)(le - t1) > n + 1 &&
		    memcmp(t1 + 1, pkg, n) == 0 && t1[1 + n] == '\t' &&
		    (size_t)(le - (t1 + 2 + n)) < outlen) {
			size_t vl = (size_t)(le - (t1 + 2 + n));

			memcpy(out, t1 + 2 + n, vl);
			out[vl] = '\0';
			return out;
		}
		p = nl ? nl + 1 : end;
	}
	return NULL;
}

static int prov_add(struct prov *pv, const char *name, char *value)
{
	if (!value)
		return -ENOMEM;
	if (fw_grow(&pv->v, &pv->cap, pv->n + 1, sizeof(*pv->v)) < 0) {
		free(value);
		return -ENOMEM;
	}
	pv->v[pv->n].name = name;
	pv->v[pv->n++].value = value;
	return 0;
}

static int provenance(struct sbom *s, const struct fw_plan_entry *e, struct prov *pv)
{
	const struct fw_tree *t = s->p->t;
	const struct fw_blob *b = e->blob;
	const struct fw_recipe *r;
	enum fw_freeness how;
	char *why;
	int err;

	if (b->cat != FW_CAT_FREE)
		return 0;
	why = fw_blob_freeness(t, b, &how);
	err = prov_add(pv, "fwdist:freeness", strdup(fw_freeness_name(how)));
	if (err == 0)
		err = prov_add(pv, "fwdist:freeness-why", why);
	else
		free(why);
	r = fw_recipes_output(&t->recipes, b->e->name, NULL);
	if (err < 0 || !r)
		return err;
	err = prov_add(pv, "fwdist:recipe", strdup(r->name));
	for (size_t i = 0; err == 0 && i < r->nsources; i++) {
		uint8_t sum[FW_SHA256_LEN];
		char hexs[FW_SHA256_HEX + 1] = "unreadable";
		int fd = t->fwfd < 0 ? -1 : fw_open_beneath(t->fwfd, r->sources[i].text, O_RDONLY, 0);

		if (fd >= 0 && fw_sha256_fd(fd, sum, NULL) == 0)
			fw_sha256_hex(sum, hexs);
		if (fd >= 0)
			close(fd);
		err = prov_add(pv, "fwdist:build-source",
			       fw_asprintf("%s sha256:%s", r->sources[i].text, hexs));
	}
	for (size_t i = 0; err == 0 && i < r->ntools; i++) {
		const struct fw_recipe_tool *tl = &r->tools[i];
		char ver[128];
		const char *v;

		if (strcmp(tl->package, FW_RECIPE_NO_PACKAGE) == 0) {
			err = prov_add(pv, "fwdist:build-tool",
				       fw_asprintf("none (%s): in no Debian package", tl->command));
			continue;
		}
		if (strcmp(tl->package, FW_RECIPE_SELF_PACKAGE) == 0)
			v = s->o->tool_version;
		else if (!(v = installed_version(s, tl->package, ver, sizeof(ver))))
			v = "not installed";
		err = prov_add(pv, "fwdist:build-tool",
			       fw_asprintf("%s %s (%s)", tl->package, v, tl->command));
	}
	return err;
}

static int collect(struct sbom *s, struct fw_diag *d)
{
	const struct fw_plan *p = s->p;
	bool bad = false;

	s->files = calloc(p->n + 1, sizeof(*s->files));
	s->lics = calloc(p->n + 1, sizeof(*s->lics));
	s->refs = calloc(p->n + 1, sizeof(*s->refs));
	if (!s->files || !s->lics || !s->refs)
		return -ENOMEM;
	for (size_t i = 0; i < p->n; i++) {
		const struct fw_plan_entry *e = &p->v[i];

		if (e->kind == FW_PLAN_FILE)
			s->files[s->nfiles++] = e;
		else if (e->kind == FW_PLAN_LICENCE)
			s->lics[s->nlics++] = e;
	}
	qsort(s->files, s->nfiles, sizeof(*s->files), cmp_entry);
	qsort(s->lics, s->nlics, sizeof(*s->lics), cmp_entry);
	s->sha1 = calloc(s->nfiles + 1, sizeof(*s->sha1));
	s->prov = calloc(s->nfiles + 1, sizeof(*s->prov));
	if (!s->sha1 || !s->prov)
		return -ENOMEM;
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct fw_plan_entry *e = s->files[i];
		const char *spdx = blob_spdx(e);
		int r;

		if (!text_ok(e->name, false) || !text_ok(pkg_name(s, e), false) ||
		    (spdx && !text_ok(spdx, false))) {
			fw_diag_add(d, p->t->whence.path, e->blob->e->line,
				    "%s: name or licence is not valid UTF-8; an SBOM cannot name it",
				    fw_esc(e->name));
			bad = true;
			continue;
		}
		r = hash_blob(s, e, s->sha1[i], d);
		if (r == -EINVAL)
			bad = true;
		else if (r < 0)
			return r;
		r = provenance(s, e, &s->prov[i]);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < s->nlics; i++) {
		const struct fw_text *x = s->lics[i]->text;
		bool seen = false;

		if (strncmp(x->pol->id, "LicenseRef-", 11) != 0)
			continue;
		for (size_t k = 0; k < s->nrefs && !seen; k++)
			seen = s->refs[k].x == x;
		if (!seen)
			s->refs[s->nrefs++].x = x;
	}
	qsort(s->refs, s->nrefs, sizeof(*s->refs), cmp_ref);
	for (size_t i = 0; i < s->nrefs; i++) {
		const struct fw_text *x = s->refs[i].x;
		size_t len;
		int r = fw_tree_read_text(p->t, x, &s->refs[i].buf, &len);

		if (r == -ENOMEM)
			return r;
		if (r == 0 && !fw_utf8_valid(s->refs[i].buf))
			r = -EILSEQ;
		else if (r == 0 && (!text_ok(s->refs[i].buf, true) || !text_ok(x->pol->reason, true)))
			r = -EBADMSG; /* the reason goes in a <text> block too */
		if (r < 0) {
			fw_diag_add(d, x->path, 0, "%s",
				    r == -ESTALE ? "changed since the tree was loaded" :
				    r == -EILSEQ ? "not UTF-8 text: SPDX cannot quote it" :
				    r == -EBADMSG ? "holds \"</text>\": SPDX cannot quote it" :
				    x->err ? fw_text_problem(x) : strerror(-r));
			bad = true;
		}
	}
	return bad ? -EINVAL : 0;
}

/* The serial number: a name-based UUID (version 5 layout, SHA-256 instead
 * of SHA-1) of everything the SBOM states, so the same plan over the same
 * tree always gets the same one and any change gets another. */
static int make_uuid(struct sbom *s)
{
	struct fw_sha256 h;
	uint8_t sum[FW_SHA256_LEN];
	int r = fw_sha256_init(&h);

#define FEED(str) \
	do { \
		if (r == 0) \
			r = fw_sha256_update(&h, (str), strlen(str) + 1); \
	} while (0)
	FEED("fwdist sbom 1");
	FEED(s->o->tool_version);
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct fw_plan_entry *e = s->files[i];
		const char *spdx = blob_spdx(e);

		FEED(pkg_name(s, e));
		FEED(e->name);
		FEED(spdx ? spdx : "");
		if (r == 0)
			r = fw_sha256_update(&h, e->sha256, FW_SHA256_LEN);
		for (size_t k = 0; k < s->prov[i].n; k++) {
			FEED(s->prov[i].v[k].name);
			FEED(s->prov[i].v[k].value);
		}
	}
	for (size_t i = 0; i < s->nlics; i++) {
		FEED(pkg_name(s, s->lics[i]));
		FEED(s->lics[i]->text->pol->id);
		if (r == 0)
			r = fw_sha256_update(&h, s->lics[i]->sha256, FW_SHA256_LEN);
	}
#undef FEED
	if (r == 0)
		r = fw_sha256_final(&h, sum);
	fw_sha256_free(&h);
	if (r < 0)
		return r;
	sum[6] = (uint8_t)((sum[6] & 0x0f) | 0x50);
	sum[8] = (uint8_t)((sum[8] & 0x3f) | 0x80);
	snprintf(s->uuid, sizeof(s->uuid),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", sum[0],
		 sum[1], sum[2], sum[3], sum[4], sum[5], sum[6], sum[7], sum[8], sum[9], sum[10],
		 sum[11], sum[12], sum[13], sum[14], sum[15]);
	return 0;
}

static void hex(FILE *f, const uint8_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%02x", v[i]);
}

/* A bom-ref: prefix and a name as one JSON string. Names are unique in a
 * plan and checked UTF-8, so the refs are unique and name the blob as is;
 * the prefixes keep packages and files apart. */
static void json_ref(FILE *f, const char *prefix, const char *name)
{
	fprintf(f, "\"%s", prefix);
	for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if (*c < 0x20 || *c == 0x7f)
			fprintf(f, "\\u%04x", *c);
		else
			putc(*c, f);
	}
	putc('"', f);
}

static void json_prop(FILE *f, const char *indent, bool first, const char *name, const char *val)
{
	fprintf(f, "%s\n%s{ \"name\": \"%s\", \"value\": ", first ? "" : ",", indent, name);
	fw_json_str(f, val);
	fputs(" }", f);
}

/* CycloneDX 1.6: one component of type "firmware" per binary package,
 * holding one nested "firmware" component per blob (request name, SHA-1
 * and SHA-256, SPDX expression); fwdist's own facts are properties in the
 * "fwdist:" namespace. */
static void write_cyclonedx(FILE *f, const struct sbom *s)
{
	fputs("{\n"
	      "  \"$schema\": \"http://cyclonedx.org/schema/bom-1.6.schema.json\",\n"
	      "  \"bomFormat\": \"CycloneDX\",\n"
	      "  \"specVersion\": \"1.6\",\n", f);
	fprintf(f, "  \"serialNumber\": \"urn:uuid:%s\",\n  \"version\": 1,\n  \"metadata\": {\n",
		s->uuid);
	if (s->o->created)
		fprintf(f, "    \"timestamp\": \"%s\",\n", s->o->created);
	fputs("    \"tools\": {\n      \"components\": [\n"
	      "        { \"type\": \"application\", \"name\": \"fwdist\", \"version\": ", f);
	fw_json_str(f, s->o->tool_version);
	fputs(" }\n      ]\n    }\n  },\n  \"components\": [", f);
	for (size_t i = 0; i < s->nfiles;) {
		int pkg = s->files[i]->pkg;
		const struct fw_package *fp = &s->p->t->split.pkgs[pkg];

		fputs(i ? ",\n    {\n" : "\n    {\n", f);
		fputs("      \"type\": \"firmware\",\n      \"bom-ref\": ", f);
		json_ref(f, "fwdist:package:", fp->name);
		fputs(",\n      \"name\": ", f);
		fw_json_str(f, fp->name);
		fputs(",\n      \"properties\": [", f);
		json_prop(f, "        ", true, "fwdist:section", fp->section);
		fputs("\n      ],\n      \"components\": [", f);
		for (bool first = true; i < s->nfiles && s->files[i]->pkg == pkg; i++, first = false) {
			const struct fw_plan_entry *e = s->files[i];
			const struct fw_whence_entry *we = e->blob->e;
			const char *spdx = blob_spdx(e);
			char size[32];

			fputs(first ? "\n        {\n" : ",\n        {\n", f);
			fputs("          \"type\": \"firmware\",\n          \"bom-ref\": ", f);
			json_ref(f, "fwdist:file:", e->name);
			fputs(",\n          \"name\": ", f);
			fw_json_str(f, e->name);
			if (we->version) {
				fputs(",\n          \"version\": ", f);
				fw_json_str(f, we->version);
			}
			fputs(",\n          \"hashes\": [\n            { \"alg\": \"SHA-1\", \"content\": \"", f);
			hex(f, s->sha1[i], SHA1_LEN);
			fputs("\" },\n            { \"alg\": \"SHA-256\", \"content\": \"", f);
			hex(f, e->sha256, FW_SHA256_LEN);
			fputs("\" }\n          ]", f);
			if (spdx) {
				fputs(",\n          \"licenses\": [\n            { \"expression\": ", f);
				fw_json_str(f, spdx);
				fputs(" }\n          ]", f);
			}
			fputs(",\n          \"properties\": [", f);
			json_prop(f, "            ", true, "fwdist:kind", fw_entry_kind_name(we->kind));
			snprintf(size, sizeof(size), "%llu", (unsigned long long)e->size);
			json_prop(f, "            ", false, "fwdist:size", size);
			json_prop(f, "            ", false, "fwdist:category",
				  fw_category_name(e->blob->cat));
			/* A dual licence: the branch it ships under (the model's). */
			if (e->blob->branch)
				json_prop(f, "            ", false, "fwdist:licence-used",
					  e->blob->branch);
			if (e->blob->driver)
				json_prop(f, "            ", false, "fwdist:driver", e->blob->driver);
			for (size_t k = 0; k < s->prov[i].n; k++)
				json_prop(f, "            ", false, s->prov[i].v[k].name,
					  s->prov[i].v[k].value);
			fputs("\n          ]\n        }", f);
		}
		fputs("\n      ]\n    }", f);
	}
	fputs(s->nfiles ? "\n  ]\n}\n" : "]\n}\n", f);
}

/* An SPDX id is letters, digits, '.' and '-': any other byte of a package
 * name becomes "-XX" (its hex), so distinct names keep distinct ids. */
static void spdx_pkg_id(FILE *f, const char *name)
{
	fputs("SPDXRef-Package-", f);
	for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		    *c == '.' || *c == '-')
			putc(*c, f);
		else
			fprintf(f, "-%02X", *c);
	}
}

static int cmp_hex(const void *a, const void *b)
{
	return strcmp(a, b);
}

static int each_id(void *ctx, const char *id, size_t len)
{
	fprintf(ctx, "LicenseInfoInFile: %.*s\n", (int)len, id);
	return 0;
}

/* SPDX 2.3 tag-value: one Package per binary package (files analysed, its
 * verification code from its files' SHA-1), one File per blob with both
 * checksums and its WHENCE expression as the concluded licence, CONTAINS
 * relationships, and every LicenseRef-* text as extracted licensing info. */
static int write_spdx(FILE *f, const struct sbom *s)
{
	const struct fw_plan *p = s->p;
	size_t fileno = 1;

	fprintf(f, "SPDXVersion: SPDX-2.3\nDataLicense: CC0-1.0\nSPDXID: SPDXRef-DOCUMENT\n"
		   "DocumentName: fwdist-firmware\n"
		   "DocumentNamespace: https://spdx.org/spdxdocs/fwdist-firmware-%s\n"
		   "Creator: Tool: fwdist-%s\nCreated: %s\n",
		s->uuid, s->o->tool_version, s->o->created ? s->o->created : "1970-01-01T00:00:00Z");
	if (!s->o->created)
		fputs("CreatorComment: <text>No SOURCE_DATE_EPOCH was set: the creation time is "
		      "the epoch, so that the document is reproducible.</text>\n", f);
	for (size_t i = 0; i < s->nfiles;) {
		int pkg = s->files[i]->pkg;
		const struct fw_package *fp = &p->t->split.pkgs[pkg];
		size_t end = i, n;
		char (*hexes)[2 * SHA1_LEN + 1];
		uint8_t code[SHA1_LEN];
		EVP_MD_CTX *c;
		bool ok = true;

		while (end < s->nfiles && s->files[end]->pkg == pkg)
			end++;
		n = end - i;
		/* The package verification code (SPDX 2.3, 7.9): SHA-1 of
		 * the sorted lower-case hex SHA-1s of its files, concatenated. */
		hexes = calloc(n, sizeof(*hexes));
		c = EVP_MD_CTX_new();
		if (!hexes || !c) {
			free(hexes);
			EVP_MD_CTX_free(c);
			return -ENOMEM;
		}
		for (size_t k = 0; k < n; k++)
			for (size_t b = 0; b < SHA1_LEN; b++)
				snprintf(hexes[k] + 2 * b, 3, "%02x", s->sha1[i + k][b]);
		qsort(hexes, n, sizeof(*hexes), cmp_hex);
		if (EVP_DigestInit_ex(c, EVP_sha1(), NULL) != 1) {
			free(hexes);
			EVP_MD_CTX_free(c);
			return -EIO;
		}
		for (size_t k = 0; k < n && ok; k++)
			ok = EVP_DigestUpdate(c, hexes[k], 2 * SHA1_LEN) == 1;
		ok = ok && EVP_DigestFinal_ex(c, code, NULL) == 1;
		EVP_MD_CTX_free(c);
		free(hexes);
		if (!ok)
			return -EIO;

		fprintf(f, "\n##### Package: %s\n\nPackageName: %s\nSPDXID: ", fp->name, fp->name);
		spdx_pkg_id(f, fp->name);
		fputs("\nPackageDownloadLocation: NOASSERTION\nFilesAnalyzed: true\n"
		      "PackageVerificationCode: ", f);
		hex(f, code, SHA1_LEN);
		fputs("\nPackageLicenseConcluded: NOASSERTION\n", f);
		for (size_t k = 0; k < s->nlics; k++)
			if (s->lics[k]->pkg == pkg)
				fprintf(f, "PackageLicenseInfoFromFiles: %s\n", s->lics[k]->text->pol->id);
		fprintf(f, "PackageLicenseDeclared: NOASSERTION\nPackageCopyrightText: NOASSERTION\n"
			   "PackageComment: <text>Binary package of the fwdist split, "
			   "section %s.</text>\nRelationship: SPDXRef-DOCUMENT DESCRIBES ",
			fp->section);
		spdx_pkg_id(f, fp->name);
		fputs("\n", f);
		for (; i < end; i++, fileno++) {
			const struct fw_plan_entry *e = s->files[i];
			const char *spdx = blob_spdx(e);

			fprintf(f, "\nFileName: ./%s\nSPDXID: SPDXRef-File-%zu\nFileType: BINARY\n"
				   "FileChecksum: SHA1: ", e->name, fileno);
			hex(f, s->sha1[i], SHA1_LEN);
			fputs("\nFileChecksum: SHA256: ", f);
			hex(f, e->sha256, FW_SHA256_LEN);
			fprintf(f, "\nLicenseConcluded: %s\n", spdx ? spdx : "NOASSERTION");
			if (!spdx || fw_spdx_eval(NULL, spdx, &(enum fw_category){ 0 }, each_id, f,
						  &(const char *){ NULL }) < 0)
				fputs("LicenseInfoInFile: NOASSERTION\n", f);
			if (s->prov[i].n) {
				fputs("FileComment: <text>", f);
				for (size_t k = 0; k < s->prov[i].n; k++)
					fprintf(f, "%s%s: %s", k ? "\n" : "", s->prov[i].v[k].name,
						s->prov[i].v[k].value);
				fputs("</text>\n", f);
			}
			fputs("FileCopyrightText: NOASSERTION\nRelationship: ", f);
			spdx_pkg_id(f, fp->name);
			fprintf(f, " CONTAINS SPDXRef-File-%zu\n", fileno);
		}
	}
	for (size_t i = 0; i < s->nrefs; i++) {
		const struct fw_text *x = s->refs[i].x;

		fprintf(f, "\nLicenseID: %s\nExtractedText: <text>%s</text>\nLicenseName: %s\n"
			   "LicenseComment: <text>%s: %s</text>\n",
			x->pol->id, s->refs[i].buf, x->pol->id, fw_category_name(x->pol->cat),
			x->pol->reason);
	}
	return 0;
}

int fw_sbom_write(FILE *f, const struct fw_plan *p, const struct fw_sbom_opts *o,
		  struct fw_diag *d)
{
	struct sbom s = { .p = p, .o = o };
	int r = collect(&s, d);

	if (r == 0)
		r = make_uuid(&s);
	if (r == 0 && o->format == FW_SBOM_CYCLONEDX)
		write_cyclonedx(f, &s);
	else if (r == 0)
		r = write_spdx(f, &s);
	if (r == 0 && (fflush(f) != 0 || ferror(f)))
		r = -EIO;
	for (size_t i = 0; s.prov && i < s.nfiles; i++) {
		for (size_t k = 0; k < s.prov[i].n; k++)
			free(s.prov[i].v[k].value);
		free(s.prov[i].v);
	}
	free(s.prov);
	free(s.status);
	for (size_t i = 0; i < s.nrefs; i++)
		free(s.refs[i].buf);
	free(s.refs);
	free(s.files);
	free(s.lics);
	free(s.sha1);
	return r;
}
