/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Software bills of materials of an install plan: CycloneDX 1.6 JSON and SPDX 2.3 tag-value. */
#ifndef FWDIST_SBOM_H
#define FWDIST_SBOM_H

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"
#include "plan.h"

enum fw_sbom_format {
	FW_SBOM_CYCLONEDX,
	FW_SBOM_SPDX,
};

struct fw_sbom_opts {
	enum fw_sbom_format format;
	const char *tool_version;
	/* "2026-01-01T00:00:00Z" from SOURCE_DATE_EPOCH, or NULL: CycloneDX
	 * then has no timestamp, SPDX (which requires one) the epoch. */
	const char *created;
};

/* "cyclonedx" / "spdx" to the format. 0 or -EINVAL. */
int fw_sbom_format_parse(const char *s, enum fw_sbom_format *f);

/* Write the SBOM of the FILE and LICENCE entries of p (a plan built with
 * licences, any compression: the SBOM names the uncompressed content) to f.
 * Each blob is read from firmware/ once for its SHA-1 and must still have
 * the SHA-256 and size of the manifest; each LicenseRef-* text is read
 * from LICENSES/. Problems (changed blob, missing or unusable text, a name
 * that is not valid UTF-8) go to d with the file they concern and nothing
 * is written: an SBOM is exact or absent. The same plan always gives the
 * same bytes: the serial number is derived from its content. 0, -EINVAL
 * when d got a finding, or -errno (ENOMEM, a write error of f). */
int fw_sbom_write(FILE *f, const struct fw_plan *p, const struct fw_sbom_opts *o,
		  struct fw_diag *d);

#endif
