/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PCMCIA Card Information Structures: the text that cis-tools' pack_cis
 * reads, packed into the bytes pack_cis writes (upstream's cis/). */
#ifndef FWDIST_CIS_H
#define FWDIST_CIS_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

/* The largest CIS: CISTPL_MAX_CIS_SIZE, the most the kernel's
 * pcmcia_replace_cis() takes from a firmware file. */
#define FW_CIS_MAX 512
/* Bounds on the text: its size and the length of a line. */
#define FW_CIS_TEXT_MAX (64u << 10)
#define FW_CIS_LINE_MAX 512

/*
 * Pack the text (len bytes; path names it in findings) into out, as
 * pack_cis 1.20 (pcmcia-cs 3.2.8, cis-tools) packs it: a CISTPL_DEVICE
 * first (a null one unless the text starts with dev_info), the tuples in
 * the text's order, then CISTPL_NO_LINK and CISTPL_END, or, after an mfc
 * block, a CISTPL_LONGLINK_MFC to one chain per function.
 *
 * The grammar is pack_cis's for the tuples dev_info, attr_dev_info,
 * vers_1, manfid, funcid, config, cftable_entry (fwdist(1) lists it).
 * Where pack_cis would write something other than the text says (a value
 * rounded, a field dropped, a number read as octal or through a float, a
 * crash), the text is refused instead: whatever is accepted packs to the
 * bytes pack_cis writes. The first problem is reported, with its line,
 * and nothing is written to out.
 *
 * Returns 0 with *outlen set, or -EINVAL with a finding in d.
 */
int fw_cis_pack(const char *path, const char *text, size_t len, uint8_t out[FW_CIS_MAX],
		size_t *outlen, struct fw_diag *d);

/* The same from a file (a regular file of at most FW_CIS_TEXT_MAX bytes,
 * no final symlink followed): 0, or -EINVAL with a finding in d. */
int fw_cis_pack_file(const char *path, uint8_t out[FW_CIS_MAX], size_t *outlen,
		     struct fw_diag *d);

#endif
