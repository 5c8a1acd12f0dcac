/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Signed pins: digests of what decides what a tree ships, a release serial, and a detached CMS signature over them (OpenSSL). */
#include "sign.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include "digest.h"
#include "fsutil.h"
#include "util.h"

void fw_pins_free(struct fw_pins *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i].path);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

static int cmp_pin(const void *a, const void *b)
{
	return strcmp(((const struct fw_pin *)a)->path, ((const struct fw_pin *)b)->path);
}

/* A name sha256sum's format carries as it is: no newline, no backslash
 * (sha256sum escapes those), no carriage return (a CRLF reader would eat
 * it). Paths come from the tree's own directories, so nothing else. */
static bool pin_name_ok(const char *path)
{
	return !strpbrk(path, "\n\r\\");
}

/* Take ownership of path and add it with the digest of the regular file
 * leaf of dfd (no symlink followed), or a finding naming it. A file the
 * model of t was built from is pinned with the digest of the bytes the
 * model read, and not read again: a second read may see other bytes (a
 * writer of the tree swapping the file between the two), and the pins must
 * vouch for exactly what the model holds, or refuse. */
static int pin_add(const struct fw_tree *t, struct fw_pins *p, int dfd, const char *leaf,
		   char *path, struct fw_diag *d)
{
	const struct fw_tree_read *rd = fw_tree_read_find(t, path);
	struct stat st;
	uint64_t size;
	int fd, r;

	if (!pin_name_ok(path)) {
		fw_diag_add(d, fw_esc(path), 0, "cannot be pinned: a newline or backslash in its name");
		free(path);
		return 0;
	}
	if (rd && rd->changed) {
		fw_diag_add(d, fw_esc(path), 0, "cannot be pinned: it changed while fwdist read it");
		free(path);
		return 0;
	}
	if (rd && !rd->presence) {
		if (fw_grow(&p->v, &p->cap, p->n, sizeof(*p->v)) < 0) {
			free(path);
			return -ENOMEM;
		}
		memcpy(p->v[p->n].sha256, rd->sha256, FW_SHA256_LEN);
		p->v[p->n++].path = path;
		return 0;
	}
	fd = openat(dfd, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	r = fd < 0 ? -errno : fstat(fd, &st) < 0 ? -errno : !S_ISREG(st.st_mode) ? -EINVAL : 0;
	if (r == 0 && fw_grow(&p->v, &p->cap, p->n, sizeof(*p->v)) < 0)
		r = -ENOMEM;
	if (r == 0)
		r = fw_sha256_fd(fd, p->v[p->n].sha256, &size);
	if (fd >= 0)
		close(fd);
	if (r == 0) {
		p->v[p->n++].path = path;
		return 0;
	}
	if (r != -ENOMEM)
		fw_diag_add(d, path, 0, "cannot be pinned: %s", r == -ELOOP ? "a symlink" :
			    r == -EINVAL ? "not a regular file" : strerror(-r));
	free(path);
	return r == -ENOMEM ? r : 0;
}

/* Directories nest at most this deep below a pinned directory: debian/
 * needs 3 (debian/nonfree/source/format), a Source: tree a few more. */
#define PIN_DEPTH_MAX 16

/* Every file below dir (dfd, named path), recursively; skip(path) names
 * what is not pinned. Only regular files and directories are pinned. */
static int pin_dir(const struct fw_tree *t, struct fw_pins *p, int dfd, const char *path,
		   unsigned depth, bool (*skip)(const char *), struct fw_diag *d)
{
	char **names = NULL;
	size_t nn = 0;
	int r = fw_read_dir_sorted(dfd, &names, &nn);

	if (r < 0) {
		if (r != -ENOMEM)
			fw_diag_add(d, path, 0, "cannot be pinned: %s", strerror(-r));
		return r == -ENOMEM ? r : 0;
	}
	for (size_t i = 0; i < nn && r == 0; i++) {
		char *sub = fw_asprintf("%s/%s", path, names[i]);
		struct stat st;

		if (!sub) {
			r = -ENOMEM;
			break;
		}
		if (skip && skip(sub)) {
			free(sub);
			continue;
		}
		if (fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
			int sfd = openat(dfd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (depth >= PIN_DEPTH_MAX)
				fw_diag_add(d, fw_esc(sub), 0, "cannot be pinned: more than %d directories "
					    "deep", PIN_DEPTH_MAX);
			else if (sfd < 0)
				fw_diag_add(d, fw_esc(sub), 0, "cannot be pinned: %s", strerror(errno));
			else
				r = pin_dir(t, p, sfd, sub, depth + 1, skip, d);
			if (sfd >= 0)
				close(sfd);
			free(sub);
			continue;
		}
		r = pin_add(t, p, dfd, names[i], sub, d);
	}
	fw_free_strv(names, nn);
	return r;
}

/* path below the root: a regular file, or a directory and every file
 * below it. Absent: a finding unless optional. */
static int pin_path(const struct fw_tree *t, struct fw_pins *p, const char *path, bool optional,
		    bool (*skip)(const char *), struct fw_diag *d)
{
	int rootfd = t->rootfd, fd = fw_open_beneath(rootfd, path, O_RDONLY | O_DIRECTORY, 0), r;
	const char *leaf;
	char *copy;
	int pfd;

	if (fd >= 0) {
		r = pin_dir(t, p, fd, path, 1, skip, d);
		close(fd);
		return r;
	}
	if (fd == -ENOENT && optional)
		return 0;
	if (fd != -ENOTDIR) {
		fw_diag_add(d, fw_esc(path), 0, "cannot be pinned: %s",
			    fd == -ELOOP ? "a symlink" : strerror(-fd));
		return fd == -ENOMEM ? fd : 0;
	}
	/* Not a directory: a file, in a directory reached without a symlink. */
	pfd = fw_open_parent(rootfd, path, 0, &leaf);
	if (pfd < 0) {
		fw_diag_add(d, fw_esc(path), 0, "cannot be pinned: %s",
			    pfd == -ELOOP ? "a symlink is in its path" : strerror(-pfd));
		return 0;
	}
	copy = strdup(path);
	r = copy ? pin_add(t, p, pfd, leaf, copy, d) : -ENOMEM;
	if (pfd != rootfd)
		close(pfd);
	return r;
}

/* The signature and the pins themselves are not pinned: they are what
 * covers the rest. */
static bool skip_pins(const char *path)
{
	return strcmp(path, FW_PINS) == 0 || strcmp(path, FW_PINS_SIG) == 0;
}

int fw_pins_collect(const struct fw_tree *t, struct fw_pins *p, struct fw_diag *d)
{
	size_t before = d->n, w = 0;
	int r;

	memset(p, 0, sizeof(*p));
	/* What decides what ships: provenance and licences (WHENCE), every
	 * manifest (checksums, policy, split, module map, licence map: the
	 * next import classifies with it), every licence text. */
	r = pin_path(t, p, FW_TREE_WHENCE, false, NULL, d);
	if (r == 0)
		r = pin_path(t, p, "manifests", false, skip_pins, d);
	if (r == 0)
		r = pin_path(t, p, FW_TREE_LICENSES, false, NULL, d);
	/* How it is packaged: all of debian/, generated or not (rules and
	 * maintainer scripts run as root on the machines it goes to). */
	if (r == 0)
		r = pin_path(t, p, "debian", true, NULL, d);
	/* The blobs, each only with the bytes the manifest lists. */
	for (size_t i = 0; i < t->sums.n && r == 0; i++) {
		const struct fw_sum *s = &t->sums.v[i];
		char *path = fw_asprintf("%s/%s", FW_TREE_FIRMWARE, s->name);
		size_t n = p->n;

		r = path ? pin_path(t, p, path, false, NULL, d) : -ENOMEM;
		if (r == 0 && p->n == n + 1 &&
		    memcmp(p->v[n].sha256, s->sha256, FW_SHA256_LEN) != 0)
			fw_diag_add(d, path, 0, "differs from %s:%u; not pinned", FW_TREE_SUMS,
				    s->line);
		free(path);
	}
	/* The sources of the free blobs: what makes them free, and what the
	 * source package ships. */
	for (size_t i = 0; i < t->whence.nentries && r == 0; i++) {
		const struct fw_whence_entry *e = &t->whence.entries[i];
		char *path;

		if (e->kind != FW_E_SOURCE)
			continue;
		path = fw_asprintf("%s/%s", FW_TREE_FIRMWARE, e->name);
		r = path ? pin_path(t, p, path, false, NULL, d) : -ENOMEM;
		free(path);
	}
	if (r == 0 && (d->n != before || d->nomem))
		r = -EBADMSG;
	if (r < 0) {
		fw_pins_free(p);
		return r;
	}
	/* A path reached twice (a Source: naming a blob, or a file below
	 * a Source: directory) is pinned once. */
	qsort(p->v, p->n, sizeof(*p->v), cmp_pin);
	for (size_t i = 0; i < p->n; i++) {
		if (w && strcmp(p->v[w - 1].path, p->v[i].path) == 0) {
			free(p->v[i].path);
			continue;
		}
		p->v[w++] = p->v[i];
	}
	p->n = w;
	/* A source file a blob's verdict rests on (its presence made the blob
	 * free) must be pinned: one that came and went while the model was
	 * built would otherwise decide a verdict the signer never saw. */
	for (size_t i = 0; i < t->nreads; i++) {
		struct fw_pin key = { .path = t->reads[i].path };

		if (t->reads[i].presence && !bsearch(&key, p->v, p->n, sizeof(*p->v), cmp_pin))
			fw_diag_add(d, fw_esc(key.path), 0, "cannot be pinned: gone since fwdist "
				    "found it");
	}
	if (d->n != before || d->nomem) {
		fw_pins_free(p);
		return -EBADMSG;
	}
	return 0;
}

int fw_pins_format(const struct fw_pins *p, char **bufp, size_t *lenp)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*bufp = NULL;
	if (!f)
		return -ENOMEM;
	fprintf(f, "%s\n# Generated by `fwdist sign`; do not edit. Check them from the tree's "
		   "root with\n# sha256sum --strict -c %s\n%s%" PRIu64 "\n", FW_PINS_HEADER, FW_PINS,
		FW_PINS_SERIAL, p->serial);
	for (size_t i = 0; i < p->n; i++) {
		char hex[FW_SHA256_HEX + 1];

		fw_sha256_hex(p->v[i].sha256, hex);
		fprintf(f, "%s  %s\n", hex, p->v[i].path);
	}
	if (fw_memstream_close(f, &buf) < 0) {
		free(buf);
		return -ENOMEM;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}

static bool lower_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

int fw_pins_parse(const char *buf, size_t len, struct fw_pins *p, struct fw_diag *d)
{
	const char *s = buf, *end = buf + len;
	size_t hl = strlen(FW_PINS_HEADER_PREFIX), sl = strlen(FW_PINS_SERIAL);
	unsigned line = 0;
	bool serial = false;

	memset(p, 0, sizeof(*p));
	if (len == 0 || buf[len - 1] != '\n' || memchr(buf, '\0', len)) {
		fw_diag_add(d, FW_PINS, 0, "not fwdist pins (empty, a NUL byte or no final newline)");
		return -EBADMSG;
	}
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = (size_t)(nl - s);

		line++;
		if (line == 1) {
			uint64_t v;

			/* Another format is refused by name, never read as this one:
			 * format 1 pinned neither Source: files nor debian/ and had no
			 * serial, so accepting it would undo both. */
			if (n == strlen(FW_PINS_HEADER) && memcmp(s, FW_PINS_HEADER, n) == 0) {
				s = nl + 1;
				continue;
			}
			if (n > hl && memcmp(s, FW_PINS_HEADER_PREFIX, hl) == 0 &&
			    fw_parse_u64(s + hl, n - hl, &v) == 0)
				fw_diag_add(d, FW_PINS, 1, "pins of format %" PRIu64 ", not %d: %s", v,
					    FW_PINS_FORMAT, v < FW_PINS_FORMAT ?
					    "an older fwdist signed them, without a release serial and "
					    "without Source: files and debian/; sign the tree again" :
					    "a newer fwdist signed them");
			else
				fw_diag_add(d, FW_PINS, 1, "missing header line '%s'", FW_PINS_HEADER);
			goto bad;
		}
		if (n >= sl && memcmp(s, FW_PINS_SERIAL, sl) == 0) {
			if (serial || p->n || fw_parse_u64(s + sl, n - sl, &p->serial) < 0 ||
			    p->serial == 0) {
				fw_diag_add(d, FW_PINS, line, "%s", serial || p->n ?
					    "a second or late #serial line (one, before the pins)" :
					    "#serial takes a decimal number from 1");
				goto bad;
			}
			serial = true;
		} else if (n && *s == '#') {
			/* a comment */
		} else {
			char *path;

			if (n <= FW_SHA256_HEX + 2 || !lower_hex(s, FW_SHA256_HEX) ||
			    s[FW_SHA256_HEX] != ' ' || s[FW_SHA256_HEX + 1] != ' ' || memchr(s, '\r', n)) {
				fw_diag_add(d, FW_PINS, line, "malformed line (HEX  PATH expected)");
				goto bad;
			}
			if (!serial) {
				fw_diag_add(d, FW_PINS, line, "a pin before the #serial line");
				goto bad;
			}
			path = fw_strndup(s + FW_SHA256_HEX + 2, n - FW_SHA256_HEX - 2);
			if (!path || fw_grow(&p->v, &p->cap, p->n, sizeof(*p->v)) < 0) {
				free(path);
				fw_pins_free(p);
				return -ENOMEM;
			}
			if (fw_name_problem(path) || strchr(path, '\\') ||
			    (p->n && strcmp(p->v[p->n - 1].path, path) >= 0)) {
				fw_diag_add(d, FW_PINS, line, "%s: %s", fw_esc(path), fw_name_problem(path) ?
					    fw_name_problem(path) : strchr(path, '\\') ? "a backslash" :
					    "out of order or repeated");
				free(path);
				goto bad;
			}
			fw_sha256_parse(s, FW_SHA256_HEX, p->v[p->n].sha256);
			p->v[p->n++].path = path;
		}
		s = nl + 1;
	}
	if (!serial) {
		fw_diag_add(d, FW_PINS, 0, "no #serial line: no release serial was signed");
		goto bad;
	}
	return 0;
bad:
	fw_pins_free(p);
	return -EBADMSG;
}

int fw_pins_compare(const struct fw_pins *a, const struct fw_pins *b, struct fw_diag *d)
{
	size_t i = 0, j = 0, before = d->n;

	/* Both sorted by path. */
	while (i < a->n || j < b->n) {
		int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->v[i].path, b->v[j].path);

		if (c == 0) {
			if (memcmp(a->v[i].sha256, b->v[j].sha256, FW_SHA256_LEN) != 0)
				fw_diag_add(d, "", 0, "%s: differs from the signed pins",
					    fw_esc(a->v[i].path));
			i++, j++;
		} else if (c < 0) {
			fw_diag_add(d, "", 0, "%s: signed, but no longer in the tree", fw_esc(a->v[i].path));
			i++;
		} else {
			fw_diag_add(d, "", 0, "%s: in the tree, but not signed", fw_esc(b->v[j].path));
			j++;
		}
	}
	return d->n != before || d->nomem ? -EBADMSG : 0;
}

/* The last OpenSSL error, in words, then the queue cleared. */
static const char *ssl_reason(void)
{
	static _Thread_local char s[256];
	unsigned long e = ERR_peek_last_error();

	if (e)
		ERR_error_string_n(e, s, sizeof(s));
	else
		snprintf(s, sizeof(s), "unknown error");
	ERR_clear_error();
	return s;
}

/* The trust model has no CA: CERT is the signer's own certificate, the
 * only one trusted. A CA certificate (basicConstraints CA:TRUE) is refused
 * as CERT even where its own key made the signature: the one who holds a CA
 * key is there to issue certificates, and trusting a CA as a signer invites
 * reading it as "anything it issued", which is never so here. */
static bool cert_is_ca(X509 *x, const char *path, struct fw_diag *d)
{
	if (!(X509_get_extension_flags(x) & EXFLAG_CA))
		return false;
	fw_diag_add(d, path, 0, "a CA certificate (basicConstraints CA:TRUE): the signing "
		    "certificate is the signer's own, never a CA (openssl req -x509 makes a CA "
		    "unless given -addext basicConstraints=critical,CA:FALSE)");
	return true;
}

static X509 *read_cert(const char *path, struct fw_diag *d)
{
	FILE *f = fopen(path, "re");
	X509 *x;

	if (!f) {
		fw_diag_add(d, path, 0, "cannot read the certificate: %s", strerror(errno));
		return NULL;
	}
	x = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	if (!x)
		fw_diag_add(d, path, 0, "not a PEM certificate: %s", ssl_reason());
	return x;
}

int fw_pins_sign(const char *buf, size_t len, const char *key, const char *cert,
		 unsigned char **der, size_t *derlen, struct fw_diag *d)
{
	X509 *x = read_cert(cert, d);
	EVP_PKEY *k = NULL;
	BIO *in = NULL;
	CMS_ContentInfo *cms = NULL;
	unsigned char *out = NULL;
	FILE *f;
	int r = -EINVAL, n;

	*der = NULL;
	if (!x)
		return -EINVAL;
	/* Never sign what every verifier refuses. */
	if (cert_is_ca(x, cert, d))
		goto out;
	f = fopen(key, "re");
	if (!f) {
		fw_diag_add(d, key, 0, "cannot read the key: %s", strerror(errno));
		goto out;
	}
	k = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (!k) {
		fw_diag_add(d, key, 0, "not a PEM private key: %s", ssl_reason());
		goto out;
	}
	if (X509_check_private_key(x, k) != 1) {
		fw_diag_add(d, key, 0, "is not the key of the certificate %s", cert);
		ERR_clear_error();
		goto out;
	}
	in = BIO_new_mem_buf(buf, (int)len);
	/* Detached, binary (no MIME canonicalisation), SHA-256: what
	 * `openssl cms -verify -binary -inform DER -content FILE` checks. */
	cms = in ? CMS_sign(x, k, NULL, in, CMS_DETACHED | CMS_BINARY) : NULL;
	if (!cms) {
		fw_diag_add(d, cert, 0, "cannot sign: %s", ssl_reason());
		r = -ENOMEM;
		goto out;
	}
	n = i2d_CMS_ContentInfo(cms, &out);
	if (n <= 0) {
		fw_diag_add(d, cert, 0, "cannot encode the signature: %s", ssl_reason());
		r = -ENOMEM;
		goto out;
	}
	*der = out;
	*derlen = (size_t)n;
	r = 0;
out:
	CMS_ContentInfo_free(cms);
	BIO_free(in);
	EVP_PKEY_free(k);
	X509_free(x);
	return r;
}

void fw_pins_free_der(unsigned char *der)
{
	OPENSSL_free(der);
}

/* The first certificate verification error of a CMS_verify, kept here:
 * OpenSSL's error queue says only "certificate verify error". */
static _Thread_local int cert_error;

static int verify_cb(int ok, X509_STORE_CTX *ctx)
{
	if (!ok && !cert_error)
		cert_error = X509_STORE_CTX_get_error(ctx);
	return ok;
}

/* Who signed: the subject of the certificate the signature carries for
 * its signer, else its issuer and serial, in a new string (NULL: none). */
static char *signer_name(CMS_ContentInfo *cms, X509 *trusted, bool *issued_by_trusted)
{
	STACK_OF(CMS_SignerInfo) *sis = CMS_get0_SignerInfos(cms);
	CMS_SignerInfo *si = sis && sk_CMS_SignerInfo_num(sis) > 0 ?
			     sk_CMS_SignerInfo_value(sis, 0) : NULL;
	STACK_OF(X509) *certs = si ? CMS_get1_certs(cms) : NULL;
	char *name = NULL;

	*issued_by_trusted = false;
	for (int i = 0; certs && i < sk_X509_num(certs) && !name; i++) {
		X509 *c = sk_X509_value(certs, i);

		if (CMS_SignerInfo_cert_cmp(si, c) != 0)
			continue;
		name = X509_NAME_oneline(X509_get_subject_name(c), NULL, 0);
		*issued_by_trusted = X509_check_issued(trusted, c) == X509_V_OK;
	}
	sk_X509_pop_free(certs, X509_free);
	if (!name && si) {
		X509_NAME *issuer = NULL;
		ASN1_INTEGER *sno = NULL;
		ASN1_OCTET_STRING *keyid = NULL;

		if (CMS_SignerInfo_get0_signer_id(si, &keyid, &issuer, &sno) == 1 && issuer) {
			char *in = X509_NAME_oneline(issuer, NULL, 0);

			name = in ? fw_asprintf("a certificate issued by %s", in) : NULL;
			OPENSSL_free(in);
			return name;
		}
	}
	if (name) {
		char *copy = strdup(name);

		OPENSSL_free(name);
		name = copy;
	}
	return name;
}

int fw_pins_verify(const char *buf, size_t len, const unsigned char *der, size_t derlen,
		   const char *cert, struct fw_diag *d)
{
	X509 *x = read_cert(cert, d);
	X509_STORE *store = NULL;
	STACK_OF(X509) *signers = NULL, *got = NULL;
	CMS_ContentInfo *cms = NULL;
	const unsigned char *p = der;
	BIO *content = NULL;
	int r = -EBADMSG;
	unsigned long e;

	if (!x)
		return -EINVAL;
	cms = d2i_CMS_ContentInfo(NULL, &p, (long)derlen);
	if (!cms || p != der + derlen) {
		fw_diag_add(d, FW_PINS_SIG, 0, "not a DER CMS signature (truncated or damaged)");
		ERR_clear_error();
		goto out;
	}
	store = X509_STORE_new();
	signers = sk_X509_new_null();
	content = BIO_new_mem_buf(buf, (int)len);
	if (!store || !signers || !content || X509_STORE_add_cert(store, x) != 1 ||
	    !sk_X509_push(signers, x)) {
		fw_diag_add(d, FW_PINS_SIG, 0, "cannot verify: %s", ssl_reason());
		r = -ENOMEM;
		goto out;
	}
	/* The trust model: CERT is the signer's own certificate, the only one
	 * trusted, and not a CA. Were it used as a CA, every certificate its
	 * key ever issued (for mail, for a web server, for anyone) could sign
	 * a firmware tree. So the signer is looked up only among {CERT}
	 * (CMS_NOINTERN: a certificate the signature carries is never taken
	 * as the signer), and CERT is the whole chain (PARTIAL_CHAIN: it need
	 * not be self-signed, and nothing above it is consulted). It must be
	 * valid now and fit for signing: S/MIME signing, digitalSignature and,
	 * if it names extended key usages, emailProtection. */
	X509_STORE_set_flags(store, X509_V_FLAG_PARTIAL_CHAIN);
	X509_STORE_set_verify_cb(store, verify_cb);
	X509_STORE_set_purpose(store, X509_PURPOSE_SMIME_SIGN);
	cert_error = 0;
	if (CMS_verify(cms, signers, store, content, NULL, CMS_BINARY | CMS_NOINTERN) == 1) {
		/* Belt and braces: the key that verified is CERT's. */
		got = CMS_get0_signers(cms);
		r = 0;
		for (int i = 0; !got || i < sk_X509_num(got); i++) {
			if (!got || EVP_PKEY_eq(X509_get0_pubkey(sk_X509_value(got, i)),
						X509_get0_pubkey(x)) != 1) {
				fw_diag_add(d, FW_PINS_SIG, 0, "not signed by the key of %s", cert);
				r = -EBADMSG;
				break;
			}
		}
		sk_X509_free(got);
		ERR_clear_error();
		/* Made by CERT's key, but CERT is a CA: refused all the same
		 * (a signature that fails otherwise says why above). */
		if (r == 0 && cert_is_ca(x, cert, d))
			r = -EBADMSG;
		goto out;
	}
	e = ERR_peek_last_error();
	if (ERR_GET_REASON(e) == CMS_R_SIGNER_CERTIFICATE_NOT_FOUND) {
		bool issued;
		char *who = signer_name(cms, x, &issued);

		fw_diag_add(d, FW_PINS_SIG, 0, "not signed by the key of %s: the signer is %s%s", cert,
			    who ? who : "another key", issued ? ", a certificate it issued (CERT is "
			    "the signer's own certificate, never a CA)" : "");
		free(who);
	} else if (cert_error == X509_V_ERR_CERT_HAS_EXPIRED ||
		   cert_error == X509_V_ERR_CERT_NOT_YET_VALID) {
		fw_diag_add(d, FW_PINS_SIG, 0, "the signing certificate %s",
			    cert_error == X509_V_ERR_CERT_HAS_EXPIRED ? "has expired" : "is not valid yet");
	} else if (cert_error == X509_V_ERR_INVALID_PURPOSE) {
		fw_diag_add(d, FW_PINS_SIG, 0, "the signing certificate is not for signing "
			    "(its key usage or extended key usage)");
	} else if (cert_error) {
		fw_diag_add(d, FW_PINS_SIG, 0, "not signed by %s: %s", cert,
			    X509_verify_cert_error_string(cert_error));
	} else if (ERR_GET_REASON(e) == CMS_R_CONTENT_VERIFY_ERROR ||
		   ERR_GET_REASON(e) == CMS_R_VERIFICATION_FAILURE) {
		fw_diag_add(d, FW_PINS, 0, "the signed content changed: it is not what was signed");
	} else {
		fw_diag_add(d, FW_PINS_SIG, 0, "signature check failed: %s", ssl_reason());
	}
	ERR_clear_error();
out:
	BIO_free(content);
	sk_X509_free(signers);
	X509_STORE_free(store);
	CMS_ContentInfo_free(cms);
	X509_free(x);
	return r;
}

int fw_root_verify_signature(const char *root, const char *cert, struct fw_pins *p,
			     uint8_t digest[FW_SHA256_LEN], struct fw_diag *d)
{
	int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r;
	char *pins = NULL, *der = NULL;
	size_t len = 0, derlen = 0;

	memset(p, 0, sizeof(*p));
	if (rootfd < 0) {
		r = -errno;
		fw_diag_add(d, root, 0, "cannot open the tree: %s", strerror(-r));
		return r;
	}
	r = fw_read_text(rootfd, FW_PINS, &pins, &len);
	if (r < 0)
		fw_diag_add(d, FW_PINS, 0, "cannot read: %s (run fwdist sign)", strerror(-r));
	if (r == 0) {
		r = fw_read_text(rootfd, FW_PINS_SIG, &der, &derlen);
		if (r < 0)
			fw_diag_add(d, FW_PINS_SIG, 0, "cannot read: %s (run fwdist sign)", strerror(-r));
	}
	/* The signature first: the pins are parsed only once they are known
	 * to be what the signer wrote. */
	if (r == 0)
		r = fw_pins_verify(pins, len, (const unsigned char *)der, derlen, cert, d);
	if (r == 0)
		r = fw_pins_parse(pins, len, p, d);
	if (r == 0)
		r = fw_sha256_buf(pins, len, digest);
	free(pins);
	free(der);
	close(rootfd);
	if (r < 0)
		fw_pins_free(p);
	return r;
}
