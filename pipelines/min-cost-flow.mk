# pipelines/min-cost-flow.mk - min-cost maximum flow with its node
# potentials, the registry's fifth entry, as tables (included by the
# top-level Makefile, before study.mk, whose `heavy` and `light` it uses).
#
#   make table-mcf [PROFILE=smoke|quick] [MC_PROFILE=recipe-rounds]
#
# No published neural algorithmic reasoning result exists for min-cost flow
# (the table is a first, and says so): its rows stand beside the algorithm
# itself and a random baseline only.  Variants primal (the flow), dual (also
# the potentials pi, the LP dual) and no-algo, PGN-max with the field's
# recipe (H 128, layer norm, gate, no teacher forcing, clipping at 1, CLRS's
# edge pointer head), trained on half undirected two-community graphs of 16
# nodes with costs U{1..10}/10 and half DAGs (--directed: arcs low->high,
# costs U{-5..10}/10, so negative costs without a negative cycle).  Each
# prediction is repaired by cost-fix into a feasible flow of the maximum value,
# certified against the row's own potentials where it has them (the dual, the
# random baseline, the algorithm; a primal or no-algo flow carries no
# certificate), compared with the optimum (mcf_optimal, every row) and scored
# by metrics on each test set: two-community at 16, 32 and 64 nodes (2x and
# 4x the training size), Erdos-Renyi at 16, and the DAG set at 16 and 64.
# The claims of pipelines/claims-mcf.tsv are decided by pipelines/claims.py
# with a paired bootstrap over the test graphs and the seeds (metrics
# --per-graph), as make report decides the others.  Same conventions as
# study.mk: every heavy recipe one `bash -c` line through $(RUN), $@.tmp
# renamed into place, dar-fit cached by content.  Variables are MC_-prefixed.

PROFILE ?= quick
OUT ?= out/$(PROFILE)
# this table's own profile: PROFILE's unless MC_PROFILE names another
MC_PROFILE ?= $(PROFILE)

ifeq ($(MC_PROFILE),smoke)
  MC_NOTE := smoke profile: 24 training graphs of 8 nodes, 4 iterations, H=8; 4 test graphs a set
  MC_TRAIN_NODES := 8
  MC_TRAIN_COUNT := 12
  MC_VAL_COUNT := 4
  MC_TEST_COUNT := 4
  MC_ITERS := 4
  MC_EVAL_EVERY := 2
  MC_FIT_EXTRA := -H 8 --batch 4
  MC_SIZES := 8 16
  MC_DAG_SIZES := 8
  MC_FAMILY_NODES := 8
else
  MC_NOTE := quick profile: 1000 training graphs of 16 nodes (500 undirected, 500 DAGs), 300 iterations of batch 32, the field's recipe, 1 seed; 32 test graphs a set
  MC_TRAIN_NODES := 16
  MC_TRAIN_COUNT := 500
  MC_VAL_COUNT := 16
  MC_TEST_COUNT := 32
  MC_ITERS := 300
  MC_EVAL_EVERY := 50
  MC_FIT_EXTRA := -H 128
  MC_SIZES := 16 32 64
  MC_DAG_SIZES := 16 64
  MC_FAMILY_NODES := 16
endif
# the quick profile with soft hints on the rounds trace (ff-trace
# --sp-rounds: a frame per relaxation round of each search and per
# augmentation, so each step is one hop; formats/graph.md): the same graphs
# traced so, into their own directory, the models phased
ifeq ($(MC_PROFILE),recipe-rounds)
  MC_NOTE := recipe-rounds profile: the quick profile (1000 training graphs of 16 nodes, 500 undirected and 500 DAGs, 300 iterations of batch 32, the field's recipe, 1 seed; 32 test graphs a set) with soft hints, on the rounds trace (a frame per relaxation round and per augmentation)
  MC_FIT_EXTRA := -H 128 --soft-hints
  MC_TRACE := --sp-rounds
  MC_DIR := min-cost-flow-rounds
endif
MC_TRACE ?=
MC_DIR ?= min-cost-flow
MC_SEEDS := 0
MC_PROCESSORS := pgn

# the test sets: two-community at each size, DAGs, Erdos-Renyi
MC_SETS := $(MC_SIZES:%=tc%) $(MC_DAG_SIZES:%=dag%) er
mc_set_family = $(if $(filter er,$(1)),erdos-renyi,two-community)
mc_set_nodes = $(if $(filter er,$(1)),$(MC_FAMILY_NODES),$(patsubst dag%,%,$(patsubst tc%,%,$(1))))
mc_set_options = $(if $(filter dag%,$(1)),--directed)

MC_OUT := $(OUT)/$(MC_DIR)
MC_DATA := $(MC_OUT)/data
# the field's recipe (results/clrs/README.md), Adam at 1e-3, no weight decay
MC_RECIPE := --optim adam --lr 0.001 --weight-decay 0 --layer-norm --gate --tf-decay 0 --clip-norm 1 --pointer-head edge
MC_CONFIGS := $(foreach p,$(MC_PROCESSORS),primal-$(p) dual-$(p) noalgo-$(p))
mc_word = $(word $(2),$(subst -, ,$(1)))
mc_variant = $(if $(filter noalgo,$(1)),no-algo,$(1))
mc_proc_label = $(if $(filter mpnn,$(1)),MPNN-max,PGN-max)
mc_label = $(if $(filter random,$(1)),Random,$(if $(filter algorithm,$(1)),The algorithm (its own flow and potentials),$(call \
  mc_proc_label,$(call mc_word,$(1),2)) ($(call mc_variant,$(call mc_word,$(1),1)))))
# a row's scores on a set on stdout and each graph's share of them in graphs/
mc_metrics = metrics --split test -l "model=$(call mc_label,$(1))" -l seed=$(2) -l set=$(3) --per-graph $(4)

mc_gen = gen-graphs --instance min-cost-flow --family $(1) --nodes $(2) --count $(3) --seed $(4) $(5) \
  | ff-trace --algorithm min-cost-flow $(MC_TRACE) -q
# training and validation: the undirected set then the DAGs, one stream
$(MC_DATA)/train.mp: | all
	@mkdir -p $(@D)
	$(call light, { $(call mc_gen,two-community,$(MC_TRAIN_NODES),$(MC_TRAIN_COUNT),501,); \
	  $(call mc_gen,two-community,$(MC_TRAIN_NODES),$(MC_TRAIN_COUNT),502,--directed); } > $@.tmp) && mv $@.tmp $@
$(MC_DATA)/val.mp: | all
	@mkdir -p $(@D)
	$(call light, { $(call mc_gen,two-community,$(MC_TRAIN_NODES),$(MC_VAL_COUNT),503,); \
	  $(call mc_gen,two-community,$(MC_TRAIN_NODES),$(MC_VAL_COUNT),504,--directed); } > $@.tmp) && mv $@.tmp $@
$(MC_DATA)/test-%.mp: | all
	@mkdir -p $(@D)
	$(call light, $(call mc_gen,$(call mc_set_family,$*),$(call mc_set_nodes,$*),$(MC_TEST_COUNT),505,$(call \
	  mc_set_options,$*)) > $@.tmp) && mv $@.tmp $@

.PRECIOUS: $(MC_OUT)/models/%.mp
$(MC_OUT)/models/%.mp: $(MC_DATA)/train.mp $(MC_DATA)/val.mp | all
	@mkdir -p $(@D) $(MC_OUT)/logs
	$(call heavy, dar-fit --variant $(call mc_variant,$(call mc_word,$*,1)) --processor $(call mc_word,$*,2) --agg max \
	  --seed $(patsubst s%,%,$(call mc_word,$*,3)) --iters $(MC_ITERS) --eval-every $(MC_EVAL_EVERY) --threads 1 \
	  $(MC_RECIPE) $(MC_FIT_EXTRA) --val $(MC_DATA)/val.mp --log $(MC_OUT)/logs/$*.tsv -q \
	  < $(MC_DATA)/train.mp > $@.tmp) && mv $@.tmp $@

# the predictions of a row, repaired and certified: a model, the random
# baseline, or the algorithm's own flow and potentials
mc_predict = $(if $(filter random,$(1)),dar-step --baseline random --algorithm min-cost-flow --seed $(2) | cost-fix,$(if \
  $(filter algorithm,$(1)),cost-fix --key flow --potential-key potential,dar-step --no-cache --model \
  $(MC_OUT)/models/$(1)-s$(2).mp | cost-fix))

define MC_SCORE_RULE
$(MC_OUT)/scores/$(1)-s$(2)-%.mp $(MC_OUT)/graphs/$(1)-s$(2)-%.mp: $(if $(filter random algorithm,$(1)),,$(MC_OUT)/models/$(1)-s$(2).mp) $(MC_DATA)/test-%.mp | all
	@mkdir -p $(MC_OUT)/scores $(MC_OUT)/graphs
	$$(call heavy, < $(MC_DATA)/test-$$*.mp $$(call mc_predict,$(1),$(2)) \
	  | $$(call mc_metrics,$(1),$(2),$$*,$(MC_OUT)/graphs/$(1)-s$(2)-$$*.mp.tmp) > $(MC_OUT)/scores/$(1)-s$(2)-$$*.mp.tmp) \
	  && mv $(MC_OUT)/graphs/$(1)-s$(2)-$$*.mp.tmp $(MC_OUT)/graphs/$(1)-s$(2)-$$*.mp \
	  && mv $(MC_OUT)/scores/$(1)-s$(2)-$$*.mp.tmp $(MC_OUT)/scores/$(1)-s$(2)-$$*.mp
endef
MC_ROW_CONFIGS := $(MC_CONFIGS) algorithm random
$(foreach c,$(MC_ROW_CONFIGS),$(foreach s,$(MC_SEEDS),$(eval $(call MC_SCORE_RULE,$(c),$(s)))))

MC_ROWS := $(foreach c,$(MC_ROW_CONFIGS),$(foreach s,$(MC_SEEDS),$(c)-s$(s)))
MC_SCORES := $(foreach s,$(MC_SETS),$(foreach r,$(MC_ROWS),$(MC_OUT)/scores/$(r)-$(s).mp))
.PRECIOUS: $(foreach r,$(MC_ROWS),$(MC_OUT)/scores/$(r)-%.mp $(MC_OUT)/graphs/$(r)-%.mp) $(MC_DATA)/test-%.mp

# Every set's scores as one table TSV (a row per model and set) and its
# resampling units (pipelines/bootstrap.py): what claims.py decides the
# claims of pipelines/claims-mcf.tsv on, here and in make report.
MC_CLAIM_QUANTITIES := mcf_cost_excess,mcf_optimal,mcf_certified,mcf_flow_mae,mcf_potential_feasible
MC_PY := /usr/bin/python3
$(MC_OUT)/table-mcf.tsv: $(MC_SCORES)
	cat $^ | metrics --table tsv --rows model,set --cols name --quantity $(MC_CLAIM_QUANTITIES) > $@.tmp && mv $@.tmp $@
$(MC_OUT)/table-mcf.units.tsv: $(MC_SCORES) $(subst /scores/,/graphs/,$(MC_SCORES)) pipelines/bootstrap.py
	$(MC_PY) pipelines/bootstrap.py units --rows model,set --cols name --quantity $(MC_CLAIM_QUANTITIES) $(MC_SCORES) > $@.tmp \
	  && mv $@.tmp $@
mc_claims = $(MC_PY) pipelines/claims.py --claims pipelines/claims-mcf.tsv --paper-dir pipelines/paper \
  --table table-mcf=$(MC_OUT)/table-mcf.tsv --units table-mcf=$(MC_OUT)/table-mcf.units.tsv

MC_TITLE = trained on two-community graphs of $(MC_TRAIN_NODES) nodes, undirected and DAGs; columns: tc<n> = two-community of n nodes, dag<n> = DAGs with negative costs, er = Erdos-Renyi at $(MC_FAMILY_NODES) — $(MC_NOTE)
mc_table = cat $(MC_SCORES) | metrics --table md --rows model --cols set --quantity $(1) --digits 3 --title "$(2), $(MC_TITLE)"
$(MC_OUT)/table-mcf.md: $(MC_SCORES) $(MC_OUT)/table-mcf.tsv $(MC_OUT)/table-mcf.units.tsv pipelines/claims-mcf.tsv pipelines/claims.py
	{ echo "No published neural algorithmic reasoning result for min-cost flow is known to us: these rows are a first, beside the algorithm itself and a random baseline."; echo; \
	  $(call mc_table,mcf_cost_excess,Min-cost flow: the repaired flow's cost above the optimum over the cost of its flow (sum |c| |F|; 0 is optimal; mean over graphs)); echo; \
	  $(call mc_table,mcf_optimal,Min-cost flow: the share of graphs whose repaired flow costs the optimum (every row)); echo; \
	  $(call mc_table,mcf_certified,Min-cost flow: the share of graphs whose repaired flow its own predicted potentials certify optimal (dual rows; the random baseline's potentials; the algorithm's own): a flow without potentials carries no certificate); echo; \
	  $(call mc_table,mcf_flow_mae,Min-cost flow: the predicted flow's mean absolute error per edge before repair); echo; \
	  $(call mc_table,mcf_potential_feasible,Min-cost flow: the share of the optimal flow's residual arcs whose reduced cost under the predicted potentials is not negative (dual rows and the algorithm)); \
	  printf '\nClaims (pipelines/claims-mcf.tsv): DAR'"'"'s question on the fifth pair; each comparison decided by a paired bootstrap over the test graphs of each set and the seeds (95%% interval of the margin, positive on the claim'"'"'s side: pipelines/bootstrap.py):\n\n'; \
	  $(mc_claims) --markdown; } > $@.tmp && mv $@.tmp $@

.PHONY: table-mcf
table-mcf: $(MC_OUT)/table-mcf.md
	@cat $<
