# pipelines/peer.mk - CLRS's own baseline beside dar, on the same graphs and
# CPU (issue 37, item 3); included by the top-level Makefile.
#
#   make peer                      the virtual environment build/peer-venv
#   make peer-run [PEER_PROCESSOR=triplet_gmpnn|mpnn] [PEER_SEED=0]
#                 [PEER_STEPS=10000] [PEER_EVAL_AT=500,2000,10000] [PEER_THREADS=1]
#   make peer-clrs30               regenerate pipelines/data/clrs30-bellman-ford-test.mp
#
# Beside dar's rows, on the same test graphs, scored by the same metrics
# graph by graph: make table-sp SP_PROFILE=clrs SP_PEER=triplet_gmpnn
# (pipelines/shortest-paths.mk).
#
# The peer is google-deepmind/clrs's dm-clrs 2.0.3 from PyPI with JAX and
# Haiku, pinned in pipelines/peer-requirements.txt. It lives in its own venv
# under build/ and is never part of `make deps`, `make demo` or `make test`:
# only these targets create or use it.  Debian's interpreter (/usr/bin/python3,
# 3.11 on Debian 12) with its venv module (python3-venv, DEB_TEST_PACKAGES).

PEER_VENV := $(BUILD)/peer-venv
PEER_PY := $(PEER_VENV)/bin/python
PEER_PROCESSOR ?= triplet_gmpnn
PEER_SEED ?= 0
PEER_STEPS ?= 10000
PEER_EVAL_AT ?= 500,2000,10000
PEER_THREADS ?= 1
PEER_OUT := $(OUT)/peer

# The stamp is written last, so a failed install is retried from a clean
# venv; the import check catches a resolver that installed a JAX or
# protobuf the package cannot load.
$(PEER_VENV)/.installed: pipelines/peer-requirements.txt
	rm -rf $(PEER_VENV)
	/usr/bin/python3 -m venv $(PEER_VENV)
	$(PEER_VENV)/bin/pip install --no-input -q --upgrade pip
	$(PEER_VENV)/bin/pip install --no-input -q -r pipelines/peer-requirements.txt
	TF_CPP_MIN_LOG_LEVEL=3 $(PEER_PY) -c 'import clrs, clrs.examples.run, jax, haiku, optax, msgpack_numpy; print("peer:", "dm-clrs", clrs.__version__, "jax", jax.__version__)'
	touch $@

.PHONY: peer peer-run peer-clrs30
peer: $(PEER_VENV)/.installed

# dar's 64-node test set: table-sp's quick profile's (same command, seed 203)
$(PEER_OUT)/dar64-test.mp: | all
	$(call publish, $(call light, bin/gen-graphs --instance shortest-paths --family erdos-renyi --nodes 64 --count 32 --seed 203 \
	  | bin/ff-trace --algorithm shortest-paths -q > $@.tmp))

PEER_RUN := $(PEER_OUT)/peer-$(PEER_PROCESSOR)-s$(PEER_SEED)-t$(PEER_THREADS)-$(PEER_STEPS).tsv
$(PEER_RUN): $(PEER_VENV)/.installed $(PEER_OUT)/dar64-test.mp tests/bench/clrs_peer.py scripts/clrs_convert.py
	$(call publish, nice -n 10 $(PEER_PY) tests/bench/clrs_peer.py train --processor $(PEER_PROCESSOR) --seed $(PEER_SEED) \
	  --steps $(PEER_STEPS) --eval-at $(PEER_EVAL_AT) --threads $(PEER_THREADS) \
	  --dar-test $(PEER_OUT)/dar64-test.mp --out $@.tmp)
peer-run: $(PEER_RUN)
	@cat $<

# CLRS-30's bellman_ford test split (CLRS's sampler, seed 3, 32 graphs of 64
# nodes) as a dar stream of instance keys; ff-trace adds the trace.
peer-clrs30: $(PEER_VENV)/.installed
	$(PEER_PY) tests/bench/clrs_peer.py sample $(BUILD)/clrs30-bellman-ford-test.npz
	/usr/bin/python3 scripts/clrs_convert.py to-dar $(BUILD)/clrs30-bellman-ford-test.npz > pipelines/data/clrs30-bellman-ford-test.mp.tmp
	mv pipelines/data/clrs30-bellman-ford-test.mp.tmp pipelines/data/clrs30-bellman-ford-test.mp
