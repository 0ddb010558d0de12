#!/usr/bin/env bash
# A synthetic brain-vessel graph as the VesselGraph benchmark's processed CSV
# pair, and back (formats/vessel.md):
#   examples/vessel-csv.sh [EDGES [SEED [DIR]]]
# writes DIR/vessel_nodes_processed.csv and DIR/vessel_edges_processed.csv
# from `gen-graphs --family vessel --edges EDGES --seed SEED`, reads them back
# with `gen-graphs --from-vesselgraph DIR --seed SEED` and checks that the two
# records are the same bytes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
PATH="$here/../bin:$PATH"
edges="${1:-3234}" seed="${2:-0}" dir="${3:-vessel-csv}"
mkdir -p "$dir"
gen-graphs --family vessel --edges "$edges" --seed "$seed" -o "$dir/generated.mp"
/usr/bin/python3 "$here/vessel-csv.py" "$dir/generated.mp" "$dir" vessel
gen-graphs --from-vesselgraph "$dir" --seed "$seed" -o "$dir/read.mp"
if cmp -s "$dir/generated.mp" "$dir/read.mp"; then
    echo "vessel-csv: $dir/vessel_{nodes,edges}_processed.csv read back to the same record ($edges edges)"
else
    echo "vessel-csv: the record read back from $dir differs from the generated one" >&2
    exit 1
fi
