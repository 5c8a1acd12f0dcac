/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of policy.c: manifests/licenses parsing and SPDX expression evaluation. */
#include "policy.h"

#include <errno.h>
#include <stdlib.h>

#include "util.h"
#include "unit.h"

#define HDR "# fwdist licence policy 1\n"

static int parse(struct fw_policy *p, struct fw_diag *d, const char *text)
{
	memset(d, 0, sizeof(*d));
	return fw_policy_parse(p, "manifests/licenses", text, strlen(text), d);
}

#define CHECK_DIAG(d, i, ln, txt) CHECK_DIAG_IN(d, i, "manifests/licenses", ln, txt)

TEST(category_names)
{
	enum fw_category c = FW_CAT_UNKNOWN;

	CHECK_EQ_STR(fw_category_name(FW_CAT_FREE), "free");
	CHECK_EQ_STR(fw_category_name(FW_CAT_NONFREE), "non-free");
	CHECK_EQ_STR(fw_category_name(FW_CAT_UNDISTRIBUTABLE), "undistributable");
	CHECK_EQ_STR(fw_category_name(FW_CAT_UNKNOWN), "unknown");
	CHECK_EQ_STR(fw_category_name((enum fw_category)0), "unknown");
	CHECK_EQ_STR(fw_category_name((enum fw_category)99), "unknown");
	CHECK_EQ_INT(fw_category_parse("free", &c), 0);
	CHECK_EQ_INT(c, FW_CAT_FREE);
	CHECK_EQ_INT(fw_category_parse("non-free", &c), 0);
	CHECK_EQ_INT(c, FW_CAT_NONFREE);
	CHECK_EQ_INT(fw_category_parse("undistributable", &c), 0);
	CHECK_EQ_INT(c, FW_CAT_UNDISTRIBUTABLE);
	/* "unknown" is what evaluation says, never what the policy may say. */
	CHECK_EQ_INT(fw_category_parse("unknown", &c), -EINVAL);
	CHECK_EQ_INT(fw_category_parse("Free", &c), -EINVAL);
	CHECK_EQ_INT(fw_category_parse("nonfree", &c), -EINVAL);
	CHECK_EQ_INT(fw_category_parse("", &c), -EINVAL);
	CHECK_EQ_INT(c, FW_CAT_UNDISTRIBUTABLE);
}

TEST(parse_ok)
{
	static const char text[] =
		HDR
		"# comment\n"
		"\n"
		"GPL-2.0-only\tfree\tDFSG-free, source in the tree  \n"  /* 4 */
		"LicenseRef-foo   non-free   binary only\n"             /* 5 */
		"# another comment\n"
		"MIT free permissive\n";                                /* 7 */
	struct fw_policy p;
	struct fw_diag d;
	const struct fw_policy_entry *e;

	CHECK_EQ_INT(parse(&p, &d, text), 0);
	CHECK_EQ_INT(d.n, 0);
	CHECK_EQ_STR(p.path, "manifests/licenses");
	CHECK_EQ_INT(p.n, 3);
	CHECK_EQ_STR(p.v[0].id, "GPL-2.0-only");
	CHECK_EQ_INT(p.v[0].cat, FW_CAT_FREE);
	CHECK_EQ_STR(p.v[0].reason, "DFSG-free, source in the tree");
	CHECK_EQ_INT(p.v[0].line, 4);
	CHECK_EQ_STR(p.v[1].id, "LicenseRef-foo");
	CHECK_EQ_INT(p.v[1].cat, FW_CAT_NONFREE);
	CHECK_EQ_STR(p.v[1].reason, "binary only");
	CHECK_EQ_INT(p.v[1].line, 5);
	CHECK_EQ_STR(p.v[2].id, "MIT");
	CHECK_EQ_INT(p.v[2].line, 7);
	e = fw_policy_find(&p, "MIT");
	CHECK(e == &p.v[2]);
	e = fw_policy_find(&p, "LicenseRef-foo");
	CHECK(e == &p.v[1]);
	CHECK(fw_policy_find(&p, "mit") == NULL); /* ids are exact */
	CHECK(fw_policy_find(&p, "MIT0") == NULL);
	CHECK(fw_policy_find(&p, "") == NULL);
	fw_policy_free(&p);
	CHECK(p.v == NULL && p.n == 0 && p.path == NULL);
	fw_diag_free(&d);
}

TEST(empty_policy_finds_nothing)
{
	struct fw_policy p;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&p, &d, HDR), 0);
	CHECK_EQ_INT(d.n, 0);
	CHECK_EQ_INT(p.n, 0);
	CHECK(fw_policy_find(&p, "MIT") == NULL);
	fw_policy_free(&p);
	fw_diag_free(&d);
}

TEST(header_required)
{
	struct fw_policy p;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&p, &d, "MIT free permissive\nX11 free permissive\n"), 0);
	CHECK_EQ_INT(d.n, 1);
	CHECK_DIAG(&d, 0, 1, "missing header line '# fwdist licence policy 1'");
	/* A deleted header costs no data line: line 1 is read as one. */
	CHECK_EQ_INT(p.n, 2);
	CHECK_EQ_STR(p.v[0].id, "MIT");
	CHECK_EQ_INT(p.v[0].line, 1);
	fw_policy_free(&p);
	fw_diag_free(&d);

	CHECK_EQ_INT(parse(&p, &d, "# fwdist licence policy 1 \nMIT free permissive\n"), 0);
	CHECK_EQ_INT(d.n, 1);
	CHECK_DIAG(&d, 0, 1, "missing header line '# fwdist licence policy 1'");
	fw_policy_free(&p);
	fw_diag_free(&d);

	CHECK_EQ_INT(parse(&p, &d, "# fwdist licence policy 2\n"), 0);
	CHECK_DIAG(&d, 0, 1, "missing header line '# fwdist licence policy 1'");
	fw_policy_free(&p);
	fw_diag_free(&d);

	CHECK_EQ_INT(parse(&p, &d, ""), 0);
	CHECK_EQ_INT(d.n, 1);
	CHECK_DIAG(&d, 0, 0, "empty file (missing header line '# fwdist licence policy 1')");
	fw_policy_free(&p);
	fw_diag_free(&d);
}

TEST(sorted_and_unique)
{
	static const char text[] =
		HDR
		"MIT free a\n"            /* 2 */
		"GPL-2.0-only free b\n"   /* 3: out of order */
		"MIT free c\n"            /* 4: twice */
		"X11 free d\n"            /* 5 */
		"Zlib free e\n"           /* 6 */
		"Zlib non-free f\n"       /* 7: twice, whatever the category */
		"Zz free g\n"             /* 8 */
		"Zlib free h\n";          /* 9: out of order (not next to the first) */
	struct fw_policy p;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&p, &d, text), 0);
	CHECK_EQ_INT(d.n, 4);
	CHECK_DIAG(&d, 0, 3, "GPL-2.0-only: out of order (the file is kept sorted)");
	CHECK_DIAG(&d, 1, 4, "MIT: listed twice (first at line 2)");
	CHECK_DIAG(&d, 2, 7, "Zlib: listed twice (first at line 6)");
	CHECK_DIAG(&d, 3, 9, "Zlib: out of order (the file is kept sorted)");
	CHECK_EQ_INT(p.n, 4);
	CHECK_EQ_STR(p.v[0].id, "MIT");
	CHECK_EQ_STR(p.v[0].reason, "a");
	CHECK_EQ_STR(p.v[1].id, "X11");
	CHECK_EQ_STR(p.v[2].id, "Zlib");
	CHECK_EQ_INT(p.v[2].cat, FW_CAT_FREE);
	CHECK_EQ_STR(p.v[3].id, "Zz");
	fw_policy_free(&p);
	fw_diag_free(&d);
}

TEST(byte_order_sorting)
{
	/* Byte order, as LC_ALL=C sort: upper case before lower case, '-'
	 * before '.' before digits. */
	static const char text[] =
		HDR
		"A-1 free r\n"
		"A.1 free r\n"
		"A1 free r\n"
		"LicenseRef-Z free r\n"
		"LicenseRef-a free r\n"
		"a free r\n";
	struct fw_policy p;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&p, &d, text), 0);
	CHECK_EQ_INT(d.n, 0);
	CHECK_EQ_INT(p.n, 6);
	fw_policy_free(&p);
	fw_diag_free(&d);
}

TEST(unknown_category)
{
	static const char text[] =
		HDR
		"A free r\n"
		"B libre r\n"                 /* 3 */
		"C unknown r\n"               /* 4 */
		"D Free r\n"                  /* 5 */
		"E non-free-firmware r\n"     /* 6 */
		"F \x1b[31m r\n";             /* 7: escaped in the message */
	struct fw_policy p;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&p, &d, text), 0);
	CHECK_EQ_INT(d.n, 5);
	CHECK_DIAG(&d, 0, 3, "B: unknown category 'libre' (free, copyleft, non-free or undistributable)");
	CHECK_DIAG(&d, 1, 4, "C: unknown category 'unknown' (free, copyleft, non-free or undistributable)");
	CHECK_DIAG(&d, 2, 5, "D: unknown category 'Free' (free, copyleft, non-free or undistributable)");
	CHECK_DIAG(&d, 3, 6,
		   "E: unknown category 'non-free-firmware' (free, copyleft, non-free or undistributable)");
	CHECK_DIAG(&d, 4, 7,
		   "F: unknown category '\\x1b[31m' (free, copyleft, non-free or undistributable)");
	CHECK_EQ_INT(p.n, 1);
	fw_policy_free(&p);
	fw_diag_free(&d);
}

TEST(missing_reason_or_category)
{
	static const char text[] =
		HDR
		"A free\n"        /* 2 */
		"B free   \t \n"  /* 3: blanks are no reason */
		"C\n"             /* 4 */
		"D   \n"          /* 5 */
		"E free r\n";     /* 6 */
	struct fw_policy p;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&p, &d, text), 0);
	CHECK_EQ_INT(d.n, 4);
	CHECK_DIAG(&d, 0, 2, "A: expected 'ID CATEGORY REASON'");
	CHECK_DIAG(&d, 1, 3, "B: expected 'ID CATEGORY REASON'");
	CHECK_DIAG(&d, 2, 4, "C: expected 'ID CATEGORY REASON'");
	CHECK_DIAG(&d, 3, 5, "D: expected 'ID CATEGORY REASON'");
	CHECK_EQ_INT(p.n, 1);
	CHECK_EQ_STR(p.v[0].id, "E");
	fw_policy_free(&p);
	fw_diag_free(&d);
}

TEST(bad_id)
{
	static const char text[] =
		HDR
		"A/B free r\n"            /* 2 */
		"A_B free r\n"            /* 3 */
		"(MIT) free r\n"          /* 4 */
		"A\x01" "B free r\n"      /* 5: control character escaped */
		"caf\xc3\xa9 free r\n"    /* 6: bytes >= 0x80 escaped */
		" MIT free r\n"           /* 7: leading blank: the id is MIT */
		"\tX11 free r\n";         /* 8 */
	struct fw_policy p;
	struct fw_diag d;

	CHECK_EQ_INT(parse(&p, &d, text), 0);
	CHECK_EQ_INT(d.n, 5);
	CHECK_DIAG(&d, 0, 2, "'A/B': not an SPDX licence id");
	CHECK_DIAG(&d, 1, 3, "'A_B': not an SPDX licence id");
	CHECK_DIAG(&d, 2, 4, "'(MIT)': not an SPDX licence id");
	CHECK_DIAG(&d, 3, 5, "'A\\x01B': not an SPDX licence id");
	CHECK_DIAG(&d, 4, 6, "'caf\\xc3\\xa9': not an SPDX licence id");
	CHECK_EQ_INT(p.n, 2);
	CHECK_EQ_STR(p.v[0].id, "MIT");
	CHECK_EQ_STR(p.v[1].id, "X11");
	fw_policy_free(&p);
	fw_diag_free(&d);
}

TEST(overlong_line)
{
	size_t n = FW_LINE_MAX + 1;
	char *buf = malloc(strlen(HDR) + n + 32);
	struct fw_policy p;
	struct fw_diag d = { 0 };
	size_t len;

	CHECK(buf);
	strcpy(buf, HDR);
	len = strlen(buf);
	memcpy(buf + len, "MIT free ", 9);
	memset(buf + len + 9, 'r', n - 9);
	len += n;
	len += (size_t)sprintf(buf + len, "\nX11 free r\n");
	CHECK_EQ_INT(fw_policy_parse(&p, "manifests/licenses", buf, len, &d), 0);
	free(buf);
	CHECK_EQ_INT(d.n, 1);
	CHECK_DIAG(&d, 0, 2, "line too long (4097 bytes, limit 4096)");
	CHECK_EQ_INT(p.n, 1);
	CHECK_EQ_STR(p.v[0].id, "X11");
	fw_policy_free(&p);
	fw_diag_free(&d);
}

/* A NUL byte would cut the category or the reason short without a word:
 * "MIT free\0junk r" must not read as category free. */
TEST(nul_byte_refused)
{
	static const char text[] = HDR "MIT free\0junk reason\nX11 free r\0more\nZlib free r\n";
	struct fw_policy p;
	struct fw_diag d = { 0 };

	CHECK_EQ_INT(fw_policy_parse(&p, "manifests/licenses", text, sizeof(text) - 1, &d), 0);
	CHECK_EQ_INT(d.n, 2);
	CHECK_DIAG(&d, 0, 2, "NUL byte in line");
	CHECK_DIAG(&d, 1, 3, "NUL byte in line");
	CHECK_EQ_INT(p.n, 1);
	CHECK_EQ_STR(p.v[0].id, "Zlib");
	fw_policy_free(&p);
	fw_diag_free(&d);
}

/* ---- SPDX expressions ---- */

static const char policy_text[] =
	HDR
	"BSD-2-Clause free r\n"
	"GPL-2.0-only free r\n"
	"LicenseRef-nf non-free r\n"
	"LicenseRef-undist undistributable r\n"
	"Linux-syscall-note free r\n"
	"nf-exception non-free r\n";

struct ids {
	char buf[512];
	int fail_at; /* return -EIO for this id (1-based), 0 never */
	int n;
};

static int collect(void *ctx, const char *id, size_t len)
{
	struct ids *x = ctx;
	size_t used = strlen(x->buf);

	x->n++;
	if (x->fail_at && x->n == x->fail_at)
		return -EIO;
	snprintf(x->buf + used, sizeof(x->buf) - used, "%s%.*s", used ? "," : "", (int)len, id);
	return 0;
}

/* Evaluate expr; on success *cat, on failure the syntax message. */
static int eval(const struct fw_policy *p, const char *expr, enum fw_category *cat,
		const char **syntax)
{
	*cat = (enum fw_category)0;
	*syntax = "not set";
	return fw_spdx_eval(p, expr, cat, NULL, NULL, syntax);
}

#define CHECK_CAT(p, expr, want)                                              \
	do {                                                                  \
		enum fw_category c_;                                          \
		const char *syn_;                                             \
		int r_ = eval((p), (expr), &c_, &syn_);                       \
		if (r_ != 0)                                                  \
			fprintf(stderr, "'%s': %s\n", (expr), syn_ ? syn_ : "?"); \
		CHECK_EQ_INT(r_, 0);                                          \
		CHECK(syn_ == NULL);                                          \
		CHECK_EQ_INT(c_, (want));                                     \
	} while (0)

#define CHECK_SYNTAX(p, expr, msg)                                            \
	do {                                                                  \
		enum fw_category c_;                                          \
		const char *syn_;                                             \
		CHECK_EQ_INT(eval((p), (expr), &c_, &syn_), -EINVAL);         \
		CHECK_EQ_STR(syn_, (msg));                                    \
	} while (0)

static int load_policy(struct fw_policy *p)
{
	struct fw_diag d = { 0 };
	int r = fw_policy_parse(p, "manifests/licenses", policy_text, strlen(policy_text), &d);

	if (r == 0 && d.n != 0)
		r = -EINVAL;
	fw_diag_free(&d);
	return r;
}

TEST(spdx_single_ids)
{
	struct fw_policy p;

	CHECK_EQ_INT(load_policy(&p), 0);
	CHECK_CAT(&p, "GPL-2.0-only", FW_CAT_FREE);
	CHECK_CAT(&p, "LicenseRef-nf", FW_CAT_NONFREE);
	CHECK_CAT(&p, "LicenseRef-undist", FW_CAT_UNDISTRIBUTABLE);
	CHECK_CAT(&p, "Unknown-1.0", FW_CAT_UNKNOWN);
	CHECK_CAT(&p, "GPL-2.0+", FW_CAT_UNKNOWN);   /* not GPL-2.0-only */
	CHECK_CAT(&p, "gpl-2.0-only", FW_CAT_UNKNOWN); /* the policy's ids are exact */
	CHECK_CAT(&p, "  \tGPL-2.0-only \t ", FW_CAT_FREE);
	CHECK_CAT(&p, "(GPL-2.0-only)", FW_CAT_FREE);
	CHECK_CAT(&p, "( ( GPL-2.0-only ) )", FW_CAT_FREE);
	CHECK_CAT(NULL, "GPL-2.0-only", FW_CAT_UNKNOWN); /* no policy */
	fw_policy_free(&p);
}

TEST(spdx_and_takes_the_stricter)
{
	struct fw_policy p;

	CHECK_EQ_INT(load_policy(&p), 0);
	CHECK_CAT(&p, "GPL-2.0-only AND BSD-2-Clause", FW_CAT_FREE);
	CHECK_CAT(&p, "GPL-2.0-only AND LicenseRef-nf", FW_CAT_NONFREE);
	CHECK_CAT(&p, "LicenseRef-nf AND GPL-2.0-only", FW_CAT_NONFREE);
	CHECK_CAT(&p, "LicenseRef-nf AND LicenseRef-undist", FW_CAT_UNDISTRIBUTABLE);
	CHECK_CAT(&p, "GPL-2.0-only AND Nope", FW_CAT_UNKNOWN);
	CHECK_CAT(&p, "LicenseRef-undist AND Nope", FW_CAT_UNKNOWN);
	CHECK_CAT(&p, "BSD-2-Clause AND GPL-2.0-only AND LicenseRef-nf AND BSD-2-Clause",
		  FW_CAT_NONFREE);
	fw_policy_free(&p);
}

TEST(spdx_or_takes_the_more_permissive)
{
	struct fw_policy p;

	CHECK_EQ_INT(load_policy(&p), 0);
	CHECK_CAT(&p, "GPL-2.0-only OR LicenseRef-nf", FW_CAT_FREE);
	CHECK_CAT(&p, "LicenseRef-nf OR GPL-2.0-only", FW_CAT_FREE);
	CHECK_CAT(&p, "LicenseRef-undist OR LicenseRef-nf", FW_CAT_NONFREE);
	/* A choice of an unknown licence or a known one: take the known one. */
	CHECK_CAT(&p, "Nope OR LicenseRef-undist", FW_CAT_UNDISTRIBUTABLE);
	CHECK_CAT(&p, "Nope OR Other", FW_CAT_UNKNOWN);
	CHECK_CAT(&p, "LicenseRef-undist OR LicenseRef-undist OR LicenseRef-nf", FW_CAT_NONFREE);
	fw_policy_free(&p);
}

TEST(spdx_precedence_and_parentheses)
{
	struct fw_policy p;

	CHECK_EQ_INT(load_policy(&p), 0);
	/* AND binds tighter than OR. */
	CHECK_CAT(&p, "GPL-2.0-only OR BSD-2-Clause AND LicenseRef-nf", FW_CAT_FREE);
	CHECK_CAT(&p, "(GPL-2.0-only OR BSD-2-Clause) AND LicenseRef-nf", FW_CAT_NONFREE);
	CHECK_CAT(&p, "LicenseRef-nf AND BSD-2-Clause OR LicenseRef-undist", FW_CAT_NONFREE);
	CHECK_CAT(&p, "LicenseRef-nf AND (BSD-2-Clause OR LicenseRef-undist)", FW_CAT_NONFREE);
	CHECK_CAT(&p, "LicenseRef-undist AND (BSD-2-Clause OR LicenseRef-nf)",
		  FW_CAT_UNDISTRIBUTABLE);
	CHECK_CAT(&p, "(LicenseRef-undist OR LicenseRef-nf) AND (GPL-2.0-only OR Nope)",
		  FW_CAT_NONFREE);
	/* Parentheses need no blanks around them (SPDX: whitespace and/or
	 * parentheses on either side of AND/OR). */
	CHECK_CAT(&p, "(GPL-2.0-only)AND(LicenseRef-nf)", FW_CAT_NONFREE);
	CHECK_CAT(&p, "((GPL-2.0-only OR LicenseRef-undist))", FW_CAT_FREE);
	fw_policy_free(&p);
}

TEST(spdx_with)
{
	struct fw_policy p;

	CHECK_EQ_INT(load_policy(&p), 0);
	CHECK_CAT(&p, "GPL-2.0-only WITH Linux-syscall-note", FW_CAT_FREE);
	/* The exception is a licence text too: the stricter of the two. */
	CHECK_CAT(&p, "GPL-2.0-only WITH nf-exception", FW_CAT_NONFREE);
	CHECK_CAT(&p, "LicenseRef-nf WITH Linux-syscall-note", FW_CAT_NONFREE);
	CHECK_CAT(&p, "GPL-2.0-only WITH Unlisted-exception", FW_CAT_UNKNOWN);
	/* WITH binds tighter than AND and OR. */
	CHECK_CAT(&p, "LicenseRef-nf OR GPL-2.0-only WITH Linux-syscall-note", FW_CAT_FREE);
	CHECK_CAT(&p, "BSD-2-Clause AND GPL-2.0-only WITH nf-exception", FW_CAT_NONFREE);
	CHECK_CAT(&p, "(GPL-2.0-only WITH Linux-syscall-note)", FW_CAT_FREE);
	fw_policy_free(&p);
}

TEST(spdx_nesting_limit)
{
	struct fw_policy p;
	char expr[1024];
	size_t n;

	CHECK_EQ_INT(load_policy(&p), 0);
	/* 32 levels evaluate, 33 are refused. */
	n = 0;
	for (int i = 0; i < 32; i++)
		expr[n++] = '(';
	n += (size_t)sprintf(expr + n, "GPL-2.0-only");
	for (int i = 0; i < 32; i++)
		expr[n++] = ')';
	expr[n] = '\0';
	CHECK_CAT(&p, expr, FW_CAT_FREE);

	n = 0;
	for (int i = 0; i < 33; i++)
		expr[n++] = '(';
	n += (size_t)sprintf(expr + n, "GPL-2.0-only");
	for (int i = 0; i < 33; i++)
		expr[n++] = ')';
	expr[n] = '\0';
	CHECK_SYNTAX(&p, expr, "expression nested too deeply");

	/* Depth is nesting, not the number of groups: 40 groups side by side. */
	n = 0;
	for (int i = 0; i < 40; i++)
		n += (size_t)sprintf(expr + n, "%s(LicenseRef-nf)", i ? " OR " : "");
	CHECK_CAT(&p, expr, FW_CAT_NONFREE);

	/* A flood of '(' stops at the limit instead of exhausting the stack. */
	{
		char *deep = malloc(100001);

		CHECK(deep);
		memset(deep, '(', 100000);
		deep[100000] = '\0';
		{
			enum fw_category c;
			const char *syn;
			int r = eval(&p, deep, &c, &syn);

			free(deep);
			CHECK_EQ_INT(r, -EINVAL);
			CHECK_EQ_STR(syn, "expression nested too deeply");
		}
	}
	fw_policy_free(&p);
}

TEST(spdx_syntax_errors)
{
	struct fw_policy p;
	char longid[300];

	CHECK_EQ_INT(load_policy(&p), 0);
	CHECK_SYNTAX(&p, "GPL-2.0-only AND", "expression ends early");
	CHECK_SYNTAX(&p, "GPL-2.0-only OR ", "expression ends early");
	CHECK_SYNTAX(&p, "(GPL-2.0-only", "missing ')'");
	CHECK_SYNTAX(&p, "(GPL-2.0-only OR MIT", "missing ')'");
	CHECK_SYNTAX(&p, "GPL-2.0-only MIT", "trailing garbage in expression");
	CHECK_SYNTAX(&p, "GPL-2.0-only)", "trailing garbage in expression");
	CHECK_SYNTAX(&p, "AND", "expected a licence id");
	CHECK_SYNTAX(&p, "OR GPL-2.0-only", "expected a licence id");
	CHECK_SYNTAX(&p, "GPL-2.0-only AND AND MIT", "expected a licence id");
	CHECK_SYNTAX(&p, "WITH", "expected a licence id");
	CHECK_SYNTAX(&p, "()", "expected a licence id");
	CHECK_SYNTAX(&p, ")", "expected a licence id");
	CHECK_SYNTAX(&p, "", "expression ends early");
	CHECK_SYNTAX(&p, " \t ", "expression ends early");
	CHECK_SYNTAX(&p, "GPL-2.0-only WITH", "expected an exception id after WITH");
	CHECK_SYNTAX(&p, "GPL-2.0-only WITH (Linux-syscall-note)",
		     "expected an exception id after WITH");
	CHECK_SYNTAX(&p, "GPL-2.0-only WITH AND", "expected an exception id after WITH");
	/* WITH applies to a licence id, not to a group, and only once. */
	CHECK_SYNTAX(&p, "(GPL-2.0-only) WITH Linux-syscall-note",
		     "trailing garbage in expression");
	CHECK_SYNTAX(&p, "GPL-2.0-only WITH Linux-syscall-note WITH nf-exception",
		     "trailing garbage in expression");
	/* Characters no id may hold. */
	CHECK_SYNTAX(&p, "GPL-2.0-only, MIT", "trailing garbage in expression");
	CHECK_SYNTAX(&p, "GPL-2.0-only/MIT", "trailing garbage in expression");
	CHECK_SYNTAX(&p, "@", "expected a licence id");
	CHECK_SYNTAX(&p, "GPL-2.0-only\nMIT", "trailing garbage in expression");

	/* An id of 255 bytes is evaluated, 256 refused. */
	memset(longid, 'a', 255);
	longid[255] = '\0';
	CHECK_CAT(&p, longid, FW_CAT_UNKNOWN);
	memset(longid, 'a', 256);
	longid[256] = '\0';
	CHECK_SYNTAX(&p, longid, "licence id too long");
	fw_policy_free(&p);
}

/* Operators: SPDX 2.3 (Annex D.2) matches AND, OR and WITH case-sensitively,
 * upper case only. SPDX 3.0 also admits all-lower-case "and"/"or"/"with"
 * (never mixed case). We keep the 2.3 rule: upstream WHENCE only uses upper
 * case, and refusing an expression is the safe failure (the check reports
 * it) where a guess could put a blob in the wrong category. So "A and B" is
 * a syntax error, and a lone "and" is an id (unknown to the policy). */
TEST(spdx_operators_are_upper_case)
{
	struct fw_policy p;

	CHECK_EQ_INT(load_policy(&p), 0);
	CHECK_SYNTAX(&p, "GPL-2.0-only and LicenseRef-nf", "trailing garbage in expression");
	CHECK_SYNTAX(&p, "GPL-2.0-only or LicenseRef-nf", "trailing garbage in expression");
	CHECK_SYNTAX(&p, "GPL-2.0-only with Linux-syscall-note", "trailing garbage in expression");
	CHECK_SYNTAX(&p, "GPL-2.0-only And LicenseRef-nf", "trailing garbage in expression");
	CHECK_SYNTAX(&p, "GPL-2.0-only oR LicenseRef-nf", "trailing garbage in expression");
	CHECK_CAT(&p, "and", FW_CAT_UNKNOWN);
	CHECK_CAT(&p, "or", FW_CAT_UNKNOWN);
	/* An id that merely starts with an operator is an id. */
	CHECK_CAT(&p, "ANDX OR ORACLE", FW_CAT_UNKNOWN);
	fw_policy_free(&p);
}

TEST(spdx_each_id)
{
	struct fw_policy p;
	struct ids x;
	enum fw_category c;
	const char *syn;

	CHECK_EQ_INT(load_policy(&p), 0);
	memset(&x, 0, sizeof(x));
	CHECK_EQ_INT(fw_spdx_eval(&p, "(GPL-2.0-only WITH Linux-syscall-note) OR (MIT AND X11+)",
				  &c, collect, &x, &syn), 0);
	CHECK(syn == NULL);
	CHECK_EQ_STR(x.buf, "GPL-2.0-only,Linux-syscall-note,MIT,X11+");
	CHECK_EQ_INT(c, FW_CAT_FREE);

	/* A callback's error stops the walk and is returned as is. */
	memset(&x, 0, sizeof(x));
	x.fail_at = 2;
	syn = "not set";
	CHECK_EQ_INT(fw_spdx_eval(&p, "GPL-2.0-only AND MIT AND X11", &c, collect, &x, &syn), -EIO);
	CHECK(syn == NULL);
	CHECK_EQ_INT(x.n, 2);
	CHECK_EQ_STR(x.buf, "GPL-2.0-only");

	/* Ids before a syntax error have been seen; the error is still reported. */
	memset(&x, 0, sizeof(x));
	CHECK_EQ_INT(fw_spdx_eval(&p, "MIT AND", &c, collect, &x, &syn), -EINVAL);
	CHECK_EQ_STR(syn, "expression ends early");
	CHECK_EQ_STR(x.buf, "MIT");
	fw_policy_free(&p);
}

TEST(copyleft_category_shipped)
{
	static const char text[] = HDR
		"GPL-2.0-only copyleft needs its source\n"
		"LicenseRef-nf non-free binary only\n"
		"MIT free permissive\n";
	struct fw_policy p;
	struct fw_diag d = { 0 };
	enum fw_category c;
	const char *syn;

	CHECK_EQ_INT(fw_policy_parse(&p, "licenses", text, sizeof(text) - 1, &d), 0);
	CHECK_EQ_INT(d.n, 0);
	CHECK_EQ_STR(fw_category_name(FW_CAT_COPYLEFT), "copyleft");
	/* As the policy says it. */
	CHECK_EQ_INT(fw_spdx_eval(&p, "GPL-2.0-only", &c, NULL, NULL, &syn), 0);
	CHECK_EQ_INT(c, FW_CAT_COPYLEFT);
	/* As shipped: with its source free, without it undistributable. */
	CHECK_EQ_INT(fw_spdx_eval_shipped(&p, "GPL-2.0-only", true, &c, &syn, NULL), 0);
	CHECK_EQ_INT(c, FW_CAT_FREE);
	CHECK_EQ_INT(fw_spdx_eval_shipped(&p, "GPL-2.0-only", false, &c, &syn, NULL), 0);
	CHECK_EQ_INT(c, FW_CAT_UNDISTRIBUTABLE);
	/* A permissive licence without source is binary only. */
	CHECK_EQ_INT(fw_spdx_eval_shipped(&p, "MIT", false, &c, &syn, NULL), 0);
	CHECK_EQ_INT(c, FW_CAT_NONFREE);
	/* A choice: the non-free alternative ships when the source is absent. */
	CHECK_EQ_INT(fw_spdx_eval_shipped(&p, "GPL-2.0-only OR LicenseRef-nf", false, &c, &syn, NULL), 0);
	CHECK_EQ_INT(c, FW_CAT_NONFREE);
	/* The branch it ships under is said: the first of the best. */
	{
		char *br;

		CHECK_EQ_INT(fw_spdx_eval_shipped(&p, "GPL-2.0-only OR LicenseRef-nf", false, &c, &syn,
						  &br), 0);
		CHECK_EQ_STR(br, "LicenseRef-nf");
		free(br);
		CHECK_EQ_INT(fw_spdx_eval_shipped(&p, "GPL-2.0-only OR LicenseRef-nf", true, &c, &syn,
						  &br), 0);
		CHECK_EQ_INT(c, FW_CAT_FREE);
		CHECK_EQ_STR(br, "GPL-2.0-only");
		free(br);
		CHECK_EQ_INT(fw_spdx_eval_shipped(&p, "(MIT AND LicenseRef-nf) OR GPL-2.0-only", false,
						  &c, &syn, &br), 0);
		CHECK_EQ_INT(c, FW_CAT_NONFREE);
		CHECK_EQ_STR(br, "(MIT AND LicenseRef-nf)");
		free(br);
		/* No OR, no branch. */
		CHECK_EQ_INT(fw_spdx_eval_shipped(&p, "MIT AND (LicenseRef-nf OR MIT)", false, &c, &syn,
						  &br), 0);
		CHECK(br == NULL);
	}
	CHECK_EQ_INT(fw_spdx_eval_shipped(&p, "GPL-2.0-only AND MIT", true, &c, &syn, NULL), 0);
	CHECK_EQ_INT(c, FW_CAT_FREE);
	CHECK_EQ_INT(fw_spdx_eval_shipped(&p, "GPL-2.0-only AND", true, &c, &syn, NULL), -EINVAL);
	CHECK_EQ_STR(syn, "expression ends early");
	fw_policy_free(&p);
	fw_diag_free(&d);
}
