# pipelines/vessel.mk - the brain-vessel half of the study (paper §4.2, Table
# bvg-res), included by the top-level Makefile after study.mk, whose PROFILE,
# OUT, RUN, heavy, comma, TOOLS_BUILT and model targets it reuses.
#
#   make table3 [PROFILE=smoke|quick|paper]   Table 3: the LC rows (LC, LC (primal),
#                                            LC (dual)) on CD1-E-3, CD1-E-2, CD1-E-1
#
# Data flow, per graph G (gen-graphs --family vessel at the CD1-E-X sizes):
#   LC:           lc-train < G | metrics                          (3 trials)
#   LC (V), V = primal | dual:
#     edge-embed --reconstruct --model $(OUT)/models/V-pgn-max-s0.mp < small > recon-V.mp   (once)
#     edge-embed --model recon-V.mp < G > tmp;  lc-train --inputs ...,edge_embed < tmp | metrics (3 trials)
# Scores: balanced accuracy and the benchmark's ROC (roc_hard: AUC of the hard
# predictions, bvg.md §3) on the test edges of the random 80/10/10 split
# (split seed 12).  A trial is an lc-train --seed; the split stays fixed, as
# the paper followed the benchmark's fixed split.
#
# Memory and disk: a CD1-E-1 record is 0.45 GB, 3 GB with an embedding.  The
# embedded record is written once per (variant, graph) to a temporary file
# beside the target, read by the three trials and removed; lc-train's output
# goes straight into metrics, without the embedding (--drop edge_embed: the
# metrics reader stops at 2 GiB records).  Both run with --no-cache (their outputs are as
# large as their inputs and consumed once, as dar-step's in study.mk); the
# graphs, the DAR models and the reconstructed models are targets (and cached).

ifeq ($(PROFILE),smoke)
  VESSEL_NOTE := smoke profile: graphs of 240k/200k/300k edges (paper 3.1M/2.2M/5.8M), reconstruction 2 Adam steps on 4 trace frames (paper 15000 on all), H=8 DAR models, 3 trials
  VESSEL_EDGES_CD1-E-3 := 240000
  VESSEL_EDGES_CD1-E-2 := 200000
  VESSEL_EDGES_CD1-E-1 := 300000
  VESSEL_RECON_OPTS := --iters 2 --max-steps 4
else ifeq ($(PROFILE),quick)
  VESSEL_NOTE := quick profile: CD1-E-sized synthetic graphs, reconstruction 100 Adam steps on the first 39 trace frames (paper 15000 on all), 3 trials
  VESSEL_EDGES_CD1-E-3 := 3130650
  VESSEL_EDGES_CD1-E-2 := 2150326
  VESSEL_EDGES_CD1-E-1 := 5791309
  # 39 frames: the first Bellman-Ford phase and augmentation (formats/edge-embed.md), ~6 s an iteration at H = 65
  VESSEL_RECON_OPTS := --iters 100 --max-steps 39
else ifeq ($(PROFILE),paper)
  # the whole trace for 15000 steps: days of CPU (formats/edge-embed.md)
  VESSEL_NOTE := paper profile: CD1-E-sized synthetic graphs, reconstruction 15000 Adam steps (lr 1e-5) on the whole trace, 3 trials
  VESSEL_EDGES_CD1-E-3 := 3130650
  VESSEL_EDGES_CD1-E-2 := 2150326
  VESSEL_EDGES_CD1-E-1 := 5791309
  VESSEL_RECON_OPTS :=
endif
VESSEL_GRAPHS := CD1-E-3 CD1-E-2 CD1-E-1
VESSEL_TRIALS := 0 1 2
VESSEL_RECON_EDGES := 3234
VESSEL_SEED := 1
VESSEL_FEATURES := length$(comma)distance$(comma)curveness
VESSEL := $(OUT)/vessel

# make 4.3 matches .PRECIOUS patterns against the rules' own target patterns
.PRECIOUS: $(VESSEL)/graph-%.mp $(VESSEL)/recon-%.mp $(VESSEL)/scores/lc-%.mp $(VESSEL)/scores/lcembed-%.mp

# ---- data: the three study graphs and the small reconstruction graph --------------
$(VESSEL)/graph-%.mp: $(TOOLS_BUILT)
	@mkdir -p $(@D)
	$(call heavy, gen-graphs --family vessel --edges $(VESSEL_EDGES_$*) --seed $(VESSEL_SEED) > $@.tmp) && mv $@.tmp $@
$(VESSEL)/recon-graph.mp: $(TOOLS_BUILT)
	@mkdir -p $(@D)
	$(call heavy, gen-graphs --family vessel --edges $(VESSEL_RECON_EDGES) --seed $(VESSEL_SEED) > $@.tmp) && mv $@.tmp $@

# ---- algorithm reconstruction: PGN-max primal / dual of study.mk, seed 0 -----------
$(VESSEL)/recon-%.mp: $(OUT)/models/%-pgn-max-s0.mp $(VESSEL)/recon-graph.mp $(TOOLS_BUILT)
	@mkdir -p $(@D) $(OUT)/logs
	$(call heavy, edge-embed --reconstruct --model $< $(VESSEL_RECON_OPTS) --log $(OUT)/logs/recon-$*.tsv -q < $(VESSEL)/recon-graph.mp > $@.tmp) && mv $@.tmp $@

# ---- scores: 3 trials of lc-train piped into metrics ---------------------------------
# $(1) model label, $(2) graph name, $(3) input record, $(4) lc-train options.
# The trials append to $@.tmp, which the heavy command first removes, so a
# launcher that re-runs a failed job never doubles a trial.
lc_trials = $(foreach s,$(VESSEL_TRIALS),lc-train -q --no-cache --seed $(s) $(4) < $(3) \
  | metrics --quantity balanced_accuracy$(comma)roc_hard -l "model=$(1)" -l graph=$(2) -l seed=$(s) >> $@.tmp && )

$(VESSEL)/scores/lc-%.mp: $(VESSEL)/graph-%.mp $(TOOLS_BUILT)
	@mkdir -p $(@D)
	$(call heavy, rm -f $@.tmp && $(call lc_trials,LC,$*,$<,--inputs $(VESSEL_FEATURES)) true) && mv $@.tmp $@

# lc-primal-CD1-E-3.mp: variant primal, graph CD1-E-3
vessel_variant = $(firstword $(subst -, ,$(1)))
vessel_graph = $(patsubst $(firstword $(subst -, ,$(1)))-%,%,$(1))
.SECONDEXPANSION:
$(VESSEL)/scores/lcembed-%.mp: $(VESSEL)/recon-$$(call vessel_variant,$$*).mp $(VESSEL)/graph-$$(call vessel_graph,$$*).mp $(TOOLS_BUILT)
	@mkdir -p $(@D)
	$(call heavy, rm -f $@.tmp && edge-embed -q --no-cache --model $< < $(word 2,$^) > $@.embedded.tmp \
	  && $(call lc_trials,LC ($(call vessel_variant,$*)),$(call vessel_graph,$*),$@.embedded.tmp,--inputs $(VESSEL_FEATURES)$(comma)edge_embed --drop edge_embed) true) \
	  && rm -f $@.embedded.tmp && mv $@.tmp $@

# ---- the table -----------------------------------------------------------------------
TABLE3_SCORES := $(foreach g,$(VESSEL_GRAPHS),$(VESSEL)/scores/lc-$(g).mp) \
  $(foreach v,primal dual,$(foreach g,$(VESSEL_GRAPHS),$(VESSEL)/scores/lcembed-$(v)-$(g).mp))

$(OUT)/table3.md: $(TABLE3_SCORES) pipelines/paper/table3.tsv
	cat $(TABLE3_SCORES) | metrics --table md --rows model --cols graph,name --quantity balanced_accuracy,roc_hard \
	  --title "Table 3 (bvg-res): balanced accuracy and ROC (hard predictions) on the test edges — $(VESSEL_NOTE); ours (paper)" \
	  --paper pipelines/paper/table3.tsv > $@.tmp && mv $@.tmp $@

.PHONY: table3
table3: $(OUT)/table3.md
	@cat $<
