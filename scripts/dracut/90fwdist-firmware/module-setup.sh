#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dracut module: put into the initramfs the firmware that the kernel modules
# in it request, also in its compressed forms (NAME.xz, NAME.zst) and
# through links (inst copies a link and its target). Installed as
# /usr/lib/dracut/modules.d/90fwdist-firmware/module-setup.sh.
# The directories are dracut's (fw_dir) and then both firmware trees,
# /lib/firmware (bookworm's packages) and /usr/lib/firmware (trixie's), in
# the kernel's order: on a merged-/usr system the two are one directory,
# on a split one a name may be in either. The first directory that has a
# name serves it, so no name is added twice.

check() {
	return 0
}

depends() {
	return 0
}

install() {
	local m ko fw dir s found dirs fwdir
	dirs=" ${fw_dir//:/ } "
	for fwdir in /lib/firmware /usr/lib/firmware; do
		for dir in "$fwdir/updates/$kernel" "$fwdir/updates" "$fwdir/$kernel" "$fwdir"; do
			[[ $dirs == *" $dir "* ]] || dirs="$dirs$dir "
		done
	done
	# installkernel of every module has run: the modules are in $initdir.
	for m in "$initdir/lib/modules/$kernel" "$initdir/usr/lib/modules/$kernel"; do
		[[ -d $m ]] && find "$m" -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst' -o -name '*.ko.gz'
	done | sort -u | while IFS= read -r ko; do
		modinfo -F firmware "$ko" 2>/dev/null | while IFS= read -r fw; do
			for dir in $dirs; do
				found=
				for s in "" .xz .zst; do
					if [[ -e $dir/$fw$s ]]; then
						inst "$dir/$fw$s"
						found=1
					fi
				done
				[[ $found ]] && break
			done
		done
	done
	return 0
}
