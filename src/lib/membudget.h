/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The memory the process's compression encoders and decoders may hold together (--memory-limit). */
#ifndef FWDIST_MEMBUDGET_H
#define FWDIST_MEMBUDGET_H

#include <stdint.h>

/*
 * One budget for the whole process, because memory is the process's: the
 * encoders of install and the decoders of install, verify, uninstall, kconfig
 * and modules all draw on it, whichever worker thread runs them. Each codec
 * asks for what its library estimates it needs (fw_compress_memusage,
 * fw_decompress_memusage) before it starts and gives it back when it ends.
 *
 * The rule: a codec whose need does not fit waits, in turn (first come, first
 * served), until enough is free; one always runs, even when it alone needs
 * more than the limit (the codecs' own hard caps still bound it). A thread
 * that already holds memory is never made to wait (it would wait for
 * itself): what it asks for on top is counted, not waited for.
 */

/* Set the limit in bytes; 0: fw_mem_default(). Call before the workers start. */
void fw_mem_set_limit(uint64_t limit);
/* The limit in force. */
uint64_t fw_mem_limit(void);
/* A quarter of the physical memory (xz -T0 limits its threads so by
 * default), at most FW_MEM_DEFAULT_MAX. */
uint64_t fw_mem_default(void);
/* Five xz -6 encoders with their full dictionary (93 MiB each); far more
 * for small blobs, whose dictionary shrinks to their size. */
#define FW_MEM_DEFAULT_MAX (512ull << 20)

/* Take need bytes, waiting as the rule says; 0 takes nothing. */
void fw_mem_acquire(uint64_t need);
/* Give back what fw_mem_acquire(need) took. */
void fw_mem_release(uint64_t need);

#endif
