# dar: build, test, bench, demo.  `make` builds libdar.a and every tool whose
# bin/<tool>.c exists; `make test` runs the C unit tests then the bats suite.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DELETE_ON_ERROR:

VERSION := 0.1.0
CC      ?= cc
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g -Wall -Wextra -Wno-unused-parameter -std=gnu11
PKGS    := msgpack libxxhash openblas jansson
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# common/ is grouped by layer (ARCHITECTURE.md §2) and tools/ holds the tools'
# bodies; every folder is on the include path so includes name only the file.
SRC_DIRS := common/base common/records common/graphs common/flow common/algos common/nn common/dar common/eval tools
HEADERS  := $(wildcard $(SRC_DIRS:%=%/*.h))
CPPFLAGS += $(SRC_DIRS:%=-I%) $(PKG_CFLAGS) -DDAR_VERSION='"$(VERSION)"'
LDFLAGS  += -Wl,--as-needed
LDLIBS   += $(PKG_LIBS) -lmetis -lglpk -lpthread -lm

# BUILD is where objects go; bin/ holds the normal tools, $(BUILD)/bin the
# sanitizer ones, so the two builds never mix.
BUILD   ?= build
BINDIR  ?= bin

COMMON_SRC := $(sort $(wildcard common/*/*.c tools/*.c))
COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/%.o)
TOOLS      := $(sort $(basename $(notdir $(wildcard bin/*.c))))
TOOL_BINS  := $(TOOLS:%=$(BINDIR)/%)
UNIT_SRC   := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/unit/%)
# Small C programs the bats tests and benchmarks drive (not user tools).
TESTTOOL_SRC  := $(sort $(wildcard tests/tools/*.c))
TESTTOOL_BINS := $(TESTTOOL_SRC:tests/tools/%.c=$(BUILD)/tools/%)
LIB        := $(BUILD)/libdar.a

.PHONY: all deps demo test test-unit test-bats test-asan bench clean fuzz fuzz-build test-fuzz
# Objects are not intermediate files to throw away: keep them so a rebuild is
# incremental and concurrent makes never see one vanish.
.SECONDARY: $(COMMON_OBJ) $(TOOLS:%=$(BUILD)/bin/%.o)
all: $(LIB) $(TOOL_BINS) $(TESTTOOL_BINS)

# Static pattern rules: $(BUILD)/tools/ holds both the objects of tools/*.c
# and the test helpers of tests/tools/*.c, so each rule names its targets.
$(COMMON_OBJ): $(BUILD)/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/bin/%.o: bin/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(LIB): $(COMMON_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BINDIR)/%: $(BUILD)/bin/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $< $(LIB) $(LDLIBS) -o $@

$(BUILD)/unit/%: tests/unit/%.c tests/unit/check.h $(LIB) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< $(LIB) $(LDLIBS) -o $@

$(TESTTOOL_BINS): $(BUILD)/tools/%: tests/tools/%.c $(LIB) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< $(LIB) $(LDLIBS) -o $@

# ---- dependencies (Debian 12) ----------------------------------------------
# One package a line, so that a change adds or removes a line.  `make deps
# DEB_EXTRA=...` asks for more; DEPS_DRY_RUN=1 prints what would be installed.
DEB_PACKAGES := \
  build-essential \
  pkg-config \
  libmsgpack-dev \
  libxxhash-dev \
  xxhash \
  libopenblas-dev \
  libjansson-dev \
  bats \
  bats-assert \
  bats-support \
  bats-file \
  parallel \
  python3-msgpack \
  python3-msgpack-numpy \
  python3-numpy \
  python3-networkx \
  python3-sklearn \
  python3-torch \
  python3-scipy \
  python3-matplotlib \
  gnuplot-nox \
  jq \
  libboost-graph-dev \
  g++ \
  bc \
  time \
  slurm-wlm \
  munge \
  procps \
  libmetis-dev \
  libglpk-dev \
  python3-gensim \
  clang \
  libclang-rt-14-dev \
  git
DEB_EXTRA ?=
deps:
	@bash scripts/deps.sh $(DEB_PACKAGES) $(DEB_EXTRA)

# ---- tests -------------------------------------------------------------------
test: all test-unit test-bats test-asan test-fuzz

test-unit: $(UNIT_BINS)
	@for t in $(UNIT_BINS); do ./$$t || exit 1; done

BATS_JOBS ?= 2
test-bats: all
	DAR_BIN=$(abspath $(BINDIR)) DAR_TOOLS=$(abspath $(BUILD)/tools) bats --tap --jobs $(BATS_JOBS) tests/

# The sanitizer build lives entirely under build/asan so it never replaces the
# normal tools; the same unit tests and bats suite run against it.
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ASAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1
test-asan:
	$(ASAN_ENV) $(MAKE) --no-print-directory BUILD=build/asan BINDIR=build/asan/bin CFLAGS='$(ASAN_FLAGS) -Wall -std=gnu11' \
	    LDFLAGS='-fsanitize=address,undefined' all test-unit
	$(ASAN_ENV) DAR_BIN=$(abspath build/asan/bin) DAR_TOOLS=$(abspath build/asan/tools) DAR_ASAN=1 bats --tap --jobs $(BATS_JOBS) tests/

# ---- fuzzing (tests/fuzz/README.md) -------------------------------------------
# libFuzzer harnesses, one per input surface, built with clang under
# build/fuzz (their own libdar.a, instrumented): `make fuzz FUZZ_SECONDS=N`
# runs each for N seconds, two at a time; `make test-fuzz` replays every
# corpus file and saved crash through its harness (part of `make test`).
FUZZ_CC      ?= clang
FUZZ_BUILD   := build/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS  := -O1 -g $(FUZZ_SAN) -Wall -std=gnu11
FUZZ_NAMES   := $(sort $(basename $(notdir $(wildcard tests/fuzz/*.c))))
FUZZ_BINS    := $(FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz/%)
FUZZ_SECONDS ?= 60
FUZZ_JOBS    ?= 2

fuzz-build:
	@$(MAKE) --no-print-directory -s -j2 BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) \
	    CFLAGS='$(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link' $(FUZZ_BUILD)/libdar.a
	@$(MAKE) --no-print-directory -s -j2 $(FUZZ_BINS)

$(FUZZ_BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/harness.h $(HEADERS) $(FUZZ_BUILD)/libdar.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_BUILD)/libdar.a $(LDLIBS) -o $@

fuzz: fuzz-build
	@FUZZ_BUILD=$(FUZZ_BUILD) bash tests/fuzz/run.sh fuzz $(FUZZ_SECONDS) $(FUZZ_JOBS) $(FUZZ_NAMES)

test-fuzz:
	@if ! command -v $(FUZZ_CC) >/dev/null; then echo "not ok 1 - fuzz replay: no $(FUZZ_CC) (make deps installs clang)"; exit 1; fi
	@$(MAKE) --no-print-directory -s fuzz-build >/dev/null
	@FUZZ_BUILD=$(FUZZ_BUILD) bash tests/fuzz/run.sh replay 0 $(FUZZ_JOBS) $(FUZZ_NAMES)

bench: all
	@for b in tests/bench/*.sh; do [ -e "$$b" ] || continue; bash "$$b"; done

# Sub-makes: the build's pkg-config flags are read when make starts, so on a
# fresh machine they must be read again after deps has installed pkg-config.
demo:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory -s all
	@bash examples/demo.sh

clean:
	rm -rf build $(TOOL_BINS)

# pipelines/*.mk in name order (cluster.mk before study.mk, vessel.mk after),
# but report.mk last: it builds on the others' variables and targets.
-include $(filter-out pipelines/report.mk,$(wildcard pipelines/*.mk)) $(wildcard pipelines/report.mk)
