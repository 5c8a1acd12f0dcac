/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer targets for the line-oriented parsers: one binary per target,
 * chosen at build time with -DFUZZ_<NAME> (see Makefile: make fuzz). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cis.h"
#include "diag.h"
#include "hardware.h"
#include "licmap.h"
#include "modmap.h"
#include "policy.h"
#include "recipe.h"
#include "split.h"
#include "sums.h"
#include "whence.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The parsers take a NUL-terminated buffer of len bytes, as
	 * fw_read_text gives them. */
	char *buf = malloc(size + 1);
	struct fw_diag d = { 0 };

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
#if defined(FUZZ_WHENCE)
	struct fw_whence w = { 0 };
	fw_whence_parse(&w, "WHENCE", buf, size, &d);
	fw_whence_free(&w);
#elif defined(FUZZ_SUMS)
	struct fw_sums s = { 0 };
	fw_sums_parse(&s, "manifests/checksums", buf, size, &d);
	fw_sums_free(&s);
	fw_diag_free(&d);
	fw_sums_parse_texts(&s, "manifests/licence-checksums", buf, size, &d);
	fw_sums_free(&s);
#elif defined(FUZZ_POLICY)
	struct fw_policy p = { 0 };
	fw_policy_parse(&p, "manifests/licenses", buf, size, &d);
	fw_policy_free(&p);
#elif defined(FUZZ_SPLIT)
	struct fw_split s = { 0 };
	fw_split_parse(&s, "manifests/packages", buf, size, &d);
	fw_split_free(&s);
#elif defined(FUZZ_RECIPES)
	struct fw_recipes rs = { 0 };
	fw_recipes_parse(&rs, "manifests/build", buf, size, &d);
	for (size_t i = 0; i < rs.n; i++)
		fw_recipes_output(&rs, rs.v[i].name, NULL);
	fw_recipes_free(&rs);
#elif defined(FUZZ_VERDICTS)
	struct fw_verdicts vs = { 0 };
	fw_verdicts_parse(&vs, "manifests/build-verdicts", buf, size, &d);
	for (size_t i = 0; i < vs.n; i++)
		if (fw_verdicts_find(&vs, vs.v[i].blob) != &vs.v[i])
			abort();
	fw_verdicts_free(&vs);
#elif defined(FUZZ_MODMAP)
	struct fw_modmap m = { 0 };
	fw_modmap_parse(&m, "manifests/modules", buf, size, &d);
	fw_modmap_free(&m);
#elif defined(FUZZ_LICMAP)
	struct fw_licmap m = { 0 };
	fw_licmap_parse(&m, "manifests/licence-map", buf, size, &d);
	fw_licmap_free(&m);
#elif defined(FUZZ_HWLOG)
	/* The kernel log reader, through a file as --kernel-log gives it,
	 * then the folding of its names into modules. */
	struct fw_hw h = { 0 };
	int fd = memfd_create("log", 0);

	if (fd >= 0 && write(fd, buf, size) == (ssize_t)size && lseek(fd, 0, SEEK_SET) == 0 &&
	    fw_hw_read_log(&h, fd, "log", false, &d) == 0)
		fw_hw_add_log_names(&h);
	if (fd >= 0)
		close(fd);
	fw_hw_free(&h);
#elif defined(FUZZ_CIS)
	/* pack_cis's text: an accepted one packs to 1-512 bytes, each
	 * tuple's link within what was written. */
	uint8_t out[FW_CIS_MAX];
	size_t n, at = 0;

	if (fw_cis_pack("t.cis", buf, size, out, &n, &d) == 0) {
		if (n < 4 || n > FW_CIS_MAX)
			abort();
		while (at + 1 < n && out[at] != 0xff && out[at] != 0x06)
			at += 2u + out[at + 1];
		if (at >= n)
			abort();
	}
#else
#error "define one FUZZ_<target>"
#endif
	fw_diag_free(&d);
	free(buf);
	return 0;
}
