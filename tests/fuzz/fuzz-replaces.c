/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for manifests/replaces: a split, a NUL, then the replaces file; their substvars. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "replaces.h"
#include "split.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input is manifests/packages, a NUL byte, then manifests/replaces
 * (none: an empty one): the replaces parser needs a split to check its
 * packages against, and its cycles are between the split's packages. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const suites[] = { "bookworm", "trixie", "forky" };
	const uint8_t *nul = memchr(data, '\0', size);
	size_t slen = nul ? (size_t)(nul - data) : size;
	size_t rlen = nul ? size - slen - 1 : 0;
	char *sbuf = malloc(slen + 1), *rbuf = malloc(rlen + 1);
	struct fw_split s = { 0 };
	struct fw_replaces r = { 0 };
	struct fw_diag d = { 0 };
	FILE *f;

	if (!sbuf || !rbuf)
		goto out;
	/* NUL-terminated buffers of len bytes, as fw_read_text gives them. */
	memcpy(sbuf, data, slen);
	sbuf[slen] = '\0';
	if (rlen)
		memcpy(rbuf, nul + 1, rlen);
	rbuf[rlen] = '\0';
	if (fw_split_parse(&s, "manifests/packages", sbuf, slen, &d) < 0)
		goto out;
	fw_diag_free(&d);
	if (fw_replaces_parse(&r, &s, "manifests/replaces", rbuf, rlen, &d) < 0)
		goto out;
	/* What a line that passed gives: every package's substvars. */
	f = fopen("/dev/null", "w");
	for (size_t p = 0; f && p < s.npkgs; p++)
		for (size_t k = 0; k < sizeof(suites) / sizeof(suites[0]); k++)
			fw_replaces_substvars(f, &r, &s, (unsigned)p, suites[k], "1.0-1");
	if (f)
		fclose(f);
out:
	fw_replaces_free(&r);
	fw_split_free(&s);
	fw_diag_free(&d);
	free(sbuf);
	free(rbuf);
	return 0;
}
