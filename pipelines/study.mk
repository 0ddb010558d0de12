# pipelines/study.mk - the synthetic half of the study as make targets, one per
# table and figure of the paper (included by the top-level Makefile).
#
#   make table1 [PROFILE=smoke|quick|paper]   Table 1 (syn-res), every row
#   make table2                              Table 2 (qualitative, |F - F*|)
#   make table-r2                            appendix lin-qualitative (R^2)
#   make table-val                           appendix two-comm-val (validation set)
#   make fig-valid                           validation curves, PGN and MPNN (PNG + SVG)
#   make fig-corrective                      conservation error before / after flow-fix
#   make search                              the appendix's bi-level random search
#
# Data flow: gen-graphs | ff-trace > data/*.mp; dar-fit < train > models/*.mp;
# dar-step | flow-fix | metrics > scores/*.mp; metrics --table prints.  Every
# heavy recipe (training, and whatever runs a model over a split) runs through
# $(RUN) (empty: locally), always as one
# `bash -c '...'` line so that a launcher can run the whole pipe elsewhere, and
# writes $@.tmp renamed into place, so a failed or interrupted step never
# leaves a target behind.  Light recipes (data generation, the random
# baseline: a second at the paper's sizes) run here, as `$(call light, ...)`.  dar-fit and ff-trace are cached by content
# (formats/cache.md): with out/ removed, a re-run trains nothing.  dar-step
# runs with --no-cache here: its per-step predictions are large and consumed
# once, by metrics.

PROFILE ?= quick
OUT ?= out/$(PROFILE)
RUN ?=
export OPENBLAS_NUM_THREADS ?= 1
# DAR_BIN: where the tools come from (the sanitizer build in make test-asan);
# PAIRS_BIN (below the profiles): where the other pairs' pipelines take theirs.
DAR_BIN ?= $(CURDIR)/bin
export PATH := $(DAR_BIN):$(PATH)

ifeq ($(PROFILE),smoke)
  PROFILE_NOTE := smoke profile: 40 training graphs of 8 nodes, 4 iterations, H=8, 2 seeds; tests on 6 graphs of 16 nodes
  TRAIN_NODES := 8
  TRAIN_COUNT := 40
  VAL_COUNT := 8
  TEST_NODES := 16
  TEST_COUNT := 6
  ITERS := 4
  EVAL_EVERY := 2
  SEEDS := 0 1
  FIT_EXTRA := --hidden 8 --batch 4
  SEARCH_N := 2
  SEARCH_ITERS := 2
else ifeq ($(PROFILE),quick)
  PROFILE_NOTE := quick profile: 1000 training graphs of 16 nodes, 100 iterations (paper 20000), 2 seeds (paper 5); tests on 8 graphs of 64 nodes (paper 128)
  TRAIN_NODES := 16
  TRAIN_COUNT := 1000
  VAL_COUNT := 32
  TEST_NODES := 64
  TEST_COUNT := 8
  ITERS := 100
  EVAL_EVERY := 25
  SEEDS := 0 1
  FIT_EXTRA :=
  SEARCH_N := 4
  SEARCH_ITERS := 40
else ifeq ($(PROFILE),demo)
  # make demo: the paper's central comparison within 15 minutes on 2 cores
  # without AVX-512: PGN-max dual and primal side by side, one core each, and
  # the random baseline, one seed.  No-algo is left to the quick and core
  # profiles: a third training would double the time the two take together.
  PROFILE_NOTE := demo profile: PGN-max dual, primal and random only, 1000 training graphs of 16 nodes, 1200 iterations (paper 20000), 1 seed (paper 5); tests on 32 graphs of 64 nodes (paper 128)
  TRAIN_NODES := 16
  TRAIN_COUNT := 1000
  VAL_COUNT := 32
  TEST_NODES := 64
  TEST_COUNT := 32
  ITERS := 1200
  EVAL_EVERY := 100
  SEEDS := 0
  FIT_EXTRA :=
  SEARCH_N := 2
  SEARCH_ITERS := 40
  TABLE1_ONLY := dual-pgn-max primal-pgn-max random-none-none
  QUAL_ONLY := dual-pgn-max primal-pgn-max
  # make report PROFILE=demo: of the departures from the authors' code, only
  # the cut leak (one more training), not all four
  REPORT_FINDINGS := leak
else ifeq ($(PROFILE),core)
  # make report PROFILE=core: the paper's settings for the rows its central
  # claims rest on (PGN-max primal, dual, pipeline, no-algo, random, and the
  # dual with the authors' cut leak as the leak finding); one seed unless
  # SEEDS says more.  Its report is kept as the project's reference in
  # results/core/ (make results-core).  ITERS and SEEDS may be given on the
  # command line (a dry run of the recipe: ITERS=20 TEST_COUNT=8).
  SEEDS ?= 0
  ITERS ?= 20000
  TEST_COUNT ?= 128
  PROFILE_NOTE := core profile: the paper settings for PGN-max primal, dual, pipeline, no-algo and random only, 1000 training graphs of 16 nodes, $(ITERS) iterations, seeds $(SEEDS) (paper 0-4); tests on $(TEST_COUNT) graphs of 64 nodes
  TRAIN_NODES := 16
  TRAIN_COUNT := 1000
  VAL_COUNT := 128
  TEST_NODES := 64
  EVAL_EVERY := 100
  FIT_EXTRA :=
  SEARCH_N := 2
  SEARCH_ITERS := 40
  TABLE1_ONLY := dual-pgn-max primal-pgn-max pipeline-pgn-max noalgo-pgn-max random-none-none
  QUAL_ONLY := dual-pgn-max primal-pgn-max pipeline-pgn-max
  REPORT_FINDINGS := leak
  # no search: the appendix's search is not a claim this profile decides
  REPORT_SEARCH :=
else ifeq ($(PROFILE),tables)
  # make report PROFILE=tables: the core profile's settings for every trained
  # row of Tables 1 and 2, the validation table and R^2 (PGN and MPNN, max and
  # mean, each primal, dual and pipeline; PGN-max no-algo; random), and the
  # leak's dual for each processor and aggregator, so that the paper's
  # "consistently outperform" is decided for each pair with the leak and
  # without.  Kept in results/tables/ (make results-tables); how it is run and
  # resumed across sessions, with the tools frozen: results/tables/README.md.
  SEEDS ?= 0
  ITERS ?= 20000
  TEST_COUNT ?= 128
  PROFILE_NOTE := tables profile: the paper settings for every trained row of Tables 1 and 2, 1000 training graphs of 16 nodes, $(ITERS) iterations, seeds $(SEEDS) (paper 0-4); tests on $(TEST_COUNT) graphs of 64 nodes
  TRAIN_NODES := 16
  TRAIN_COUNT := 1000
  VAL_COUNT := 128
  TEST_NODES := 64
  EVAL_EVERY := 100
  FIT_EXTRA :=
  SEARCH_N := 2
  SEARCH_ITERS := 40
  REPORT_FINDINGS := leak
  FINDING_CONFIGS_leak := $(foreach p,pgn mpnn,$(foreach a,max mean,dual-$(p)-$(a)))
  # the other pairs' pipelines take this checkout's tools: the run's DAR_BIN
  # is a build frozen at the commit its trainings started from, older than
  # the pairs' options (gen-graphs --optimum-nodes, min-cost flow)
  PAIRS_BIN ?= $(CURDIR)/bin
  REPORT_SEARCH :=
else ifeq ($(PROFILE),paper)
  PROFILE_NOTE := paper profile: the reference's splits, 20000 iterations, 5 seeds
  TRAIN_NODES := 16
  TRAIN_COUNT := 1000
  VAL_COUNT := 128
  TEST_NODES := 64
  TEST_COUNT := 128
  ITERS := 20000
  EVAL_EVERY := 100
  SEEDS := 0 1 2 3 4
  FIT_EXTRA :=
  SEARCH_N := 50
  SEARCH_ITERS := 5000
else
  $(error PROFILE must be smoke, demo, quick, core, tables or paper, not '$(PROFILE)')
endif
# PAIRS_BIN: the tools of the pairs' pipelines (pipelines/pairs.tsv), first on
# their targets' PATH (report.mk); DAR_BIN's unless the profile or the command
# line says otherwise.
PAIRS_BIN ?= $(DAR_BIN)
# PAIRS_CACHE: a cache of the pairs' own (DAR_CACHE's unless told), so that a
# long run's cache, carried between sessions (scripts/carry-cache.sh), holds
# its long trainings and not the pairs' minutes-long ones.
PAIRS_CACHE ?=
ifneq ($(PAIRS_CACHE),)
  ifeq ($(DAR_CACHE),)
    $(error PAIRS_CACHE needs DAR_CACHE: the other steps' cache, which a pair's target must not pass on to what it makes)
  endif
endif
# The out-of-family test set: bipartite in the paper; any gen-graphs family
# (examples/new-family.sh).  Its rows keep the paper's column name.
OOF_FAMILY ?= bipartite

# ---- naming ------------------------------------------------------------------
# A run is <variant>-<processor>-<agg>-s<seed>, e.g. dual-pgn-max-s0; "noalgo"
# stands for no-algo in file names, "random" is the random baseline.
PRIMAL_DUAL_PIPE := $(foreach v,primal dual pipeline,$(foreach p,pgn mpnn,$(foreach a,max mean,$(v)-$(p)-$(a))))
TABLE1_CONFIGS := $(or $(TABLE1_ONLY),$(PRIMAL_DUAL_PIPE) random-none-none noalgo-pgn-max)
QUAL_CONFIGS := $(or $(QUAL_ONLY),$(foreach v,primal dual pipeline,$(foreach a,max mean,$(v)-pgn-$(a))))
FAMILIES := 2comm bip
runs = $(foreach c,$(1),$(foreach s,$(SEEDS),$(c)-s$(s)))

part = $(word $(2),$(subst -, ,$(1)))
variant_of = $(if $(filter noalgo,$(call part,$(1),1)),no-algo,$(call part,$(1),1))
# "PGN-max (dual)", "Random", "PGN-max (no-algo)": the paper's row names
upper = $(subst pgn,PGN,$(subst mpnn,MPNN,$(1)))
label_of = $(if $(filter random,$(call part,$(1),1)),Random,$(call upper,$(call part,$(1),2))-$(call part,$(1),3) ($(call variant_of,$(1))))
seed_of = $(patsubst s%,%,$(call part,$(1),4))
family_name = $(if $(filter bip,$(1)),bipartite,2-community)

DATA := $(OUT)/data
# Models, data and scores are results, not intermediates for make to delete.
.PRECIOUS: $(DATA)/%.mp $(OUT)/models/%.mp $(OUT)/scores/%.mp $(OUT)/graphs/%.mp
heavy = $(RUN) bash -o pipefail -c '$(strip $(1))'
light = bash -o pipefail -c '$(strip $(1))'
# Each step writes $@.tmp and renames it only once it succeeded, so an
# interrupted run leaves no half target (and a Slurm job's output is renamed
# here, once pipelines/launch has seen the job's status):
#   $(call publish, COMMAND > $@.tmp)   makes the target's folder, runs COMMAND, renames
# (a bare comma in COMMAND is written $(comma))
publish = mkdir -p $(@D) && $(1) && mv $@.tmp $@
comma := ,
TOOLS_BUILT := | all

# ---- data: each split its own seed -------------------------------------------------
# Light: a second even at the paper's sizes, so it runs here (RUN is for work
# that outweighs a cluster job's own cost; see pipelines/cluster.mk).
$(DATA)/train.mp: $(TOOLS_BUILT)
	$(call publish, $(call light, gen-graphs --family two-community --nodes $(TRAIN_NODES) --count $(TRAIN_COUNT) --seed 101 | ff-trace -q > $@.tmp))
$(DATA)/val.mp: $(TOOLS_BUILT)
	$(call publish, $(call light, gen-graphs --family two-community --nodes $(TRAIN_NODES) --count $(VAL_COUNT) --seed 102 | ff-trace -q > $@.tmp))
$(DATA)/test-2comm.mp: $(TOOLS_BUILT)
	$(call publish, $(call light, gen-graphs --family two-community --nodes $(TEST_NODES) --count $(TEST_COUNT) --seed 103 | ff-trace -q > $@.tmp))
$(DATA)/test-bip.mp: $(TOOLS_BUILT)
	$(call publish, $(call light, gen-graphs --family $(OOF_FAMILY) --nodes $(TEST_NODES) --count $(TEST_COUNT) --seed 104 | ff-trace -q > $@.tmp))

# ---- models and their Table 1 scores -----------------------------------------------
# A model is trained and scored on both test sets in one heavy recipe (one
# cluster job: scoring takes seconds, a job of its own would cost more than
# that); make knows the three files come from one run of it (a pattern rule
# with several targets).  The scores are the predictions piped through
# flow-fix into metrics.  The random baseline needs no model and is light.
# FIT_THREADS: threads of one training; make -jN already runs N of them at
# once.  The bits do not depend on it (formats/model.md).  dar-fit appends
# its progress to logs/<run>.progress (DAR_PROGRESS_FILE), where
# pipelines/progress.sh reads every running training's iteration and score.
FIT_THREADS ?= 1
fit_args = --variant $(call variant_of,$(1)) --processor $(call part,$(1),2) --agg $(call part,$(1),3) \
  --seed $(call seed_of,$(1)) --iters $(ITERS) --eval-every $(EVAL_EVERY) --threads $(FIT_THREADS) $(FIT_EXTRA)
predict = $(if $(filter random,$(call part,$(1),1)),dar-step --baseline random --seed $(call seed_of,$(1)),dar-step --no-cache --hints --model $(2))
model_dep = $(if $(filter random,$(call part,$(1),1)),,$(OUT)/models/$(1).mp)
labels = -l "model=$(call label_of,$(1))" -l seed=$(call seed_of,$(1))
# score run,model-file,family: a test set's score record on stdout, and each
# graph's share of it in graphs/ (metrics --per-graph: the report's bootstrap
# over the test graphs reads it; the score records keep their bytes)
score = $(call predict,$(1),$(2)) < $(DATA)/test-$(3).mp | flow-fix | metrics --split test $(call labels,$(1)) -l family=$(call family_name,$(3)) \
  --per-graph $(OUT)/graphs/$(1)-$(3).mp.tmp
# publish run,family...: the per-graph files of a run's scores into place
publish_graphs = $(foreach f,$(2),mv $(OUT)/graphs/$(1)-$(f).mp.tmp $(OUT)/graphs/$(1)-$(f).mp &&) true

$(OUT)/models/%.mp $(OUT)/scores/%-2comm.mp $(OUT)/scores/%-bip.mp $(OUT)/graphs/%-2comm.mp $(OUT)/graphs/%-bip.mp: $(DATA)/train.mp $(DATA)/val.mp $(DATA)/test-2comm.mp $(DATA)/test-bip.mp $(TOOLS_BUILT)
	@mkdir -p $(OUT)/models $(OUT)/scores $(OUT)/graphs $(OUT)/logs
	$(call heavy, rm -f $(OUT)/logs/$*.progress && DAR_PROGRESS_FILE=$(OUT)/logs/$*.progress \
	  dar-fit $(call fit_args,$*) --val $(DATA)/val.mp --log $(OUT)/logs/$*.tsv -q < $(DATA)/train.mp > $(OUT)/models/$*.mp.tmp \
	  && $(call score,$*,$(OUT)/models/$*.mp.tmp,2comm) > $(OUT)/scores/$*-2comm.mp.tmp \
	  && $(call score,$*,$(OUT)/models/$*.mp.tmp,bip) > $(OUT)/scores/$*-bip.mp.tmp) \
	  && $(call publish_graphs,$*,2comm bip) \
	  && mv $(OUT)/scores/$*-2comm.mp.tmp $(OUT)/scores/$*-2comm.mp && mv $(OUT)/scores/$*-bip.mp.tmp $(OUT)/scores/$*-bip.mp \
	  && mv $(OUT)/models/$*.mp.tmp $(OUT)/models/$*.mp

# (the shorter stem wins: these, not the rule above, make the baseline's scores)
$(OUT)/scores/random-%-2comm.mp $(OUT)/graphs/random-%-2comm.mp: $(DATA)/test-2comm.mp $(TOOLS_BUILT)
	@mkdir -p $(OUT)/scores $(OUT)/graphs
	$(call light, $(call score,random-$*,,2comm) > $(OUT)/scores/random-$*-2comm.mp.tmp) && $(call publish_graphs,random-$*,2comm) \
	  && mv $(OUT)/scores/random-$*-2comm.mp.tmp $(OUT)/scores/random-$*-2comm.mp
$(OUT)/scores/random-%-bip.mp $(OUT)/graphs/random-%-bip.mp: $(DATA)/test-bip.mp $(TOOLS_BUILT)
	@mkdir -p $(OUT)/scores $(OUT)/graphs
	$(call light, $(call score,random-$*,,bip) > $(OUT)/scores/random-$*-bip.mp.tmp) && $(call publish_graphs,random-$*,bip) \
	  && mv $(OUT)/scores/random-$*-bip.mp.tmp $(OUT)/scores/random-$*-bip.mp

.SECONDEXPANSION:
$(OUT)/scores/%-val.mp $(OUT)/graphs/%-val.mp: $$(call model_dep,$$*) $(DATA)/val.mp $(TOOLS_BUILT)
	@mkdir -p $(OUT)/scores $(OUT)/graphs
	$(call heavy, $(call predict,$*,$(OUT)/models/$*.mp) < $(DATA)/val.mp | metrics --split val $(call labels,$*) \
	  --per-graph $(OUT)/graphs/$*-val.mp.tmp > $(OUT)/scores/$*-val.mp.tmp) && $(call publish_graphs,$*,val) \
	  && mv $(OUT)/scores/$*-val.mp.tmp $(OUT)/scores/$*-val.mp

# R^2: a linear map from max-pooled node embeddings to the max-flow value,
# fitted on the training graphs' embeddings and scored on each test set.
$(OUT)/scores/%-r2.mp: $(OUT)/models/%.mp $(DATA)/train.mp $(DATA)/test-2comm.mp $(DATA)/test-bip.mp $(TOOLS_BUILT)
	$(call publish, $(call heavy, dar-step --no-cache --embed --model $< < $(DATA)/train.mp > $@.fit.tmp \
	  && dar-step --no-cache --embed --model $< < $(DATA)/test-2comm.mp | metrics --quantity r2 --fit $@.fit.tmp $(call labels,$*) -l family=2-community > $@.tmp \
	  && dar-step --no-cache --embed --model $< < $(DATA)/test-bip.mp | metrics --quantity r2 --fit $@.fit.tmp $(call labels,$*) -l family=bipartite >> $@.tmp) \
	  && rm $@.fit.tmp)

# ---- tables ------------------------------------------------------------------------
# The paper's rows of the models this profile trains (all but in the demo
# profile): a model label in the first or second column that the profile does
# not train drops the line, so a table of fewer rows prints no warnings.
TRAINED_LABELS := $(subst | ,|,$(foreach c,$(TABLE1_CONFIGS),$(call label_of,$(c)-s0)|))
paper_rows = <(awk -F'\t' -v trained='|$(TRAINED_LABELS)' \
  'function model(x) { return x == "Random" || x ~ /^(PGN|MPNN)-/ } \
   /^\#/ || !((model($$1) && index(trained, "|" $$1 "|") == 0) || (model($$2) && index(trained, "|" $$2 "|") == 0))' \
  pipelines/paper/$(1).tsv)
TABLE_OPTS = --title "$(1) — $(PROFILE_NOTE); ours (paper)" --paper $(call paper_rows,$(2))
TABLE1_SCORES := $(foreach r,$(call runs,$(TABLE1_CONFIGS)),$(OUT)/scores/$(r)-2comm.mp $(OUT)/scores/$(r)-bip.mp)
QUAL_SCORES := $(foreach r,$(call runs,$(QUAL_CONFIGS)),$(OUT)/scores/$(r)-2comm.mp)
R2_SCORES := $(foreach r,$(call runs,$(QUAL_CONFIGS)),$(OUT)/scores/$(r)-r2.mp)
VAL_SCORES := $(foreach r,$(call runs,$(TABLE1_CONFIGS)),$(OUT)/scores/$(r)-val.mp)
# each score's per-graph file (the report's bootstrap)
graphs_of = $(subst /scores/,/graphs/,$(1))

$(OUT)/table1.md: $(TABLE1_SCORES)
	$(call publish, cat $^ | metrics --table md --rows model --cols family$(comma)name --quantity mae_flow$(comma)mae_hint_flow$(comma)cut_accuracy \
	  $(call TABLE_OPTS,Table 1: MAE of the final flow F and the intermediate flows F(t) and min-cut accuracy c,table1) > $@.tmp)
$(OUT)/table2.md: $(QUAL_SCORES)
	$(call publish, cat $^ | metrics --table md --rows name --cols model --quantity maxflow_error \
	  $(call TABLE_OPTS,Table 2: |F - F*| on 2-community graphs,table2) > $@.tmp)
$(OUT)/table-r2.md: $(R2_SCORES)
	$(call publish, cat $^ | metrics --table md --rows family --cols model --quantity r2 --digits 2 \
	  $(call TABLE_OPTS,Appendix table lin-qualitative: R^2 of the max-flow value from max-pooled embeddings,table-r2) > $@.tmp)
$(OUT)/table-val.md: $(VAL_SCORES)
	$(call publish, cat $^ | metrics --table md --rows model --cols name --quantity mae_flow$(comma)mae_hint_flow$(comma)cut_accuracy \
	  $(call TABLE_OPTS,Appendix table two-comm-val: validation set,table-val) > $@.tmp)

.PHONY: table1 table2 table-r2 table-val tables fig-valid fig-corrective search study
table1 table2 table-r2 table-val: %: $(OUT)/%.md
	@cat $<
tables: table1 table2 table-r2 table-val

# ---- figures (gnuplot, PNG and SVG) -----------------------------------------------------
# fig-valid: the validation score (masked MSE of F) per iteration, seed 0.
VALID_LOGS := $(foreach c,$(PRIMAL_DUAL_PIPE) noalgo-pgn-max,$(OUT)/models/$(c)-s0.mp)
$(OUT)/fig-valid-pgn.png: $(VALID_LOGS) pipelines/fig-valid.gp
	gnuplot -e "logs='$(OUT)/logs'; out='$(OUT)/fig-valid'; note='$(PROFILE_NOTE)'" pipelines/fig-valid.gp
fig-valid: $(OUT)/fig-valid-pgn.png
	@ls $(OUT)/fig-valid-*

# fig-corrective: per-node conservation error of dual PGN-max's predicted flow
# on the 2-community test graphs, before and after flow-fix, each graph a row.
$(OUT)/fig-corrective.png: $(OUT)/models/dual-pgn-max-s0.mp $(DATA)/test-2comm.mp pipelines/fig-corrective.gp
	$(call heavy, dar-step --no-cache --model $< < $(DATA)/test-2comm.mp | flow-fix | mpcat \
	  | jq -r ".conservation_before.data$(comma) .conservation_after.data | @tsv" > $(OUT)/corrective.tsv.tmp)
	mv $(OUT)/corrective.tsv.tmp $(OUT)/corrective.tsv
	awk 'NR % 2 == 1' $(OUT)/corrective.tsv > $(OUT)/corrective-before.tsv
	awk 'NR % 2 == 0' $(OUT)/corrective.tsv > $(OUT)/corrective-after.tsv
	gnuplot -e "dir='$(OUT)'; note='$(PROFILE_NOTE)'" pipelines/fig-corrective.gp
fig-corrective: $(OUT)/fig-corrective.png
	@ls $(OUT)/fig-corrective.*

# ---- search: the appendix's bi-level random search -----------------------------------
# Level 1 draws SEARCH_N configurations from the wide ranges, level 2 from the
# narrow ones (log-uniform lr and weight decay, uniform hidden size), each a
# primal PGN-max trained SEARCH_ITERS iterations; the table lists each
# configuration's best validation score (masked MSE of F) and the winner.
$(OUT)/search.md: $(DATA)/train.mp $(DATA)/val.mp pipelines/search.sh $(TOOLS_BUILT)
	$(call heavy, rm -f $@.progress && DAR_PROGRESS_FILE=$@.progress RUN="$(RUN)" bash pipelines/search.sh $(OUT)/search $(SEARCH_N) $(SEARCH_ITERS) $(EVAL_EVERY) "$(FIT_EXTRA)" $(DATA) "$(PROFILE_NOTE)" > $@.tmp) && mv $@.tmp $@
search: $(OUT)/search.md
	@cat $<

study: tables fig-valid fig-corrective search

# ---- progress: the steps of table1 and table2 that take time ------------------------
# pipelines/progress.sh watches these files appear (examples/demo.sh).
TABLE12_STEPS = $(foreach r,$(call runs,$(filter-out random-%,$(TABLE1_CONFIGS))),$(OUT)/models/$(r).mp) \
  $(OUT)/table1.md $(OUT)/table2.md
print-%:
	@echo '$($*)'
