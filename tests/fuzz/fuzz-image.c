/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer targets for the binary readers: fwimage, tg3, Intel HEX (text and
 * the kernel's binary form), the .modinfo of kernel modules and the ELF
 * reader of pack --from-elf; one binary
 * per target, chosen with -DFUZZ_<NAME> (make fuzz). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "digest.h"
#include "fwimage.h"
#include "ihex.h"
#include "image.h"
#include "modinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if defined(FUZZ_FWIMAGE)
static int sha(const void *a, size_t alen, const void *b, size_t blen, uint8_t out[32])
{
	struct fw_sha256 h;
	int r = fw_sha256_init(&h);

	if (r == 0)
		r = fw_sha256_update(&h, a, alen);
	if (r == 0)
		r = fw_sha256_update(&h, b, blen);
	if (r == 0)
		r = fw_sha256_final(&h, out);
	fw_sha256_free(&h);
	return r;
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#if defined(FUZZ_FWIMAGE)
	struct fwimage img;
	struct fwimage_err err;

	/* Both ways: without the digest (every other check), and with it. */
	for (int k = 0; k < 2; k++)
		if (fwimage_parse(&img, data, size, k ? sha : NULL, &err) == FWIMAGE_OK)
			for (unsigned i = 0; i < img.nsections; i++) {
				struct fwimage_section s;
				volatile uint8_t sink = 0;

				fwimage_section(&img, i, &s);
				if (s.data && s.size)
					sink ^= s.data[s.size - 1]; /* in bounds, or ASan says */
				(void)sink;
			}
	{
		struct fwimage_tg3 t;

		fwimage_tg3_parse(&t, data, size);
	}
#elif defined(FUZZ_IHEX)
	struct ihex_run runs[64];
	struct ihex_info info;
	struct ihex_err err;

	if (ihex_scan((const char *)data, size, runs, 64, &info, &err) == IHEX_OK && info.nruns) {
		uint32_t base = runs[0].addr;
		uint64_t len = (uint64_t)runs[info.nruns - 1].addr + runs[info.nruns - 1].len - base;

		if (len <= (1u << 20)) {
			uint8_t *out = malloc(len ? len : 1);

			if (out) {
				ihex_fill((const char *)data, size, out, base, len);
				free(out);
			}
		}
		/* ihex2fw's form of accepted text: sized exactly, and every
		 * record of it read back by the kernel's validator's rules. */
		size_t blen = ihex_bin_records((const char *)data, size, NULL);
		uint8_t *bin = malloc(blen);

		if (bin) {
			struct ihex_binrec rec;
			size_t off = 0;
			int k;

			ihex_bin_records((const char *)data, size, bin);
			while ((k = ihex_bin_next(bin, blen, &off, &rec, &err)) == 1)
				;
			if (k != 0 || off != blen)
				abort();
			free(bin);
		}
	}
#elif defined(FUZZ_IHEX_BIN)
	struct ihex_binrec rec;
	struct ihex_err err;
	size_t off = 0;

	while (ihex_bin_next(data, size, &off, &rec, &err) == 1) {
		volatile uint8_t sink = 0;

		if (rec.len)
			sink ^= rec.data[rec.len - 1];
		(void)sink;
	}
#elif defined(FUZZ_MODINFO)
	struct fw_modinfo m;
	struct fw_diag d = { 0 };

	memset(&m, 0, sizeof(m));
	fw_modinfo_parse(&m, "fuzz.ko", data, size, &d);
	fw_modinfo_free(&m);
	fw_diag_free(&d);
#elif defined(FUZZ_ELF)
	struct fw_img im = { 0 };
	struct fw_diag d = { 0 };

	/* Every segment it takes is copied whole: ASan reads each byte. */
	if (fw_img_add_elf_mem(&im, "fuzz.elf", data, size, &d) == 0)
		for (size_t i = 0; i < im.n; i++) {
			volatile uint8_t sink = 0;

			if (im.v[i].size)
				sink ^= im.v[i].data[im.v[i].size - 1];
			(void)sink;
		}
	fw_img_free(&im);
	fw_diag_free(&d);
#else
#error "define one FUZZ_<target>"
#endif
	return 0;
}
