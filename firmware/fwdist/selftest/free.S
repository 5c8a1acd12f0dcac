/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fwdist self-test firmware, free: the preferred form for modification of
 * firmware/fwdist/selftest/free.bin. `make firmware` assembles it and keeps
 * the raw bytes (objcopy -O binary); the result must match the SHA-256 in
 * manifests/checksums, so the build is checked to be reproducible.
 *
 * It drives no device. It exists so that every fwdist install can prove, end
 * to end, that a free blob built from source in this tree reaches the kernel's
 * firmware loader intact (tests/kernel/). Only .byte and .ascii are used, so
 * any GNU-compatible assembler for any target yields the same bytes.
 *
 * Layout (little-endian):
 *   0  magic "FWDS"
 *   4  format version, u16 = 1
 *   6  header length, u16 = 16
 *   8  payload length, u32
 *  12  payload offset, u32 = 16
 *  16  payload: a NUL-terminated banner and a 256-byte counting pattern,
 *      so a loader that drops, repeats or reorders bytes is caught
 */

#define LE16(x) .byte ((x) & 0xff), (((x) >> 8) & 0xff)
#define LE32(x) .byte ((x) & 0xff), (((x) >> 8) & 0xff), (((x) >> 16) & 0xff), (((x) >> 24) & 0xff)

	.text
start:
	.ascii	"FWDS"
	LE16(1)
	LE16(header_end - start)
	LE32(payload_end - payload)
	LE32(payload - start)
header_end:

payload:
	.ascii	"fwdist self-test firmware (free), built from free.S\0"
	.irp	hi, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	.irp	lo, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	.byte	\hi * 16 + \lo
	.endr
	.endr
payload_end:
