# pipelines/shortest-paths.mk - shortest paths (Bellman-Ford with its LP
# dual), the registry's second entry, as a table (included by the top-level
# Makefile, before study.mk, whose `heavy` and `light` it uses).
#
#   make table-sp [PROFILE=smoke|quick|paper|clrs]
#   make table-sp SP_PROFILE=clrs SP_PEER=triplet_gmpnn [SP_PEER_STEPS="500 2000" SP_PEER_SEEDS_2000=0]
#                                 (CLRS's own baseline beside it: make peer;
#                                 its runs kept in SP_PEER_KEPT=results/clrs/peer)
#   make table-sp SP_PROFILE=clrs SP_KEPT=results/clrs/models [SP_PEER=...]
#                                 (the committed models scored, not trained)
#
# The clrs profile is CLRS-30's protocol with the field's recipe (issue 37):
# training graphs from CLRS's Bellman-Ford sampler at 4, 7, 11, 13 and 16
# nodes, validation at 16, 10,000 iterations of batch 32 with the models
# after 500 and 2,000 kept too (each budget resumes the one before, so the
# three are one training), 3 seeds, and a second test set: CLRS-30's own
# 64-node test split (pipelines/data/, made by the peer's converter).
#
# PGN-max dual (the tree pi and the potentials d), primal (pi) and no-algo
# (inputs to pi, no hints) trained on CLRS's Bellman-Ford distribution at 16
# nodes (gen-graphs --instance shortest-paths: Erdos-Renyi, effective p =
# 0.25, U[0,1) weights, a uniform source; formats/graph.md says where it
# differs from CLRS's sampler) and tested at 64 nodes, with the random
# baseline, beside CLRS's published out-of-distribution Bellman-Ford scores
# at 64 nodes.  Same conventions as study.mk: every heavy recipe one `bash
# -c` line through $(RUN), $@.tmp renamed into place, dar-fit cached by
# content.  Variables are SP_-prefixed: this file shares make's namespace.

# study.mk sets these too (with ?=), after this file is read; the rules
# below name their targets at read time, so the defaults are needed here.
PROFILE ?= quick
OUT ?= out/$(PROFILE)
# this table's own profile: PROFILE's unless SP_PROFILE names another, so
# `make report PROFILE=core SP_PROFILE=smoke` runs max-flow at the paper's
# settings without this pair's quick-size trainings
SP_PROFILE ?= $(PROFILE)

ifeq ($(SP_PROFILE),smoke)
  SP_NOTE := smoke profile: 24 training graphs of 8 nodes, 4 iterations, H=8; tests on 6 graphs of 16 nodes
  SP_TRAIN_NODES := 8
  SP_TRAIN_COUNT := 24
  SP_VAL_COUNT := 8
  SP_TEST_NODES := 16
  SP_TEST_COUNT := 6
  SP_ITERS := 4
  SP_EVAL_EVERY := 2
  SP_SEEDS := 0
  SP_FIT_EXTRA := --hidden 8 --batch 4
else ifeq ($(SP_PROFILE),clrs)
  SP_NOTE := clrs profile: CLRS-30's protocol, 100000 training graphs of 4-16 nodes from CLRS's Bellman-Ford sampler, 10000 iterations of 32 (models kept at 500 and 2000), 3 seeds, hidden 128, the edge pointer head, layer norm, gate, soft hints, no teacher forcing, gradients clipped to 1, and the dual with Triplet-GMPNN's triplet messages too; tests on 32 graphs of 64 nodes (dar's) and CLRS-30's test split
  SP_TRAIN_NODES := 4-16
  SP_TRAIN_SHAPE := --sizes 4,7,11,13,16 --law clrs
  SP_VAL_SHAPE := --nodes 16 --law clrs
  SP_TRAIN_COUNT := 100000
  SP_VAL_COUNT := 32
  SP_TEST_NODES := 64
  SP_TEST_COUNT := 32
  SP_ITERS := 10000
  SP_EVAL_EVERY := 50
  SP_SEEDS := 0 1 2
  SP_FIT_EXTRA := -H 128 --pointer-head edge --layer-norm --gate --soft-hints --tf-decay 0 --clip-norm 1
  SP_BUDGETS := 500 2000
  SP_CONFIGS := dual primal noalgo dual-triplets dual-triplets-cosine
  SP_CLRS30 := pipelines/data/clrs30-bellman-ford-test.mp
else ifeq ($(SP_PROFILE),paper)
  SP_NOTE := paper profile: 1000 training graphs of 16 nodes, 10000 iterations, 3 seeds; tests on 128 graphs of 64 nodes
  SP_TRAIN_NODES := 16
  SP_TRAIN_COUNT := 1000
  SP_VAL_COUNT := 128
  SP_TEST_NODES := 64
  SP_TEST_COUNT := 128
  SP_ITERS := 10000
  SP_EVAL_EVERY := 100
  SP_SEEDS := 0 1 2
  SP_FIT_EXTRA :=
else
  SP_NOTE := quick profile: 1000 training graphs of 16 nodes, 400 iterations (CLRS 10000 steps), 1 seed; tests on 32 graphs of 64 nodes
  SP_TRAIN_NODES := 16
  SP_TRAIN_COUNT := 1000
  SP_VAL_COUNT := 32
  SP_TEST_NODES := 64
  SP_TEST_COUNT := 32
  SP_ITERS := 400
  SP_EVAL_EVERY := 50
  SP_SEEDS := 0
  SP_FIT_EXTRA :=
endif

# the generator's shape arguments; the clrs profile sets its own
SP_TRAIN_SHAPE ?= --nodes $(SP_TRAIN_NODES)
SP_VAL_SHAPE ?= --nodes $(SP_TRAIN_NODES)
SP_TEST_SHAPE ?= --nodes $(SP_TEST_NODES)
# the shorter budgets whose models are kept (the clrs profile): run
# <config>-i<B>-s<seed> stops at B iterations, and each budget resumes the
# one before it, the full run the last
SP_BUDGETS ?=

SP_OUT := $(OUT)/shortest-paths
SP_DATA := $(SP_OUT)/data
# CLRS's optimiser (Adam, learning rate 1e-3, no weight decay), not the
# max-flow reference's SGD: these rows are compared with CLRS's.
SP_OPTIM := --optim adam --lr 0.001 --weight-decay 0
# the configurations trained; the clrs profile adds dual-triplets, the dual
# with Triplet-GMPNN's triplet messages, and dual-triplets-cosine, the same
# with the learning rate decayed to 0 at the last budget
SP_CONFIGS ?= dual primal noalgo
# a configuration is <variant>[-triplets][-cosine]: the first word names
# dar-fit's variant, -triplets adds --triplets and "Triplet-" to the label,
# -cosine a cosine schedule over the whole run (its horizon SP_ITERS, so the
# budgets that resume one another are one schedule) and ", cosine"
sp_variant = $(if $(filter noalgo,$(firstword $(subst -, ,$(1)))),no-algo,$(firstword $(subst -, ,$(1))))
sp_flags = $(if $(findstring -triplets,$(1)),--triplets)$(if $(findstring -cosine,$(1)), --lr-schedule cosine --lr-horizon $(SP_ITERS))
sp_label = $(if $(filter random,$(1)),Random,$(if $(findstring -triplets,$(1)),Triplet-)PGN-max ($(call sp_variant,$(1))$(if $(findstring -cosine,$(1)),$(comma) cosine))$(if $(findstring -i,$(1)), after $(word 2,$(subst -i, ,$(1:%-last=%))) iterations)$(if $(filter %-last,$(1)), at its last iteration))
SP_BUDGET_CONFIGS := $(foreach c,$(SP_CONFIGS),$(foreach b,$(SP_BUDGETS),$(c)-i$(b)))
# The clrs profile's full runs written again with their last iteration's
# parameters (<config>-last: dar-fit --keep last, resumed from the full run's
# record, no iteration run), beside the best validated that CLRS's run.py
# keeps: a validation set of 16-node graphs that a model gets all right early
# keeps an early model, however long the run goes on.
SP_LAST_CONFIGS := $(if $(SP_CLRS30),$(foreach c,$(SP_CONFIGS),$(c)-last))
SP_RUNS := $(foreach c,$(SP_CONFIGS) $(SP_BUDGET_CONFIGS) random $(SP_LAST_CONFIGS),$(foreach s,$(SP_SEEDS),$(c)-s$(s)))
# SP_KEPT=results/clrs/models (the clrs profile): the models a finished run
# kept (shortest-paths-<run>.mp) scored again in place of training them, so
# the table and its claims are made again in minutes, beside peer rows that
# a later session added: the runs are then the kept ones and the random
# baseline, and a claim on a row not kept (the primal, the shorter budgets)
# is not measured.
SP_KEPT ?=
ifneq ($(SP_KEPT),)
SP_RUNS := $(patsubst $(SP_KEPT)/shortest-paths-%.mp,%,$(wildcard $(SP_KEPT)/shortest-paths-*.mp)) $(foreach s,$(SP_SEEDS),random-s$(s))
endif
sp_config = $(word 1,$(subst -s, ,$(1)))
sp_seed = $(word 2,$(subst -s, ,$(1)))
# a run's budget and the model it resumes ("" for none)
sp_base = $(word 1,$(subst -i, ,$(call sp_config,$(1))))
sp_budget = $(or $(word 2,$(subst -i, ,$(call sp_config,$(1)))),$(SP_ITERS))
sp_before = $(lastword $(foreach b,$(SP_BUDGETS),$(if $(shell test $(b) -lt $(call sp_budget,$(1)) && echo y),$(b))))
sp_resume = $(if $(filter random,$(call sp_config,$(1))),,$(if $(filter %-last,$(call sp_config,$(1))),$(SP_OUT)/models/$(patsubst %-last,%,$(call sp_config,$(1)))-s$(call sp_seed,$(1)).mp,$(if $(call sp_before,$(1)),$(SP_OUT)/models/$(call sp_base,$(1))-i$(call sp_before,$(1))-s$(call sp_seed,$(1)).mp)))
# a run's test score on stdout and each graph's share of it in graphs/
# (metrics --per-graph: the bootstrap that decides the claims resamples them)
sp_metrics = metrics --split test -l "model=$(call sp_label,$(call sp_config,$(1)))" -l seed=$(call sp_seed,$(1)) \
  --per-graph $(SP_OUT)/graphs/$(1).mp.tmp
.PRECIOUS: $(SP_DATA)/%.mp $(SP_OUT)/models/%.mp $(SP_OUT)/scores/%.mp $(SP_OUT)/graphs/%.mp

sp_gen = gen-graphs --instance shortest-paths --family erdos-renyi $(1) --count $(2) --seed $(3) \
  | ff-trace --algorithm shortest-paths -q
$(SP_DATA)/train.mp: | all
	$(call publish, $(call light, $(call sp_gen,$(SP_TRAIN_SHAPE),$(SP_TRAIN_COUNT),201) > $@.tmp))
$(SP_DATA)/val.mp: | all
	$(call publish, $(call light, $(call sp_gen,$(SP_VAL_SHAPE),$(SP_VAL_COUNT),202) > $@.tmp))
$(SP_DATA)/test.mp: | all
	$(call publish, $(call light, $(call sp_gen,$(SP_TEST_SHAPE),$(SP_TEST_COUNT),203) > $@.tmp))

ifneq ($(SP_KEPT),)
$(SP_OUT)/models/%.mp: $(SP_KEPT)/shortest-paths-%.mp
	@mkdir -p $(SP_OUT)/models && cp $< $@.tmp && mv $@.tmp $@
$(SP_OUT)/scores/%.mp $(SP_OUT)/graphs/%.mp: $(SP_OUT)/models/%.mp $(SP_DATA)/test.mp | all
	@mkdir -p $(SP_OUT)/scores $(SP_OUT)/graphs
	$(call light, dar-step --no-cache --model $< < $(SP_DATA)/test.mp \
	  | $(call sp_metrics,$*) > $(SP_OUT)/scores/$*.mp.tmp) \
	  && mv $(SP_OUT)/graphs/$*.mp.tmp $(SP_OUT)/graphs/$*.mp && mv $(SP_OUT)/scores/$*.mp.tmp $(SP_OUT)/scores/$*.mp
else
# A model and its test score in one heavy recipe, as study.mk's.
$(SP_OUT)/models/%.mp $(SP_OUT)/scores/%.mp $(SP_OUT)/graphs/%.mp: $(SP_DATA)/train.mp $(SP_DATA)/val.mp $(SP_DATA)/test.mp | all
	@mkdir -p $(SP_OUT)/models $(SP_OUT)/scores $(SP_OUT)/graphs $(SP_OUT)/logs
	$(call heavy, dar-fit --variant $(call sp_variant,$(call sp_config,$*)) --processor pgn --agg max \
	  --seed $(call sp_seed,$*) --iters $(call sp_budget,$*) --eval-every $(SP_EVAL_EVERY) --threads 1 $(SP_OPTIM) $(SP_FIT_EXTRA) $(call sp_flags,$*) \
	  $(if $(call sp_resume,$*),--resume $(call sp_resume,$*)) $(if $(filter %-last,$(call sp_config,$*)),--keep last) \
	  --val $(SP_DATA)/val.mp --log $(SP_OUT)/logs/$*.tsv -q < $(SP_DATA)/train.mp > $(SP_OUT)/models/$*.mp.tmp \
	  && dar-step --no-cache --model $(SP_OUT)/models/$*.mp.tmp < $(SP_DATA)/test.mp \
	  | $(call sp_metrics,$*) > $(SP_OUT)/scores/$*.mp.tmp) \
	  && mv $(SP_OUT)/graphs/$*.mp.tmp $(SP_OUT)/graphs/$*.mp && mv $(SP_OUT)/scores/$*.mp.tmp $(SP_OUT)/scores/$*.mp && mv $(SP_OUT)/models/$*.mp.tmp $(SP_OUT)/models/$*.mp

# a budget's model is the next budget's --resume (a prerequisite the pattern
# rule above cannot compute from its stem)
$(foreach r,$(SP_RUNS),$(if $(call sp_resume,$(r)),$(eval $(SP_OUT)/models/$(r).mp: $(call sp_resume,$(r)))))
endif

# CLRS-30's own test split (the clrs profile): every model and the random
# baseline scored on it too, into scores-clrs30/ and graphs-clrs30/
ifneq ($(SP_CLRS30),)
.PRECIOUS: $(SP_OUT)/scores-clrs30/%.mp $(SP_OUT)/graphs-clrs30/%.mp
$(SP_DATA)/clrs30.mp: $(SP_CLRS30) | all
	$(call publish, $(call light, ff-trace --algorithm shortest-paths -q < $< > $@.tmp))
$(SP_OUT)/scores-clrs30/%.mp $(SP_OUT)/graphs-clrs30/%.mp: $(SP_OUT)/models/%.mp $(SP_DATA)/clrs30.mp | all
	@mkdir -p $(SP_OUT)/scores-clrs30 $(SP_OUT)/graphs-clrs30
	$(call light, dar-step --no-cache --model $< < $(SP_DATA)/clrs30.mp \
	  | metrics --split test -l "model=$(call sp_label,$(call sp_config,$*))" -l seed=$(call sp_seed,$*) \
	    --per-graph $(SP_OUT)/graphs-clrs30/$*.mp.tmp > $(SP_OUT)/scores-clrs30/$*.mp.tmp) \
	  && mv $(SP_OUT)/graphs-clrs30/$*.mp.tmp $(SP_OUT)/graphs-clrs30/$*.mp \
	  && mv $(SP_OUT)/scores-clrs30/$*.mp.tmp $(SP_OUT)/scores-clrs30/$*.mp
$(SP_OUT)/scores-clrs30/random-%.mp $(SP_OUT)/graphs-clrs30/random-%.mp: $(SP_DATA)/clrs30.mp | all
	@mkdir -p $(SP_OUT)/scores-clrs30 $(SP_OUT)/graphs-clrs30
	$(call light, dar-step --baseline random --algorithm shortest-paths --seed $(call sp_seed,random-$*) < $< \
	  | metrics --split test -l "model=Random" -l seed=$(call sp_seed,random-$*) \
	    --per-graph $(SP_OUT)/graphs-clrs30/random-$*.mp.tmp > $(SP_OUT)/scores-clrs30/random-$*.mp.tmp) \
	  && mv $(SP_OUT)/graphs-clrs30/random-$*.mp.tmp $(SP_OUT)/graphs-clrs30/random-$*.mp \
	  && mv $(SP_OUT)/scores-clrs30/random-$*.mp.tmp $(SP_OUT)/scores-clrs30/random-$*.mp
SP_CLRS30_SCORES := $(foreach r,$(SP_RUNS),$(SP_OUT)/scores-clrs30/$(r).mp)
endif

# (the shorter stem wins: this, not the rule above, scores the baseline)
$(SP_OUT)/scores/random-%.mp $(SP_OUT)/graphs/random-%.mp: $(SP_DATA)/test.mp | all
	@mkdir -p $(SP_OUT)/scores $(SP_OUT)/graphs
	$(call light, dar-step --baseline random --algorithm shortest-paths --seed $(call sp_seed,random-$*) \
	  < $(SP_DATA)/test.mp | $(call sp_metrics,random-$*) > $(SP_OUT)/scores/random-$*.mp.tmp) \
	  && mv $(SP_OUT)/graphs/random-$*.mp.tmp $(SP_OUT)/graphs/random-$*.mp \
	  && mv $(SP_OUT)/scores/random-$*.mp.tmp $(SP_OUT)/scores/random-$*.mp

# CLRS's published out-of-distribution pointer accuracy for Bellman-Ford at
# 64 nodes (Ibarz et al. 2022, "A Generalist Neural Algorithmic Learner",
# table of per-algorithm scores): rows of their own, in the table's columns,
# appended after ours; their other columns have no published value.
SP_QUANTITIES := pointer_accuracy,mae_d,feasible_edges,path_optimal,path_gap
SP_CLRS := MPNN (CLRS, published; Ibarz et al. 2022)|92.01%|Triplet-GMPNN (CLRS, published; Ibarz et al. 2022)|97.39%
SP_SCORES := $(foreach r,$(SP_RUNS),$(SP_OUT)/scores/$(r).mp)


# CLRS's own baseline beside dar's rows (the clrs profile, SP_PEER=
# triplet_gmpnn and/or mpnn; make peer's venv): dm-clrs trained by
# tests/bench/clrs_peer.py as run.py trains it, one run of N steps per seed
# for each N of SP_PEER_STEPS (SP_ITERS unless told; SP_PEER_SEEDS_<N> its
# seeds, SP_PEER_SEEDS unless told: a long budget with fewer seeds), tested
# after its N steps on the same two test sets.  Its predicted trees go onto
# dar's records (clrs_convert.py with-predictions) and through the same
# metrics, graph by graph, so the claims of pipelines/claims-sp-clrs.tsv pair
# its rows with dar's over the same graphs.  A run keeps a checkpoint in
# peer/<run>.ckpt every 500 steps (clrs_peer.py --checkpoint-dir), so the
# same make command in a later session resumes it where the last one ended,
# with the outputs of a run made in one go: a 10,000-step run across
# sessions.
# A peer run kept in the repository, SP_PEER_KEPT (results/clrs/peer/):
# a session's files do not outlive it on every machine, a commit does.  A
# finished run kept as <run>.tsv and its predictions <run>/ is copied into
# OUT, not run again (no venv needed); an unfinished one kept as its last
# checkpoint, <run>.pkl, is where the run starts when OUT has no checkpoint
# of its own, so a 10,000-step run spread over sessions carries its state
# from one to the next (clrs_peer.py refuses a checkpoint of other arguments
# or package versions).
# SP_PEER_CPUS (e.g. 0,1): each run may take any of these CPUs, the kernel
# sharing them out; unset, a seed's run is pinned to its own CPU while there
# is one (seed s on CPU s) and may take any CPU past that, so three seeds on
# two CPUs with -j3 leave no CPU idle.
SP_PEER_KEPT ?= results/clrs/peer
SP_PEER ?=
SP_PEER_STEPS ?= $(SP_ITERS)
SP_PEER_SEEDS ?= $(SP_SEEDS)
ifneq ($(SP_PEER),)
ifeq ($(SP_CLRS30),)
$(error SP_PEER=$(SP_PEER): CLRS's baseline runs beside the clrs profile only (SP_PROFILE=clrs))
endif
sp_peer_seeds = $(or $(SP_PEER_SEEDS_$(1)),$(SP_PEER_SEEDS))
sp_peer_label = $(if $(filter mpnn,$(1)),MPNN,Triplet-GMPNN) (dm-clrs 2.0.3 on this machine)$(if $(filter-out $(SP_ITERS),$(2)), after $(2) steps)
# a run is <processor>-n<steps>-s<seed>
sp_peer_word = $(word $(2),$(subst -, ,$(1)))
$(SP_OUT)/peer/%.tsv: $(SP_DATA)/test.mp | $(BUILD)/peer-venv/.installed
	@mkdir -p $(SP_OUT)/peer
	@if [ ! -e $(SP_OUT)/peer/$*.ckpt/checkpoint.pkl ] && [ -e $(SP_PEER_KEPT)/$*.pkl ]; then \
	  echo "peer $*: resuming from $(SP_PEER_KEPT)/$*.pkl"; mkdir -p $(SP_OUT)/peer/$*.ckpt \
	  && cp $(SP_PEER_KEPT)/$*.pkl $(SP_OUT)/peer/$*.ckpt/checkpoint.pkl.tmp \
	  && mv $(SP_OUT)/peer/$*.ckpt/checkpoint.pkl.tmp $(SP_OUT)/peer/$*.ckpt/checkpoint.pkl; fi
	nice -n 10 $(BUILD)/peer-venv/bin/python tests/bench/clrs_peer.py train --processor $(call sp_peer_word,$*,1) \
	  --seed $(patsubst s%,%,$(call sp_peer_word,$*,3)) --steps $(patsubst n%,%,$(call sp_peer_word,$*,2)) \
	  --eval-at $(patsubst n%,%,$(call sp_peer_word,$*,2)) \
	  --threads 1 $(if $(SP_PEER_CPUS),--cpus $(SP_PEER_CPUS)) --dar-test $< --predictions $(SP_OUT)/peer/$* --checkpoint-dir $(SP_OUT)/peer/$*.ckpt \
	  --out $@.tmp && mv $@.tmp $@
# the kept finished runs (explicit rules: before the pattern rule above)
define sp_peer_kept
$(SP_OUT)/peer/$(1).tsv: $(SP_PEER_KEPT)/$(1).tsv
	@mkdir -p $(SP_OUT)/peer && rm -rf $(SP_OUT)/peer/$(1) && cp -r $(SP_PEER_KEPT)/$(1) $(SP_OUT)/peer/$(1) \
	  && cp $$< $$@.tmp && mv $$@.tmp $$@
endef
$(foreach r,$(patsubst $(SP_PEER_KEPT)/%.tsv,%,$(wildcard $(SP_PEER_KEPT)/*.tsv)),$(eval $(call sp_peer_kept,$(r))))
# peer P, seed S, steps N, test set (scores dir suffix, the traced stream, the peer's name for it)
define sp_peer_score
$(SP_OUT)/scores$(4)/peer-$(1)-i$(3)-s$(2).mp $(SP_OUT)/graphs$(4)/peer-$(1)-i$(3)-s$(2).mp &: $(SP_OUT)/peer/$(1)-n$(3)-s$(2).tsv $(5) | all
	@mkdir -p $(SP_OUT)/scores$(4) $(SP_OUT)/graphs$(4)
	$$(call light, $$(SP_PY) scripts/clrs_convert.py with-predictions $(5) $(SP_OUT)/peer/$(1)-n$(3)-s$(2)/$(6)-$(3).npy \
	  | metrics --split test -l "model=$$(call sp_peer_label,$(1),$(3))" -l seed=$(2) \
	    --per-graph $(SP_OUT)/graphs$(4)/peer-$(1)-i$(3)-s$(2).mp.tmp > $(SP_OUT)/scores$(4)/peer-$(1)-i$(3)-s$(2).mp.tmp) \
	  && mv $(SP_OUT)/graphs$(4)/peer-$(1)-i$(3)-s$(2).mp.tmp $(SP_OUT)/graphs$(4)/peer-$(1)-i$(3)-s$(2).mp \
	  && mv $(SP_OUT)/scores$(4)/peer-$(1)-i$(3)-s$(2).mp.tmp $(SP_OUT)/scores$(4)/peer-$(1)-i$(3)-s$(2).mp
endef
$(foreach p,$(SP_PEER),$(foreach n,$(SP_PEER_STEPS),$(foreach s,$(call sp_peer_seeds,$(n)),\
  $(eval $(call sp_peer_score,$(p),$(s),$(n),,$(SP_DATA)/test.mp,dar64))\
  $(eval $(call sp_peer_score,$(p),$(s),$(n),-clrs30,$(SP_DATA)/clrs30.mp,clrs30)))))
SP_PEER_RUNS := $(foreach p,$(SP_PEER),$(foreach n,$(SP_PEER_STEPS),$(foreach s,$(call sp_peer_seeds,$(n)),peer-$(p)-i$(n)-s$(s))))
SP_SCORES += $(foreach r,$(SP_PEER_RUNS),$(SP_OUT)/scores/$(r).mp)
SP_CLRS30_SCORES += $(foreach r,$(SP_PEER_RUNS),$(SP_OUT)/scores-clrs30/$(r).mp)
endif
SP_PY := /usr/bin/python3
# The table as TSV and its resampling units (each test graph's sum and count
# per run, pipelines/bootstrap.py): what claims.py decides the claims of
# pipelines/claims-sp.tsv on, here and in make report.
$(SP_OUT)/table-sp.tsv: $(SP_SCORES)
	cat $^ | metrics --table tsv --rows model --cols name --quantity $(SP_QUANTITIES) > $@.tmp && mv $@.tmp $@
$(SP_OUT)/table-sp.units.tsv: $(SP_SCORES) $(subst /scores/,/graphs/,$(SP_SCORES)) pipelines/bootstrap.py
	$(SP_PY) pipelines/bootstrap.py units --rows model --cols name --quantity $(SP_QUANTITIES) $(SP_SCORES) > $@.tmp && mv $@.tmp $@
sp_claims = $(SP_PY) pipelines/claims.py --claims pipelines/claims-sp.tsv --paper-dir pipelines/paper \
  --table table-sp=$(SP_OUT)/table-sp.tsv --units table-sp=$(SP_OUT)/table-sp.units.tsv
# CLRS-30's split as a table of its own for the claims of
# pipelines/claims-sp-clrs.tsv (the field's bar and the peer run here)
ifneq ($(SP_CLRS30),)
$(SP_OUT)/table-sp-clrs30.tsv: $(SP_CLRS30_SCORES)
	cat $^ | metrics --table tsv --rows model --cols name --quantity $(SP_QUANTITIES) > $@.tmp && mv $@.tmp $@
$(SP_OUT)/table-sp-clrs30.units.tsv: $(SP_CLRS30_SCORES) $(subst /scores-clrs30/,/graphs-clrs30/,$(SP_CLRS30_SCORES)) pipelines/bootstrap.py
	$(SP_PY) pipelines/bootstrap.py units --rows model --cols name --quantity $(SP_QUANTITIES) $(SP_CLRS30_SCORES) > $@.tmp && mv $@.tmp $@
SP_CLRS30_CLAIMS := $(SP_OUT)/table-sp-clrs30.tsv $(SP_OUT)/table-sp-clrs30.units.tsv pipelines/claims-sp-clrs.tsv
sp_clrs_claims = $(SP_PY) pipelines/claims.py --claims pipelines/claims-sp-clrs.tsv --paper-dir pipelines/paper \
  --table table-sp=$(SP_OUT)/table-sp.tsv --units table-sp=$(SP_OUT)/table-sp.units.tsv \
  --table clrs30=$(SP_OUT)/table-sp-clrs30.tsv --units clrs30=$(SP_OUT)/table-sp-clrs30.units.tsv
endif
# Under the table, the claims of pipelines/claims-sp.tsv with their verdicts
# on this profile's numbers, decided with intervals as make report does.
$(SP_OUT)/table-sp.md: $(SP_SCORES) $(SP_CLRS30_SCORES) $(SP_CLRS30_CLAIMS) $(SP_OUT)/table-sp.tsv $(SP_OUT)/table-sp.units.tsv pipelines/claims-sp.tsv pipelines/claims.py
	cat $(SP_SCORES) | metrics --table md --rows model --cols name --quantity $(SP_QUANTITIES) \
	  --percent pointer_accuracy,feasible_edges,path_optimal --digits 3 \
	  --title "Shortest paths (Bellman-Ford), trained at $(SP_TRAIN_NODES) nodes, tested at $(SP_TEST_NODES) — $(SP_NOTE); CLRS's rows: their published 64-node scores" \
	  | awk -F'|' -v clrs='$(SP_CLRS)' '{ print } /^\| model \|/ { cols = NF - 3 } \
	    END { n = split(clrs$(comma) c$(comma) "|"); for (i = 1; i < n; i += 2) { line = "| " c[i] " | " c[i + 1] " |"; \
	          for (k = 1; k < cols; k++) line = line " - |"; print line } }' > $@.tmp \
	  && printf '\nClaims (pipelines/claims-sp.tsv), each comparison decided by a paired bootstrap over the $(SP_TEST_COUNT) test graphs and the seeds (95%% interval of the margin, positive on the claim'"'"'s side: pipelines/bootstrap.py):\n\n' >> $@.tmp \
	  && $(sp_claims) --markdown >> $@.tmp \
	  $(if $(SP_CLRS30),&& printf '\n' >> $@.tmp && cat $(SP_CLRS30_SCORES) | metrics --table md --rows model --cols name \
	    --quantity $(SP_QUANTITIES) --percent pointer_accuracy$(comma)feasible_edges$(comma)path_optimal --digits 3 \
	    --title "The same models on CLRS-30's test split for bellman_ford (32 graphs of 64 nodes, $(SP_CLRS30))" >> $@.tmp \
	    && printf '\nClaims on the clrs profile (pipelines/claims-sp-clrs.tsv) decided as above: clrs30 is the table just above:\n\n' >> $@.tmp \
	    && $(sp_clrs_claims) --markdown >> $@.tmp) \
	  && mv $@.tmp $@

.PHONY: table-sp
table-sp: $(SP_OUT)/table-sp.md
	@cat $<
