# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# A fixture generator's output, built once per run and copied after: for
# tests/hardware/fakekernel and mksysfs, which tests/run-cases calls in
# dozens of cases with the same few arguments (each build is several gcc
# and depmod runs, about 0.3 s). run-cases sets FWDIST_TEST_CACHE to a
# scratch directory of its run; unset, nothing is cached. The output of a
# generator must depend on its KEY alone.
#
#   cache_begin KEY OUT && exit 0   # OUT copied from the cache
#   ... build into "$cache_out" ...
#   cache_end                      # publishes the build, copies it to OUT
#
# Two cases may build one KEY at once: each builds its own, the first
# rename publishes, and both copy what was published. An OUT that exists
# already (a second call adding to it) is built in place, uncached.

cache_begin() {
	_cache_key='' _cache_tmp='' _cache_dest=$2 cache_out=$2
	[ -n "${FWDIST_TEST_CACHE:-}" ] && [ ! -e "$2" ] || return 1
	_cache_key=$FWDIST_TEST_CACHE/${1//\//_}
	if [ -d "$_cache_key" ]; then
		_cache_copy
		return 0
	fi
	# Below a directory of its own: OUT is made as the generator makes it.
	_cache_tmp=$(mktemp -d "$_cache_key.new.XXXXXX") || exit 1
	cache_out=$_cache_tmp/out
	return 1
}

cache_end() {
	[ -n "$_cache_key" ] || return 0
	mv -T "$cache_out" "$_cache_key" 2>/dev/null || :
	rm -rf "$_cache_tmp"
	_cache_copy
}

# OUT from the cache, its parent made as a generator's mkdir -p makes it.
_cache_copy() {
	case $_cache_dest in */*) mkdir -p "${_cache_dest%/*}" || exit 1 ;; esac
	cp -a "$_cache_key" "$_cache_dest" || exit 1
}
