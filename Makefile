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
# Read at first use, not when make starts: on a fresh machine the first build
# installs pkg-config and the libraries ($(DEPS_STAMP)) before it compiles.
PKG_CFLAGS = $(eval PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null))$(PKG_CFLAGS)
PKG_LIBS   = $(eval PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null))$(PKG_LIBS)
# common/ is grouped by layer (ARCHITECTURE.md §2) and tools/ holds the tools'
# bodies; every folder is on the include path so includes name only the file.
SRC_DIRS := common/base common/records common/graphs common/flow common/algos common/nn common/graphnn common/eval common/dar tools
HEADERS  := $(wildcard $(SRC_DIRS:%=%/*.h))
CPPFLAGS += $(SRC_DIRS:%=-I%) $(PKG_CFLAGS) -DDAR_VERSION='"$(VERSION)"'
LDFLAGS  += -Wl,--as-needed
LDLIBS   += $(PKG_LIBS) -lmetis -lglpk -lpthread -lm

# BUILD is where objects go; bin/ holds the normal tools, $(BUILD)/bin the
# sanitizer ones, so the two builds never mix.
BUILD   ?= build
BINDIR  ?= bin
# written by make deps; every build's objects wait for it (see deps below)
DEPS_STAMP := build/.deps-study

COMMON_SRC := $(sort $(wildcard common/*/*.c tools/*.c))
COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/%.o)
TOOLS      := $(sort $(basename $(notdir $(wildcard bin/*.c))))
TOOL_BINS  := $(TOOLS:%=$(BINDIR)/%)
# One tool under several names: bin/repair.c picks the registry entry whose
# repair_tool it is called by (algorithm.h), so each entry's repair is a link.
REPAIR_NAMES := flow-fix match-fix cover-fix cost-fix
TOOL_LINKS := $(REPAIR_NAMES:%=$(BINDIR)/%)
UNIT_SRC   := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/unit/%)
# Small C programs the bats tests and benchmarks drive (not user tools).
TESTTOOL_SRC  := $(sort $(wildcard tests/tools/*.c))
TESTTOOL_BINS := $(TESTTOOL_SRC:tests/tools/%.c=$(BUILD)/tools/%)
LIB        := $(BUILD)/libdar.a

.PHONY: all deps deps-test demo test unit-bins test-unit test-bats test-asan bench clean fuzz fuzz-build test-fuzz
# Objects are not intermediate files to throw away: keep them so a rebuild is
# incremental and concurrent makes never see one vanish.
.SECONDARY: $(COMMON_OBJ) $(TOOLS:%=$(BUILD)/bin/%.o)
all: $(LIB) $(TOOL_BINS) $(TOOL_LINKS) $(TESTTOOL_BINS)

# Static pattern rules: $(BUILD)/tools/ holds both the objects of tools/*.c
# and the test helpers of tests/tools/*.c, so each rule names its targets.
$(COMMON_OBJ): $(BUILD)/%.o: %.c $(HEADERS) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/bin/%.o: bin/%.c $(HEADERS) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(LIB): $(COMMON_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BINDIR)/%: $(BUILD)/bin/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $< $(LIB) $(LDLIBS) -o $@

$(TOOL_LINKS): $(BINDIR)/repair
	ln -sf repair $@

$(BUILD)/unit/%: tests/unit/%.c tests/unit/check.h $(LIB) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< $(LIB) $(LDLIBS) -o $@

$(TESTTOOL_BINS): $(BUILD)/tools/%: tests/tools/%.c $(LIB) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< $(LIB) $(LDLIBS) -o $@

# ---- dependencies (Debian 12) ----------------------------------------------
# Two sets, one package a line, so that a change adds or removes a line.
# DEB_PACKAGES: what building and running the study needs (make demo, make
# report, every table and figure): `make deps` installs them, and the first
# build runs it (the objects wait for $(DEPS_STAMP)).
# DEB_TEST_PACKAGES: what only the tests, benchmarks, fuzzing and the cluster
# need; `make test` and `make bench` install them themselves (deps-test).
# `make deps DEB_EXTRA=...` asks for more; DEPS_DRY_RUN=1 prints what would be
# installed.
DEB_PACKAGES := \
  build-essential \
  pkg-config \
  libmsgpack-dev \
  libxxhash-dev \
  libopenblas-dev \
  libjansson-dev \
  libmetis-dev \
  libglpk-dev \
  gnuplot-nox \
  jq \
  python3-msgpack \
  python3-msgpack-numpy \
  python3-numpy \
  python3-matplotlib \
  git
DEB_TEST_PACKAGES := \
  bats \
  bats-assert \
  bats-support \
  bats-file \
  xxhash \
  parallel \
  python3-networkx \
  python3-sklearn \
  python3-torch \
  python3-scipy \
  libboost-graph-dev \
  g++ \
  bc \
  time \
  slurm-wlm \
  munge \
  procps \
  python3-gensim \
  clang \
  libclang-rt-14-dev \
  chromium \
  python3-venv
DEB_EXTRA ?=
DEPS_DRY_RUN ?= 0
deps:
	@bash scripts/deps.sh $(DEB_PACKAGES) $(DEB_EXTRA)
	@[ "$(DEPS_DRY_RUN)" = 1 ] || { mkdir -p $(dir $(DEPS_STAMP)) && touch $(DEPS_STAMP); }
# both sets: a fresh machine gets one apt-get run, a user who is not root one line
deps-test:
	@bash scripts/deps.sh $(DEB_PACKAGES) $(DEB_TEST_PACKAGES) $(DEB_EXTRA)
# The first build of a tree runs make deps (unless make deps ran already);
# the stamp is written only when deps succeeded, so a failure is retried, and
# make clean removes it.
$(DEPS_STAMP):
	@$(MAKE) --no-print-directory deps

# ---- tests -------------------------------------------------------------------
# deps-test first: the tests need the test set (bats, torch, clang, ...).
# The builds and the unit tests use TEST_JOBS cores; the steps themselves run
# one after the other (a `make -j` must not run the two bats passes at once).
TEST_JOBS ?= 2
test: deps-test
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) all unit-bins
	@$(MAKE) --no-print-directory test-unit
	@$(MAKE) --no-print-directory test-bats
	@$(MAKE) --no-print-directory test-asan
	@$(MAKE) --no-print-directory test-fuzz

unit-bins: $(UNIT_BINS)
test-unit: $(UNIT_BINS)
	@bash tests/unit/run.sh $(TEST_JOBS) $(UNIT_BINS)

BATS_JOBS ?= 2
test-bats: all
	DAR_BIN=$(abspath $(BINDIR)) DAR_TOOLS=$(abspath $(BUILD)/tools) bats --tap --timing --jobs $(BATS_JOBS) tests/

# The sanitizer build lives entirely under build/asan so it never replaces the
# normal tools; the same unit tests and bats suite run against it.
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
ASAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1
# Under the sanitizers the files that drive the C tools on their inputs run;
# those that orchestrate the same tools at length (the learning runs, the
# PyTorch twin, the make pipelines, tables, reports and the demo) or run no C
# at all would take over an hour there and find nothing the others do not.
ASAN_SKIP  := 005 007 008 015 020 400 405 420 425 900 910 920 930 935 936 940 960 965 970
ASAN_BATS  := $(filter-out $(foreach n,$(ASAN_SKIP),tests/$(n)-%),$(sort $(wildcard tests/*.bats)))
ASAN_MAKE := $(ASAN_ENV) $(MAKE) --no-print-directory BUILD=build/asan BINDIR=build/asan/bin \
    CFLAGS='$(ASAN_FLAGS) -Wall -std=gnu11' LDFLAGS='-fsanitize=address,undefined'
test-asan:
	$(ASAN_MAKE) -j$(TEST_JOBS) all unit-bins
	$(ASAN_MAKE) test-unit
	$(ASAN_ENV) DAR_BIN=$(abspath build/asan/bin) DAR_TOOLS=$(abspath build/asan/tools) DAR_ASAN=1 bats --tap --timing --jobs $(BATS_JOBS) $(ASAN_BATS)

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

# The library is built with libFuzzer's coverage and both sanitizers, all but
# gemm.c: its unrolled tiles take a minute to compile so, against 18 s with
# AddressSanitizer alone; no input byte steers them (the shapes do), and the
# unit tests and the ASan pass run them under both sanitizers.
$(FUZZ_BUILD)/common/nn/gemm.o: override CFLAGS := -O1 -g -fsanitize=address -fno-omit-frame-pointer -Wall -std=gnu11
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
	@if ! command -v $(FUZZ_CC) >/dev/null; then echo "not ok 1 - fuzz replay: no $(FUZZ_CC) (make test installs clang: DEB_TEST_PACKAGES)"; exit 1; fi
	@$(MAKE) --no-print-directory -s fuzz-build >/dev/null
	@FUZZ_BUILD=$(FUZZ_BUILD) bash tests/fuzz/run.sh replay 0 $(FUZZ_JOBS) $(FUZZ_NAMES)

bench: deps-test
	@$(MAKE) --no-print-directory all
	@for b in tests/bench/*.sh; do [ -e "$$b" ] || continue; bash "$$b"; done

demo:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory -s all
	@bash examples/demo.sh

clean:
	rm -rf build $(TOOL_BINS) $(TOOL_LINKS)

# ---- progress of the study's long targets ------------------------------------
# `make table1` (or any of PROGRESS_GOALS, all goals being among them) runs
# the same make once more under pipelines/progress.sh, which shows each running
# training's iteration, validation score and time left and the trainings done
# and left; the trainings are those `make -n` would run: every model, and every
# other step whose recipe sets DAR_PROGRESS_FILE=STEP.progress (the vessel
# rows, the reconstruction, Node2Vec, the search), each training with the
# iterations its dar-fit is given (FILE@ITERS), so that the time left counts
# a short training as short.  The make that does
# the work is a sub-make with DAR_PROGRESS_WRAPPED set, which reads the
# pipelines as usual (not MAKELEVEL: a make run by a test under `make test` is
# watched too); a dry run (-n, -q), PROGRESS=0 or any other goal runs as before.
PROGRESS ?= 1
PROGRESS_GOALS := table1 table2 table-r2 table-val tables study report
PROGRESS_WRAP := $(and $(if $(DAR_PROGRESS_WRAPPED),,1),$(filter 1,$(PROGRESS)),$(MAKECMDGOALS),\
  $(if $(filter-out $(PROGRESS_GOALS),$(MAKECMDGOALS)),,1),$(if $(findstring n,$(firstword -$(MAKEFLAGS))),,1),\
  $(if $(findstring q,$(firstword -$(MAKEFLAGS))),,1))
ifneq ($(PROGRESS_WRAP),)
.PHONY: $(MAKECMDGOALS)
# make -jN: N trainings at once, for the time left
$(firstword $(MAKECMDGOALS)):
	@dry=$$($(MAKE) -n --no-print-directory $(MAKECMDGOALS) 2> /dev/null || true); \
	  steps=$$(printf '%s\n' "$$dry" | grep -o -e "[^ ']*/models/[^ ']*\.mp\.tmp" -e "DAR_PROGRESS_FILE=[^ ']*\.progress" \
	    | sed -e 's/\.tmp$$//' -e '\|^DAR_PROGRESS_FILE=.*/logs/|d' -e 's/^DAR_PROGRESS_FILE=\(.*\)\.progress$$/\1=\1.progress/' | sort -u || true); \
	  iters=$$(printf '%s\n' "$$dry" | sed -nE "s/.*--iters ([0-9]+) .*> *([^ ']*\/models\/[^ ']*\.mp)\.tmp.*/\2@\1/p" | sort -u); \
	  DAR_PROGRESS_WRAPPED=1 bash pipelines/progress.sh $(or $(patsubst -j%,%,$(filter -j%,$(MAKEFLAGS))),1) $$steps $$iters \
	    -- $(MAKE) --no-print-directory $(MAKECMDGOALS)
$(wordlist 2,$(words $(MAKECMDGOALS)),$(MAKECMDGOALS)): $(firstword $(MAKECMDGOALS))
	@:
else
# pipelines/*.mk in name order (cluster.mk before study.mk, vessel.mk after),
# but report.mk last: it builds on the others' variables and targets.
-include $(filter-out pipelines/report.mk,$(wildcard pipelines/*.mk)) $(wildcard pipelines/report.mk)
endif
