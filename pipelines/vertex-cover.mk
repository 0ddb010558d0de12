# pipelines/vertex-cover.mk - weighted vertex cover with its edge packing,
# the registry's fourth entry, against PDNAR (He & Vitercik, ICML 2025), as
# tables (included by the top-level Makefile, before study.mk, whose
# `heavy` and `light` it uses).
#
#   make table-vc [PROFILE=smoke|quick]
#
# Variants primal (the cover), dual (also the increments and the packing),
# no-algo and dual +opt (PDNAR's extra loss toward the optimal cover, from
# gen-graphs --optimum-nodes on the training graphs), each with PGN and MPNN (max
# aggregation), trained on Barabasi-Albert graphs of 16 nodes (attachment m
# in 1..9 per graph, node weights U(0,1]), each prediction repaired by
# cover-fix (PDNAR's corrective stage) and scored by metrics on every test
# set: Barabasi-Albert at 16 ... 1024 nodes, and Erdos-Renyi (p ~ U(0.2,
# 0.8)), star, lobster and bipartite at 64.  Beside them the algorithm
# itself (its own cover and packing: ratio 1, the certified gap measured),
# PDNAR's corrective stage alone (greedy by weight per uncovered edge, from
# an empty cover) and random scores.  Three tables (the weight over the
# algorithm's, over the optimum, and the certified gap; sets as columns),
# then the claims of pipelines/claims-vc.tsv, decided by pipelines/claims.py
# with a paired bootstrap over the test graphs (each run's per-graph scores,
# metrics --per-graph) and the seeds, as make report decides them.  PDNAR's published
# numbers go in pipelines/paper/vertex-cover-pdnar.tsv (none transcribed
# yet: vertex-cover-pdnar.md).  Same conventions as study.mk: every heavy
# recipe one `bash -c` line through $(RUN), $@.tmp renamed into place,
# dar-fit cached by content.  Variables are VC_-prefixed.

PROFILE ?= quick
OUT ?= out/$(PROFILE)
# this table's own profile: PROFILE's unless VC_PROFILE names another, so
# `make report PROFILE=core VC_PROFILE=smoke` runs max-flow at the paper's
# settings without this pair's quick-size trainings
VC_PROFILE ?= $(PROFILE)

ifeq ($(VC_PROFILE),smoke)
  VC_NOTE := smoke profile: 24 training graphs of 8 nodes, 4 iterations, H=8; 4 test graphs a set
  VC_TRAIN_NODES := 8
  VC_TRAIN_COUNT := 24
  VC_VAL_COUNT := 8
  VC_TEST_COUNT := 4
  VC_LARGE_COUNT := 4
  VC_ITERS := 4
  VC_EVAL_EVERY := 2
  VC_FIT_EXTRA := --hidden 8 --batch 4
  VC_SIZES := 16 32
  VC_FAMILY_NODES := 16
  VC_PROCESSORS := pgn
else
  VC_NOTE := quick profile: 1000 training graphs of 16 nodes, 300 iterations, 1 seed; 32 test graphs a set (8 at 512 and 1024 nodes)
  VC_TRAIN_NODES := 16
  VC_TRAIN_COUNT := 1000
  VC_VAL_COUNT := 32
  VC_TEST_COUNT := 32
  VC_LARGE_COUNT := 8
  VC_ITERS := 300
  VC_EVAL_EVERY := 50
  VC_FIT_EXTRA :=
  VC_SIZES := 16 32 64 128 256 512 1024
  VC_FAMILY_NODES := 64
  VC_PROCESSORS := pgn mpnn
endif
VC_SEEDS := 0
# the recipe profile: the quick profile's data and budget trained with the
# field's recipe (issue 37: results/clrs/README.md), PGN only: MPNN at H 128
# on the 1024-node sets is hours of a core
ifeq ($(VC_PROFILE),recipe)
  VC_NOTE := recipe profile: the quick profile's data and budget (1000 training graphs of 16 nodes, 300 iterations, 3 seeds; 32 test graphs a set, 8 at 512 and 1024 nodes) with the field's recipe (H 128, layer norm, gate, soft hints, no teacher forcing, clipping at 1), PGN only
  VC_FIT_EXTRA := -H 128 --layer-norm --gate --soft-hints --tf-decay 0 --clip-norm 1
  VC_PROCESSORS := pgn
  VC_SEEDS := 0 1 2
endif
# gen-graphs --optimum-nodes: GLPK's budget per graph, in branch-and-bound
# nodes rather than seconds so that the optima are the same bytes on every
# machine and under any load; enough to prove every training graph and
# every test set up to 64 nodes optimal, while a large graph that does not
# finish in it costs the budget's nodes, not more; a node of a 1,024-node
# graph costs a hundred times one of 64, so the largest sets get a smaller
# budget (their unproven graphs are left out of w(C) / OPT and counted)
VC_OPT_NODES := 2000
VC_OPT_NODES_LARGE := 50
VC_LARGE_SIZES := 512 1024
vc_opt_nodes = $(if $(filter $(VC_LARGE_SIZES),$(call vc_set_nodes,$(1))),$(VC_OPT_NODES_LARGE),$(VC_OPT_NODES))

# the test sets: BA at each size, the other families at VC_FAMILY_NODES
VC_SETS := $(VC_SIZES:%=ba%) er star lobster bipartite
vc_set_family = $(if $(filter ba%,$(1)),barabasi-albert,$(if $(filter er,$(1)),erdos-renyi,$(if $(filter bipartite,$(1)),bipartite-sides,$(1))))
vc_set_nodes = $(if $(filter ba%,$(1)),$(patsubst ba%,%,$(1)),$(VC_FAMILY_NODES))
vc_set_count = $(if $(filter ba512 ba1024,$(1)),$(VC_LARGE_COUNT),$(VC_TEST_COUNT))

VC_OUT := $(OUT)/vertex-cover
VC_DATA := $(VC_OUT)/data
# CLRS's and PDNAR's optimiser (Adam, learning rate 1e-3), no weight decay
VC_OPTIM := --optim adam --lr 0.001 --weight-decay 0
VC_CONFIGS := $(foreach p,$(VC_PROCESSORS),primal-$(p) dual-$(p) noalgo-$(p) dualopt-$(p))
vc_word = $(word $(2),$(subst -, ,$(1)))
vc_variant = $(if $(filter noalgo,$(1)),no-algo,$(if $(filter dualopt,$(1)),dual,$(1)))
vc_proc_label = $(if $(filter mpnn,$(1)),MPNN-max,PGN-max)
vc_var_label = $(if $(filter noalgo,$(1)),no-algo,$(if $(filter dualopt,$(1)),dual +opt,$(1)))
vc_label = $(if $(filter random,$(1)),Random,$(if $(filter algorithm,$(1)),The algorithm (its own cover and packing),$(if \
  $(filter greedy,$(1)),Greedy w/d alone (the corrective stage of PDNAR),$(call vc_proc_label,$(call vc_word,$(1),2)) ($(call \
  vc_var_label,$(call vc_word,$(1),1))))))
# a row's scores on a set on stdout and each graph's share of them in graphs/
# (metrics --per-graph: the bootstrap that decides the claims resamples them)
vc_metrics = metrics --split test -l "model=$(call vc_label,$(1))" -l seed=$(2) -l set=$(3) --per-graph $(4)
VC_QUANTITIES := cover_weight_ratio,cover_opt_ratio,opt_unproven,packing_excess,certified_gap,uncertified

vc_gen = gen-graphs --instance vertex-cover --family $(1) --nodes $(2) --count $(3) --seed $(4) $(5) \
  | ff-trace --algorithm vertex-cover -q
$(VC_DATA)/train.mp: | all
	@mkdir -p $(@D)
	$(call light, $(call vc_gen,barabasi-albert,$(VC_TRAIN_NODES),$(VC_TRAIN_COUNT),401,) > $@.tmp) && mv $@.tmp $@
# the same graphs with their optimum: "+opt"'s training set
$(VC_DATA)/train-opt.mp: | all
	@mkdir -p $(@D)
	$(call light, $(call vc_gen,barabasi-albert,$(VC_TRAIN_NODES),$(VC_TRAIN_COUNT),401,--optimum-nodes $(VC_OPT_NODES)) \
	  > $@.tmp) && mv $@.tmp $@
$(VC_DATA)/val.mp: | all
	@mkdir -p $(@D)
	$(call light, $(call vc_gen,barabasi-albert,$(VC_TRAIN_NODES),$(VC_VAL_COUNT),402,) > $@.tmp) && mv $@.tmp $@
$(VC_DATA)/test-%.mp: | all
	@mkdir -p $(@D)
	$(call heavy, $(call vc_gen,$(call vc_set_family,$*),$(call vc_set_nodes,$*),$(call vc_set_count,$*),403,--optimum-nodes \
	  $(call vc_opt_nodes,$*)) > $@.tmp) && mv $@.tmp $@

.PRECIOUS: $(VC_OUT)/models/%.mp
$(VC_OUT)/models/%.mp: $(VC_DATA)/train.mp $(VC_DATA)/train-opt.mp $(VC_DATA)/val.mp | all
	@mkdir -p $(@D) $(VC_OUT)/logs
	$(call heavy, dar-fit --variant $(call vc_variant,$(call vc_word,$*,1)) --processor $(call vc_word,$*,2) --agg max \
	  --seed $(patsubst s%,%,$(call vc_word,$*,3)) --iters $(VC_ITERS) --eval-every $(VC_EVAL_EVERY) --threads 1 \
	  $(VC_OPTIM) $(VC_FIT_EXTRA) --val $(VC_DATA)/val.mp --log $(VC_OUT)/logs/$*.tsv -q \
	  < $(VC_DATA)/$(if $(filter dualopt,$(call vc_word,$*,1)),train-opt,train).mp > $@.tmp) && mv $@.tmp $@

# the predictions of a row, repaired: a model, the random baseline, the
# algorithm's own pair, or the greedy completion of an empty cover
vc_predict = $(if $(filter random,$(1)),dar-step --baseline random --algorithm vertex-cover --seed $(2) | cover-fix,$(if \
  $(filter algorithm,$(1)),cover-fix --key cover --dual-key packing,$(if $(filter greedy,$(1)),cover-fix --key cover \
  --threshold 2 --dual-key none,dar-step --no-cache --model $(VC_OUT)/models/$(1)-s$(2).mp | cover-fix)))

define VC_SCORE_RULE
$(VC_OUT)/scores/$(1)-s$(2)-%.mp $(VC_OUT)/graphs/$(1)-s$(2)-%.mp: $(if $(filter random algorithm greedy,$(1)),,$(VC_OUT)/models/$(1)-s$(2).mp) $(VC_DATA)/test-%.mp | all
	@mkdir -p $(VC_OUT)/scores $(VC_OUT)/graphs
	$$(call heavy, < $(VC_DATA)/test-$$*.mp $$(call vc_predict,$(1),$(2)) \
	  | $$(call vc_metrics,$(1),$(2),$$*,$(VC_OUT)/graphs/$(1)-s$(2)-$$*.mp.tmp) > $(VC_OUT)/scores/$(1)-s$(2)-$$*.mp.tmp) \
	  && mv $(VC_OUT)/graphs/$(1)-s$(2)-$$*.mp.tmp $(VC_OUT)/graphs/$(1)-s$(2)-$$*.mp \
	  && mv $(VC_OUT)/scores/$(1)-s$(2)-$$*.mp.tmp $(VC_OUT)/scores/$(1)-s$(2)-$$*.mp
endef
VC_ROW_CONFIGS := $(VC_CONFIGS) algorithm greedy random
$(foreach c,$(VC_ROW_CONFIGS),$(foreach s,$(VC_SEEDS),$(eval $(call VC_SCORE_RULE,$(c),$(s)))))

VC_ROWS := $(foreach c,$(VC_ROW_CONFIGS),$(foreach s,$(VC_SEEDS),$(c)-s$(s)))
VC_SCORES := $(foreach s,$(VC_SETS),$(foreach r,$(VC_ROWS),$(VC_OUT)/scores/$(r)-$(s).mp))
.PRECIOUS: $(foreach r,$(VC_ROWS),$(VC_OUT)/scores/$(r)-%.mp $(VC_OUT)/graphs/$(r)-%.mp) $(VC_DATA)/test-%.mp

# Every set's scores as one table TSV (a row per model and set) and its
# resampling units (each test graph's sum and count per run,
# pipelines/bootstrap.py): what claims.py decides the claims of
# pipelines/claims-vc.tsv on, here and in make report.
VC_CLAIM_QUANTITIES := cover_weight_ratio,cover_opt_ratio,certified_gap
VC_PY := /usr/bin/python3
$(VC_OUT)/table-vc.tsv: $(VC_SCORES)
	cat $^ | metrics --table tsv --rows model,set --cols name --quantity $(VC_CLAIM_QUANTITIES) > $@.tmp && mv $@.tmp $@
$(VC_OUT)/table-vc.units.tsv: $(VC_SCORES) $(subst /scores/,/graphs/,$(VC_SCORES)) pipelines/bootstrap.py
	$(VC_PY) pipelines/bootstrap.py units --rows model,set --cols name --quantity $(VC_CLAIM_QUANTITIES) $(VC_SCORES) > $@.tmp \
	  && mv $@.tmp $@
vc_claims = $(VC_PY) pipelines/claims.py --claims pipelines/claims-vc.tsv --paper-dir pipelines/paper \
  --table table-vc=$(VC_OUT)/table-vc.tsv --units table-vc=$(VC_OUT)/table-vc.units.tsv

VC_TITLE = trained on Barabasi-Albert graphs of $(VC_TRAIN_NODES) nodes; columns: ba<n> = Barabasi-Albert of n nodes, the other families at $(VC_FAMILY_NODES) — $(VC_NOTE)
$(VC_OUT)/table-vc.md: $(VC_SCORES) pipelines/paper/vertex-cover-pdnar.tsv $(VC_OUT)/table-vc.tsv $(VC_OUT)/table-vc.units.tsv \
  pipelines/claims-vc.tsv pipelines/claims.py
	{ cat $(VC_SCORES) | metrics --table md --rows model --cols set --quantity cover_weight_ratio --digits 3 \
	    --paper pipelines/paper/vertex-cover-pdnar.tsv \
	    --title "Vertex cover: w(C) / w(C_alg) after cover-fix (PDNAR's final_weight_ratio, mean over graphs), $(VC_TITLE)"; echo; \
	  cat $(VC_SCORES) | metrics --table md --rows model --cols set --quantity cover_opt_ratio --digits 3 \
	    --title "Vertex cover: w(C) / OPT after cover-fix, over the graphs GLPK proved optimal within $(VC_OPT_NODES) branch-and-bound nodes ($(VC_OPT_NODES_LARGE) at $(VC_LARGE_SIZES) nodes; the min cut on bipartite), $(VC_TITLE)"; echo; \
	  cat $(VC_SCORES) | metrics --table md --rows model --cols set --quantity certified_gap --digits 3 \
	    --title "Vertex cover: the certified gap w(C) / sum y after cover-fix (weak duality: >= w(C) / OPT; dual rows and the algorithm only), $(VC_TITLE)"; echo; \
	  cat $(foreach s,$(VC_SETS),$(VC_OUT)/scores/algorithm-s0-$(s).mp) \
	    | metrics --table md --rows set --cols name --quantity opt_unproven --percent opt_unproven --digits 1 --title "The optimum's status: the share of graphs GLPK did not prove optimal within $(VC_OPT_NODES) branch-and-bound nodes ($(VC_OPT_NODES_LARGE) at $(VC_LARGE_SIZES) nodes; left out of w(C) / OPT)"; \
	  if ! grep -qv '^#' pipelines/paper/vertex-cover-pdnar.tsv; then echo; \
	    echo "PDNAR's published numbers are not in this table: none transcribed yet (pipelines/paper/vertex-cover-pdnar.md)."; fi; \
	  printf '\nClaims (pipelines/claims-vc.tsv): PDNAR'"'"'s own, then DAR'"'"'s question; each comparison decided by a paired bootstrap over the test graphs of each set and the seeds (95%% interval of the margin, positive on the claim'"'"'s side: pipelines/bootstrap.py):\n\n'; \
	  $(vc_claims) --markdown; } > $@.tmp && mv $@.tmp $@

.PHONY: table-vc
table-vc: $(VC_OUT)/table-vc.md
	@cat $<
