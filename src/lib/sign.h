/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Signed pins: the digest of every file that decides what a tree ships or how it is packaged, a release serial, and a detached CMS signature over them. */
#ifndef FWDIST_SIGN_H
#define FWDIST_SIGN_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "digest.h"
#include "tree.h"

#define FW_PINS "manifests/pins"
#define FW_PINS_SIG "manifests/pins.p7s"
/* Format 2: "#serial N" and the pins below; format 1 (no serial, fewer
 * files pinned) is refused with a message saying so, never misread. */
#define FW_PINS_FORMAT 2
#define FW_PINS_HEADER "# fwdist pins 2"
#define FW_PINS_HEADER_PREFIX "# fwdist pins "
#define FW_PINS_SERIAL "#serial "

struct fw_pin {
	char *path; /* below the tree's root */
	uint8_t sha256[FW_SHA256_LEN];
};

struct fw_pins {
	uint64_t serial; /* the release serial the signer gave: 1 or more */
	struct fw_pin *v; /* sorted by path (strcmp), no duplicate */
	size_t n, cap;
};

void fw_pins_free(struct fw_pins *p);

/* The pins of t now (serial 0: the caller sets it): the SHA-256 of every
 * file that decides what the tree ships or how it is packaged, each hashed
 * as it is now, no symlink followed:
 *   WHENCE;
 *   every file below manifests/ but the pins and their signature;
 *   every file below LICENSES/;
 *   every blob manifests/checksums lists (firmware/NAME), which must have
 *   the bytes it lists: nothing that disagrees with the manifest is pinned;
 *   every Source: of WHENCE (firmware/NAME; a directory, every file below);
 *   every file below debian/, when the tree has one (the packaging: rules,
 *   the generated control and copyright, their heads, maintainer scripts).
 * A file the model of t was built from (t->reads) is not read again: its
 * pin is the digest of the bytes the model read, so the pins vouch for
 * exactly what the model holds. A file the model read twice with other
 * bytes, or a source file a verdict rested on that is gone, cannot be
 * pinned. A file that cannot be read, a symlink, anything but a regular
 * file or a directory, or a name sha256sum's format cannot carry is a
 * finding in d naming it, and the result -EBADMSG. 0, or -errno. */
int fw_pins_collect(const struct fw_tree *t, struct fw_pins *p, struct fw_diag *d);

/* The text of p in FW_PINS's format (FW_PINS_HEADER, comments, "#serial N",
 * then "HEX  PATH" lines in sha256sum's format, sorted by path, so that
 * `sha256sum --strict -c manifests/pins` checks them from the tree's root).
 * 0 with a new buffer, or -ENOMEM. */
int fw_pins_format(const struct fw_pins *p, char **buf, size_t *len);

/* Parse FW_PINS text strictly (the header of format FW_PINS_FORMAT, one
 * "#serial N" of at least 1 before the first pin, lowercase hex, two
 * spaces, safe paths sorted without duplicates, a final newline). 0, or
 * -EBADMSG with the first problem in d as FW_PINS:LINE (an older format is
 * named as such), or -ENOMEM. */
int fw_pins_parse(const char *buf, size_t len, struct fw_pins *p, struct fw_diag *d);

/* Each path whose digest differs, that only the signed pins have, or that
 * only the tree has now, is a finding in d naming it. 0 when they are the
 * same, -EBADMSG when not. */
int fw_pins_compare(const struct fw_pins *signed_pins, const struct fw_pins *now,
		    struct fw_diag *d);

/* A detached CMS signature (DER; SHA-256, the signer's certificate included,
 * the scheme of the kernel's regulatory.db.p7s) over buf by the PEM private
 * key and certificate at the given paths; a CA certificate is refused, as
 * fw_pins_verify refuses one. 0 with a new DER buffer, or -errno with the
 * reason in d. */
int fw_pins_sign(const char *buf, size_t len, const char *key, const char *cert,
		 unsigned char **der, size_t *derlen, struct fw_diag *d);

/* Free what fw_pins_sign returned. */
void fw_pins_free_der(unsigned char *der);

/* Check the signature der over buf against the PEM certificate cert. The
 * trust model: cert is the signer's own certificate, not a CA. The
 * signature must be made by cert's key (its signer identifier names cert
 * and it verifies with cert's public key; a certificate cert issued, or one
 * the signature carries, is never taken instead), cert must not be a CA
 * certificate (basicConstraints CA:TRUE) and must be valid now
 * and fit for signing (X.509 purpose S/MIME signing: keyUsage
 * digitalSignature when it has a keyUsage, extendedKeyUsage
 * emailProtection when it has one), and buf must be exactly what was
 * signed. 0, or -EBADMSG with one reason in d ("the signed content
 * changed", "not signed by the key of CERT", "certificate has expired",
 * ...), or -errno when a file cannot be read. */
int fw_pins_verify(const char *buf, size_t len, const unsigned char *der, size_t derlen,
		   const char *cert, struct fw_diag *d);

/* For install --require-signature and verify-signature, before anything
 * else of the tree is read: read FW_PINS and FW_PINS_SIG below root (never
 * following a symlink), check the signature against cert, then parse the
 * signed pins (fw_pins_parse). 0 with them in p and the SHA-256 of the
 * FW_PINS file in digest (what identifies the release beside its serial),
 * or -EBADMSG / -errno with the reason in d. The caller then loads the tree
 * and compares (fw_pins_collect, fw_pins_compare). */
int fw_root_verify_signature(const char *root, const char *cert, struct fw_pins *p,
			     uint8_t digest[FW_SHA256_LEN], struct fw_diag *d);

#endif
