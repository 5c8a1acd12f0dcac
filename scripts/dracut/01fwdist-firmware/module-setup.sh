#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dracut module: dracut puts into the initramfs the firmware that each
# kernel module it installs requests (dracut-install, also as NAME.xz and
# NAME.zst and through links), looking in DRACUT_FIRMWARE_PATH, which is
# fw_dir: by default /lib/firmware alone. This module adds /usr/lib/firmware
# (trixie's packages) after /lib/firmware (bookworm's), each in the kernel's
# order (updates/VERSION, updates, VERSION, the top), keeping what fw_dir
# already has first: on a merged-/usr system the two are one directory, on
# a split one a name may be in either, and the first directory that has it
# serves it. It runs first (01): before any module installs kernel modules,
# and before dracut installs the --add-drivers and --drivers ones.
# Installed as /usr/lib/dracut/modules.d/01fwdist-firmware/module-setup.sh.

check() {
	return 0
}

depends() {
	return 0
}

# fw_dir and DRACUT_FIRMWARE_PATH (what dracut-install reads), both
# directories added. dracut sources this file into its own shell, so the
# change holds for the rest of the build.
_fwdist_firmware_path() {
	local top dir path=":${DRACUT_FIRMWARE_PATH-}:"
	for top in /lib/firmware /usr/lib/firmware; do
		for dir in "$top/updates/$kernel" "$top/updates" "$top/$kernel" "$top"; do
			dir=${dracutsysrootdir-}$dir
			[[ $path == *":$dir:"* ]] || path+="$dir:"
		done
	done
	while [[ $path == *::* ]]; do path=${path//::/:}; done
	path=${path#:}
	path=${path%:}
	export DRACUT_FIRMWARE_PATH=$path
	fw_dir=${path//:/ }
}

# With --kernel-only dracut calls installkernel() alone; else install() and
# then installkernel(), module by module.
install() {
	_fwdist_firmware_path
	return 0
}

installkernel() {
	_fwdist_firmware_path
	return 0
}
