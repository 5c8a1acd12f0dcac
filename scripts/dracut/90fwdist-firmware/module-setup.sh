#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# dracut module: put into the initramfs the firmware that the kernel modules
# in it request, also in its compressed forms (NAME.xz, NAME.zst) and
# through links (inst copies a link and its target). Installed as
# /usr/lib/dracut/modules.d/90fwdist-firmware/module-setup.sh.

check() {
	return 0
}

depends() {
	return 0
}

install() {
	local m ko fw dir s found
	# installkernel of every module has run: the modules are in $initdir.
	for m in "$initdir/lib/modules/$kernel" "$initdir/usr/lib/modules/$kernel"; do
		[[ -d $m ]] && find "$m" -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst' -o -name '*.ko.gz'
	done | sort -u | while IFS= read -r ko; do
		modinfo -F firmware "$ko" 2>/dev/null | while IFS= read -r fw; do
			for dir in ${fw_dir:-/lib/firmware/updates/$kernel /lib/firmware/updates /lib/firmware/$kernel /lib/firmware}; do
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
