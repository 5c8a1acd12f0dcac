/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SHA-256 digests through OpenSSL libcrypto: streaming context and helpers. */
#ifndef FWDIST_DIGEST_H
#define FWDIST_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#define FW_SHA256_LEN 32
#define FW_SHA256_HEX (2 * FW_SHA256_LEN)

struct fw_sha256 {
	void *md_ctx; /* EVP_MD_CTX, opaque so callers need no OpenSSL headers */
};

/* All return 0 or -errno (-EIO for a libcrypto failure, -ENOMEM). */
/* Initialise libcrypto and fetch SHA-256 once. main() calls it before
 * anything else: a libcrypto that failed half-way through its own lazy
 * initialisation (out of memory) crashes later instead of failing. 0 or
 * -ENOMEM. Called again by fw_sha256_init, it does nothing. */
int fw_digest_setup(void);
int fw_sha256_init(struct fw_sha256 *h);
int fw_sha256_update(struct fw_sha256 *h, const void *buf, size_t len);
int fw_sha256_final(struct fw_sha256 *h, uint8_t out[FW_SHA256_LEN]);
void fw_sha256_free(struct fw_sha256 *h);

/* Hash len bytes of buf at once. */
int fw_sha256_buf(const void *buf, size_t len, uint8_t out[FW_SHA256_LEN]);

/* Hash a regular file opened by the caller, with a read() loop (never mmap:
 * a file truncated under us must give an error, not SIGBUS). */
int fw_sha256_fd(int fd, uint8_t out[FW_SHA256_LEN], uint64_t *size);

/* Lower-case hex; out must hold FW_SHA256_HEX + 1 bytes. */
void fw_sha256_hex(const uint8_t d[FW_SHA256_LEN], char *out);
/* Strict parse: exactly 64 lower- or upper-case hex digits. 0 or -EINVAL. */
int fw_sha256_parse(const char *hex, size_t len, uint8_t out[FW_SHA256_LEN]);

#endif
