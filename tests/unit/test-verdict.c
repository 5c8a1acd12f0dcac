/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of the verdict's one judgement on content: is a blob text, its own source. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "tree.h"

#define TEXT(s) fw_blob_is_text((s), sizeof(s) - 1)

TEST(text_nvram_is_its_own_source)
{
	/* brcm's NVRAM files: key=value lines, comments, CRLF or LF. */
	CHECK(TEXT("# NVRAM for the board\nboardflags=0x00404201\nmacaddr=00:90:4c:c5:12:38\n"));
	CHECK(TEXT("boardtype=0x0726\r\nccode=X2\r\n"));
	CHECK(TEXT("no newline at the end"));
	/* UTF-8 beyond ASCII is text. */
	CHECK(TEXT("vendor=Gr\xc3\xbc" "n\n"));
	CHECK(TEXT("sign=\xe2\x82\xac\n"));
}

TEST(text_refuses_binary)
{
	CHECK(!fw_blob_is_text("", 0));
	CHECK(!fw_blob_is_text("a\0b\n", 4));
	CHECK(!TEXT("escape \x1b[0m\n"));
	CHECK(!TEXT("form\ffeed\n"));
	CHECK(!TEXT("del \x7f\n"));
	/* Not UTF-8: a lone continuation byte, a Latin-1 byte, an overlong
	 * form, a surrogate, a C1 control, a truncated sequence. */
	CHECK(!TEXT("\x80\n"));
	CHECK(!TEXT("Gr\xfcn\n"));
	CHECK(!TEXT("\xc0\xaf\n"));
	CHECK(!TEXT("\xed\xa0\x80\n"));
	CHECK(!TEXT("\xc2\x85\n"));
	CHECK(!TEXT("end \xe2\x82"));
}

TEST(text_hex_encodings_are_binary)
{
	/* Intel HEX, S-records and bare hex dumps are binary data in text
	 * form, not a preferred form of modification. */
	CHECK(!TEXT(":10010000214601360121470136007EFE09D2190140\n:00000001FF\n"));
	CHECK(!TEXT("S00F000068656C6C6F202020202000003C\nS9030000FC\n\n"));
	CHECK(!TEXT("00 11 22 33\n  aabbccdd\r\n"));
	/* One line of anything else makes it text. */
	CHECK(TEXT(":10010000214601360121470136007EFE09D2190140\n# a comment\n"));
	CHECK(TEXT("deadbeef\nmode=1\n"));
}

TEST(text_size_bound)
{
	size_t n = FW_SELF_SOURCE_MAX + 1;
	char *big = malloc(n);

	CHECK(big != NULL);
	memset(big, 'x', n);
	CHECK(!fw_blob_is_text(big, n));
	CHECK(fw_blob_is_text(big, n - 1));
	free(big);
}
