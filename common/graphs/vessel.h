/* vessel.h - brain-vessel graph records (formats/vessel.md): the synthetic
 * generator (gen-graphs --family vessel) and what it shares with the reader
 * of real VesselGraph CSVs (vesselgraph_csv.h): attribute names, labels,
 * capacities, weights, s and t, and the writer.
 *
 * A vessel record is a graph record (formats/graph.md core keys, family
 * "vessel", undirected, edges sorted by (src, dst) with src < dst) plus
 * pos f32[n,3], the 13 float edge columns of the benchmark as f32[m]
 * tensors named as the CSV columns, and label u8[m]. */
#ifndef DAR_VESSEL_H
#define DAR_VESSEL_H
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include "graph.h"
#include "stream.h"

enum vessel_attr {
    VA_LENGTH, VA_DISTANCE, VA_CURVENESS, VA_VOLUME, VA_AVG_CROSS_SECTION,
    VA_MIN_RADIUS_AVG, VA_MIN_RADIUS_STD, VA_AVG_RADIUS_AVG, VA_AVG_RADIUS_STD,
    VA_MAX_RADIUS_AVG, VA_MAX_RADIUS_STD, VA_ROUNDNESS_AVG, VA_ROUNDNESS_STD,
    VESSEL_ATTRS
};
/* The CSV column names, in the benchmark's column order. */
extern const char *const vessel_attr_names[VESSEL_ATTRS];

/* Label bins of minRadiusAvg (bvg.md §2): 0 if <= 5, 1 if <= 13.33, else 2. */
#define VESSEL_BIN_VEIN 5.0
#define VESSEL_BIN_ARTERY 13.33
static inline uint8_t vessel_label(double min_radius_avg)
{
    return min_radius_avg <= VESSEL_BIN_VEIN ? 0 : min_radius_avg <= VESSEL_BIN_ARTERY ? 1 : 2;
}

struct vessel_graph {
    struct graph g;             /* core keys; g.w, g.cap filled by vessel_finish */
    float *pos;                 /* [n*3] */
    float *attr[VESSEL_ATTRS];  /* [m] each */
    uint8_t *label;             /* [m] */
};

/* Number of keys vessel_write packs: the 13 core keys, pos, 13 columns, label. */
enum { VESSEL_KEYS = GRAPH_CORE_KEYS + 1 + VESSEL_ATTRS + 1 };

/* Largest --edges the generator accepts. */
#define VESSEL_MAX_EDGES 100000000

/* Generate a vessel-like graph of exactly `edges` edges (>= 100) from seed. */
bool vessel_generate(int64_t edges, uint64_t seed, struct vessel_graph *v, char *err, size_t errlen);

/* Given n, m, src/dst (sorted, src < dst), pos and the 13 columns, fill the
 * rest: id 0, family, undirected, label, cap (avgCrossSection-free rule:
 * (avgRadiusAvg / max avgRadiusAvg)^2), cap_scale 0, w (the larger of two
 * uniforms per edge from rng stream "vessel-weight" of seed, in edge
 * order), s and t (double sweep from the largest component). */
void vessel_finish(struct vessel_graph *v, uint64_t seed);

/* Sort edges by (src, dst) in O(n + m): perm[i] = the input index of the
 * i-th edge in order.  src[e] < dst[e] is assumed. */
void vessel_sort_edges(int n, int m, const int32_t *src, const int32_t *dst, int32_t *perm);

void vessel_write(struct writer *w, const struct vessel_graph *v);
void vessel_free(struct vessel_graph *v);

#endif
