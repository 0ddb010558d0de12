# pipelines/report.mk - one page that says, claim by claim, what a profile of
# the study reproduces (read after study.mk and vessel.mk, whose variables,
# models and scores it reuses; the Makefile includes it last).
#
#   make report [PROFILE=smoke|quick|paper]
#
# builds what is missing of the profile's tables and figures (every step is
# cached, as in study.mk) and writes $(OUT)/report/report.md and report.html
# (self-contained: figures embedded as data: URIs):
#   - the claims of pipelines/claims.tsv checked by pipelines/claims.py on the
#     tables as `metrics --table tsv` prints them;
#   - every table of the paper with our value, the paper's and the difference;
#   - figures: fig-valid, fig-corrective (study.mk), the reconstruction loss,
#     min-cut accuracy and flow MAE against test-graph size, the share of
#     minimum cuts that are s alone / t alone / other, by size and family;
#   - findings: each departure of pipelines/findings.tsv measured both ways,
#     and the claims decided again with its runs in place of the study's;
#   - shortest paths (pipelines/shortest-paths.mk's table beside CLRS's
#     published scores) and the claims of pipelines/claims-sp.tsv, decided
#     as those of claims.tsv are;
#   - bipartite matching (pipelines/matching.mk's table beside Georgiev &
#     Lio's figure) and weighted vertex cover (pipelines/vertex-cover.mk's;
#     PDNAR's numbers are not transcribed), with the claims of
#     pipelines/claims-matching.tsv and claims-vc.tsv decided the same way.

REPORT := $(OUT)/report
REPORT_SIZES := 8 16 32 64 128
REPORT_PY := /usr/bin/python3
# The size sweep's graphs a size and seeds.  A 128-node trace is some 2500
# steps (about 18 s a graph for an H=65 model at one thread), so below the
# paper profile the sweep takes the first seed only, and at smoke 2 graphs.
CUTSHARE_COUNT := 200
SIZE_COUNT := $(TEST_COUNT)
SIZE_SEEDS := $(firstword $(SEEDS))
ifeq ($(PROFILE),smoke)
  CUTSHARE_COUNT := 40
  SIZE_COUNT := 2
else ifneq ($(filter core tables,$(PROFILE)),)
  # the quick profile's count: 128 graphs of 128 nodes would be hours a model
  SIZE_COUNT := 8
else ifeq ($(PROFILE),paper)
  SIZE_SEEDS := $(SEEDS)
endif
# the wall time the report states is that of this make run
ifneq ($(filter report,$(MAKECMDGOALS)),)
  REPORT_START := $(shell date +%s)
endif
.PRECIOUS: $(REPORT)/models/%.mp $(REPORT)/scores/%.mp $(REPORT)/graphs/%.mp $(REPORT)/sizes/%.mp $(REPORT)/data-minmax/%.mp

# ---- the tables as TSV: study.mk's layouts --------------------------------------------
# The paper's rows the profile does not train are dropped as study.mk does
# where it can (paper_rows), else the whole paper file is read.
report_paper = $(if $(value paper_rows),$(call paper_rows,$(1)),pipelines/paper/$(1).tsv)
report_table = cat $(2) | metrics --table tsv $(3) --paper $(call report_paper,$(1)) > $@.tmp && mv $@.tmp $@

$(REPORT)/table1.tsv: $(TABLE1_SCORES)
	@mkdir -p $(@D)
	$(call report_table,table1,$^,--rows model --cols family$(comma)name --quantity mae_flow$(comma)mae_hint_flow$(comma)cut_accuracy)
$(REPORT)/table2.tsv: $(QUAL_SCORES)
	@mkdir -p $(@D)
	$(call report_table,table2,$^,--rows name --cols model --quantity maxflow_error)
$(REPORT)/table-r2.tsv: $(R2_SCORES)
	@mkdir -p $(@D)
	$(call report_table,table-r2,$^,--rows family --cols model --quantity r2)
$(REPORT)/table-val.tsv: $(VAL_SCORES)
	@mkdir -p $(@D)
	$(call report_table,table-val,$^,--rows model --cols name --quantity mae_flow$(comma)mae_hint_flow$(comma)cut_accuracy)
$(REPORT)/table3.tsv: $(TABLE3_SCORES)
	@mkdir -p $(@D)
	$(call report_table,table3,$^,--rows model --cols graph$(comma)name --quantity balanced_accuracy$(comma)roc_hard)
# the appendix's Node2Vec + dual table, where vessel.mk makes it (TABLE3_N2V_DUAL_SCORES)
$(REPORT)/table3-n2v-dual.tsv: $(TABLE3_N2V_DUAL_SCORES)
	@mkdir -p $(@D)
	$(call report_table,table3-n2v-dual,$^,--rows model --cols graph$(comma)name --quantity balanced_accuracy$(comma)roc_hard)
# flow-fix's conservation error on the Table 1 test sets (no paper values: a figure in the paper)
$(REPORT)/corrective.tsv: $(TABLE1_SCORES)
	@mkdir -p $(@D)
	cat $^ | metrics --table tsv --rows model --cols family,name --quantity conservation_before,conservation_after > $@.tmp && mv $@.tmp $@
# the reconstruction's total loss at its last iteration over its first, per variant
$(REPORT)/recon.tsv: $(VESSEL)/recon-primal.mp $(VESSEL)/recon-dual.mp
	@mkdir -p $(@D)
	for v in primal dual; do awk -F'\t' -v v=$$v 'NR == 1 { for (i = 1; i <= NF; i++) if ($$i == "total") c = i; next } \
	  NR == 2 { first = $$c } { last = $$c } END { printf "%s\t%.17g\t\t1\n", v, last / first }' $(OUT)/logs/recon-$$v.tsv; \
	done | (printf 'model\tfinal_loss\tfinal_loss std\tfinal_loss n\n'; cat) > $@.tmp && mv $@.tmp $@

# ---- each table's resampling units: the bootstrap of the claims' verdicts ------------
# pipelines/bootstrap.py units: per cell and run, each test graph's sum and count
# (the study's graphs/ files, metrics --per-graph), or the run's value where
# there is none (R^2, the vessel rows: over seeds and trials only).
units_scores_table1 := $(TABLE1_SCORES)
units_args_table1 := --rows model --cols family,name --quantity mae_flow,mae_hint_flow,cut_accuracy
units_graphs_table1 := $(call graphs_of,$(TABLE1_SCORES))
units_scores_corrective := $(TABLE1_SCORES)
units_args_corrective := --rows model --cols family,name --quantity conservation_before,conservation_after
units_graphs_corrective := $(call graphs_of,$(TABLE1_SCORES))
units_scores_table2 := $(QUAL_SCORES)
units_args_table2 := --rows name --cols model --quantity maxflow_error
units_graphs_table2 := $(call graphs_of,$(QUAL_SCORES))
units_scores_table-val := $(VAL_SCORES)
units_args_table-val := --rows model --cols name --quantity mae_flow,mae_hint_flow,cut_accuracy
units_graphs_table-val := $(call graphs_of,$(VAL_SCORES))
units_scores_table-r2 := $(R2_SCORES)
units_args_table-r2 := --rows family --cols model --quantity r2
units_scores_table3 := $(TABLE3_SCORES)
units_args_table3 := --rows model --cols graph,name --quantity balanced_accuracy,roc_hard
units_scores_table3-n2v-dual := $(TABLE3_N2V_DUAL_SCORES)
units_args_table3-n2v-dual := --rows model --cols graph,name --quantity balanced_accuracy,roc_hard
REPORT_UNITS = $(foreach t,$(REPORT_TABLES),$(if $(value units_args_$(t)),$(t)))
$(REPORT)/%.units.tsv: $$(units_scores_$$*) $$(units_graphs_$$*) pipelines/bootstrap.py
	@mkdir -p $(@D)
	$(REPORT_PY) pipelines/bootstrap.py units $(units_args_$*) $(units_scores_$*) > $@.tmp && mv $@.tmp $@

# ---- R^2 read two ways, and the bipartite capacities 0 or 1 ---------------------------
# table-r2 (study.mk) fits the linear map on the training graphs and scores it
# on the test graphs, larger ones, whose max-flow values the map never saw; and
# with every bipartite capacity 1 each bipartite test graph has the same max
# flow, so R^2 there is 0 by rule.  The paper says neither which graphs it
# fitted on nor scored on, and its bipartite capacities are "either 0 or 1".
# Here each Table 2 model is also scored on held-out graphs of the training
# size (the validation set; bipartite: as many graphs of that size, seed 105)
# and on bipartite graphs of capacities 0 or 1 (gen-graphs --capacity
# zero-one, the study's seeds): one record per family and reading, labelled
# family= and reading=test|held-out.  The same models' |F - F*| and Table 1
# metrics on those bipartite test graphs: bip01/.
# R2_GEN: this checkout's gen-graphs, not DAR_BIN's: a long run's DAR_BIN may
# be a frozen build older than --capacity zero-one (results/tables/README.md).
R2_GEN ?= $(CURDIR)/bin/gen-graphs
R2_DATA := $(REPORT)/r2/data
R2_RUNS := $(call runs,$(QUAL_CONFIGS))
BIP01_RUNS := $(R2_RUNS) $(call runs,random-none-none)
$(R2_DATA)/bip01-test.mp: $(TOOLS_BUILT)
	$(call publish, $(call light, $(R2_GEN) --family bipartite --capacity zero-one --nodes $(TEST_NODES) --count $(TEST_COUNT) --seed 104 | ff-trace -q > $@.tmp))
$(R2_DATA)/bip01-held-out.mp: $(TOOLS_BUILT)
	$(call publish, $(call light, $(R2_GEN) --family bipartite --capacity zero-one --nodes $(TRAIN_NODES) --count $(VAL_COUNT) --seed 105 | ff-trace -q > $@.tmp))
# r2_score model,data,family,reading: one R^2 record appended to $@.tmp
r2_score = dar-step --no-cache --embed --model $(1) < $(2) | metrics --quantity r2 --fit $@.fit.tmp $(call labels,$*) -l "family=$(3)" -l reading=$(4) >> $@.tmp
$(REPORT)/r2/%.mp: $(OUT)/models/%.mp $(DATA)/train.mp $(DATA)/val.mp $(DATA)/test-2comm.mp $(DATA)/test-bip.mp $(R2_DATA)/bip01-test.mp $(R2_DATA)/bip01-held-out.mp
	$(call publish, $(call heavy, rm -f $@.tmp && dar-step --no-cache --embed --model $< < $(DATA)/train.mp > $@.fit.tmp \
	  && $(call r2_score,$<,$(DATA)/test-2comm.mp,2-community,test) && $(call r2_score,$<,$(DATA)/test-bip.mp,bipartite (all 1),test) \
	  && $(call r2_score,$<,$(R2_DATA)/bip01-test.mp,bipartite (0 or 1),test) \
	  && $(call r2_score,$<,$(DATA)/val.mp,2-community,held-out) && $(call r2_score,$<,$(R2_DATA)/bip01-held-out.mp,bipartite (0 or 1),held-out)) \
	  && rm $@.fit.tmp)
$(REPORT)/r2-readings.tsv: $(R2_RUNS:%=$(REPORT)/r2/%.mp)
	cat $^ | metrics --table tsv --rows model --cols family,reading --quantity r2 > $@.tmp && mv $@.tmp $@
# table-r2's layout for one reading with the bipartite capacities 0 or 1
# (r2-test-01, r2-held-out-01): the R^2 claims decided again on it
$(REPORT)/r2-%-01.tsv: $(R2_RUNS:%=$(REPORT)/r2/%.mp)
	cat $^ | mpcat | jq -c 'select(.labels.reading == "$*" and .labels.family != "bipartite (all 1)") | .labels.family |= split(" (")[0]' \
	  | mpcat --to-msgpack -f | metrics --table tsv --rows family --cols model --quantity r2 --paper $(call report_paper,table-r2) > $@.tmp && mv $@.tmp $@
$(REPORT)/bip01/%.mp: $$(call model_dep,$$*) $(R2_DATA)/bip01-test.mp $(TOOLS_BUILT)
	$(call publish, $(call heavy, $(call predict,$*,$(OUT)/models/$*.mp) < $(R2_DATA)/bip01-test.mp | flow-fix \
	  | metrics --split test $(call labels,$*) -l "family=bipartite (0 or 1)" > $@.tmp))
$(REPORT)/bip01.tsv: $(BIP01_RUNS:%=$(REPORT)/bip01/%.mp) $(BIP01_RUNS:%=$(OUT)/scores/%-bip.mp)
	cat $^ | mpcat | jq -c 'if .labels.family == "bipartite" then .labels.family = "bipartite (all 1)" else . end' | mpcat --to-msgpack -f \
	  | metrics --table tsv --rows model --cols family,name --quantity maxflow_error,mae_flow,cut_accuracy > $@.tmp && mv $@.tmp $@
R2_INPUTS := $(REPORT)/r2-readings.tsv $(REPORT)/r2-test-01.tsv $(REPORT)/r2-held-out-01.tsv $(REPORT)/bip01.tsv

# ---- findings: each departure trained (or traced) the other way ----------------------
# A run is <finding>-<config>-s<seed>, e.g. leak-dual-pgn-max-s0; its model and
# its scores on the 2-community and bipartite test sets and the validation set
# come from one heavy recipe, as in study.mk (its progress in logs/<run>.progress,
# which pipelines/progress.sh shows).  The study's own runs are the
# other side of the comparison.
REPORT_FINDINGS ?= leak tfstep cap
finding_of = $(firstword $(subst -, ,$(1)))
config_of = $(patsubst $(call finding_of,$(1))-%,%,$(1))
finding_flags_leak := --leak-cut
finding_flags_tfstep := --tf-decay-per-step
finding_flags_cap :=
finding_data = $(if $(filter cap,$(1)),$(REPORT)/data-minmax,$(DATA))
# (a profile may train a finding on more configurations: FINDING_CONFIGS_<id>)
finding_configs = $(or $(FINDING_CONFIGS_$(1)),$(shell awk -F'\t' '$$1 == "$(1)" { print $$5 }' pipelines/findings.tsv))
FINDING_RUNS := $(foreach f,$(REPORT_FINDINGS),$(foreach c,$(call finding_configs,$(f)),$(foreach s,$(SEEDS),$(f)-$(c)-s$(s))))
FINDING_SCORES := $(FINDING_RUNS:%=$(REPORT)/scores/%.mp)
FINDING_GRAPHS := $(FINDING_RUNS:%=$(REPORT)/graphs/%.mp)
finding_labels = -l "model=$(call label_of,$(call config_of,$(1)))" -l seed=$(call seed_of,$(call config_of,$(1))) -l finding=$(call finding_of,$(1))
# finding_score run,model-or-empty,data-dir: the run's test and validation scores
# on stdout, and each graph's share of them in $(REPORT)/graphs/<run>.mp (the
# bootstrap of the findings' differences, paired over the graphs with the study's)
finding_predict = $(if $(2),dar-step --no-cache --hints --model $(2),dar-step --baseline random --seed $(call seed_of,$(call config_of,$(1))))
finding_graphs = --per-graph $(REPORT)/graphs/$(1)-$(2).mp.tmp
finding_score = mkdir -p $(REPORT)/graphs \
  && $(call finding_predict,$(1),$(2)) < $(3)/test-2comm.mp | flow-fix | metrics --split test $(call finding_labels,$(1)) -l family=2-community $(call finding_graphs,$(1),2comm) \
  && $(call finding_predict,$(1),$(2)) < $(3)/test-bip.mp | flow-fix | metrics --split test $(call finding_labels,$(1)) -l family=bipartite $(call finding_graphs,$(1),bip) \
  && $(call finding_predict,$(1),$(2)) < $(3)/val.mp | metrics --split val $(call finding_labels,$(1)) $(call finding_graphs,$(1),val) \
  && cat $(foreach x,2comm bip val,$(REPORT)/graphs/$(1)-$(x).mp.tmp) > $(REPORT)/graphs/$(1).mp.tmp \
  && rm $(foreach x,2comm bip val,$(REPORT)/graphs/$(1)-$(x).mp.tmp)

# uniform-minmax splits: the study's seeds, so only the capacities differ
$(REPORT)/data-minmax/train.mp $(REPORT)/data-minmax/val.mp $(REPORT)/data-minmax/test-2comm.mp $(REPORT)/data-minmax/test-bip.mp &: $(TOOLS_BUILT)
	@mkdir -p $(@D)
	$(call light, gen-graphs --capacity uniform-minmax --family two-community --nodes $(TRAIN_NODES) --count $(TRAIN_COUNT) --seed 101 | ff-trace -q > $(@D)/train.mp.tmp \
	  && gen-graphs --capacity uniform-minmax --family two-community --nodes $(TRAIN_NODES) --count $(VAL_COUNT) --seed 102 | ff-trace -q > $(@D)/val.mp.tmp \
	  && gen-graphs --capacity uniform-minmax --family two-community --nodes $(TEST_NODES) --count $(TEST_COUNT) --seed 103 | ff-trace -q > $(@D)/test-2comm.mp.tmp \
	  && gen-graphs --capacity uniform-minmax --family $(OOF_FAMILY) --nodes $(TEST_NODES) --count $(TEST_COUNT) --seed 104 | ff-trace -q > $(@D)/test-bip.mp.tmp)
	for f in train val test-2comm test-bip; do mv $(@D)/$$f.mp.tmp $(@D)/$$f.mp; done

$(REPORT)/models/%.mp $(REPORT)/scores/%.mp $(REPORT)/graphs/%.mp: $$(call finding_data,$$(call finding_of,$$*))/train.mp $$(call finding_data,$$(call finding_of,$$*))/test-2comm.mp $(TOOLS_BUILT)
	@mkdir -p $(REPORT)/models $(REPORT)/scores $(REPORT)/logs
	$(call heavy, rm -f $(REPORT)/logs/$*.progress && DAR_PROGRESS_FILE=$(REPORT)/logs/$*.progress \
	  dar-fit $(call fit_args,$(call config_of,$*)) $(finding_flags_$(call finding_of,$*)) --val $(call finding_data,$(call finding_of,$*))/val.mp \
	    --log $(REPORT)/logs/$*.tsv -q < $(call finding_data,$(call finding_of,$*))/train.mp > $(REPORT)/models/$*.mp.tmp \
	  && ( $(call finding_score,$*,$(REPORT)/models/$*.mp.tmp,$(call finding_data,$(call finding_of,$*))) ) > $(REPORT)/scores/$*.mp.tmp) \
	  && mv $(REPORT)/graphs/$*.mp.tmp $(REPORT)/graphs/$*.mp \
	  && mv $(REPORT)/scores/$*.mp.tmp $(REPORT)/scores/$*.mp && mv $(REPORT)/models/$*.mp.tmp $(REPORT)/models/$*.mp
# the random baseline on the uniform-minmax sets needs no model (the shorter stem wins)
$(REPORT)/scores/cap-random-%.mp $(REPORT)/graphs/cap-random-%.mp: $(REPORT)/data-minmax/test-2comm.mp $(TOOLS_BUILT)
	@mkdir -p $(REPORT)/scores
	$(call light, ( $(call finding_score,cap-random-$*,,$(REPORT)/data-minmax) ) > $(REPORT)/scores/cap-random-$*.mp.tmp) \
	  && mv $(REPORT)/graphs/cap-random-$*.mp.tmp $(REPORT)/graphs/cap-random-$*.mp \
	  && mv $(REPORT)/scores/cap-random-$*.mp.tmp $(REPORT)/scores/cap-random-$*.mp

# the residual test: the code's trace (C - |F| > 0) against ff-trace's on the
# study's splits, and on 16-node bipartite graphs at the code's default
# density 0.35, where dar-reference.md measured the code's flows short
$(REPORT)/sizes/bip35-16.mp: $(TOOLS_BUILT)
	@mkdir -p $(@D)
	$(call publish, $(call light, gen-graphs --family bipartite --density 0.35 --nodes 16 --count $(CUTSHARE_COUNT) --seed 104 | ff-trace -q > $@.tmp))
RESIDUAL_SETS := $(DATA)/train.mp $(DATA)/test-2comm.mp $(DATA)/test-bip.mp $(REPORT)/sizes/bip35-16.mp
$(REPORT)/residual.tsv: $(RESIDUAL_SETS) pipelines/code-residual.py
	@mkdir -p $(@D)
	$(call publish, $(call heavy, $(REPORT_PY) pipelines/code-residual.py $(RESIDUAL_SETS) > $@.tmp))

# ---- the claims with a finding's runs in place of the study's -------------------------
# For the findings trained on the study's data (not cap, whose data differ),
# Tables 1 and 2 again with each run of the finding in place of the study's
# run of its configuration and seed, with their resampling units: report.py
# decides the claims on them, so the report says which verdicts the
# departure turns (the paper's with the authors' code, e.g. its cut leak).
# A finding run's test records of one family, as the study keeps them
# (scores/<run>-2comm.mp and its graphs/ twin, which bootstrap.py pairs).
SWAP_FINDINGS := $(foreach f,$(REPORT_FINDINGS),$(if $(filter $(DATA),$(call finding_data,$(f))),$(f)))
# swap_family dir,run,family,tag: scores/ or graphs/ <run>.mp's test records of one family
swap_family = mpcat $(REPORT)/$(1)/$(2).mp | jq -c 'select(.split == "test" and .labels.family == "$(3)")' \
  | mpcat --to-msgpack -f > $(REPORT)/swap/$(1)/$(2)-$(4).mp.tmp
$(REPORT)/swap/scores/%-2comm.mp $(REPORT)/swap/graphs/%-2comm.mp $(REPORT)/swap/scores/%-bip.mp $(REPORT)/swap/graphs/%-bip.mp: \
  $(REPORT)/scores/%.mp $(REPORT)/graphs/%.mp
	@mkdir -p $(REPORT)/swap/scores $(REPORT)/swap/graphs
	$(call swap_family,scores,$*,2-community,2comm) && $(call swap_family,scores,$*,bipartite,bip) \
	  && $(call swap_family,graphs,$*,2-community,2comm) && $(call swap_family,graphs,$*,bipartite,bip)
	for d in scores graphs; do for x in 2comm bip; do mv $(REPORT)/swap/$$d/$*-$$x.mp.tmp $(REPORT)/swap/$$d/$*-$$x.mp; done; done
# swap_scores scores,finding: the study's score files with the finding's runs in
# place of theirs (leak-dual-pgn-max-s0 replaces dual-pgn-max-s0-2comm.mp and -bip.mp)
swap_one = $(patsubst $(OUT)/scores/$(call config_of,$(2))-%,$(REPORT)/swap/scores/$(2)-%,$(1))
swap_fold = $(if $(2),$(call swap_fold,$(call swap_one,$(1),$(firstword $(2))),$(wordlist 2,$(words $(2)),$(2))),$(1))
swap_scores = $(call swap_fold,$(1),$(filter $(2)-%,$(FINDING_RUNS)))
SWAP_TABLES := table1 table2
swap_scores_table1 = $(call swap_scores,$(TABLE1_SCORES),$(1))
swap_scores_table2 = $(call swap_scores,$(QUAL_SCORES),$(1))
swap_table = $(firstword $(subst -, ,$(1)))
swap_finding = $(patsubst $(call swap_table,$(1))-%,%,$(1))
$(REPORT)/swap/%.tsv: $$(call swap_scores_$$(call swap_table,$$*),$$(call swap_finding,$$*))
	@mkdir -p $(@D)
	$(call report_table,$(call swap_table,$*),$^,$(units_args_$(call swap_table,$*)))
$(REPORT)/swap/%.units.tsv: $$(call swap_scores_$$(call swap_table,$$*),$$(call swap_finding,$$*)) \
  $$(call graphs_of,$$(call swap_scores_$$(call swap_table,$$*),$$(call swap_finding,$$*))) pipelines/bootstrap.py
	@mkdir -p $(@D)
	$(REPORT_PY) pipelines/bootstrap.py units $(units_args_$(call swap_table,$*)) $(call swap_scores_$(call swap_table,$*),$(call swap_finding,$*)) > $@.tmp && mv $@.tmp $@
SWAP_INPUTS := $(foreach f,$(SWAP_FINDINGS),$(foreach t,$(SWAP_TABLES),$(REPORT)/swap/$(t)-$(f).tsv $(REPORT)/swap/$(t)-$(f).units.tsv))

# ---- accuracy against test-graph size -------------------------------------------------
# Test graphs of every size with the Table 1 test sets' seeds (at TEST_NODES
# they are those sets, or their first SIZE_COUNT graphs); dual and primal
# PGN-max of the study and the dual with the cut leak, one heavy recipe per model.
$(REPORT)/sizes/2comm-%.mp: $(TOOLS_BUILT)
	@mkdir -p $(@D)
	$(call publish, $(call light, gen-graphs --family two-community --nodes $* --count $(SIZE_COUNT) --seed 103 | ff-trace -q > $@.tmp))
$(REPORT)/sizes/bip-%.mp: $(TOOLS_BUILT)
	@mkdir -p $(@D)
	$(call publish, $(call light, gen-graphs --family $(OOF_FAMILY) --nodes $* --count $(SIZE_COUNT) --seed 104 | ff-trace -q > $@.tmp))
SIZE_DATA := $(foreach f,2comm bip,$(foreach n,$(REPORT_SIZES),$(REPORT)/sizes/$(f)-$(n).mp))
SIZE_RUNS := $(foreach c,dual-pgn-max primal-pgn-max leak-dual-pgn-max,$(foreach s,$(SIZE_SEEDS),$(c)-s$(s)))
size_model = $(if $(filter leak-%,$(1)),$(REPORT)/models/$(1).mp,$(OUT)/models/$(1).mp)
size_label = $(call label_of,$(patsubst leak-%,%,$(1)))$(if $(filter leak-%,$(1)), --leak-cut)
size_scores = $(foreach f,2comm bip,$(foreach n,$(REPORT_SIZES),dar-step --no-cache --model $(call size_model,$(1)) < $(REPORT)/sizes/$(f)-$(n).mp \
  | metrics -l "model=$(call size_label,$(1))" -l seed=$(call seed_of,$(patsubst leak-%,%,$(1))) -l family=$(call family_name,$(f)) -l nodes=$(n) >> $@.tmp && ))
$(REPORT)/sizes/run-%.mp: $$(call size_model,$$*) $(SIZE_DATA)
	$(call publish, $(call heavy, rm -f $@.tmp && $(call size_scores,$*) true))
$(REPORT)/sizes.tsv: $(SIZE_RUNS:%=$(REPORT)/sizes/run-%.mp)
	cat $^ | metrics --table tsv --rows model,family,nodes --cols name --quantity mae_flow,cut_accuracy > $@.tmp && mv $@.tmp $@

# ---- where the minimum cut lies: s alone, t alone, or elsewhere -----------------------
CUTSHARE_FAMILIES := two-community:max-of-two bipartite:max-of-two two-community:uniform-minmax
$(REPORT)/cutshare.tsv: pipelines/cutshare.sh $(TOOLS_BUILT)
	@mkdir -p $(@D)
	$(call publish, $(call light, bash pipelines/cutshare.sh $(CUTSHARE_COUNT) "$(REPORT_SIZES)" $(CUTSHARE_FAMILIES) > $@.tmp))

# ---- figures ---------------------------------------------------------------------------
$(REPORT)/fig-size.png: $(REPORT)/sizes.tsv pipelines/report-figures.py
	$(REPORT_PY) pipelines/report-figures.py size $< $@ "$(PROFILE_NOTE)"
$(REPORT)/fig-cutshare.png: $(REPORT)/cutshare.tsv pipelines/report-figures.py
	$(REPORT_PY) pipelines/report-figures.py cutshare $< $@ "$(PROFILE_NOTE)"
$(REPORT)/fig-recon.png: $(VESSEL)/recon-primal.mp $(VESSEL)/recon-dual.mp pipelines/report-figures.py
	$(REPORT_PY) pipelines/report-figures.py recon $(OUT)/logs/recon-primal.tsv,$(OUT)/logs/recon-dual.tsv $@ "$(VESSEL_NOTE)"

# ---- the report --------------------------------------------------------------------------
# A profile without vessel graphs (no VESSEL_NOTE) leaves out Table 3 and the
# reconstruction, one that trains only some rows (TABLE1_ONLY) the validation
# curves, which plot every row; a profile may set its own lists (and
# REPORT_FINDINGS) in its block of study.mk.
REPORT_SEARCH ?= $(OUT)/search.md
# vessel.mk's figures of the reconstruction loss (fig-reconstruction) and of
# C-SAGE's validation (fig-valid-bvg) are used where it makes them.
REPORT_RECON_FIGURE := $(if $(wildcard pipelines/fig-reconstruction.gp),$(OUT)/fig-reconstruction.png,$(REPORT)/fig-recon.png)
REPORT_TABLES ?= table1 table2 table-r2 table-val corrective $(if $(VESSEL_NOTE),table3 $(if $(TABLE3_N2V_DUAL_SCORES),table3-n2v-dual) recon)
REPORT_FIGURES ?= $(if $(TABLE1_ONLY),,$(OUT)/fig-valid-pgn.png $(OUT)/fig-valid-mpnn.png) $(OUT)/fig-corrective.png \
  $(if $(VESSEL_NOTE),$(REPORT_RECON_FIGURE) $(if $(FIG_VALID_BVG_SCORES),$(OUT)/fig-valid-bvg.png)) $(REPORT)/fig-size.png $(REPORT)/fig-cutshare.png
# The pairs with a section of their own, from their manifest (report.py reads
# the titles and claims there too): each as pair:vars:table:claims, vars the
# prefix of its pipeline's variables (<vars>_OUT, <vars>_NOTE).
REPORT_PAIRS := $(shell awk -F'\t' '!/^#/ && NF >= 4 {print $$1 ":" $$2 ":" $$3 ":" $$4}' pipelines/pairs.tsv)
pair_field = $(word $(2),$(subst :, ,$(1)))
# Each pair's targets run PAIRS_BIN's tools (study.mk), and PAIRS_CACHE's
# cache if set.  make passes a target's variables on to the prerequisites it
# makes, and a pattern's own beats an inherited one, so every other target
# under OUT is given DAR_BIN's PATH and DAR_CACHE again: max-flow's dual model,
# a prerequisite of matching's control scores, is trained by DAR_BIN's dar-fit
# into the run's cache however make reaches it.
$(OUT)/%: export PATH := $(PATH)
$(if $(PAIRS_CACHE),$(eval $(OUT)/%: export DAR_CACHE := $(DAR_CACHE)))
$(foreach p,$(REPORT_PAIRS),$(eval $($(call pair_field,$(p),2)_OUT)/%: export PATH := $(PAIRS_BIN):$(PATH))$(if \
  $(PAIRS_CACHE),$(eval $($(call pair_field,$(p),2)_OUT)/%: export DAR_CACHE := $(PAIRS_CACHE))))
pair_table = $($(call pair_field,$(1),2)_OUT)/$(call pair_field,$(1),3)
pair_claims = $(call pair_field,$(1),4)
pair_flags = --pair-table $(call pair_field,$(1),1)=$(call pair_table,$(1)).tsv \
  --pair-units $(call pair_field,$(1),1)=$(call pair_table,$(1)).units.tsv \
  --pair-note "$(call pair_field,$(1),1)=$($(call pair_field,$(1),2)_NOTE)"

REPORT_INPUTS := $(REPORT_TABLES:%=$(REPORT)/%.tsv) $(REPORT_UNITS:%=$(REPORT)/%.units.tsv) $(REPORT_FIGURES) $(FINDING_SCORES) $(FINDING_GRAPHS) $(REPORT)/residual.tsv \
  $(R2_INPUTS) \
  $(SWAP_INPUTS) \
  $(REPORT)/sizes.tsv $(REPORT)/cutshare.tsv $(REPORT_SEARCH) \
  pipelines/claims.tsv pipelines/findings.tsv pipelines/claims.py pipelines/bootstrap.py pipelines/report.py \
  pipelines/pairs.tsv $(foreach p,$(REPORT_PAIRS),$(call pair_table,$(p)).tsv $(call pair_table,$(p)).units.tsv $(call pair_claims,$(p)))

$(OUT)/fig-valid-mpnn.png: $(OUT)/fig-valid-pgn.png

# the committed reference run, shown beside any profile's own numbers: the
# first of REFERENCE_RUNS that holds a kept report (results/tables/ decides
# every claim of Tables 1 and 2, results/core/ those of PGN-max's rows), else
# the last, which the report then says is not yet run
REFERENCE_RUNS ?= results/tables results/core
REPORT_REFERENCE ?= $(or $(firstword $(foreach d,$(REFERENCE_RUNS),$(if $(wildcard $(d)/verdicts.tsv),$(d)))),$(lastword $(REFERENCE_RUNS)))
.PHONY: report
report: $(REPORT_INPUTS)
	$(REPORT_PY) pipelines/report.py --out $(REPORT) --profile $(PROFILE) --note "$(PROFILE_NOTE)" --vessel-note "$(VESSEL_NOTE)" \
	  --trained "$(ITERS) iterations (validation every $(EVAL_EVERY)), seeds $(SEEDS), $(TRAIN_COUNT) training graphs of $(TRAIN_NODES) nodes, $(VAL_COUNT) validation graphs, $(TEST_COUNT) test graphs of $(TEST_NODES) nodes per family$(if $(FIT_EXTRA), (dar-fit $(FIT_EXTRA)))" \
	  --version $(VERSION) --start "$(REPORT_START)" --train-nodes $(TRAIN_NODES) --test-nodes $(TEST_NODES) --claims pipelines/claims.tsv --paper-dir pipelines/paper --findings pipelines/findings.tsv \
	  $(foreach t,$(REPORT_TABLES),--table $(t)=$(REPORT)/$(t).tsv) $(foreach t,$(REPORT_UNITS),--units $(t)=$(REPORT)/$(t).units.tsv) \
	  $(foreach f,$(REPORT_FIGURES),--figure $(f)) --search "$(REPORT_SEARCH)" --sizes $(REPORT)/sizes.tsv --sizes-note "$(SIZE_COUNT) graphs a size and family, seeds $(SIZE_SEEDS)" --cutshare $(REPORT)/cutshare.tsv \
	  --residual $(REPORT)/residual.tsv --logs $(OUT)/logs,$(REPORT)/logs --study-scores $(OUT)/scores --finding-scores $(REPORT)/scores --swap $(REPORT)/swap \
	  --reference "$(REPORT_REFERENCE)" --r2-readings $(REPORT)/r2-readings.tsv --r2-variant test=$(REPORT)/r2-test-01.tsv \
	  --r2-variant held-out=$(REPORT)/r2-held-out-01.tsv --bip01 $(REPORT)/bip01.tsv --r2-heldout-note "$(VAL_COUNT) graphs of $(TRAIN_NODES) nodes" \
	  --pairs pipelines/pairs.tsv $(foreach p,$(REPORT_PAIRS),$(call pair_flags,$(p))) --sp-clrs "$(SP_CLRS)"
	@echo "$(REPORT)/report.md"
	@echo "$(REPORT)/report.html"

# results-core, results-tables: keep a reference profile's report as a
# reference run of the project (tables, verdicts with intervals, report.md with
# the machine, the commit and the wall time; no models, no figures), after
# `make report PROFILE=<profile>`; pipelines/keep-reference.sh refuses a report
# of another profile, a dry run and an incomplete one.  RESULTS_CORE,
# RESULTS_TABLES: where (a test's own directory).  The folder's README.md
# (machine, commits, wall time, core-hours) is written by hand:
# results/README-template.md.
RESULTS_PROFILES := core tables
RESULTS_CORE ?= results/core
RESULTS_TABLES ?= results/tables
.PHONY: $(RESULTS_PROFILES:%=results-%)
$(RESULTS_PROFILES:%=results-%): results-%:
	@test "$(PROFILE)" = $* || { echo "results-$*: run it with PROFILE=$*" >&2; exit 64; }
	@KEEP_PROFILE=$* bash pipelines/keep-reference.sh $(REPORT) $(RESULTS_$(shell echo $* | tr a-z A-Z)) $(REPORT)/report.md $(REPORT)/verdicts.tsv \
	  $(REPORT_TABLES:%=$(REPORT)/%.tsv) $(REPORT)/sizes.tsv
