#!/usr/bin/env bash
# Put a new graph family or size through the whole study by changing one
# variable: the out-of-family test set (bipartite in the paper) becomes
# Erdos-Renyi graphs, or the test graphs grow to 128 nodes.  Every step that
# did not change (data, training) is a cache hit, so only the new test set is
# generated and scored.
#   examples/new-family.sh [PROFILE]
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${1:-smoke}
make -s table1 PROFILE="$profile" OOF_FAMILY=erdos-renyi OUT="out/$profile-erdos-renyi"
make -s table1 PROFILE="$profile" TEST_NODES=128 OUT="out/$profile-128-nodes"
