# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for the setup and after scripts of tests/cases/{install,verify,uninstall}-*:
#   . "$TESTS/install/case-lib.sh"   (run-cases sets $TESTS to tests/)
# (run-cases runs those scripts as `bash -eu tests/cases/NAME/SCRIPT` inside
# the case's copy of the tree, with $FWDIST, $TREE, $DEST and $WORK set.)
# snapshot DIR, the byte-for-byte picture of a tree, is tests/lib.sh's.
. "${BASH_SOURCE[0]%/*}/../lib.sh"

# Every entry below DIR (default $DEST) with type, mode and symlink text,
# relative to DIR, sorted: the exact shape of an installed tree.
listing() {
	(cd "${1:-$DEST}" && find . -printf '%y %m %p %l\n' | LC_ALL=C sort)
}


# Compare the listing of DIR (default $DEST) with the expected one on stdin.
# Equal texts are compared in the shell (a diff process less per call);
# a difference is diff's to show. (Neither text holds a NUL byte: names
# and here-documents cannot.)
expect_listing() {
	local want got
	listing "${1:-$DEST}" >"$WORK/listing.got"
	IFS= read -r -d '' want || :
	IFS= read -r -d '' got <"$WORK/listing.got" || :
	[ "$want" = "$got" ] || printf '%s' "$want" | diff -u - "$WORK/listing.got"
}

# No temporary file of an install (".LEAF.fwdist-XXXXXX") anywhere below DIR.
no_tmp() {
	local left
	left=$(find "${1:-$DEST}" -name '.*.fwdist-*')
	if [ -n "$left" ]; then
		echo "temporary files left: $left"
		return 1
	fi
}

# The tree copy is exactly as run-cases saw it before the command ran
# (run-cases records that picture in $WORK/before).
# (Equal pictures need no diff process: compared in the shell.)
tree_unchanged() {
	local a= b=
	snapshot "$TREE" >"$WORK/tree.now"
	if ! IFS= read -r -d '' a <"$WORK/before" && ! IFS= read -r -d '' b <"$WORK/tree.now" &&
		[ "$a" = "$b" ]; then
		return 0
	fi
	diff -u "$WORK/before" "$WORK/tree.now"
}

# FILE's content equals the tree's firmware/NAME.
same_as_blob() {
	cmp "$1" "$TREE/firmware/$2"
}

# Decompressed FILE (.xz or .zst) equals the tree's firmware/NAME.
xz_is_blob() {
	xz -dc <"$1" | cmp - "$TREE/firmware/$2"
}
zstd_is_blob() {
	zstd -qdc <"$1" | cmp - "$TREE/firmware/$2" # stdin: zstd ignores symlinks given by name
}

# The xz file has exactly one stream, checked with CRC32 (the kernel's xz_dec
# refuses the default CRC64).
xz_crc32() {
	local out
	out=$(xz -lvv "$1")
	grep -Eq '^ +Streams: +1$' <<<"$out" || { echo "$1: not one stream"; return 1; }
	grep -Eq '^ +Check: +CRC32$' <<<"$out" || { echo "$1: check is not CRC32:"; echo "$out"; return 1; }
}

# The zstd file is one frame whose header carries the content size BYTES.
zstd_sized() {
	local out
	out=$(zstd -lv "$1" 2>&1)
	grep -Eq '^# Zstandard Frames: 1$' <<<"$out" || { echo "$1: not one frame:"; echo "$out"; return 1; }
	grep -Eq "^Decompressed Size: .* \\($2 B\\)\$" <<<"$out" || { echo "$1: no content size $2:"; echo "$out"; return 1; }
}

# The licence text LICENSES/PKG/ID.txt below FWDIR (default $DEST/lib/firmware)
# equals the tree's LICENSES/ID.txt byte for byte.
same_as_licence() { # PKG ID [FWDIR]
	cmp "${3:-$DEST/lib/firmware}/LICENSES/$1/$2.txt" "$TREE/LICENSES/$2.txt"
}

# Every licence text below FWDIR/LICENSES/ (default $DEST/lib/firmware)
# equals the tree's text of that id; there is at least one.
licences_as_tree() { # [FWDIR]
	local fw=${1:-$DEST/lib/firmware} f n=0 rel
	while IFS= read -r -d '' f; do
		rel=${f#"$fw/LICENSES/"}
		same_as_licence "${rel%%/*}" "$(basename "$rel" .txt)" "$fw" || return 1
		n=$((n + 1))
	done < <(find "$fw/LICENSES" -type f -print0)
	[ $n -gt 0 ] || { echo "no licence text below $fw/LICENSES"; return 1; }
}

# Turn the tree at $TREE (the base fixture) into one where beta/sub, a
# directory of the fixture, is a link to beta/sub2: installed over the
# fixture, the install switches a directory to a link.
make_dir_to_link_tree() {
	mv "$TREE/firmware/beta/sub" "$TREE/firmware/beta/sub2"
	sed -i 's|^File: beta/sub/beta2.bin$|File: beta/sub2/beta2.bin\nLink: beta/sub -> sub2|' "$TREE/WHENCE"
	"$FWDIST" -C "$TREE" manifest >/dev/null
	"$FWDIST" -C "$TREE" check >/dev/null
}

# Run `fwdist -C $TREE install ARGS --destdir DEST --jobs 1` and SIGKILL it
# right after its first switch of a directory (renameat2 RENAME_EXCHANGE),
# before the first unlinkat that removes the old directory now under a
# temporary name. No timing: strace kills it at the N-th unlinkat, N counted
# by a first run on a copy of DEST (one thread: the count is exact).
kill_after_switch() { # DEST ARGS...
	local dest=$1 n rc=0
	shift
	rm -rf "$WORK/dry"
	cp -a "$dest" "$WORK/dry"
	# LeakSanitizer cannot run under ptrace.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -o "$WORK/dry.trace" \
		-e trace=renameat2,unlinkat "$FWDIST" -C "$TREE" install "$@" --destdir "$WORK/dry" --jobs 1
	n=$(awk '/unlinkat\(/ { n++; if (x) { print n; exit } } /RENAME_EXCHANGE/ { x = 1 }' "$WORK/dry.trace")
	[ -n "$n" ] || { echo "no directory switch in: $(cat "$WORK/dry.trace")"; return 1; }
	rm -rf "$WORK/dry" "$WORK/dry.trace"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -o /dev/null \
		-e trace=unlinkat -e inject=unlinkat:signal=KILL:when="$n" \
		"$FWDIST" -C "$TREE" install "$@" --destdir "$dest" --jobs 1 || rc=$?
	[ $rc = 137 ] || { echo "the install was not killed (exit $rc)"; return 1; }
}
