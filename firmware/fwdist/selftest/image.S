/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fwdist self-test firmware, free: the preferred form for modification of
 * firmware/fwdist/selftest/image.fwi, a multi-section fwimage(5). `make
 * firmware` assembles this file, keeps each section's raw bytes (objcopy
 * -O binary -j .SECTION) and packs them with
 *   fwdist pack --version 1 --entry 0x1000 --raw text:0x1000:TEXT
 *     --raw rodata:0x2000:RODATA --raw data:0x2800:DATA --bss 0x3000:512
 * The result must match the SHA-256 in manifests/checksums. Only .byte and
 * .ascii are used, so any GNU-compatible assembler yields the same bytes.
 * It drives no device: it proves that a sectioned image built from source
 * in the tree is reproducible and well formed (fwdist check).
 */
	.section .text, "ax"
	/* "code": a marker and a counting pattern, so a loader that drops
	 * or reorders bytes is caught */
	.ascii "FWDIST-TEXT"
	.byte 0
	.byte 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07
	.byte 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f
	.byte 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17
	.byte 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f

	.section .rodata, "a"
	.ascii "fwdist self-test image: read-only data"
	.byte 0

	.section .data, "aw"
	.ascii "FWDIST-DATA"
	.byte 0
	.byte 0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa, 0xf9, 0xf8
