/* dar_internal.h - what the processor's own files share and nothing else
 * includes (not the entries: they see dar_processor.h only).  dar.c was one
 * file; split along its sections, the few functions two of its parts use are
 * declared here, each beside the file that owns it.  The small ones are
 * defined here, inline, as they were static in one file. */
#ifndef DAR_INTERNAL_H
#define DAR_INTERNAL_H
#include "dar.h"
#include "dar_processor.h"
#include <string.h>

/* ---- the call's context (here, inline; read by every part) --------------- */

static inline int net_index(const struct dar_model *m, const struct dar_net *net)
{
    return (int)(net - m->nets);
}

/* An edge mask or scalar: the symmetric edge head (dar.h struct dar_head). */
static inline bool symmetric_edge_head(const struct dar_head *head)
{
    return head->location == DAR_LOCATION_EDGE && head->type != DAR_TYPE_BOUNDED_ANTISYMMETRIC;
}

/* The layer of a head that reads the arc features through the rank-4
 * products (its q3), or NULL. */
static inline const struct dar_linear *arc_layer(const struct dar_head *head)
{
    if (head->type == DAR_TYPE_BOUNDED_ANTISYMMETRIC)
        return &head->linear[2];
    return symmetric_edge_head(head) ? &head->linear[1] : NULL;
}

/* z = [x; h_prev] rows copied out of hd (here, inline; dar_forward.c and
 * dar_backward.c) */
static inline void hd_to_z(float *z, const float *hd, int64_t N, int H)
{
    for (int64_t v = 0; v < N; v++)
        memcpy(z + v * 2 * H, hd + v * 3 * H, sizeof(float) * 2 * (size_t)H);
}

/* ---- owned by dar_layout.c, called by dar.c ------------------------------- */

/* Graph dg laid out for the processor into gd: its arcs, and its edge
 * inputs summed onto them. */
void dar_prepare_graph(struct dar_group *c, struct dar_graph_layout *gd, const struct dar_graph *dg);

/* ---- owned by dar_forward.c, called by dar.c ------------------------------ */

/* The rank-4 products of every network, once per call: Me·a_c, and q3·a_c
 * of every edge head. */
void dar_netcache_init(struct dar_group *c);

/* ---- owned by dar_backward.c, called by dar.c ----------------------------- */

/* After every run's backward: the rank-4 products' gradients into Me, q3
 * and the arc encoders. */
void dar_netcache_backward(struct dar_group *c);

#endif
