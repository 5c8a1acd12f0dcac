/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for the AppStream metainfo writer: a fuzzed tree's names, licences, packages and modaliases must give well-formed XML. */
/*
 * The input, cut at its NUL bytes, is WHENCE, manifests/checksums,
 * manifests/licenses, manifests/packages, manifests/modules and
 * debian/control.in, laid out in a scratch tree; the tree is loaded and
 * planned as `fwdist debian metainfo` does, and each package's metainfo
 * written. When the writer says 0, its output must be XML a reader takes:
 * UTF-8 of XML 1.0 characters only, one element matched tag for tag, text
 * and attribute values with no bare '<' or '&' (checked below, a small
 * well-formedness checker of XML 1.0 without a DTD). A name the writer
 * cannot carry must be a finding, not broken XML.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debian.h"
#include "plan.h"
#include "tree.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[64];

static void put(const char *rel, const uint8_t *p, size_t n)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	if (n && write(fd, p, n) < 0)
		perror(path);
	close(fd);
}

/* ---- a small XML 1.0 well-formedness check (no DTD, no CDATA) ---- */

struct xml {
	const char *s, *end;
	const char *why;
};

/* XML 1.0's Char production. */
static bool xml_char(unsigned long c)
{
	return c == 0x9 || c == 0xa || c == 0xd || (c >= 0x20 && c <= 0xd7ff) ||
	       (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
}

/* The whole text: UTF-8 (shortest forms, no surrogates) of Chars only. */
static bool xml_chars(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned long c = s[i];
		size_t k = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 :
					   (c & 0xf8) == 0xf0 ? 3 : 9;
		static const unsigned long min[] = { 0, 0x80, 0x800, 0x10000 };

		if (k == 9 || i + k >= n)
			return false;
		if (k)
			c &= 0x3fu >> k;
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return false;
			c = c << 6 | (s[i + j] & 0x3f);
		}
		if (c < min[k] || !xml_char(c))
			return false;
		i += k + 1;
	}
	return true;
}

static bool name_start(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':' || c >= 0x80;
}

static bool name_char(unsigned char c)
{
	return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_space(struct xml *x)
{
	while (x->s < x->end && space(*x->s))
		x->s++;
}

static bool starts(const struct xml *x, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(x->end - x->s) >= n && memcmp(x->s, lit, n) == 0;
}

static bool fail(struct xml *x, const char *why)
{
	x->why = why;
	return false;
}

/* A Name; its bytes in *p, *n. */
static bool xml_name(struct xml *x, const char **p, size_t *n)
{
	const char *b = x->s;

	if (x->s >= x->end || !name_start((unsigned char)*x->s))
		return fail(x, "a name expected");
	while (x->s < x->end && name_char((unsigned char)*x->s))
		x->s++;
	*p = b;
	*n = (size_t)(x->s - b);
	return true;
}

/* After '&': one of the five entities or a character reference. */
static bool xml_ref(struct xml *x)
{
	static const char *const ent[] = { "amp;", "lt;", "gt;", "quot;", "apos;" };

	for (size_t i = 0; i < FW_ARRAY_SIZE(ent); i++)
		if (starts(x, ent[i])) {
			x->s += strlen(ent[i]);
			return true;
		}
	if (starts(x, "#")) {
		bool hex = starts(x, "#x");
		unsigned long c = 0;
		size_t digits = 0;

		x->s += hex ? 2 : 1;
		for (; x->s < x->end && *x->s != ';'; x->s++, digits++) {
			char d = *x->s;
			int v = d >= '0' && d <= '9' ? d - '0' :
				hex && d >= 'a' && d <= 'f' ? d - 'a' + 10 :
				hex && d >= 'A' && d <= 'F' ? d - 'A' + 10 : -1;

			if (v < 0 || c > 0x10ffff)
				return fail(x, "a bad character reference");
			c = c * (hex ? 16 : 10) + (unsigned long)v;
		}
		if (x->s >= x->end || !digits || !xml_char(c))
			return fail(x, "a bad character reference");
		x->s++;
		return true;
	}
	return fail(x, "a bare '&'");
}

/* After "<!--": up to and past "-->", with no "--" inside. */
static bool xml_comment(struct xml *x)
{
	for (; x->s < x->end; x->s++)
		if (starts(x, "--")) {
			if (!starts(x, "-->"))
				return fail(x, "'--' in a comment");
			x->s += 3;
			return true;
		}
	return fail(x, "an unclosed comment");
}

/* An element, from its '<'. */
static bool xml_element(struct xml *x, int depth)
{
	const char *name, *end;
	size_t n, en;

	if (depth > 64)
		return fail(x, "too deep");
	x->s++;
	if (!xml_name(x, &name, &n))
		return false;
	for (;;) {
		const char *an, *seen = x->s;
		size_t anl;
		char q;

		skip_space(x);
		if (starts(x, "/>")) {
			x->s += 2;
			return true;
		}
		if (starts(x, ">"))
			break;
		if (x->s == seen)
			return fail(x, "no blank before an attribute");
		if (!xml_name(x, &an, &anl))
			return false;
		skip_space(x);
		if (!starts(x, "="))
			return fail(x, "'=' expected");
		x->s++;
		skip_space(x);
		if (x->s >= x->end || (*x->s != '"' && *x->s != '\''))
			return fail(x, "a quoted value expected");
		q = *x->s++;
		while (x->s < x->end && *x->s != q) {
			if (*x->s == '<')
				return fail(x, "'<' in an attribute value");
			if (*x->s++ == '&' && !xml_ref(x))
				return false;
		}
		if (x->s >= x->end)
			return fail(x, "an unclosed attribute value");
		x->s++;
	}
	x->s++;
	/* The content, up to the end tag. */
	while (x->s < x->end) {
		if (starts(x, "</")) {
			x->s += 2;
			if (!xml_name(x, &end, &en))
				return false;
			if (en != n || memcmp(end, name, n) != 0)
				return fail(x, "an end tag of another element");
			skip_space(x);
			if (!starts(x, ">"))
				return fail(x, "'>' expected");
			x->s++;
			return true;
		}
		if (starts(x, "<!--")) {
			x->s += 4;
			if (!xml_comment(x))
				return false;
		} else if (starts(x, "<")) {
			if (!xml_element(x, depth + 1))
				return false;
		} else if (starts(x, "]]>")) {
			return fail(x, "']]>' in text");
		} else if (*x->s++ == '&' && !xml_ref(x)) {
			return false;
		}
	}
	return fail(x, "an unclosed element");
}

/* NULL when buf is a well-formed document, else why not. */
static const char *xml_check(const char *buf, size_t len)
{
	struct xml x = { buf, buf + len, NULL };
	bool root_seen = false;

	if (!xml_chars((const unsigned char *)buf, len))
		return "not UTF-8 of XML characters";
	if (starts(&x, "<?xml")) {
		const char *e = memmem(x.s, len, "?>", 2);

		if (!e)
			return "an unclosed XML declaration";
		x.s = e + 2;
	}
	for (;;) {
		skip_space(&x);
		if (x.s >= x.end)
			break;
		if (starts(&x, "<!--")) {
			x.s += 4;
			if (!xml_comment(&x))
				return x.why;
		} else if (starts(&x, "<") && !root_seen) {
			if (!xml_element(&x, 0))
				return x.why;
			root_seen = true;
		} else {
			return "text or a second element outside the root";
		}
	}
	return root_seen ? NULL : "no root element";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const files[] = { "WHENCE",		   "manifests/checksums",
					     "manifests/licenses", "manifests/packages",
					     "manifests/modules",  "debian/control.in" };
	const uint8_t *p = data, *end = data + size;
	struct fw_diag d = { 0 };
	struct fw_tree t;

	if (!*root) {
		static const char *const dirs[] = { "manifests", "firmware", "LICENSES", "debian" };
		char dir[96];

		strcpy(root, "/tmp/fwdist-fuzz-metainfo.XXXXXX");
		if (!mkdtemp(root))
			abort();
		for (size_t i = 0; i < FW_ARRAY_SIZE(dirs); i++) {
			snprintf(dir, sizeof(dir), "%s/%s", root, dirs[i]);
			mkdir(dir, 0755);
		}
	}
	for (size_t i = 0; i < FW_ARRAY_SIZE(files); i++) {
		const uint8_t *z = memchr(p, '\0', (size_t)(end - p));
		const uint8_t *e = z ? z : end;

		put(files[i], p, (size_t)(e - p));
		p = z ? z + 1 : end;
	}
	if (fw_tree_load(&t, root, &d) == 0) {
		struct fw_plan plan;

		/* As `fwdist debian metainfo` plans: uncompressed, no texts. */
		if (fw_plan_build(&plan, &t, &(struct fw_plan_opts){ .comp = FW_COMP_NONE,
								    .no_licences = true },
				  &d) == 0) {
			for (size_t k = 0; k < t.split.npkgs; k++) {
				struct fw_diag md = { 0 };
				char *buf = NULL;
				size_t len = 0;
				FILE *f = open_memstream(&buf, &len);
				int r;

				if (!f)
					abort();
				r = fw_debian_metainfo(f, &plan, (int)k, &md);
				if (fclose(f) != 0)
					abort();
				/* FUZZ_METAINFO_SHOW=1: each output, to see what an
				 * input reaches (a seed, a crash being reduced). */
				if (getenv("FUZZ_METAINFO_SHOW"))
					fprintf(stderr, "package %zu: %d, %zu findings\n%.*s", k, r, md.n,
						(int)len, buf);
				if (r == 0) {
					const char *why = xml_check(buf, len);

					if (why) {
						fprintf(stderr, "metainfo of package %zu: %s:\n%.*s\n", k,
							why, (int)len, buf);
						abort();
					}
				} else if (r == -EINVAL && !md.n) {
					abort(); /* a refusal names its finding */
				}
				free(buf);
				fw_diag_free(&md);
			}
			fw_plan_free(&plan);
		}
	}
	fw_tree_free(&t);
	fw_diag_free(&d);
	return 0;
}
