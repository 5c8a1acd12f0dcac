# SPDX-License-Identifier: GPL-2.0-or-later
# The helpers every shell suite shares (tests/*/run, tests/install/*, ...):
#   . "$here/../lib.sh"            (bash; sets pass=0 fail=0 skip=0)
#   result RC NAME     "ok NAME" when RC is 0, else "FAIL NAME"; counted
#   skipped TEXT       "skip TEXT"; counted, neither a pass nor a failure
#   note TEXT...       detail under a result, each line indented by 4 spaces
#                      (no argument: the lines of stdin)
#   die_test TEXT...   note TEXT and return 1: the end of a failing t_* test
#   snapshot DIR       byte-for-byte picture of DIR: every path with its type,
#                      mode and link target, and every file's SHA-256, sorted
#                      (FWDIST_SNAPSHOT=build/snapshot takes the same one in
#                      one process: make builds it from tests/snapshot.c)
#   scratch NAME       $work: a new directory ${TMPDIR:-/tmp}/fwdist-NAME.XXXXXX,
#                      removed at exit (kept if KEEP is set)
#   at_exit COMMAND    run COMMAND (a string, evaluated then) at exit; the last
#                      registered runs first, so an umount registered after
#                      scratch runs before the directory is removed
#   real_firmware      the root of Debian 12's firmware-brcm80211,
#                      firmware-linux-free and firmware-misc-nonfree, unpacked
#                      (about 20 MB: real blobs that keep CI quick), fetched
#                      once with the corpus's fetch-debian-firmware into
#                      $FWDIST_REAL_CACHE (default /var/cache/fwdist-real);
#                      prints ROOT (its blobs in ROOT/lib/firmware), or fails
#                      with the fetch's last lines on stderr
#   checkout_copy DEST a copy of the checkout's files into DEST (created):
#                      scripts/checkout-files' list (tracked or untracked,
#                      not ignored, not deleted), as make deb copies it
#   finish SUITE       "SUITE: N passed, M failed[, K skipped]", appends
#                      "N M[ K]" to $FWDIST_RESULTS if set, exits 1 on a
#                      failure (0 otherwise)
# Output formats are what tests/run-all and CI read: do not change them.

# Sourced twice (tests/install/case-lib.sh sources it too): once is enough.
[ -z "${_fwdist_lib:-}" ] || return 0
_fwdist_lib=1
pass=0 fail=0 skip=0

result() {
	if [ "$1" = 0 ]; then pass=$((pass + 1)); echo "ok $2"; else fail=$((fail + 1)); echo "FAIL $2"; fi
}

skipped() { skip=$((skip + 1)); echo "skip $*"; }

# No sed: a note is printed where a test fails, often in a loop.
note() {
	local t
	if [ $# = 0 ]; then
		IFS= read -r -d '' t || :
		[ -n "$t" ] || return 0
		t=${t%$'\n'}
	else
		t="$*"
	fi
	printf '    %s\n' "${t//$'\n'/$'\n'    }"
}

die_test() { note "$*"; return 1; }

# Every path below DIR with its type, mode and link target, and every
# file's content digest. One walk (the comma runs both actions on each
# path), sorted: digest lines (hex first) sort apart from type lines (a
# letter and a space first). The same picture for the same bytes wherever
# the tree is, so a tree compares with a reference install elsewhere too.
# The pipeline is five processes, about 50 ms of CPU on a small VM;
# tests/runners checks that FWDIST_SNAPSHOT's picture is the same.
snapshot() {
	if [ -n "${FWDIST_SNAPSHOT:-}" ]; then "$FWDIST_SNAPSHOT" "$1"; return; fi
	(cd "$1" && find . \( -type f -exec sha256sum {} + \) , -printf '%y %m %p -> %l\n' |
		LC_ALL=C sort)
}

_at_exit=()
at_exit() { _at_exit+=("$1"); }
_run_at_exit() {
	local i
	for ((i = ${#_at_exit[@]} - 1; i >= 0; i--)); do eval "${_at_exit[i]}"; done
}
trap _run_at_exit EXIT
trap 'exit 130' INT TERM

# A test may leave a directory it cannot write: chmod only then.
_remove() { rm -rf "$1" 2>/dev/null || { chmod -R u+rwX "$1" 2>/dev/null; rm -rf "$1"; }; }

scratch() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/fwdist-$1.XXXXXX") || exit 1
	local q
	printf -v q %q "$work"
	at_exit "[ -n \"\${KEEP:-}\" ] || _remove $q"
}

real_firmware() {
	local cache=${FWDIST_REAL_CACHE:-/var/cache/fwdist-real}
	local corpus=${FWDIST_CORPUS:-$top/../shared/corpus}
	local pkgs="firmware-brcm80211 firmware-linux-free firmware-misc-nonfree"
	mkdir -p "$cache" || return 1
	# Two suites may ask at once: one fetches, the other waits for it.
	(
		flock 9
		[ "$(cat "$cache/.fetched" 2>/dev/null)" = "$pkgs" ] && exit 0
		# shellcheck disable=SC2086 # one word per package
		"$corpus/fetch-debian-firmware" "$cache" $pkgs >"$cache/fetch.log" 2>&1 ||
			{ tail -5 "$cache/fetch.log" >&2; exit 1; }
		echo "$pkgs" >"$cache/.fetched"
	) 9>"$cache/.lock" || return 1
	echo "$cache/root"
}

checkout_copy() {
	local top
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	mkdir -p "$1" &&
		(cd "$top" && scripts/checkout-files | tar --null -T - -cf -) | tar -C "$1" -xf -
}

finish() {
	local more=
	[ "$skip" = 0 ] || more=", $skip skipped"
	echo "$1: $pass passed, $fail failed$more"
	[ -z "${FWDIST_RESULTS:-}" ] || echo "$pass $fail${more:+ $skip}" >>"$FWDIST_RESULTS"
	[ "$fail" = 0 ]
	exit
}
