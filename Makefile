# SPDX-License-Identifier: GPL-2.0-or-later
# fwdist: build the tools, check the tree, install it, run the tests.

PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
# Where bash-completion loads a command's completion from (it looks under
# every XDG_DATA_DIRS, /usr/local/share and /usr/share by default).
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
FIRMWAREDIR ?= /lib/firmware
DESTDIR     ?=

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -std=c11 -Wall -Wextra -Wshadow -Wformat=2 -Wvla -Wpointer-arith \
           -Wstrict-prototypes -Wmissing-prototypes
ifeq ($(WERROR),1)
WARN    += -Werror
endif
ifeq ($(FUZZ),1)
# libFuzzer (clang): the library instrumented for coverage, ASan and UBSan.
CC       = clang
SANFLAGS = -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
           -fno-sanitize-recover=all
BUILD   ?= build-fuzz
else ifeq ($(SANITIZE),1)
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
BUILD   ?= build-san
else
BUILD   ?= build
endif
# libkmod: the modalias lookup of `fwdist missing` and `why` (hardware.c).
KMOD_CFLAGS := $(shell pkg-config --cflags libkmod 2>/dev/null)
KMOD_LIBS   := $(shell pkg-config --libs libkmod 2>/dev/null || echo -lkmod)
ALL_CPPFLAGS = -D_GNU_SOURCE -Isrc/lib $(KMOD_CFLAGS) $(CPPFLAGS)
ALL_CFLAGS   = $(WARN) $(CFLAGS) $(SANFLAGS) -pthread
LIBS         = -lcrypto -llzma -lzstd $(KMOD_LIBS) -pthread

ifeq ($(V),1)
Q =
else
Q = @
endif

LIB_SRC  = $(sort $(wildcard src/lib/*.c))
CMD_SRC  = $(sort $(wildcard src/fwdist.c src/cli.c src/cmd-*.c))
LIB_OBJ  = $(LIB_SRC:src/%.c=$(BUILD)/%.o)
CMD_OBJ  = $(CMD_SRC:src/%.c=$(BUILD)/%.o)
UNIT_SRC = $(sort $(wildcard tests/unit/test-*.c))
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

# TOOL is what this checkout builds; FWDIST is the fwdist the rules run
# (the tree's firmware, debian-files, the tests), TOOL unless given on the
# command line. A copy of the checkout (make dist's, a test's) runs an
# fwdist built elsewhere with FWDIST=PATH, and nothing here ever rebuilds
# that PATH: it was rebuilt from the copy's objects, under the suites
# running it.
TOOL     = $(BUILD)/fwdist
FWDIST   = $(TOOL)

.PHONY: all tools firmware check-tree check test unit cases clean install uninstall install-tools \
	deps test-deps bootstrap fuzz fuzz-build fuzz-lib lib check-kernel check-modules check-kernel-build deb repo dist check-debian \
	bench deps-cycles cmd-exports quick debian-files

all: tools firmware

tools: $(TOOL)

# Each object depends on the headers it includes, as the compiler lists
# them (-MMD, into OBJ.d beside it; -MP: a header since removed is no
# error): touching one header rebuilds only the files that include it.
# An object without its .d (built before this rule, or the .d lost) is
# rebuilt: the .d's empty rule below makes it newer than any object.
$(BUILD)/%.o: src/%.c $(BUILD)/%.d
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/libfwdist.a: $(LIB_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

# Linked beside and renamed into place: the linker writes its output
# non-executable until it is done; a program running the tool meanwhile
# would see "Permission denied".
$(TOOL): $(CMD_OBJ) $(BUILD)/libfwdist.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@.tmp $(CMD_OBJ) $(BUILD)/libfwdist.a $(LIBS) && mv -f $@.tmp $@

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libfwdist.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CPPFLAGS) -Itests/unit $(ALL_CFLAGS) -MMD -MP $(LDFLAGS) -o $@ $< $(BUILD)/libfwdist.a $(LIBS)

DEP_FILES = $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d)
$(DEP_FILES):
.PRECIOUS: $(DEP_FILES)
-include $(wildcard $(DEP_FILES) $(UNIT_BIN:=.d))

# The picture of a tree that tests/lib.sh's snapshot takes with find,
# sha256sum and sort, in one process (tests/snapshot.c says why); the cases
# use it when FWDIST_SNAPSHOT names it. Test equipment: never sanitized.
SNAPSHOT = $(BUILD)/snapshot
$(SNAPSHOT): tests/snapshot.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) -D_GNU_SOURCE $(LDFLAGS) -o $@ $< -lcrypto

# ---- fuzzing (libFuzzer) ----
# One binary per parser: tests/fuzz/fuzz-{text,image}.c with -DFUZZ_<T>, and
# one file each for the others.
FUZZ_TEXT  = whence sums policy split recipes verdicts modmap licmap hwlog cis
FUZZ_IMAGE = fwimage ihex ihex_bin modinfo elf
# replaces: manifests/replaces with the split it is checked against;
# metainfo: the metainfo writer, its XML checked for well-formedness;
# sysfs: the sysfs walk.
FUZZ_BINS  = $(addprefix build-fuzz/fuzz/fuzz-,$(FUZZ_TEXT) $(FUZZ_IMAGE) tree replaces metainfo sysfs)
FUZZ_SECONDS ?= 60

define fuzz_rule
build-fuzz/fuzz/fuzz-$(1): tests/fuzz/$(2) fuzz-lib
	@mkdir -p $$(dir $$@)
	@$$(if $$(Q),echo "  FUZZ    $$@")
	$$(Q)clang $$(ALL_CPPFLAGS) -DFUZZ_$$(shell echo $(1) | tr a-z A-Z) $$(WARN) -O1 -g \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -pthread \
		-o $$@ $$< build-fuzz/libfwdist.a $$(LIBS)
endef
$(foreach t,$(FUZZ_TEXT),$(eval $(call fuzz_rule,$(t),fuzz-text.c)))
$(foreach t,$(FUZZ_IMAGE),$(eval $(call fuzz_rule,$(t),fuzz-image.c)))
$(eval $(call fuzz_rule,tree,fuzz-tree.c))
$(eval $(call fuzz_rule,replaces,fuzz-replaces.c))
$(eval $(call fuzz_rule,metainfo,fuzz-metainfo.c))
$(eval $(call fuzz_rule,sysfs,fuzz-sysfs.c))

fuzz-lib:
	@$(MAKE) -s FUZZ=1 lib

lib: $(BUILD)/libfwdist.a

fuzz-build: $(FUZZ_BINS)

# Every target for FUZZ_SECONDS each (make fuzz FUZZ_SECONDS=1800).
fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run

# ---- free firmware, built from source in the tree ----
# Each recipe of manifests/build (fwdist(1): the tools, sources, commands
# and outputs of each free blob) runs in fwdist build's sandbox; --write
# puts each output into firmware/, and the verdicts say whether each is
# byte for byte what manifests/checksums pins (fwdist check checks that
# too). A tree without manifests/build (one imported from upstream with no
# recipes) builds nothing here.
firmware: $(FWDIST)
	@$(if $(Q),echo "  BUILD   manifests/build")
	$(Q)if [ -f manifests/build ]; then \
		out=$$($(FWDIST) -C . build --write 2>&1) || { printf '%s\n' "$$out" >&2; exit 1; }; \
		printf '%s\n' "$$out" | $(if $(Q),tail -n 1,cat); \
	fi

# debian/control and debian/copyright are generated from the tree (WHENCE
# and manifests/: the package split, the licences): after an import into
# this checkout they follow the new release. fwdist check refuses them stale.
debian-files: tools firmware
	$(FWDIST) -C . debian control -o debian/control
	$(FWDIST) -C . debian copyright -o debian/copyright

check-tree: tools firmware debian-files
	$(FWDIST) -C . check

# ---- set-up ----
deps:
	scripts/install-deps build

test-deps:
	scripts/install-deps test

# The README's first command: everything from a fresh Debian 12 clone, up
# to the Debian packages in out/.
bootstrap: deps
	$(MAKE) all
	$(MAKE) check-tree
	$(MAKE) deb

# ---- Debian packages ----
# dpkg-buildpackage -us -uc -b in a scratch copy of the tree: the tools
# package and one firmware package per line of manifests/packages, into
# out/. DEB_BUILD_OPTIONS=nocheck skips the tests, fwdist-compress=xz|zstd
# stores the blobs compressed. SUITE is the Debian release the packages are
# for (passed on as DEB_BUILD_OPTIONS=fwdist-suite=SUITE): trixie (the
# default) and forky install the firmware under /usr/lib/firmware, bookworm
# under /lib/firmware; debian/rules refuses any other. The tools' compile
# goes through ccache when it is installed, its cache in build/ccache
# (scripts/build-deb).
SUITE ?= trixie

deb: debian-files
	SUITE='$(SUITE)' scripts/build-deb

# An APT repository of those packages (the ones this make deb built, by the
# .changes out/last-build names; their fields checked) in out/repo (suite SUITE, default
# trixie, the packages built for it): pool/, dists/SUITE/{main,non-free-firmware}/binary-all/Packages(.xz),
# Release signed as InRelease and Release.gpg with the packager's key
# (SIGN_KEY=FINGERPRINT, from GNUPGHOME or ~/.gnupg; checked before the
# packages are built, and without one it stops and says how to make one),
# the keyring package fwdist-archive-keyring, fwdist.sources with Signed-By
# (URIs: REPO_URL, default file:// of out/repo), and Contents-firmware at
# the top, as Debian's installer reads it (paths under the suite's
# firmware directory).
repo:
	SUITE='$(SUITE)' scripts/build-repo --check-key
	$(MAKE) deb
	SUITE='$(SUITE)' scripts/build-repo

# Two source packages (.dsc + tarball) into out/dist: fwdist (tools, free
# firmware with its sources; for main) and fwdist-nonfree (the non-free
# blobs, built with the tools package).
dist: tools firmware debian-files
	FWDIST=$(abspath $(FWDIST)) scripts/build-dist

# ---- tests ----
unit: $(UNIT_BIN)
	@tests/run-unit $(UNIT_BIN)

# Cases run JOBS at a time (default: one per CPU); each has its own scratch tree.
JOBS ?= $(shell nproc 2>/dev/null || echo 1)

cases: tools firmware $(SNAPSHOT)
	@FWDIST=$(abspath $(FWDIST)) FWDIST_SNAPSHOT=$(abspath $(SNAPSHOT)) tests/run-cases -j $(JOBS)

# No two library files may depend on each other, even through others: the
# graph of which object uses which one's symbols (nm) has no cycle.
deps-cycles: lib
	@tests/deps-cycles $(LIB_OBJ)

# Commands compute nothing: no command object gives another a function.
cmd-exports: tools
	@tests/cmd-exports $(CMD_OBJ) $(LIB_OBJ)

# The loop to run after each edit (well under a minute on 2 cores): unit
# tests, every case (JOBS at a time), the tree check, no dependency cycle,
# no command giving another file anything (commands compute nothing),
# the runners' own checks, every option documented, the bash completion
# and, where reuse is installed, `reuse lint` (as tests/sbom/run does).
# Every part runs; the exit says whether all passed. `make test` is the
# whole suite.
quick: tools firmware $(UNIT_BIN) $(SNAPSHOT)
	@s=0; \
	tests/run-unit $(UNIT_BIN) || s=1; \
	FWDIST=$(abspath $(FWDIST)) FWDIST_SNAPSHOT=$(abspath $(SNAPSHOT)) tests/run-cases -j $(JOBS) || s=1; \
	$(FWDIST) -C . check && echo "check-tree: ok" || s=1; \
	tests/deps-cycles $(LIB_OBJ) || s=1; \
	tests/cmd-exports $(CMD_OBJ) $(LIB_OBJ) || s=1; \
	FWDIST=$(abspath $(FWDIST)) FWDIST_SNAPSHOT=$(abspath $(SNAPSHOT)) BUILD=$(BUILD) tests/runners || s=1; \
	FWDIST=$(abspath $(FWDIST)) tests/options-documented || s=1; \
	FWDIST=$(abspath $(FWDIST)) tests/options-parse || s=1; \
	tests/man-render || s=1; \
	FWDIST=$(abspath $(FWDIST)) tests/completion/run || s=1; \
	if command -v reuse >/dev/null; then \
		reuse lint -q 2>/dev/null && echo "reuse-lint: ok" || { reuse lint | sed -n '/BAD LICENSES/,/^# SUMMARY/p'; s=1; }; \
	fi; \
	if [ $$s = 0 ]; then echo "quick: all passed"; else echo "quick: FAILED (see above)"; fi; \
	exit $$s

# The suites of tests/suites (the one list, which tests/run-all reads too):
# each of the group runs, one after the other; the exit says whether all passed.
check: tools firmware unit cases check-tree
	@FWDIST=$(abspath $(FWDIST)) tests/run-suites check

# The packaging alone: builds, lintian, AppStream, reproducibility, a vendor
# split; and a real upstream release through the packager's workflow,
# beside Debian's own packages in bookworm and trixie.
check-debian: tools firmware
	@FWDIST=$(abspath $(FWDIST)) tests/run-suites debian

check-kernel: tools firmware
	tests/kernel/selftest
	FWDIST=$(abspath $(FWDIST)) tests/kernel/run

# Module-like objects against kmod's modinfo (fast), and a real kernel build
# embedding the tree's blobs through `fwdist kconfig` (slow: linux-source).
check-modules: tools firmware
	@FWDIST=$(abspath $(FWDIST)) tests/kernel/modules

check-kernel-build: tools firmware
	FWDIST=$(abspath $(FWDIST)) tests/kernel/build

# The README's second command: the whole suite, as CI runs it.
test: test-deps
	tests/run-all

# ---- benchmark ----
# fwdist against sha256sum, openssl, cp -a, rsync, zstd, xz, hardlink and
# dpkg --verify on Debian 12's firmware tree (fetched once into
# /var/cache/fwdist-bench); the table, and TSV and JSON copies in out/bench/.
# As root, about 10 minutes on 2 cores; BENCH_TREE, BENCH_RUNS, ... are
# described in tests/bench/run. Then tests/bench/deb: make deb of that tree
# with the upstream WHENCE of its time against dpkg-deb --build of the same
# files, and each package's size beside Debian 12's of the same name.
# Installs what it needs first, as bootstrap does.
bench:
	scripts/install-deps bench
	$(MAKE) tools
	FWDIST=$(abspath $(FWDIST)) tests/bench/run
	FWDIST=$(abspath $(FWDIST)) tests/bench/deb

# ---- install ----
# GNU conventions: DESTDIR, PREFIX, FIRMWAREDIR; COMPRESS=none|xz|zstd, DEDUP=1,
# PACKAGE=name to install one package of the split.
COMPRESS ?= none
DEDUP    ?=
PACKAGE  ?=
# No DESTDIR: the live system, which fwdist takes without --destdir (it
# refuses an empty one, the mark of an unset variable).
FWDIST_INSTALL_OPTS = $(if $(DESTDIR),--destdir "$(DESTDIR)") \
	$(if $(FIRMWAREDIR),--firmware-dir "$(FIRMWAREDIR)") \
	$(if $(PACKAGE),--package "$(PACKAGE)")

install: tools firmware
	$(FWDIST) -C . install $(FWDIST_INSTALL_OPTS) --compress=$(COMPRESS) $(if $(DEDUP),--dedup)
	$(FWDIST) -C . verify $(FWDIST_INSTALL_OPTS) --ignore-extra

uninstall: tools
	$(FWDIST) -C . uninstall $(FWDIST_INSTALL_OPTS)

install-tools: tools
	install -D -m 0755 $(FWDIST) "$(DESTDIR)$(BINDIR)/fwdist"
	install -D -m 0644 src/fwdist.1 "$(DESTDIR)$(MANDIR)/man1/fwdist.1"
	install -D -m 0644 src/fwimage.5 "$(DESTDIR)$(MANDIR)/man5/fwimage.5"
	install -D -m 0644 scripts/bash-completion/fwdist "$(DESTDIR)$(BASHCOMPDIR)/fwdist"
	install -D -m 0755 scripts/initramfs-tools/zz-fwdist-firmware \
		"$(DESTDIR)$(PREFIX)/share/initramfs-tools/hooks/zz-fwdist-firmware"
	install -D -m 0755 scripts/dracut/01fwdist-firmware/module-setup.sh \
		"$(DESTDIR)$(PREFIX)/lib/dracut/modules.d/01fwdist-firmware/module-setup.sh"

clean:
	rm -rf build build-san build-fuzz out
