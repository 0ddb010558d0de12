/* vesselgraph_csv.h - the VesselGraph benchmark's processed CSV pair
 * (bvg.md §1) as one vessel record (vessel.h, formats/vessel.md).
 *
 * DIR holds exactly one *_nodes_processed.csv and one
 * *_edges_processed.csv: ';'-separated, one header row, columns found by
 * name (others ignored; every row must have as many fields as the header).
 * Nodes need id (a permutation of 0..n-1), pos_x, pos_y, pos_z; edges need
 * node1id, node2id and the 13 float columns of vessel_attr_names.  Edges are
 * stored with src < dst, sorted by (src, dst): VesselGraph's line-graph
 * order.  Labels come from minRadiusAvg as read (double); w from seed.
 *
 * Errors end the process: a missing directory or file exits 66; a malformed
 * row (field count, a number that does not parse or is not finite, a node
 * id out of range or repeated, a self-loop, a pair joined twice) exits 65
 * with "FILE:LINE: message". */
#ifndef DAR_VESSELGRAPH_CSV_H
#define DAR_VESSELGRAPH_CSV_H
#include <stdint.h>
#include "vessel.h"

void vesselgraph_read(const char *dir, uint64_t seed, struct vessel_graph *v);

#endif
