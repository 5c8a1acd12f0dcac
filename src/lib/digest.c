/* SPDX-License-Identifier: GPL-2.0-or-later */
/* SHA-256 digests through OpenSSL libcrypto. */
#include "digest.h"

#include <errno.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>

#include "ihex.h"

/* The SHA-256 implementation, fetched once from the default provider. */
static EVP_MD *sha256_md;

int fw_digest_setup(void)
{
	if (sha256_md)
		return 0;
	if (OPENSSL_init_crypto(0, NULL) != 1) {
		ERR_clear_error();
		return -ENOMEM;
	}
	sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
	if (!sha256_md) {
		ERR_clear_error();
		return -ENOMEM;
	}
	return 0;
}

int fw_sha256_init(struct fw_sha256 *h)
{
	EVP_MD_CTX *c;

	h->md_ctx = NULL;
	if (fw_digest_setup() < 0)
		return -ENOMEM;
	c = EVP_MD_CTX_new();
	if (!c)
		return -ENOMEM;
	/* An explicitly fetched method: no implicit fetch (and lock) in
	 * every init, which is also cheaper. */
	if (EVP_DigestInit_ex(c, sha256_md, NULL) != 1) {
		EVP_MD_CTX_free(c);
		ERR_clear_error();
		return -EIO;
	}
	h->md_ctx = c;
	return 0;
}

int fw_sha256_update(struct fw_sha256 *h, const void *buf, size_t len)
{
	if (EVP_DigestUpdate(h->md_ctx, buf, len) != 1) {
		ERR_clear_error();
		return -EIO;
	}
	return 0;
}

int fw_sha256_final(struct fw_sha256 *h, uint8_t out[FW_SHA256_LEN])
{
	unsigned int n = 0;

	if (EVP_DigestFinal_ex(h->md_ctx, out, &n) != 1 || n != FW_SHA256_LEN) {
		ERR_clear_error();
		return -EIO;
	}
	return 0;
}

void fw_sha256_free(struct fw_sha256 *h)
{
	EVP_MD_CTX_free(h->md_ctx);
	h->md_ctx = NULL;
}

int fw_sha256_buf(const void *buf, size_t len, uint8_t out[FW_SHA256_LEN])
{
	struct fw_sha256 h;
	int r = fw_sha256_init(&h);

	if (r == 0)
		r = fw_sha256_update(&h, buf, len);
	if (r == 0)
		r = fw_sha256_final(&h, out);
	fw_sha256_free(&h);
	return r;
}

int fw_sha256_fd(int fd, uint8_t out[FW_SHA256_LEN], uint64_t *size)
{
	static _Thread_local unsigned char buf[1 << 16];
	struct fw_sha256 h;
	uint64_t total = 0;
	int r = fw_sha256_init(&h);

	if (r < 0)
		return r;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			goto out;
		}
		if (n == 0)
			break;
		total += (uint64_t)n;
		r = fw_sha256_update(&h, buf, (size_t)n);
		if (r < 0)
			goto out;
	}
	r = fw_sha256_final(&h, out);
	if (r == 0 && size)
		*size = total;
out:
	fw_sha256_free(&h);
	return r;
}

void fw_sha256_hex(const uint8_t d[FW_SHA256_LEN], char *out)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < FW_SHA256_LEN; i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 15];
	}
	out[FW_SHA256_HEX] = '\0';
}

int fw_sha256_parse(const char *hex, size_t len, uint8_t out[FW_SHA256_LEN])
{
	if (len != FW_SHA256_HEX)
		return -EINVAL;
	for (size_t i = 0; i < FW_SHA256_LEN; i++) {
		int hi = ihex_hexval(hex[2 * i]), lo = ihex_hexval(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}
