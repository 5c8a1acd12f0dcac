/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The hardware present: sysfs modaliases -> kernel modules (libkmod) -> firmware names. */
#ifndef FWDIST_HARDWARE_H
#define FWDIST_HARDWARE_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "modinfo.h"

/* Longest modalias read: sysfs shows an attribute in one page (4096
 * bytes); a longer file is no modalias, and is not read past this. */
#define FW_HW_MODALIAS_MAX 4096
/* Deepest device directory walked: /sys/devices nests about 20 deep; the
 * bound keeps a hostile copy from costing unbounded recursion. */
#define FW_HW_DEPTH_MAX 64
/* Longest kernel log line looked at: printk's records are at most 1024
 * bytes; a longer line is skipped, never split. */
#define FW_HW_LOG_LINE_MAX 8192

/* One device with a modalias. */
struct fw_hw_dev {
	char *path;       /* the device directory, as walked: ROOT/pci0000:00/0000:00:14.3 */
	char *modalias;
	char *driver;     /* the module of the driver bound to it, as its driver link
			   * says (driver/module's name, else the driver's with '-'
			   * read as '_'), or NULL: none bound */
	size_t *mods;     /* the modules that bind it: indexes into mods */
	size_t nmods;
};

/* A module of mods: bound to a device, or a dependency of one that is. */
struct fw_hw_mod {
	bool bound;       /* some device's modalias resolves to it */
	bool builtin;     /* built into the kernel: no file */
	bool log_only;    /* no module of the devices: the driver a kernel log line names */
	size_t *deps;     /* its direct dependencies: indexes into mods */
	size_t ndeps;
};

/* One name the kernel log says failed to load. */
struct fw_hw_log {
	char *name;
	char *who;        /* what the kernel prefixed: "iwlwifi 0000:00:14.3", or "" */
	char *file;       /* the log, as named */
	unsigned line;    /* its line (record for /dev/kmsg) */
};

struct fw_hw {
	struct fw_hw_dev *dev;  /* sorted by path */
	size_t ndev, cap_dev;
	/* Each module once: v[i].name, .path ("(builtin)" for one built in)
	 * and .firmware as modinfo gives them; mod[i] alongside. */
	struct fw_modset mods;
	struct fw_hw_mod *mod;
	size_t cap_mod;
	struct fw_hw_log *log;  /* each name once, first report kept */
	size_t nlog, cap_log;
	size_t bad;             /* devices or modules that could not be read (findings in d) */
	bool no_modules;        /* the kernel has no loadable modules (fw_hw_resolve) */
	char *release;          /* the modules directory's last component, resolved against
				 * (the kernel release whose firmware subdirectories the
				 * loader searches), or NULL */
	/* What fw_hw_gather says besides its findings. */
	char *moddir;           /* the modules directory resolved against */
	int log_error;          /* /dev/kmsg, read by default, could not be opened:
				 * -errno (-EINVAL: not the kernel's log device); no failure */
	bool partial;           /* devices, modules or the log asked for could not be read
				 * (findings in d): the answer is partial */
};

/* Where fw_hw_gather looks: sysfs (NULL: /sys/devices), the modules of
 * release (/lib/modules/R) or of moddir (neither: the running kernel's,
 * uname -r), the kernel log file log (NULL: /dev/kmsg, unless sysfs is a
 * saved copy: none then), or no log with no_log. */
struct fw_hw_opts {
	const char *sysfs, *release, *moddir, *log;
	bool no_log;
};

/* Walk dir, a /sys/devices tree or a saved copy of one (a copy of /sys,
 * holding devices/, is walked from its devices/), for each directory's
 * modalias file. No symlink is followed (sysfs's subsystem, driver and
 * bus links lead back into the tree), a directory met twice (a bind mount
 * of its parent) is not entered again, and nesting past FW_HW_DEPTH_MAX is
 * refused. A modalias longer than FW_HW_MODALIAS_MAX, not printable ASCII
 * or unreadable is a finding naming the file (counted in bad); the walk
 * goes on. 0, -ENOMEM, or -errno when dir cannot be opened (also in d). */
int fw_hw_scan(struct fw_hw *h, const char *dir, struct fw_diag *d);

/* Resolve each device's modalias to the modules that bind it, with
 * libkmod's lookup (what udev and modprobe use), against the modules
 * directory moddir (/lib/modules/R, depmod's indexes in it); then each
 * module and, recursively, its dependencies to the firmware names their
 * modinfo lists. A missing modules.alias.bin is -ENOENT with a finding
 * naming it (nothing resolved), unless moddir has no modules.dep either
 * (or is not there): the kernel then has no loadable modules (everything
 * built in, CONFIG_MODULES=n), no_modules is set, and each device's
 * driver (its driver link) is a module built in, bound to it, with the
 * firmware names modules.builtin.modinfo lists for it when moddir holds
 * that. A module whose information cannot be read is a finding (counted
 * in bad) and the rest goes on. 0, -ENOMEM or -errno. */
int fw_hw_resolve(struct fw_hw *h, const char *moddir, struct fw_diag *d);

/* The name and prefix of one kernel log message ("[ 1.5] iwlwifi
 * 0000:00:14.3: Direct firmware load for NAME failed with error -2"):
 * true with *name and *nlen (into msg) and *who, *wlen set, else false. */
bool fw_hw_log_parse(const char *msg, size_t len, const char **name, size_t *nlen,
		     const char **who, size_t *wlen);
/* Most of a kernel log read: the kernel's ring buffer is at most 32 MiB
 * (CONFIG_LOG_BUF_SHIFT 25), so twice that holds any dmesg saved whole;
 * the bound keeps a log that never ends (a device that streams, a file
 * still growing) from holding a command forever. */
#define FW_HW_LOG_MAX (64u << 20)

/* Open the kernel log file for fw_hw_read_log: a regular file (dmesg's
 * text), or the kernel's own /dev/kmsg, the character device 1:11 (*kmsg
 * set: read as records). Anything else is refused, -EINVAL with a finding
 * in d: /dev/zero or /dev/urandom never end, a FIFO or a terminal may
 * never say anything, and a container's /dev/kmsg that is a link to its
 * console is one of those. The kind is looked at before the open (a
 * device is not opened to see what it is) and again on what was opened,
 * without blocking. The descriptor, or -errno (also in d). */
int fw_hw_open_log(const char *file, bool *kmsg, struct fw_diag *d);

/* Read the kernel log from fd (named file, for messages): text lines, or
 * /dev/kmsg records with kmsg (read without blocking, to the end), and
 * keep each name that failed to load. An unsafe name (fw_name_problem) is
 * a finding and skipped; so is a line longer than FW_HW_LOG_LINE_MAX.
 * At most FW_HW_LOG_MAX bytes are read: -EFBIG past that, with a finding
 * (the names read so far kept). 0, -ENOMEM or -errno (a read error, in d). */
int fw_hw_read_log(struct fw_hw *h, int fd, const char *file, bool kmsg, struct fw_diag *d);

/* Fold the log's names into the modules: each name becomes a firmware
 * name of the module its line names (the first word before the device,
 * '-' read as '_'), so that it joins that module's alternatives; a driver
 * that is no module of the devices is added as log_only, with the log's
 * file as its path. 0 or -ENOMEM. */
int fw_hw_add_log_names(struct fw_hw *h);

/* The module named name, or -1. */
long fw_hw_find_mod(const struct fw_hw *h, const char *name);
/* Does bound module b need module m: m itself, or one of its dependencies
 * however deep? */
bool fw_hw_needs(const struct fw_hw *h, size_t b, size_t m);

/* The hardware present, in one call: the devices of o->sysfs (fw_hw_scan)
 * resolved against the modules directory o names (fw_hw_resolve, into
 * h->moddir), the names the kernel log says failed to load
 * (fw_hw_read_log) folded into their modules (fw_hw_add_log_names).
 * What cannot be read is a finding in d and sets h->partial; the rest goes
 * on. /dev/kmsg read by default and not readable (root's where
 * dmesg_restrict is set, or a container's stand-in) is no finding: its
 * error in h->log_error. 0, -ENOMEM, or -errno when the running kernel's
 * release cannot be known (uname; h->moddir NULL). */
int fw_hw_gather(struct fw_hw *h, const struct fw_hw_opts *o, struct fw_diag *d);

/* Did the kernel log name name? */
bool fw_hw_in_log(const struct fw_hw *h, const char *name);

/* The modules from bound module b down to m through dependencies, into
 * path (at most max); its length, or 0 when b does not lead to m. */
size_t fw_hw_dep_path(const struct fw_hw *h, size_t b, size_t m, size_t *path, size_t max);

void fw_hw_free(struct fw_hw *h);

#endif
