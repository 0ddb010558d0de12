# pipelines/vessel.mk - the brain-vessel half of the study (paper §4.2, Table
# bvg-res), included by the top-level Makefile after study.mk, whose PROFILE,
# OUT, RUN, heavy, comma, TOOLS_BUILT and model targets it reuses.
#
#   make table3 [PROFILE=smoke|quick|paper]   Table 3 (bvg-res), all 13 rows: LC, GCN, SAGE,
#                                            C-SAGE and their (N2V)/(primal)/(dual) variants
#                                            on CD1-E-3, CD1-E-2, CD1-E-1
#   make table3-n2v-dual                     appendix Table bvg-res-2: LC, SAGE, C-SAGE (dual-N2V)
#   make fig-valid-bvg                       validation balanced accuracy of the C-SAGE variants per graph
#   make fig-reconstruction                  normalised reconstruction loss, primal and dual (Fig. 2b)
#
# Data flow, per graph G (gen-graphs --family vessel at the CD1-E-X sizes):
#   LC:           lc-train < G | metrics                          (3 trials)
#   LC (V), V = primal | dual:
#     edge-embed --reconstruct --model $(OUT)/models/V-pgn-max-s0.mp < small > recon-V.mp   (once)
#     edge-embed --model recon-V.mp < G > tmp;  lc-train --inputs ...,edge_embed < tmp | metrics (3 trials)
#   N2V:          node2vec < G > n2v-G.mp (once per graph; adds n2v f32[m,dim])
#   LC (N2V):     lc-train --inputs ...,n2v < n2v-G.mp | metrics
#   GNN rows:     gnn-train --model gcn|sage|c-sage [--embed edge_embed|n2v|edge_embed,n2v] | metrics
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
  # GNN rows: one trial of a 1 x 4 network for 3 epochs; C-SAGE on real batches (4 of 9 clusters a step)
  # no apostrophe in a note: the figures pass it to gnuplot in single quotes
  GNN_NOTE := GNN rows 1 trial, 1 conv of 4, 3 epochs; N2V dim 8, 1 walk of 10 a vessel
  GNN_TRIALS := 0
  GNN_PROFILE_OPTS := --layers 1 --hidden 4 --epochs 3 --parts 9 --batch-clusters 4
  N2V_OPTS := --dim 8 --walk-length 10 --context 5 --walks-per-node 1 --epochs 1
else ifeq ($(PROFILE),quick)
  # graphs at 1/58 of the CD1-E sizes (CD1-E-1: 100k vessels), so every row fits in about an hour on 2 cores
  VESSEL_NOTE := quick profile: graphs of 54k/37k/100k edges (paper 3.1M/2.2M/5.8M), reconstruction 100 Adam steps on the first 39 trace frames (paper 15000 on all), LC 3 trials
  VESSEL_EDGES_CD1-E-3 := 54000
  VESSEL_EDGES_CD1-E-2 := 37100
  VESSEL_EDGES_CD1-E-1 := 100000
  GNN_NOTE := GNN rows 1 trial, the paper architectures, 80 epochs (paper 1500, C-SAGE on CD1-E-3 5000); N2V 1 epoch (paper 5)
  GNN_TRIALS := 0
  GNN_PROFILE_OPTS := --epochs 80
  N2V_OPTS := --epochs 1
  # 39 frames: the first Bellman-Ford phase and augmentation (formats/edge-embed.md), ~6 s an iteration at H = 65
  VESSEL_RECON_OPTS := --iters 100 --max-steps 39
else ifeq ($(PROFILE),paper)
  # the whole trace for 15000 steps: days of CPU (formats/edge-embed.md)
  VESSEL_NOTE := paper profile: CD1-E-sized synthetic graphs, reconstruction 15000 Adam steps (lr 1e-5) on the whole trace, 3 trials
  VESSEL_EDGES_CD1-E-3 := 3130650
  VESSEL_EDGES_CD1-E-2 := 2150326
  VESSEL_EDGES_CD1-E-1 := 5791309
  VESSEL_RECON_OPTS :=
  GNN_NOTE := GNN rows 3 trials, the paper hyperparameters (appendix tab:bvg-hyperparam)
  GNN_TRIALS := 0 1 2
  GNN_PROFILE_OPTS :=
  # C-SAGE needs more epochs on CD1-E-3 (the paper's appendix)
  GNN_EPOCHS_csage_CD1-E-3 := --epochs 5000
  N2V_OPTS :=
endif
# The paper's architectures (appendix tab:bvg-hyperparam; gnn-train's defaults are its CD1-E-3/E-2
# values, lr 3e-3, patience 300): C-SAGE was re-tuned to 3 x 64 on CD1-E-1.  Not in smoke.
ifneq ($(PROFILE),smoke)
  GNN_ARCH_csage_CD1-E-1 := --layers 3 --hidden 64
endif
VESSEL_GRAPHS := CD1-E-3 CD1-E-2 CD1-E-1
VESSEL_TRIALS := 0 1 2
VESSEL_RECON_EDGES := 3234
VESSEL_SEED := 1
VESSEL_FEATURES := length$(comma)distance$(comma)curveness
VESSEL := $(OUT)/vessel

# make 4.3 matches .PRECIOUS patterns against the rules' own target patterns
.PRECIOUS: $(VESSEL)/graph-%.mp $(VESSEL)/recon-%.mp $(VESSEL)/scores/lc-%.mp $(VESSEL)/scores/lcembed-%.mp \
  $(VESSEL)/n2v-%.mp $(VESSEL)/scores/gnn-%.mp

# ---- data: the three study graphs and the small reconstruction graph --------------
$(VESSEL)/graph-%.mp: $(TOOLS_BUILT)
	$(call publish, $(call heavy, gen-graphs --family vessel --edges $(VESSEL_EDGES_$*) --seed $(VESSEL_SEED) > $@.tmp))
$(VESSEL)/recon-graph.mp: $(TOOLS_BUILT)
	$(call publish, $(call heavy, gen-graphs --family vessel --edges $(VESSEL_RECON_EDGES) --seed $(VESSEL_SEED) > $@.tmp))

# ---- algorithm reconstruction: PGN-max primal / dual of study.mk, seed 0 -----------
$(VESSEL)/recon-%.mp: $(OUT)/models/%-pgn-max-s0.mp $(VESSEL)/recon-graph.mp $(TOOLS_BUILT)
	@mkdir -p $(@D) $(OUT)/logs
	$(call heavy, rm -f $@.progress && DAR_PROGRESS_FILE=$@.progress \
	  edge-embed --reconstruct --model $< $(VESSEL_RECON_OPTS) --log $(OUT)/logs/recon-$*.tsv -q < $(VESSEL)/recon-graph.mp > $@.tmp) && mv $@.tmp $@

# ---- scores: 3 trials of lc-train piped into metrics ---------------------------------
# $(1) model label, $(2) graph name, $(3) input record, $(4) lc-train options.
# The trials append to $@.tmp, which the heavy command first removes, so a
# launcher that re-runs a failed job never doubles a trial.  Each trial's
# confusion matrices per block of test edges (metrics --per-graph) go to the
# scores' graphs/ file, which the report's bootstrap over the test edges reads
# (pipelines/bootstrap.py); it is written before the scores are, so scores
# with no graphs/ file beside them are older than this (a trial is then one
# unit).  Every training appends its progress to $@.progress
# (DAR_PROGRESS_FILE), which pipelines/progress.sh shows.
vessel_graphs = $(subst /scores/,/graphs/,$(1))
vessel_metrics = metrics --quantity balanced_accuracy$(comma)roc_hard -l "model=$(1)" -l graph=$(2) -l seed=$(3) \
  --per-graph $(call vessel_graphs,$@).trial.tmp >> $@.tmp && cat $(call vessel_graphs,$@).trial.tmp >> $(call vessel_graphs,$@).tmp
vessel_begin = mkdir -p $(@D) $(dir $(call vessel_graphs,$@))
vessel_reset = rm -f $@.tmp $(call vessel_graphs,$@).tmp $@.progress
vessel_publish = rm -f $(call vessel_graphs,$@).trial.tmp && mv $(call vessel_graphs,$@).tmp $(call vessel_graphs,$@) && mv $@.tmp $@
lc_trials = $(foreach s,$(VESSEL_TRIALS),DAR_PROGRESS_FILE=$@.progress lc-train -q --no-cache --seed $(s) $(4) < $(3) \
  | $(call vessel_metrics,$(1),$(2),$(s)) && )

$(VESSEL)/scores/lc-%.mp: $(VESSEL)/graph-%.mp $(TOOLS_BUILT)
	@$(vessel_begin)
	$(call heavy, $(vessel_reset) && $(call lc_trials,LC,$*,$<,--inputs $(VESSEL_FEATURES)) true) && $(vessel_publish)

# lc-primal-CD1-E-3.mp: variant primal, graph CD1-E-3
vessel_variant = $(firstword $(subst -, ,$(1)))
vessel_graph = $(patsubst $(firstword $(subst -, ,$(1)))-%,%,$(1))
.SECONDEXPANSION:
$(VESSEL)/scores/lcembed-%.mp: $(VESSEL)/recon-$$(call vessel_variant,$$*).mp $(VESSEL)/graph-$$(call vessel_graph,$$*).mp $(TOOLS_BUILT)
	@$(vessel_begin)
	$(call heavy, $(vessel_reset) && DAR_PROGRESS_FILE=$@.progress edge-embed -q --no-cache --model $< < $(word 2,$^) > $@.embedded.tmp \
	  && $(call lc_trials,LC ($(call vessel_variant,$*)),$(call vessel_graph,$*),$@.embedded.tmp,--inputs $(VESSEL_FEATURES)$(comma)edge_embed --drop edge_embed) true) \
	  && rm -f $@.embedded.tmp && $(vessel_publish)

# ---- Node2Vec: once per graph (node2vec, formats/node2vec.md), kept for every N2V row -----
$(VESSEL)/n2v-%.mp: $(VESSEL)/graph-%.mp $(TOOLS_BUILT)
	@mkdir -p $(@D)
	$(call heavy, rm -f $@.progress && DAR_PROGRESS_FILE=$@.progress node2vec -q --key n2v $(N2V_OPTS) < $< > $@.tmp) && mv $@.tmp $@

# ---- the embedding variants, by name: plain, n2v, primal, dual, dualn2v ---------------------
# gnn_source: the record a variant reads (n2v-G.mp when it needs n2v); gnn_recon: the
# reconstructed model whose edge embeddings it needs, if any; gnn_embed: the keys to the head
# (or the LC's extra inputs); gnn_label: the row's suffix in the paper's table.
gnn_source = $(if $(findstring n2v,$(1)),$(VESSEL)/n2v-$(2).mp,$(VESSEL)/graph-$(2).mp)
gnn_recon = $(if $(filter primal,$(1)),$(VESSEL)/recon-primal.mp,$(if $(filter dual dualn2v,$(1)),$(VESSEL)/recon-dual.mp))
gnn_embed_plain :=
gnn_embed_n2v := n2v
gnn_embed_primal := edge_embed
gnn_embed_dual := edge_embed
gnn_embed_dualn2v := edge_embed$(comma)n2v
vessel_empty :=
space := $(vessel_empty) $(vessel_empty)
gnn_label_plain :=
gnn_label_n2v := $(space)(N2V)
gnn_label_primal := $(space)(primal)
gnn_label_dual := $(space)(dual)
gnn_label_dualn2v := $(space)(dual-N2V)
GNN_MODEL_gcn := gcn
GNN_MODEL_sage := sage
GNN_MODEL_csage := c-sage
GNN_NAME_gcn := GCN
GNN_NAME_sage := SAGE
GNN_NAME_csage := C-SAGE
GNN_NAME_lc := LC
# target stem "MODEL-VARIANT-GRAPH", e.g. csage-dual-CD1-E-1
gnn_model = $(word 1,$(subst -, ,$(1)))
gnn_variant = $(word 2,$(subst -, ,$(1)))
gnn_graph = $(patsubst $(call gnn_model,$(1))-$(call gnn_variant,$(1))-%,%,$(1))
# a variant's record, with edge embeddings added when it needs them (into $@.embedded.tmp)
gnn_input = $(if $(call gnn_recon,$(1)),DAR_PROGRESS_FILE=$@.progress edge-embed -q --no-cache --model $(call gnn_recon,$(1)) < $(call gnn_source,$(1),$(2)) > $@.embedded.tmp &&)
gnn_record = $(if $(call gnn_recon,$(1)),$@.embedded.tmp,$(call gnn_source,$(1),$(2)))
# the options of one model on one graph
gnn_opts = --model $(GNN_MODEL_$(1)) $(GNN_ARCH_$(1)_$(2)) $(GNN_EPOCHS_$(1)_$(2)) $(GNN_PROFILE_OPTS)
gnn_drop = $(if $(gnn_embed_$(1)),--drop $(gnn_embed_$(1)))

# $(1) row label, $(2) graph, $(3) record, $(4) gnn-train options; the log of every trial is
# kept for fig-valid-bvg (logs/gnn-STEM-sS.tsv).
gnn_trials = $(foreach s,$(GNN_TRIALS),DAR_PROGRESS_FILE=$@.progress gnn-train -q --no-cache --seed $(s) $(4) --log $(OUT)/logs/gnn-$*-s$(s).tsv < $(3) \
  | $(call vessel_metrics,$(1),$(2),$(s)) && )

# gnn-csage-dual-CD1-E-1.mp; MODEL lc runs lc-train on the variant's inputs (LC (N2V), LC (dual-N2V))
$(VESSEL)/scores/gnn-%.mp: $$(call gnn_source,$$(call gnn_variant,$$*),$$(call gnn_graph,$$*)) $$(call gnn_recon,$$(call gnn_variant,$$*)) $(TOOLS_BUILT)
	@$(vessel_begin) && mkdir -p $(OUT)/logs
	$(call heavy, $(vessel_reset) && $(call gnn_input,$(call gnn_variant,$*),$(call gnn_graph,$*)) \
	  $(if $(filter lc,$(call gnn_model,$*)), \
	    $(call lc_trials,LC$(gnn_label_$(call gnn_variant,$*)),$(call gnn_graph,$*),$(call gnn_record,$(call gnn_variant,$*),$(call gnn_graph,$*)),--inputs $(VESSEL_FEATURES)$(comma)$(gnn_embed_$(call gnn_variant,$*)) $(call gnn_drop,$(call gnn_variant,$*))), \
	    $(call gnn_trials,$(GNN_NAME_$(call gnn_model,$*))$(gnn_label_$(call gnn_variant,$*)),$(call gnn_graph,$*),$(call gnn_record,$(call gnn_variant,$*),$(call gnn_graph,$*)),$(call gnn_opts,$(call gnn_model,$*),$(call gnn_graph,$*)) $(if $(gnn_embed_$(call gnn_variant,$*)),--embed $(gnn_embed_$(call gnn_variant,$*))) $(call gnn_drop,$(call gnn_variant,$*)))) \
	  true) && rm -f $@.embedded.tmp && $(vessel_publish)

# ---- the table -----------------------------------------------------------------------
TABLE3_SCORES := $(foreach g,$(VESSEL_GRAPHS),$(VESSEL)/scores/lc-$(g).mp) \
  $(foreach v,primal dual,$(foreach g,$(VESSEL_GRAPHS),$(VESSEL)/scores/lcembed-$(v)-$(g).mp)) \
  $(foreach g,$(VESSEL_GRAPHS),$(VESSEL)/scores/gnn-lc-n2v-$(g).mp $(VESSEL)/scores/gnn-gcn-plain-$(g).mp) \
  $(foreach m,sage csage,$(foreach v,plain n2v primal dual,$(foreach g,$(VESSEL_GRAPHS),$(VESSEL)/scores/gnn-$(m)-$(v)-$(g).mp)))
TABLE3_N2V_DUAL_SCORES := $(foreach m,lc sage csage,$(foreach g,$(VESSEL_GRAPHS),$(VESSEL)/scores/gnn-$(m)-dualn2v-$(g).mp))

$(OUT)/table3.md: $(TABLE3_SCORES) pipelines/paper/table3.tsv
	$(call publish, cat $(TABLE3_SCORES) | metrics --table md --rows model --cols graph$(comma)name --quantity balanced_accuracy$(comma)roc_hard \
	  --title "Table 3 (bvg-res): balanced accuracy and ROC (hard predictions) on the test edges — $(VESSEL_NOTE); $(GNN_NOTE); ours (paper)" \
	  --paper pipelines/paper/table3.tsv > $@.tmp)

$(OUT)/table3-n2v-dual.md: $(TABLE3_N2V_DUAL_SCORES) pipelines/paper/table3-n2v-dual.tsv
	$(call publish, cat $(TABLE3_N2V_DUAL_SCORES) | metrics --table md --rows model --cols graph$(comma)name --quantity balanced_accuracy$(comma)roc_hard \
	  --title "Table bvg-res-2 (appendix): Node2Vec and dual embeddings together — $(VESSEL_NOTE); $(GNN_NOTE); ours (paper)" \
	  --paper pipelines/paper/table3-n2v-dual.tsv > $@.tmp)

.PHONY: table3 table3-n2v-dual fig-valid-bvg fig-reconstruction
table3: $(OUT)/table3.md
	@cat $<
table3-n2v-dual: $(OUT)/table3-n2v-dual.md
	@cat $<

# ---- figures (gnuplot, PNG and SVG) ------------------------------------------------------
# fig-valid-bvg: validation balanced accuracy of the C-SAGE variants (vanilla, N2V, primal,
# dual; the paper's figure has no N2V but a "pipeline" variant we do not embed), trial 0.
FIG_VALID_BVG_SCORES := $(foreach v,plain n2v primal dual,$(foreach g,$(VESSEL_GRAPHS),$(VESSEL)/scores/gnn-csage-$(v)-$(g).mp))
$(OUT)/fig-valid-bvg.png: $(FIG_VALID_BVG_SCORES) pipelines/fig-valid-bvg.gp
	gnuplot -e "logs='$(OUT)/logs'; out='$(OUT)/fig-valid-bvg'; note='$(VESSEL_NOTE); $(GNN_NOTE)'" pipelines/fig-valid-bvg.gp
fig-valid-bvg: $(OUT)/fig-valid-bvg.png
	@ls $(OUT)/fig-valid-bvg.*

# fig-reconstruction: the reconstruction loss of edge-embed --reconstruct (its "total" column)
# divided by its first value, primal and dual (the paper's Fig. 2b).
$(OUT)/fig-reconstruction.png: $(VESSEL)/recon-primal.mp $(VESSEL)/recon-dual.mp pipelines/fig-reconstruction.gp
	gnuplot -e "logs='$(OUT)/logs'; out='$(OUT)/fig-reconstruction'; note='$(VESSEL_NOTE)'" pipelines/fig-reconstruction.gp
fig-reconstruction: $(OUT)/fig-reconstruction.png
	@ls $(OUT)/fig-reconstruction.*
