# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Beside Debian's own firmware packages, for tests/debian/real (bookworm)
# and tests/debian/real-trixie: sourced after tests/lib.sh.
#   replaces_from_debs LIST.json SUITE DEB...
#                      manifests/replaces from Debian's own assignment of the
#                      names: each package of the split (fwdist list --json)
#                      that holds names a Debian package of another name
#                      ships takes: it, in SUITE
#   switch_cycle SUITE DEB FWDIR
#                      in a fresh minbase root of SUITE with Debian's DEB
#                      installed, apt switches to fwdist's packages from the
#                      signed repository $repo/out/repo (Signed-By) and back,
#                      while tests/debian/reader loads every name both ship
#                      from the root's FWDIR: results real-switch,
#                      real-switch-back, real-switch-purge (SUITE appended
#                      but for bookworm)
# Globals: $work, $here, $top, $repo (the packager's checkout, built at
# $version), $fw.

# apt in the scratch roots reads only fwdist's repository: they have no network.
aptopts=(-o Dir::Etc::sourcelist=/etc/apt/sources.list.d/fwdist.sources -o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0)

# The firmware names of a .deb's listing (dpkg-deb -c on stdin), files and
# links, below (usr/)lib/firmware.
_deb_names() {
	python3 -c '
import re, sys
for l in sys.stdin:
    m = re.match(r"\./(?:usr/)?lib/firmware/(.*)", l.rstrip("\n").split(None, 5)[5].split(" -> ")[0])
    if m and not m.group(1).endswith("/"):
        print(m.group(1))'
}

replaces_from_debs() {
	local list=$1 suite=$2 deb
	shift 2
	for deb in "$@"; do
		dpkg-deb -c "$deb" | _deb_names | sed "s|^|$(dpkg-deb -f "$deb" Package) |"
	done | python3 -c '
import json, sys
pkg = {e["name"]: e.get("package") for e in json.load(open(sys.argv[1]))}
takes = {}
for l in sys.stdin:
    d, n = l.rstrip("\n").split(" ", 1)
    if pkg.get(n) not in (None, d):
        takes.setdefault(pkg[n], set()).add(d)
print("# fwdist replaces 1")
print("# From Debian'"'"'s own packages of these names (tests/debian/switch-lib.sh).")
for p in sorted(takes):
    print("%s %s %s" % (p, sys.argv[2], " ".join("takes:" + d for d in sorted(takes[p]))))' "$list" "$suite"
}

# _switch TAG COMMAND...: COMMAND in the root $sw while the reader loads
# every name of $work/names; its report is $work/reader-TAG.
_switch() {
	local tag=$1 pid rc
	shift
	"$here/reader" "$sw$fwdir" "$work/names" "$work/stop-$tag" "$work/reader-$tag" &
	pid=$!
	while [ ! -e "$work/reader-$tag.started" ] && kill -0 $pid 2>/dev/null; do sleep 0.1; done
	chroot "$sw" env DEBIAN_FRONTEND=noninteractive "$@" >"$work/switch-$tag.log" 2>&1
	rc=$?
	touch "$work/stop-$tag"
	wait $pid
	return $rc
}
_missing() { sed -n 's/^rounds .* missing \([0-9]*\)$/\1/p' "$work/reader-$1"; }

switch_cycle() {
	local suite=$1 deb=$2 fwdir=$3 sw=$work/root-switch r=0 key d dversion takers left tag= want
	[ "$suite" = bookworm ] || tag=-$suite
	d=$(dpkg-deb -f "$deb" Package)
	dversion=$(dpkg-deb -f "$deb" Version)
	export GNUPGHOME=$work/gnupg
	at_exit 'gpgconf --kill gpg-agent 2>/dev/null'
	key=$("$top/tests/repo/gpgkey" "$GNUPGHOME" archive ed25519 1y) || r=1
	(cd "$repo" && SUITE=$suite SIGN_KEY=$key REPO_URL=file:/srv/fwdist scripts/build-repo) >"$work/repo.log" 2>&1 ||
		{ r=1; note "$(tail -5 "$work/repo.log")"; }
	"$here/root" minbase "$sw" "$suite" >"$work/root-switch.log" 2>&1 || { r=1; note "$(tail -5 "$work/root-switch.log")"; }
	cp "$deb" "$sw/tmp/debian.deb"
	mkdir -p "$sw/srv"
	cp -a "$repo/out/repo" "$sw/srv/fwdist"
	cp "$repo/out/repo/fwdist-archive-keyring.pgp" "$sw/usr/share/keyrings/"
	cp "$repo/out/repo/fwdist.sources" "$sw/etc/apt/sources.list.d/"
	grep -rn trusted "$sw/etc/apt/sources.list.d/" && r=1
	# The names Debian's package ships that fwdist's packages ship too.
	dpkg-deb -c "$deb" | _deb_names | python3 -c '
import json, sys
have = {e["name"] for e in json.load(open(sys.argv[1])) if e.get("package")}
print("".join(n for n in sys.stdin if n.rstrip("\n") in have), end="")' "$work/list0.json" >"$work/names"
	[ -s "$work/names" ] || { r=1; note "fwdist ships no name of $d"; }
	takers=$(awk -v d="takes:$d" -v s="$suite" '!/^#/ && ($2 == s || $2 == "*") {
		for (i = 3; i <= NF; i++) if ($i == d) print $1 }' "$repo/manifests/replaces" 2>/dev/null | tr '\n' ' ')
	takers=${takers% }
	# What the user asks for: fwdist's package of Debian's name (its
	# Pre-Depends bring the packages that take names from it), else those.
	want=$takers
	grep -q "^Package: $d\$" "$repo/debian/control" && want=$d
	mount -t proc proc "$sw/proc" && at_exit "umount '$sw/proc' 2>/dev/null"
	chroot "$sw" dpkg -i /tmp/debian.deb >"$work/switch-debian.log" 2>&1 || { r=1; note "$(tail -5 "$work/switch-debian.log")"; }
	chroot "$sw" apt-get "${aptopts[@]}" update >"$work/switch-update.log" 2>&1 || { r=1; note "$(tail -5 "$work/switch-update.log")"; }
	# shellcheck disable=SC2086 # one word per package
	_switch fwd apt-get "${aptopts[@]}" install -y $want || { r=1; note "$(tail -10 "$work/switch-fwd.log")"; }
	note "$d $dversion to fwdist's ($want): $(tail -1 "$work/reader-fwd")"
	[ "$(_missing fwd)" = 0 ] || { r=1; note "$(head -5 "$work/reader-fwd")"; }
	grep -q 'trying to overwrite' "$work/switch-fwd.log" && r=1
	for p in $want $takers; do
		[ "$(chroot "$sw" dpkg-query -W -f '${Version}' "$p" 2>/dev/null)" = "$version" ] || { r=1; note "$p is not at $version"; }
	done
	# shellcheck disable=SC2086 # one word per package
	chroot "$sw" dpkg --verify $want $takers >"$work/switch-verify.log" 2>&1 || r=1
	[ -s "$work/switch-verify.log" ] && { r=1; note "dpkg --verify:" "$(head -5 "$work/switch-verify.log")"; }
	# fwdist verify on the merged-/usr root, no --firmware-dir: it finds
	# the packaged install in the suite's directory and says which.
	# shellcheck disable=SC2046 # one option per package
	"$fw" -C "$repo" verify --destdir "$sw" $(printf -- '--package %s ' $want $takers) >"$work/switch-fwverify.log" 2>&1 ||
		{ r=1; note "$(head -5 "$work/switch-fwverify.log")"; }
	grep -q "$fwdir" "$work/switch-fwverify.log" || { r=1; note "verify did not name $fwdir"; }
	result $r "real-switch$tag"
	grep -E 'Unpacking|Replacing files|Replaced by' "$work/switch-fwd.log" | note

	r=0
	_switch back1 apt-get install -y --allow-downgrades /tmp/debian.deb || { r=1; note "$(tail -10 "$work/switch-back1.log")"; }
	note "back to Debian's $dversion${takers:+, $takers kept}: $(tail -1 "$work/reader-back1")"
	[ "$(_missing back1)" = 0 ] || { r=1; note "$(head -5 "$work/reader-back1")"; }
	if [ -n "$takers" ]; then
		_switch back2 sh -c "apt-get purge -y $takers && apt-get install -y --reinstall /tmp/debian.deb" ||
			{ r=1; note "$(tail -10 "$work/switch-back2.log")"; }
		note "$takers purged, Debian's reinstalled: $(tail -1 "$work/reader-back2")"
	fi
	"$here/reader" "$sw$fwdir" "$work/names" /dev/null "$work/reader-end"
	[ "$(_missing end)" = 0 ] || { r=1; note "names still missing:" "$(head -5 "$work/reader-end")"; }
	[ "$(chroot "$sw" dpkg-query -W -f '${Version}' "$d" 2>/dev/null)" = "$dversion" ] || r=1
	chroot "$sw" dpkg --verify "$d" >"$work/switch-verify2.log" 2>&1 || r=1
	[ -s "$work/switch-verify2.log" ] && { r=1; note "dpkg --verify:" "$(head -5 "$work/switch-verify2.log")"; }
	chroot "$sw" dpkg-query -W -f '${db:Status-Abbrev} ${Package} ${Version}\n' 2>/dev/null | grep -F "$version" && r=1
	left=$(cd "$sw" && find usr/lib/firmware/.fwdist usr/lib/firmware/LICENSES 2>/dev/null
		find usr/share/metainfo -name 'org.fwdist.*' 2>/dev/null)
	[ -z "$left" ] || { r=1; note "left of fwdist's:" "$(echo "$left" | head -5)"; }
	result $r "real-switch-back$tag"

	r=0
	chroot "$sw" dpkg --purge "$d" >"$work/switch-purge.log" 2>&1 || { r=1; note "$(tail -5 "$work/switch-purge.log")"; }
	left=$(cd "$sw" && find usr/lib/firmware ! -type d 2>/dev/null)
	[ -z "$left" ] || { r=1; note "left behind:" "$(echo "$left" | head -5)"; }
	umount "$sw/proc"
	result $r "real-switch-purge$tag"
}
