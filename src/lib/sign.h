/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Signed pins: the digest of every file a tree's content depends on, and a detached CMS signature over them. */
#ifndef FWDIST_SIGN_H
#define FWDIST_SIGN_H

#include <stddef.h>

#include "diag.h"
#include "tree.h"

#define FW_PINS "manifests/pins"
#define FW_PINS_SIG "manifests/pins.p7s"
#define FW_PINS_HEADER "# fwdist pins 1"

/* The pins of t: SHA-256 of WHENCE, the three manifests, every licence text
 * of the policy and every blob the checksums list, each hashed from the
 * file as it is now, in sha256sum's format from the tree's root, sorted by
 * path (`sha256sum --strict -c manifests/pins` checks them). A blob whose
 * bytes differ from manifests/checksums, or a file that cannot be read, is
 * a finding in d and the result -EBADMSG: nothing that disagrees with the
 * manifests is pinned. 0 with a new buffer, or -errno. */
int fw_pins_build(const struct fw_tree *t, char **buf, size_t *len, struct fw_diag *d);

/* A detached CMS signature (DER; SHA-256, the signer's certificate included,
 * the scheme of the kernel's regulatory.db.p7s) over buf by the PEM private
 * key and certificate at the given paths. 0 with a new DER buffer, or
 * -errno with the reason in d. */
int fw_pins_sign(const char *buf, size_t len, const char *key, const char *cert,
		 unsigned char **der, size_t *derlen, struct fw_diag *d);

/* Free what fw_pins_sign returned. */
void fw_pins_free_der(unsigned char *der);

/* Check the signature der over buf against the PEM certificate cert, the only
 * one trusted: the signature must be by it (or by a key it certifies), it
 * must be valid now and fit for signing (the S/MIME signing purpose), and
 * buf must be exactly what was signed. 0, or -EBADMSG with one reason in d
 * ("the signed content changed", "certificate has expired", ...), or
 * -errno when a file cannot be read. */
int fw_pins_verify(const char *buf, size_t len, const unsigned char *der, size_t derlen,
		   const char *cert, struct fw_diag *d);

/* Compare the pins of the tree now (fw_pins_build) with the signed ones:
 * each path whose digest differs, or that one side lacks, is a finding in
 * d naming it. 0 when they are the same, -EBADMSG when not. */
int fw_pins_compare(const char *signed_pins, size_t slen, const char *now, size_t nlen,
		    struct fw_diag *d);

/* For install --require-signature and verify-signature, before anything
 * else of the tree is read: read FW_PINS and FW_PINS_SIG below root (never
 * following a symlink) and check the signature against cert. 0 with the
 * signed pins in a new buffer, or -EBADMSG / -errno with the reason in d.
 * The caller then loads the tree and compares (fw_pins_build,
 * fw_pins_compare). */
int fw_root_verify_signature(const char *root, const char *cert, char **pins, size_t *len,
			     struct fw_diag *d);

#endif
