/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests of hardware.c: the kernel log's lines and /dev/kmsg records, a walk of a small device tree. */
#include "hardware.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#include "unit.h"

static bool parse(const char *msg, const char *want_name, const char *want_who)
{
	const char *n, *w;
	size_t nl, wl;

	if (!fw_hw_log_parse(msg, strlen(msg), &n, &nl, &w, &wl))
		return want_name == NULL;
	return want_name && strlen(want_name) == nl && memcmp(n, want_name, nl) == 0 &&
	       strlen(want_who) == wl && memcmp(w, want_who, wl) == 0;
}

TEST(log_parse)
{
	CHECK(parse("[    4.101] iwlwifi 0000:00:14.3: Direct firmware load for "
		    "iwlwifi-so-a0-gf-a0-86.ucode failed with error -2",
		    "iwlwifi-so-a0-gf-a0-86.ucode", "iwlwifi 0000:00:14.3"));
	CHECK(parse("r8169 0000:03:00.0: Direct firmware load for rtl_nic/rtl8168h-2.fw failed "
		    "with error -2", "rtl_nic/rtl8168h-2.fw", "r8169 0000:03:00.0"));
	CHECK(parse("Direct firmware load for a.bin failed with error -2", "a.bin", ""));
	CHECK(parse("iwlwifi: firmware: direct-loading firmware a.bin", NULL, NULL));
	CHECK(parse("Direct firmware load for  failed", NULL, NULL));
	CHECK(parse("Direct firmware load for a.bin", NULL, NULL));
}

/* A text log: each name once, the first line kept; an unsafe name and an
 * overlong line are findings; the last line needs no newline. */
TEST(log_text)
{
	char path[] = "/tmp/fwdist-unit-log.XXXXXX";
	int fd = mkstemp(path);
	struct fw_hw h = { 0 };
	struct fw_diag d = { 0 };
	char big[FW_HW_LOG_LINE_MAX + 10];

	CHECK(fd >= 0);
	unlink(path);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\n';
	dprintf(fd, "x: Direct firmware load for a.bin failed with error -2\n");
	dprintf(fd, "y: Direct firmware load for a.bin failed with error -2\n");
	CHECK(write(fd, big, sizeof(big)) == (ssize_t)sizeof(big));
	dprintf(fd, "z: Direct firmware load for /etc/passwd failed with error -2\n");
	dprintf(fd, "w: Direct firmware load for b/c.bin failed with error -2");
	lseek(fd, 0, SEEK_SET);
	CHECK_EQ_INT(fw_hw_read_log(&h, fd, "log", false, &d), 0);
	close(fd);
	CHECK_EQ_INT((int)h.nlog, 2);
	CHECK_EQ_STR(h.log[0].name, "a.bin");
	CHECK_EQ_STR(h.log[0].who, "x");
	CHECK_EQ_INT((int)h.log[0].line, 1);
	CHECK_EQ_STR(h.log[1].name, "b/c.bin");
	CHECK_EQ_INT((int)h.log[1].line, 5);
	CHECK_EQ_INT((int)d.n, 2);
	CHECK_EQ_INT((int)d.v[0].line, 3);
	CHECK(strstr(d.v[0].text, "longer than"));
	CHECK_EQ_INT((int)d.v[1].line, 4);
	CHECK(strstr(d.v[1].text, "absolute"));
	fw_hw_free(&h);
	fw_diag_free(&d);
}

/* /dev/kmsg's records, one per read, through a socket that keeps them
 * apart; EAGAIN is the end. */
TEST(log_kmsg)
{
	static const char *const rec[] = {
		"6,100,4101000,-;iwlwifi 0000:00:14.3: Direct firmware load for i-86.ucode failed with error -2\n"
		" SUBSYSTEM=pci\n DEVICE=+pci:0000:00:14.3\n",
		"6,101,4101100,-;unrelated\n",
		"no semicolon\n",
		"3,102,4200000,-;Direct firmware load for regulatory.db failed with error -2\n",
	};
	struct fw_hw h = { 0 };
	struct fw_diag d = { 0 };
	int sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sv) == 0);
	for (size_t i = 0; i < FW_ARRAY_SIZE(rec); i++)
		CHECK(write(sv[1], rec[i], strlen(rec[i])) == (ssize_t)strlen(rec[i]));
	CHECK_EQ_INT(fw_hw_read_log(&h, sv[0], "/dev/kmsg", true, &d), 0);
	close(sv[0]);
	close(sv[1]);
	CHECK_EQ_INT((int)h.nlog, 2);
	CHECK_EQ_STR(h.log[0].name, "i-86.ucode");
	CHECK_EQ_STR(h.log[0].who, "iwlwifi 0000:00:14.3");
	CHECK_EQ_STR(h.log[1].name, "regulatory.db");
	CHECK_EQ_INT((int)h.log[1].line, 4);
	CHECK_EQ_INT((int)d.n, 0);
	fw_hw_free(&h);
	fw_diag_free(&d);
}

/* The walk: devices in byte order, symlinks not followed, a trailing
 * newline dropped, a copy of /sys walked from its devices/. */
TEST(scan)
{
	char dir[] = "/tmp/fwdist-unit-sys.XXXXXX";
	struct fw_hw h = { 0 };
	struct fw_diag d = { 0 };
	char *p;

	CHECK(mkdtemp(dir));
	p = fw_asprintf("mkdir -p %s/devices/b/c %s/devices/a && printf 'pci:v1\\n' >%s/devices/b/modalias"
			" && printf 'usb:v2' >%s/devices/b/c/modalias && ln -s ../b %s/devices/a/loop"
			" && ln -s ../b/modalias %s/devices/a/modalias",
			dir, dir, dir, dir, dir, dir);
	CHECK(p && system(p) == 0);
	free(p);
	CHECK_EQ_INT(fw_hw_scan(&h, dir, &d), 0);
	CHECK_EQ_INT((int)d.n, 0);
	CHECK_EQ_INT((int)h.ndev, 2);
	p = fw_asprintf("%s/devices/b", dir);
	CHECK(p && strcmp(h.dev[0].path, p) == 0);
	free(p);
	CHECK_EQ_STR(h.dev[0].modalias, "pci:v1");
	CHECK_EQ_STR(h.dev[1].modalias, "usb:v2");
	fw_hw_free(&h);
	p = fw_asprintf("rm -rf %s", dir);
	CHECK(p && system(p) == 0);
	free(p);
	fw_diag_free(&d);
}
