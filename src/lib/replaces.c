/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifests/replaces: which Debian packages each package of the split takes files over from, per suite. */
#include "replaces.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "debian.h"
#include "lines.h"
#include "util.h"

static const char *const suites[] = { "bookworm", "trixie", "forky" };

bool fw_suite_known(const char *suite)
{
	for (size_t i = 0; i < FW_ARRAY_SIZE(suites); i++)
		if (strcmp(suites[i], suite) == 0)
			return true;
	return false;
}

void fw_replaces_free(struct fw_replaces *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].suite);
		free(r->v[i].debian);
	}
	free(r->v);
	*r = (struct fw_replaces){ 0 };
}

/* Whether two suites of lines (or a line's and a suite built for) overlap:
 * '*' meets every suite. */
static bool suites_meet(const char *a, const char *b)
{
	return strcmp(a, "*") == 0 || strcmp(b, "*") == 0 || strcmp(a, b) == 0;
}

/* Index of a suite in the table: 0 is '*', 1.. are suites[]. */
static unsigned suite_slot(const char *suite)
{
	for (size_t i = 0; i < FW_ARRAY_SIZE(suites); i++)
		if (strcmp(suites[i], suite) == 0)
			return (unsigned)i + 1;
	return 0;
}

#define NONE SIZE_MAX
#define ANY_PKG UINT_MAX

/* The packages a takes: or provides: may name are Debian's firmware
 * packages: a word is a promise about a package of Debian's archive, and
 * anything else gives apt a Conflicts or Replaces against a package that
 * has nothing to do with firmware (provides:libc6 would remove the C
 * library). Debian names them firmware-*, but for these, which ship
 * under /lib/firmware too. */
static const char *const other_firmware[] = {
	"amd64-microcode", "atmel-firmware", "bluez-firmware", "dahdi-firmware-nonfree",
	"intel-microcode",
};

/* fwdist's own packages, which Debian does not have: the tools package,
 * the metapackage that depends on every non-free package, and the two
 * packages of the split an import writes. A takes: or provides: of one
 * would have a firmware package replace or conflict with fwdist's own
 * archive (provides:fwdist conflicts with the tools). */
static const char *const own_packages[] = {
	"fwdist", FW_DEBIAN_META, "firmware-free", "firmware-nonfree",
};

static bool in_list(const char *const *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

/* What the parse knows of a name: one open-addressed table holds a node per
 * Debian name words (and the split's packages) give, and a node per name
 * and package of the split that names it, so that every word is checked
 * against the ones before it in constant time: a file of many words was
 * quadratic, one of a long chain of takes: about the fourth power. */
struct key {
	char *name;    /* NULL: an empty slot */
	unsigned pkg;  /* ANY_PKG: the name's own node; else (name, package) */
	int split;     /* name node: the package of the split of this name, or -1 */
	size_t first[FW_ARRAY_SIZE(suites) + 1]; /* name node: earliest word per suite slot */
	size_t prov;   /* name node: latest provides: word (then aux.next_prov) */
	size_t same;   /* (name, package) node: latest word (then aux.next_same) */
};

/* Per word of r, beside it. */
struct aux {
	int split;        /* the package of the split the word names, or -1 */
	size_t next_same; /* the word before it of the same package and name */
	size_t next_prov; /* the provides: word before it of the same name */
};

struct ctx {
	struct key *t;
	size_t tcap, tn;
	struct aux *aux;
	size_t auxcap;
};

static size_t hash(const char *name, unsigned pkg)
{
	uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 0x100000001b3u;
	h = (h ^ pkg) * 0x100000001b3u;
	return (size_t)(h ^ (h >> 29));
}

static struct key *slot_for(struct key *t, size_t cap, const char *name, unsigned pkg)
{
	size_t i = hash(name, pkg) & (cap - 1);

	while (t[i].name && (t[i].pkg != pkg || strcmp(t[i].name, name) != 0))
		i = (i + 1) & (cap - 1);
	return &t[i];
}

/* Room for two more nodes, the table at most half full. 0 or -ENOMEM. */
static int reserve(struct ctx *c)
{
	size_t cap = c->tcap ? c->tcap : 64;
	struct key *t;

	while ((c->tn + 2) * 2 > cap) {
		if (cap > SIZE_MAX / 2 / sizeof(*t))
			return -ENOMEM;
		cap *= 2;
	}
	if (cap == c->tcap)
		return 0;
	t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < c->tcap; i++)
		if (c->t[i].name)
			*slot_for(t, cap, c->t[i].name, c->t[i].pkg) = c->t[i];
	free(c->t);
	c->t = t;
	c->tcap = cap;
	return 0;
}

/* The node of (name, pkg), made when it is not there (room reserved). NULL
 * on -ENOMEM. */
static struct key *node(struct ctx *c, const char *name, unsigned pkg)
{
	struct key *k = slot_for(c->t, c->tcap, name, pkg);

	if (k->name)
		return k;
	k->name = strdup(name);
	if (!k->name)
		return NULL;
	k->pkg = pkg;
	k->split = -1;
	for (size_t i = 0; i < FW_ARRAY_SIZE(k->first); i++)
		k->first[i] = NONE;
	k->prov = k->same = NONE;
	c->tn++;
	return k;
}

static void ctx_free(struct ctx *c)
{
	for (size_t i = 0; i < c->tcap; i++)
		free(c->t[i].name);
	free(c->t);
	free(c->aux);
	*c = (struct ctx){ 0 };
}

/* The problem with adding word e (not yet in r, its name node n and its
 * (name, package) node pn) on its line, into msg, or false when there is
 * none. */
static bool word_problem(const struct fw_replaces *r, const struct ctx *c,
			 const struct fw_split *s, const struct fw_replace *e, const struct key *n,
			 const struct key *pn, char *msg, size_t len)
{
	int q = n->split;
	unsigned slot = suite_slot(e->suite);
	size_t o = NONE;

	if (strcmp(e->debian, s->pkgs[e->pkg].name) == 0)
		return snprintf(msg, len, "the package itself") > 0;
	if (e->provides && q >= 0)
		return snprintf(msg, len, "a package of the split: provides: would make it conflict "
					  "with it") > 0;
	if (in_list(own_packages, FW_ARRAY_SIZE(own_packages), e->debian))
		return snprintf(msg, len, "a package of fwdist's own, not of Debian's: "
					  "it would %s it", e->provides ? "conflict with" : "replace") > 0;
	if (strncmp(e->debian, "firmware-", 9) != 0 &&
	    !in_list(other_firmware, FW_ARRAY_SIZE(other_firmware), e->debian))
		return snprintf(msg, len, "not a Debian firmware package (firmware-*, or one that "
					  "fwdist(1) lists)") > 0;
	/* Security of the archive's components: the package taken from
	 * pre-depends on the one taking, and a package in main depends on
	 * main alone (Debian policy 2.2.1); a user of main only would be
	 * made to install non-free firmware. */
	if (!e->provides && q >= 0 && strcmp(s->pkgs[q].section, "main") == 0 &&
	    strcmp(s->pkgs[e->pkg].section, "main") != 0)
		return snprintf(msg, len, "%s is in main and would pre-depend on %s, in %s "
					  "(a package in main depends on main alone)", e->debian,
				s->pkgs[e->pkg].name, s->pkgs[e->pkg].section) > 0;
	/* The first word before this one of the same name, in a suite this
	 * one's meets, that it clashes with: with a provides:, any; with a
	 * takes:, one of the same package or a provides:. Each chain holds
	 * at most three words (one per suite: more would meet and clash). */
	if (e->provides) {
		for (size_t i = 0; i < FW_ARRAY_SIZE(n->first); i++)
			if ((slot == 0 || i == 0 || i == slot) && n->first[i] < o)
				o = n->first[i];
	} else {
		for (size_t i = pn->same; i != NONE; i = c->aux[i].next_same)
			if (suites_meet(r->v[i].suite, e->suite) && i < o)
				o = i;
		for (size_t i = n->prov; i != NONE; i = c->aux[i].next_prov)
			if (suites_meet(r->v[i].suite, e->suite) && i < o)
				o = i;
	}
	if (o != NONE) {
		const struct fw_replace *w = &r->v[o];

		if (w->pkg == e->pkg && w->line == e->line)
			return snprintf(msg, len, "named twice on the line") > 0;
		if (w->pkg == e->pkg)
			return snprintf(msg, len, "already named for this package and suite on line %u",
					w->line) > 0;
		return snprintf(msg, len, "also named by %s on line %u, with a provides: "
				"(the two packages would conflict)", s->pkgs[w->pkg].name, w->line) > 0;
	}
	return false;
}

/* Word i of r enters the tables, or leaves them (the last one that
 * entered: a line with a problem is taken back, last word first). */
static void enter(struct ctx *c, const struct fw_replaces *r, size_t i, struct key *n,
		  struct key *pn)
{
	unsigned slot = suite_slot(r->v[i].suite);

	c->aux[i].split = n->split;
	c->aux[i].next_same = pn->same;
	pn->same = i;
	c->aux[i].next_prov = NONE;
	if (r->v[i].provides) {
		c->aux[i].next_prov = n->prov;
		n->prov = i;
	}
	if (n->first[slot] == NONE)
		n->first[slot] = i;
}

static void leave(struct ctx *c, const struct fw_replaces *r, size_t i)
{
	const struct fw_replace *e = &r->v[i];
	struct key *n = slot_for(c->t, c->tcap, e->debian, ANY_PKG);
	struct key *pn = slot_for(c->t, c->tcap, e->debian, e->pkg);
	unsigned slot = suite_slot(e->suite);

	pn->same = c->aux[i].next_same;
	if (e->provides)
		n->prov = c->aux[i].next_prov;
	if (n->first[slot] == i)
		n->first[slot] = NONE;
}

/* The Pre-Depends graph of a suite (Q -> P: Q, a package of the split that
 * P takes:, pre-depends on P), from the first `words` words of r, and a
 * depth-first search with colours: whether it has a cycle. Linear in the
 * packages and words. */
struct graph {
	size_t *start, *adj, *stack, *pos;
	unsigned char *colour;
};

static bool cyclic(const struct fw_replaces *r, const struct ctx *c, size_t npkgs, size_t words,
		   const char *suite, struct graph *g)
{
	size_t sp, x, y;

	memset(g->start, 0, (npkgs + 1) * sizeof(*g->start));
	for (size_t i = 0; i < words; i++)
		if (!r->v[i].provides && c->aux[i].split >= 0 && suites_meet(r->v[i].suite, suite))
			g->start[c->aux[i].split + 1]++;
	for (size_t u = 0; u < npkgs; u++)
		g->start[u + 1] += g->start[u];
	memcpy(g->pos, g->start, npkgs * sizeof(*g->pos));
	for (size_t i = 0; i < words; i++)
		if (!r->v[i].provides && c->aux[i].split >= 0 && suites_meet(r->v[i].suite, suite))
			g->adj[g->pos[c->aux[i].split]++] = r->v[i].pkg;
	memset(g->colour, 0, npkgs);
	for (size_t u = 0; u < npkgs; u++) {
		if (g->colour[u])
			continue;
		g->colour[u] = 1; /* on the path */
		g->pos[u] = g->start[u];
		g->stack[0] = u;
		sp = 1;
		while (sp) {
			x = g->stack[sp - 1];
			if (g->pos[x] == g->start[x + 1]) {
				g->colour[x] = 2; /* done: no cycle through it */
				sp--;
				continue;
			}
			y = g->adj[g->pos[x]++];
			if (g->colour[y] == 1)
				return true;
			if (g->colour[y] == 0) {
				g->colour[y] = 1;
				g->pos[y] = g->start[y];
				g->stack[sp++] = y;
			}
		}
	}
	return false;
}

/* Whether the first `words` words have a cycle in some suite; the first
 * such suite in *suite. */
static bool cyclic_any(const struct fw_replaces *r, const struct ctx *c, size_t npkgs,
		       size_t words, struct graph *g, const char **suite)
{
	for (size_t k = 0; k < FW_ARRAY_SIZE(suites); k++)
		if (cyclic(r, c, npkgs, words, suites[k], g)) {
			*suite = suites[k];
			return true;
		}
	return false;
}

/* A line that closes a cycle of takes: (found by an earlier pass), and
 * its finding. */
struct cycle_line {
	unsigned line;
	char *msg;
};

/* The first word of r that closes a cycle of takes: with the words before
 * it, into *at, and the suite; false when there is none. Each pass is
 * linear, so a file with no cycle (every file that passes) costs one; one
 * with a cycle a binary search on how many first words have one. 0, 1 or
 * -ENOMEM. */
static int first_cycle(const struct fw_replaces *r, const struct ctx *c, size_t npkgs,
		       size_t *at, const char **suite)
{
	struct graph g = { 0 };
	size_t lo = 1, hi = r->n;
	int ret = -ENOMEM;

	if (!r->n)
		return 0;
	g.start = calloc(npkgs + 1, sizeof(*g.start));
	g.adj = calloc(r->n, sizeof(*g.adj));
	g.stack = calloc(npkgs + 1, sizeof(*g.stack));
	g.pos = calloc(npkgs + 1, sizeof(*g.pos));
	g.colour = calloc(npkgs + 1, 1);
	if (!g.start || !g.adj || !g.stack || !g.pos || !g.colour)
		goto out;
	ret = 0;
	if (!cyclic_any(r, c, npkgs, r->n, &g, suite))
		goto out;
	/* The fewest first words with a cycle: hi. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cyclic_any(r, c, npkgs, mid, &g, suite))
			hi = mid;
		else
			lo = mid + 1;
	}
	cyclic_any(r, c, npkgs, hi, &g, suite);
	*at = hi - 1;
	ret = 1;
out:
	free(g.start);
	free(g.adj);
	free(g.stack);
	free(g.pos);
	free(g.colour);
	return ret;
}

/* One reading of the file into r, the lines of cyc (in line order) left
 * out with their findings. 0 or -ENOMEM (r then holds nothing). */
static int parse_pass(struct fw_replaces *r, struct ctx *c, const struct fw_split *s,
		      const char *path, const char *buf, size_t len, struct fw_diag *d,
		      const struct cycle_line *cyc, size_t ncyc)
{
	struct fw_lines it;
	const char *ls, *le;
	size_t nextcyc = 0;

	*r = (struct fw_replaces){ 0 };
	/* The split's packages, found by name in constant time. */
	for (size_t i = 0; i < s->npkgs; i++) {
		struct key *k;

		if (reserve(c) < 0 || !(k = node(c, s->pkgs[i].name, ANY_PKG)))
			return -ENOMEM;
		if (k->split < 0)
			k->split = (int)i;
	}
	fw_lines_init(&it, buf, len);
	while (fw_lines_next(&it, &ls, &le)) {
		const char *q = ls, *pkg, *suite, *w;
		size_t pkglen, suitelen, wlen, first = r->n;
		char *pname, *sname = NULL;
		bool bad = false;
		int pi = -1;

		/* A line an earlier pass found closing a cycle counts for
		 * nothing (it had no other finding). */
		if (nextcyc < ncyc && cyc[nextcyc].line == it.line) {
			fw_diag_add(d, path, it.line, "%s", cyc[nextcyc++].msg);
			continue;
		}
		if (!fw_line_start(d, path, it.line, ls, le, FW_REPLACES_HEADER, FW_LINE_MAX))
			continue;
		if (ls == le || *ls == '#')
			continue;
		pkg = fw_field(&q, le, &pkglen);
		suite = fw_field(&q, le, &suitelen);
		pname = fw_strndup(pkg, pkglen);
		if (!pname)
			goto nomem;
		if (c->tcap) {
			const struct key *k = slot_for(c->t, c->tcap, pname, ANY_PKG);

			pi = k->name ? k->split : -1;
		}
		if (!fw_valid_package(pkg, pkglen)) {
			fw_diag_add(d, path, it.line, "'%s': not a valid Debian package name", pname);
			bad = true;
		} else if (pi < 0) {
			fw_diag_add(d, path, it.line, "%s: not a package of %s", pname, s->path);
			bad = true;
		}
		if (!bad) {
			sname = fw_strndup(suite, suitelen);
			if (!sname)
				goto nomem;
			if (strcmp(sname, "*") != 0 && !fw_suite_known(sname)) {
				fw_diag_add(d, path, it.line,
					    "%s: suite '%s' is not bookworm, trixie, forky or *", pname,
					    sname);
				bad = true;
			} else if (q == le) {
				fw_diag_add(d, path, it.line, "%s: no takes:PACKAGE or provides:PACKAGE",
					    pname);
				bad = true;
			}
		}
		while (!bad && (w = fw_field(&q, le, &wlen), wlen)) {
			struct fw_replace e = { .pkg = (unsigned)pi, .line = it.line };
			struct key *n, *pn;
			char msg[256];

			if (wlen > 6 && memcmp(w, "takes:", 6) == 0) {
				w += 6, wlen -= 6;
			} else if (wlen > 9 && memcmp(w, "provides:", 9) == 0) {
				e.provides = true;
				w += 9, wlen -= 9;
			} else {
				fw_diag_add(d, path, it.line, "'%.*s': neither takes:PACKAGE nor provides:PACKAGE",
					    (int)wlen, w);
				bad = true;
				break;
			}
			if (!fw_valid_package(w, wlen)) {
				fw_diag_add(d, path, it.line, "'%.*s': not a valid Debian package name",
					    (int)wlen, w);
				bad = true;
				break;
			}
			e.suite = strdup(sname);
			e.debian = fw_strndup(w, wlen);
			if (!e.suite || !e.debian || fw_grow(&r->v, &r->cap, r->n, sizeof(*r->v)) < 0 ||
			    fw_grow(&c->aux, &c->auxcap, r->n, sizeof(*c->aux)) < 0 || reserve(c) < 0 ||
			    !(n = node(c, e.debian, ANY_PKG)) || !(pn = node(c, e.debian, e.pkg))) {
				free(e.suite);
				free(e.debian);
				goto nomem;
			}
			if (word_problem(r, c, s, &e, n, pn, msg, sizeof(msg))) {
				fw_diag_add(d, path, it.line, "%s %s:%s: %s", pname,
					    e.provides ? "provides" : "takes", e.debian, msg);
				free(e.suite);
				free(e.debian);
				bad = true;
				break;
			}
			r->v[r->n] = e;
			enter(c, r, r->n, n, pn);
			r->n++;
		}
		/* A line with a problem adds nothing. */
		if (bad) {
			while (r->n > first) {
				r->n--;
				leave(c, r, r->n);
				free(r->v[r->n].suite);
				free(r->v[r->n].debian);
			}
		}
		free(pname);
		free(sname);
		continue;
nomem:
		free(pname);
		free(sname);
		fw_replaces_free(r);
		return -ENOMEM;
	}
	return 0;
}

/* The findings d got from `before` on are taken back (a pass is redone). */
static void diag_truncate(struct fw_diag *d, size_t before)
{
	if (!d)
		return;
	while (d->n > before) {
		d->n--;
		free(d->v[d->n].file);
		free(d->v[d->n].text);
	}
}

/* The most lines closing a cycle reported one by one (see below). */
#define CYCLES_MAX 100

int fw_replaces_parse(struct fw_replaces *r, const struct fw_split *s, const char *path,
		      const char *buf, size_t len, struct fw_diag *d)
{
	struct cycle_line *cyc = NULL;
	size_t ncyc = 0, cyccap = 0, before = d ? d->n : 0, at;
	struct ctx c = { 0 };
	const char *suite;
	int ret;

	/* A takes: between two packages of the split is a Pre-Depends of
	 * the one taken from on the one taking: no cycle may form, it could
	 * not be unpacked. The file reads as if each word were checked
	 * against those before it as it comes: the first word that closes a
	 * cycle is reported and its line counts for nothing, as if it were
	 * not there, so the file is read again without it (a later line may
	 * now pass, or close another cycle); the next pass reports the next.
	 * One pass for a file with no cycle, one more per line that closes
	 * one (each of them a finding). */
	for (;;) {
		const struct fw_replace *e;
		char *msg;

		ret = parse_pass(r, &c, s, path, buf, len, d, cyc, ncyc);
		if (ret == 0)
			ret = first_cycle(r, &c, s->npkgs, &at, &suite);
		if (ret <= 0)
			break;
		e = &r->v[at];
		if (ncyc == CYCLES_MAX) {
			/* Each line that closes a cycle costs a pass over the
			 * file, so a file of nothing else would cost n^2: past
			 * CYCLES_MAX the rest is not read for cycles, and that
			 * is a finding of its own (the file is refused). */
			fw_diag_add(d, path, e->line,
				    "%s takes:%s: closes a cycle of takes: in %s, after %d lines "
				    "that did: the rest of the file is not checked for cycles",
				    s->pkgs[e->pkg].name, e->debian, suite, CYCLES_MAX);
			ret = 0;
			break;
		}
		msg = fw_asprintf("%s takes:%s: closes a cycle of takes: in %s (each package "
				  "pre-depends on the one that takes its names; a cycle cannot be "
				  "unpacked)", s->pkgs[e->pkg].name, e->debian, suite);
		if (!msg || fw_grow(&cyc, &cyccap, ncyc, sizeof(*cyc)) < 0) {
			free(msg);
			ret = -ENOMEM;
			break;
		}
		/* Lines come in order: the lines before this one read alike
		 * in every pass, without a cycle. */
		cyc[ncyc++] = (struct cycle_line){ .line = e->line, .msg = msg };
		fw_replaces_free(r);
		ctx_free(&c);
		diag_truncate(d, before);
	}
	ctx_free(&c);
	for (size_t i = 0; i < ncyc; i++)
		free(cyc[i].msg);
	free(cyc);
	if (ret < 0) {
		fw_replaces_free(r);
		return ret;
	}
	return 0;
}

int fw_replaces_load(struct fw_replaces *r, const struct fw_split *s, int rootfd,
		     struct fw_diag *d)
{
	char *buf = NULL;
	size_t len, before = d->n;
	int e = fw_read_text(rootfd, FW_TREE_REPLACES, &buf, &len);

	*r = (struct fw_replaces){ 0 };
	if (e == -ENOENT)
		return 0;
	if (e < 0) {
		if (e != -ENOMEM)
			fw_diag_add(d, FW_TREE_REPLACES, 0, "cannot read: %s", strerror(-e));
		return e == -ENOMEM ? e : -EINVAL;
	}
	e = fw_replaces_parse(r, s, FW_TREE_REPLACES, buf, len, d);
	free(buf);
	if (e == 0 && d->n > before)
		e = -EINVAL;
	/* On an error, nothing is held: the caller has nothing to free. */
	if (e < 0)
		fw_replaces_free(r);
	return e;
}

/* One variable: "NAME=" then the items, ", " between them. */
static void var(FILE *f, const char *name, const struct fw_replaces *r, const struct fw_split *s,
		unsigned pkg, const char *suite, const char *version, int which)
{
	const char *sep = "";

	fprintf(f, "fwdist:%s=", name);
	for (size_t i = 0; i < r->n; i++) {
		const struct fw_replace *e = &r->v[i];

		if (!suites_meet(e->suite, suite))
			continue;
		switch (which) {
		case 0: /* Replaces */
			if (e->pkg != pkg)
				continue;
			if (e->provides)
				fprintf(f, "%s%s", sep, e->debian);
			else
				fprintf(f, "%s%s (<< %s)", sep, e->debian, version);
			break;
		case 1: /* Provides */
			if (e->pkg != pkg || !e->provides)
				continue;
			fprintf(f, "%s%s (= %s)", sep, e->debian, version);
			break;
		case 2: /* Conflicts */
			if (e->pkg != pkg || !e->provides)
				continue;
			fprintf(f, "%s%s", sep, e->debian);
			break;
		default: /* Pre-Depends: who takes this package's names */
			if (e->provides || strcmp(e->debian, s->pkgs[pkg].name) != 0)
				continue;
			fprintf(f, "%s%s (= %s)", sep, s->pkgs[e->pkg].name, version);
			break;
		}
		sep = ", ";
	}
	fputc('\n', f);
}

void fw_replaces_substvars(FILE *f, const struct fw_replaces *r, const struct fw_split *s,
			   unsigned pkg, const char *suite, const char *version)
{
	var(f, "Replaces", r, s, pkg, suite, version, 0);
	var(f, "Provides", r, s, pkg, suite, version, 1);
	var(f, "Conflicts", r, s, pkg, suite, version, 2);
	var(f, "Pre-Depends", r, s, pkg, suite, version, 3);
}
