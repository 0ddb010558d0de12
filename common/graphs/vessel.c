/* vessel.c - a synthetic brain-vessel graph at the size of the VesselGraph
 * benchmark's brains (bvg.md §7; the model and its calibration are in
 * formats/vessel.md).
 *
 * Model, in O(m) time and memory:
 * 1. Capillary bed.  One node per cell of a jittered cubic grid (spacing
 *    BED_SPACING voxels) filling a box of the mouse brain's aspect ratio;
 *    exactly C cells are used, in scan order.  Each node draws a target
 *    degree (1, 3, 4, 5, 6), and nodes in random order join free neighbours
 *    among their 18 face- and edge-adjacent cells (greedy stub pairing).
 *    Capillary radii are lognormal (median 2.2 voxels).
 * 2. Trunks.  Arteries and veins enter at the top face (the pial surface)
 *    and wander inward as persistent random walks.  Every trunk node emits
 *    one side branch: mostly a capillary joined to the nearest bed node,
 *    sometimes (p = 0.12) a medium vessel, r_side = r * U(0.35, 0.65), that
 *    grows as a sub-trunk.  The trunk radius follows Murray's law,
 *    r' = (r^3 - r_side^3)^(1/3), so each trunk is a long chain of large-
 *    radius edges that thins slowly (asymmetric branching).  Trunks are
 *    started (large ones first, medium ones when only class 1 is short)
 *    until the class 1 and class 2 quotas, 4% and 1% of E, are met; a
 *    trunk whose next edge would overfill its class leaves the volume there
 *    (it ends on two bed nodes).
 * 3. Voreen's view.  Degree-2 nodes are not bifurcations: chains through
 *    them are merged into one edge (radius length-weighted), self-loops are
 *    dropped, parallel edges merged, isolated nodes removed, repeatedly
 *    until none is left.
 * 4. Exact size.  The bed is sized from the measured edges per cell; the
 *    few edges missing are added as capillary leaves on nodes of degree
 *    >= 3, extra ones removed as leaves on nodes of degree >= 4 or between
 *    two such nodes, so no degree-2 node appears and m == E exactly.
 * 5. Attributes.  distance = Euclidean distance of the endpoints (exact,
 *    from the float32 positions), curveness = 1 + lognormal, slightly
 *    smaller for thick vessels, length = distance * curveness; the other
 *    columns follow the ratios measured on real data (bvg.md §1, §7).  Per
 *    edge, length/distance/curveness say little about the class; the class
 *    shows in the neighbourhood (trunk edges are chained).
 *
 * Random draws come from named streams of the seed: "vessel-structure"
 * (steps 1, 2), "vessel-size" (4), "vessel-attributes" (5) and
 * "vessel-weight" (w, shared with the CSV reader). */
#include "vessel.h"
#include "graph_bfs.h"
#include "die.h"
#include "rng.h"
#include "tensor.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const vessel_attr_names[VESSEL_ATTRS] = {
    "length", "distance", "curveness", "volume", "avgCrossSection",
    "minRadiusAvg", "minRadiusStd", "avgRadiusAvg", "avgRadiusStd",
    "maxRadiusAvg", "maxRadiusStd", "roundnessAvg", "roundnessStd",
};

/* ---- calibration (formats/vessel.md, "Calibration") ---- */
#define BED_SPACING 8.6          /* grid spacing, voxels: mean edge distance about 11.5 */
#define BED_JITTER 0.35          /* node offset in a cell, fraction of the spacing */
#define BED_EDGES_PER_CELL 1.43  /* measured after the Voreen clean-up */
#define TRUNK_EDGES_PER_E 0.118  /* trunk, side-branch and end edges per E, measured */
#define CAP_RADIUS_MEDIAN 2.05   /* capillary minRadiusAvg, lognormal */
#define CAP_RADIUS_SIGMA 0.28
#define SIDE_RADIUS_MEDIAN 2.6   /* capillary side branches of trunks */
#define RADIUS_NOISE 0.06        /* stored minRadiusAvg = r * exp(N(0, 0.06)) */
#define MEDIUM_BRANCH_P 0.12
#define TRUNK_END_RADIUS 4.0
#define SHARE_VEIN 0.04
#define SHARE_ARTERY 0.01
static const double target_degree_cdf[] = { 0.12, 0.80, 0.96, 0.99, 1.0 };   /* degrees 1,3,4,5,6 */
static const int target_degree_value[] = { 1, 3, 4, 5, 6 };
#define BED_SLOTS 6

struct build {
    int n, n_cap;
    float *pos;                  /* [3n] */
    int32_t *deg;                /* [n] */
    int64_t m, m_cap;
    int32_t *u, *v;              /* [m] */
    float *r;                    /* [m] stored minRadiusAvg */
    uint8_t *dead;               /* [m] */
    double lx, ly, lz;           /* box */
    int gx, gy, gz;              /* grid */
    int64_t cells;               /* bed nodes are 0..cells-1 */
    int64_t count[3];            /* live edges per class, during trunk growth */
};

static int add_node(struct build *b, double x, double y, double z)
{
    if (b->n == b->n_cap) {
        b->n_cap = b->n_cap ? b->n_cap * 2 : 1024;
        b->pos = xrealloc(b->pos, sizeof *b->pos * 3 * (size_t)b->n_cap);
        b->deg = xrealloc(b->deg, sizeof *b->deg * (size_t)b->n_cap);
    }
    b->pos[3 * (size_t)b->n] = (float)x;
    b->pos[3 * (size_t)b->n + 1] = (float)y;
    b->pos[3 * (size_t)b->n + 2] = (float)z;
    b->deg[b->n] = 0;
    return b->n++;
}

static int64_t add_edge(struct build *b, int x, int y, float r)
{
    if (b->m == b->m_cap) {
        b->m_cap = b->m_cap ? b->m_cap * 2 : 4096;
        b->u = xrealloc(b->u, sizeof *b->u * (size_t)b->m_cap);
        b->v = xrealloc(b->v, sizeof *b->v * (size_t)b->m_cap);
        b->r = xrealloc(b->r, sizeof *b->r * (size_t)b->m_cap);
        b->dead = xrealloc(b->dead, (size_t)b->m_cap);
    }
    b->u[b->m] = x;
    b->v[b->m] = y;
    b->r[b->m] = r;
    b->dead[b->m] = 0;
    b->deg[x]++;
    b->deg[y]++;
    b->count[vessel_label(r)]++;
    return b->m++;
}

static void kill_edge(struct build *b, int64_t e)
{
    if (b->dead[e])
        return;
    b->dead[e] = 1;
    b->deg[b->u[e]]--;
    b->deg[b->v[e]]--;
    b->count[vessel_label(b->r[e])]--;
}

static double node_distance(const struct build *b, int x, int y)
{
    const float *p = b->pos + 3 * (size_t)x, *q = b->pos + 3 * (size_t)y;
    double dx = (double)p[0] - q[0], dy = (double)p[1] - q[1], dz = (double)p[2] - q[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

static double lognormal(struct rng *g, double median, double sigma)
{
    return median * exp(sigma * rng_normal(g));
}

static float noisy_radius(struct rng *g, double r)
{
    return (float)(r * exp(RADIUS_NOISE * rng_normal(g)));
}

static float capillary_radius(struct rng *g, double median)
{
    double r = lognormal(g, median, CAP_RADIUS_SIGMA);
    return (float)(r < 0.5 ? 0.5 : r);
}

/* ---- 1. capillary bed ---- */

static void bed(struct build *b, struct rng *g, int64_t cells)
{
    /* Box of the brain's aspect (2900 x 3900 x 1870 voxels, bvg.md §7):
     * gz layers of gy rows of gx cells, the last layer partly filled. */
    const double ax = 1.55, ay = 2.09;
    int gz = (int)floor(cbrt((double)cells / (ax * ay)));
    if (gz < 2) gz = 2;
    int gy = (int)lround(ay * gz);
    int gx = (int)ceil((double)cells / ((double)gy * gz));
    if (gx < 2) gx = 2;
    while ((int64_t)gx * gy * (gz - 1) >= cells && gz > 2)
        gz--;
    while ((int64_t)gx * gy * gz < cells)
        gz++;
    b->gx = gx; b->gy = gy; b->gz = gz;
    b->cells = cells;
    b->lx = gx * BED_SPACING; b->ly = gy * BED_SPACING; b->lz = gz * BED_SPACING;

    for (int64_t c = 0; c < cells; c++) {
        int ix = (int)(c % gx), iy = (int)(c / gx % gy), iz = (int)(c / ((int64_t)gx * gy));
        double jx = (rng_uniform(g) - 0.5) * 2 * BED_JITTER, jy = (rng_uniform(g) - 0.5) * 2 * BED_JITTER,
               jz = (rng_uniform(g) - 0.5) * 2 * BED_JITTER;
        /* layer 0 at the top (the pial surface), the partial layer at the bottom */
        add_node(b, (ix + 0.5 + jx) * BED_SPACING, (iy + 0.5 + jy) * BED_SPACING,
                 (gz - 1 - iz + 0.5 + jz) * BED_SPACING);
    }

    uint8_t *target = xmalloc((size_t)cells);
    int32_t *slots = xmalloc(sizeof *slots * BED_SLOTS * (size_t)cells);
    for (int64_t c = 0; c < cells; c++) {
        double x = rng_uniform(g);
        int k = 0;
        while (x >= target_degree_cdf[k])
            k++;
        target[c] = (uint8_t)target_degree_value[k];
    }
    int32_t *order = xmalloc(sizeof *order * (size_t)cells);
    for (int64_t c = 0; c < cells; c++)
        order[c] = (int32_t)c;
    for (int64_t i = cells - 1; i > 0; i--) {
        int64_t j = (int64_t)rng_below(g, (uint64_t)i + 1);
        int32_t x = order[i]; order[i] = order[j]; order[j] = x;
    }
    /* the 18 neighbours at distance 1 and sqrt(2) cells */
    int off[18][3], no = 0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int a = abs(dx) + abs(dy) + abs(dz);
                if (a == 1 || a == 2) {
                    off[no][0] = dx; off[no][1] = dy; off[no][2] = dz;
                    no++;
                }
            }
    for (int64_t i = 0; i < cells; i++) {
        int c = order[i];
        if (b->deg[c] >= target[c])
            continue;
        int ix = c % gx, iy = c / gx % gy, iz = c / (gx * gy);
        int perm[18];
        for (int k = 0; k < 18; k++)
            perm[k] = k;
        for (int k = 17; k > 0; k--) {
            int j = (int)rng_below(g, (uint64_t)k + 1), x = perm[k];
            perm[k] = perm[j]; perm[j] = x;
        }
        for (int k = 0; k < 18 && b->deg[c] < target[c]; k++) {
            int x = ix + off[perm[k]][0], y = iy + off[perm[k]][1], z = iz + off[perm[k]][2];
            if (x < 0 || x >= gx || y < 0 || y >= gy || z < 0 || z >= gz)
                continue;
            int64_t d = ((int64_t)z * gy + y) * gx + x;
            if (d >= cells || b->deg[d] >= target[d])
                continue;
            bool joined = false;
            for (int s = 0; s < b->deg[c]; s++)
                joined |= slots[(size_t)c * BED_SLOTS + s] == d;
            if (joined)
                continue;
            slots[(size_t)c * BED_SLOTS + b->deg[c]] = (int32_t)d;
            slots[(size_t)d * BED_SLOTS + b->deg[d]] = c;
            add_edge(b, c, (int)d, capillary_radius(g, CAP_RADIUS_MEDIAN));
        }
    }
    free(order);
    free(slots);
    free(target);
}

/* Reorder the edges by their lower endpoint (a bucket sort): the clean-up
 * then walks memory in spatial order instead of the pairing's random one. */
static void edges_by_node(struct build *b)
{
    int64_t *off = xcalloc((size_t)b->n + 1, sizeof *off);
    for (int64_t e = 0; e < b->m; e++)
        off[(b->u[e] < b->v[e] ? b->u[e] : b->v[e]) + 1]++;
    for (int x = 0; x < b->n; x++)
        off[x + 1] += off[x];
    int32_t *u = xmalloc(sizeof *u * (size_t)b->m_cap), *v = xmalloc(sizeof *v * (size_t)b->m_cap);
    float *r = xmalloc(sizeof *r * (size_t)b->m_cap);
    uint8_t *dead = xmalloc((size_t)b->m_cap);
    for (int64_t e = 0; e < b->m; e++) {
        int64_t i = off[b->u[e] < b->v[e] ? b->u[e] : b->v[e]]++;
        u[i] = b->u[e]; v[i] = b->v[e]; r[i] = b->r[e]; dead[i] = b->dead[e];
    }
    free(off);
    free(b->u); free(b->v); free(b->r); free(b->dead);
    b->u = u; b->v = v; b->r = r; b->dead = dead;
}

/* The bed node nearest to p among the 27 cells around it, other than
 * `avoid`, preferring nodes of degree >= 3 (joining them makes no degree-2
 * node); -1 if none. */
static int nearest_bed(const struct build *b, const double *p, int avoid)
{
    int cx = (int)(p[0] / BED_SPACING), cy = (int)(p[1] / BED_SPACING), cz = (int)(p[2] / BED_SPACING);
    int best = -1, best_pref = 0;
    double best_d = 1e300;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int x = cx + dx, y = cy + dy, z = cz + dz;
                if (x < 0 || x >= b->gx || y < 0 || y >= b->gy || z < 0 || z >= b->gz)
                    continue;
                int64_t c = ((int64_t)(b->gz - 1 - z) * b->gy + y) * b->gx + x;
                if (c >= b->cells || c == avoid)
                    continue;
                const float *q = b->pos + 3 * c;
                double d = (p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                           (p[2] - q[2]) * (p[2] - q[2]);
                int pref = b->deg[c] >= 3;
                if (pref > best_pref || (pref == best_pref && d < best_d)) {
                    best = (int)c; best_d = d; best_pref = pref;
                }
            }
    return best;
}

/* ---- 2. trunks ---- */

struct quota { int64_t want[3]; };

static void reflect(double *p, double *dir, const double *box)
{
    for (int i = 0; i < 3; i++) {
        double lo = 0.5, hi = box[i] - 0.5;
        if (p[i] < lo) { p[i] = 2 * lo - p[i]; dir[i] = fabs(dir[i]); }
        if (p[i] > hi) { p[i] = 2 * hi - p[i]; dir[i] = -fabs(dir[i]); }
        if (p[i] < lo || p[i] > hi) p[i] = lo + (hi - lo) * 0.5;
    }
}

static void normalise(double *d)
{
    double l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (l < 1e-12) { d[0] = 0; d[1] = 0; d[2] = -1; return; }
    d[0] /= l; d[1] /= l; d[2] /= l;
}

/* End a vessel at node q: join it to bed nodes near it until it is a
 * bifurcation (degree 3). */
static void end_on_bed(struct build *b, struct rng *g, int q)
{
    double p[3] = { b->pos[3 * (size_t)q], b->pos[3 * (size_t)q + 1], b->pos[3 * (size_t)q + 2] };
    int last = -1;
    for (int k = 0; k < 2 && b->deg[q] > 0 && b->deg[q] < 3; k++) {
        int c = nearest_bed(b, p, last);
        if (c < 0)
            return;
        add_edge(b, q, c, capillary_radius(g, SIDE_RADIUS_MEDIAN));
        last = c;
    }
}

/* Grow a vessel of radius r from node `from` heading along dir. */
static void grow(struct build *b, struct rng *g, const struct quota *qu, int from, const double *dir0, double r,
                 int depth)
{
    const double box[3] = { b->lx, b->ly, b->lz };
    double dir[3] = { dir0[0], dir0[1], dir0[2] };
    int prev = from;
    for (int step = 0; step < 100000; step++) {
        float stored = noisy_radius(g, r);
        int cls = vessel_label(stored);
        if (cls > 0 && b->count[cls] >= qu->want[cls]) {
            /* the vessel leaves the sample here; a branch that never
             * started is a capillary side branch instead */
            if (prev != from) {
                end_on_bed(b, g, prev);
            } else if (depth > 0) {
                double here[3] = { b->pos[3 * (size_t)from], b->pos[3 * (size_t)from + 1],
                                   b->pos[3 * (size_t)from + 2] };
                int c = nearest_bed(b, here, -1);
                if (c >= 0)
                    add_edge(b, from, c, capillary_radius(g, SIDE_RADIUS_MEDIAN));
            }
            return;
        }
        for (int i = 0; i < 3; i++)
            dir[i] += 0.3 * rng_normal(g);
        normalise(dir);
        double len = BED_SPACING * 1.35 * pow(r / 2.5, 0.08) * exp(0.3 * rng_normal(g));
        double p[3];
        for (int i = 0; i < 3; i++)
            p[i] = b->pos[3 * (size_t)prev + i] + dir[i] * len;
        reflect(p, dir, box);
        int q = add_node(b, p[0], p[1], p[2]);
        add_edge(b, prev, q, stored);
        prev = q;
        if (r < TRUNK_END_RADIUS) {
            end_on_bed(b, g, q);
            return;
        }
        double side;
        if (r > 7 && depth < 8 && rng_uniform(g) < MEDIUM_BRANCH_P) {
            side = r * (0.35 + 0.3 * rng_uniform(g));
            double sd[3];
            for (int i = 0; i < 3; i++)
                sd[i] = dir[i] + 1.2 * rng_normal(g);
            normalise(sd);
            grow(b, g, qu, q, sd, side, depth + 1);
        } else {
            side = capillary_radius(g, SIDE_RADIUS_MEDIAN);
            double here[3] = { p[0], p[1], p[2] };
            int c = nearest_bed(b, here, -1);
            if (c >= 0)
                add_edge(b, q, c, (float)side);
        }
        double r3 = r * r * r - side * side * side;
        r = r3 > 1 ? cbrt(r3) : 1;
    }
}

static void trunks(struct build *b, struct rng *g, int64_t edges)
{
    struct quota qu = { { 0, 0, 0 } };
    qu.want[2] = llround(SHARE_ARTERY * edges);
    qu.want[1] = llround(SHARE_VEIN * edges);
    qu.want[0] = INT64_MAX;
    /* bed capillaries above 5 voxels count too */
    for (int64_t guard = 0; guard < edges && (b->count[1] < qu.want[1] || b->count[2] < qu.want[2]); guard++) {
        double r0;
        if (b->count[2] < qu.want[2]) {
            r0 = lognormal(g, 20, 0.25);
            if (r0 < 14.5) r0 = 14.5;
            if (r0 > 40) r0 = 40;
        } else {
            r0 = 6.0 + 7.0 * rng_uniform(g);
        }
        double p[3] = { rng_uniform(g) * b->lx, rng_uniform(g) * b->ly, b->lz - 0.5 };
        double dir[3] = { 0.3 * rng_normal(g), 0.3 * rng_normal(g), -1 };
        normalise(dir);
        int root = add_node(b, p[0], p[1], p[2]);
        grow(b, g, &qu, root, dir, r0, 0);
    }
}

/* ---- 3. Voreen's view: no degree-2 nodes, no loops, no parallel edges ---- */

static int other_end(const struct build *b, int64_t e, int x)
{
    return b->u[e] == x ? b->v[e] : b->u[e];
}

/* One pass; returns whether anything changed. */
static bool clean_pass(struct build *b)
{
    bool changed = false;
    int64_t m = b->m;
    /* incidence lists of live edges */
    int64_t *off = xcalloc((size_t)b->n + 1, sizeof *off);
    for (int64_t e = 0; e < m; e++)
        if (!b->dead[e]) {
            off[b->u[e] + 1]++;
            off[b->v[e] + 1]++;
        }
    for (int x = 0; x < b->n; x++)
        off[x + 1] += off[x];
    int64_t *inc = xmalloc(sizeof *inc * (size_t)(off[b->n] + 1));
    int64_t *fill = xmalloc(sizeof *fill * ((size_t)b->n + 1));
    memcpy(fill, off, sizeof *fill * ((size_t)b->n + 1));
    for (int64_t e = 0; e < m; e++)
        if (!b->dead[e]) {
            inc[fill[b->u[e]]++] = e;
            inc[fill[b->v[e]]++] = e;
        }
    free(fill);

    /* self-loops and parallel edges (keep the first, radius the larger) */
    int64_t *seen = xmalloc(sizeof *seen * (size_t)(b->n ? b->n : 1));
    for (int x = 0; x < b->n; x++)
        seen[x] = -1;
    for (int x = 0; x < b->n; x++) {
        for (int64_t i = off[x]; i < off[x + 1]; i++) {
            int64_t e = inc[i];
            if (b->dead[e])
                continue;
            int y = other_end(b, e, x);
            if (y == x) { kill_edge(b, e); changed = true; continue; }
            if (seen[y] >= 0 && seen[y] != e) {
                int64_t keep = seen[y];
                if (b->r[e] > b->r[keep]) {
                    b->count[vessel_label(b->r[keep])]--;
                    b->r[keep] = b->r[e];
                    b->count[vessel_label(b->r[keep])]++;
                }
                kill_edge(b, e);
                changed = true;
                continue;
            }
            seen[y] = e;
        }
        for (int64_t i = off[x]; i < off[x + 1]; i++)
            seen[other_end(b, inc[i], x)] = -1;
    }
    free(seen);

    /* chains through degree-2 nodes become one edge */
    uint8_t *visited = xcalloc((size_t)b->n, 1);
    int64_t n0 = b->n;
    for (int x = 0; x < n0; x++) {
        if (b->deg[x] != 2 || visited[x])
            continue;
        int64_t ends_e[2];
        int ends[2], k = 0;
        double dsum = 0, rsum = 0;
        visited[x] = 1;
        int64_t first_e[2];
        int nf = 0;
        for (int64_t i = off[x]; i < off[x + 1] && nf < 2; i++)
            if (!b->dead[inc[i]])
                first_e[nf++] = inc[i];
        if (nf < 2)
            continue;
        bool cycle = false;
        for (k = 0; k < 2; k++) {
            int cur = x;
            int64_t e = first_e[k];
            for (;;) {
                int nx = other_end(b, e, cur);
                double d = node_distance(b, cur, nx);
                dsum += d;
                rsum += d * b->r[e];
                if (nx == x) { cycle = true; break; }
                if (b->deg[nx] != 2 || visited[nx]) { ends[k] = nx; ends_e[k] = e; break; }
                visited[nx] = 1;
                int64_t next = -1;
                for (int64_t i = off[nx]; i < off[nx + 1]; i++)
                    if (!b->dead[inc[i]] && inc[i] != e) { next = inc[i]; break; }
                if (next < 0) { ends[k] = nx; ends_e[k] = e; break; }
                cur = nx;
                e = next;
            }
            if (cycle)
                break;
        }
        (void)ends_e;
        /* kill the chain's edges: walk again */
        for (int kk = 0; kk < (cycle ? 1 : 2); kk++) {
            int cur = x;
            int64_t e = first_e[kk];
            while (e >= 0 && !b->dead[e]) {
                int nx = other_end(b, e, cur);
                kill_edge(b, e);
                if (nx == x || (!cycle && nx == ends[kk]))
                    break;
                int64_t next = -1;
                for (int64_t i = off[nx]; i < off[nx + 1]; i++)
                    if (!b->dead[inc[i]]) { next = inc[i]; break; }
                cur = nx;
                e = next;
            }
        }
        if (!cycle && ends[0] != ends[1]) {
            float r = (float)(dsum > 0 ? rsum / dsum : 2.0);
            /* inc[] is stale for the new edge; it is seen next pass */
            add_edge(b, ends[0], ends[1], r);
        }
        changed = true;
    }
    free(visited);
    free(inc);
    free(off);
    return changed;
}

static void clean(struct build *b)
{
    int passes = 1;
    while (clean_pass(b))
        passes++;
    if (getenv("DAR_VESSEL_DEBUG"))
        fprintf(stderr, "vessel: clean-up in %d passes\n", passes);
}

/* ---- 4. exact size ---- */

static int64_t live_edges(const struct build *b)
{
    int64_t c = 0;
    for (int64_t e = 0; e < b->m; e++)
        c += !b->dead[e];
    return c;
}

static void add_leaf(struct build *b, struct rng *g)
{
    const double box[3] = { b->lx, b->ly, b->lz };
    for (;;) {
        int x = (int)rng_below(g, (uint64_t)b->n);
        if (b->deg[x] < 3)
            continue;
        double dir[3] = { rng_normal(g), rng_normal(g), rng_normal(g) };
        normalise(dir);
        double len = BED_SPACING * 1.35 * exp(0.3 * rng_normal(g)), p[3];
        for (int i = 0; i < 3; i++)
            p[i] = b->pos[3 * (size_t)x + i] + dir[i] * len;
        reflect(p, dir, box);
        int y = add_node(b, p[0], p[1], p[2]);
        add_edge(b, x, y, capillary_radius(g, CAP_RADIUS_MEDIAN));
        return;
    }
}

static void exact_size(struct build *b, struct rng *g, int64_t edges)
{
    for (int round = 0; round < 100; round++) {
        int64_t m = live_edges(b);
        while (m < edges) {
            add_leaf(b, g);
            m++;
        }
        if (m == edges)
            return;
        /* Too many: capillary leaves on nodes of degree >= 4, then
         * capillaries between two such nodes, in random order. */
        int64_t *cand = xmalloc(sizeof *cand * (size_t)(b->m ? b->m : 1));
        for (int pass = 0; pass < 2 && m > edges; pass++) {
            int64_t nc = 0;
            for (int64_t e = 0; e < b->m; e++)
                if (!b->dead[e] && vessel_label(b->r[e]) == 0)
                    cand[nc++] = e;
            for (int64_t i = nc - 1; i > 0; i--) {
                int64_t j = (int64_t)rng_below(g, (uint64_t)i + 1), x = cand[i];
                cand[i] = cand[j]; cand[j] = x;
            }
            for (int64_t i = 0; i < nc && m > edges; i++) {
                int64_t e = cand[i];
                int du = b->deg[b->u[e]], dv = b->deg[b->v[e]];
                bool ok = pass == 0 ? ((du == 1 && dv >= 4) || (dv == 1 && du >= 4)) : (du >= 4 && dv >= 4);
                if (ok) {
                    kill_edge(b, e);
                    m--;
                }
            }
        }
        if (m > edges) {
            /* last resort: drop leaves on degree-3 nodes; the clean-up
             * merges their neighbours' edges (two edges fewer each) */
            for (int64_t e = 0; e < b->m && m > edges; e++) {
                if (b->dead[e] || vessel_label(b->r[e]) != 0)
                    continue;
                int du = b->deg[b->u[e]], dv = b->deg[b->v[e]];
                if ((du == 1 && dv == 3) || (dv == 1 && du == 3)) {
                    kill_edge(b, e);
                    m -= 2;
                }
            }
            clean(b);
        }
        free(cand);
    }
}

/* ---- 5. final numbering and attributes ---- */

void vessel_sort_edges(int n, int m, const int32_t *src, const int32_t *dst, int32_t *perm)
{
    int64_t *off = xcalloc((size_t)n + 1, sizeof *off);
    for (int e = 0; e < m; e++)
        off[src[e] + 1]++;
    for (int x = 0; x < n; x++)
        off[x + 1] += off[x];
    for (int e = 0; e < m; e++)
        perm[off[src[e]]++] = e;
    /* off[x] is now the end of x's bucket */
    int64_t start = 0;
    for (int x = 0; x < n; x++) {
        int64_t end = off[x];
        for (int64_t i = start + 1; i < end; i++) {
            int32_t key = perm[i];
            int64_t j = i - 1;
            while (j >= start && dst[perm[j]] > dst[key]) {
                perm[j + 1] = perm[j];
                j--;
            }
            perm[j + 1] = key;
        }
        start = end;
    }
    free(off);
}

static float clampf(double x, double lo, double hi)
{
    return (float)(x < lo ? lo : x > hi ? hi : x);
}

static void attributes(struct vessel_graph *vg, const float *radius, struct rng *g)
{
    int m = vg->g.m;
    for (int k = 0; k < VESSEL_ATTRS; k++)
        vg->attr[k] = xmalloc(sizeof(float) * (size_t)(m ? m : 1));
    for (int e = 0; e < m; e++) {
        const float *p = vg->pos + 3 * (size_t)vg->g.src[e], *q = vg->pos + 3 * (size_t)vg->g.dst[e];
        double dx = (double)p[0] - q[0], dy = (double)p[1] - q[1], dz = (double)p[2] - q[2];
        float distance = (float)sqrt(dx * dx + dy * dy + dz * dz);
        double r = radius[e];
        double c = 1 + 0.06 * pow(r / 2.5, -0.25) * exp(0.8 * rng_normal(g));
        if (c > 3) c = 3;
        float length = (float)((double)distance * c);
        float curveness = distance > 0 ? (float)((double)length / distance) : 0.0f;
        double avg = r * clampf(1.38 * exp(0.08 * rng_normal(g)), 1.15, 2.0);
        double max = avg * clampf(1.26 * exp(0.05 * rng_normal(g)), 1.05, 1.6);
        float avgf = (float)avg, maxf = (float)max;
        float cross = (float)(0.8 * M_PI * avg * avg * exp(0.1 * rng_normal(g)));
        float *a[VESSEL_ATTRS];
        for (int k = 0; k < VESSEL_ATTRS; k++)
            a[k] = vg->attr[k] + e;
        *a[VA_LENGTH] = length;
        *a[VA_DISTANCE] = distance;
        *a[VA_CURVENESS] = curveness;
        *a[VA_AVG_CROSS_SECTION] = cross;
        *a[VA_VOLUME] = (float)((double)length * cross);
        *a[VA_MIN_RADIUS_AVG] = radius[e];
        *a[VA_MIN_RADIUS_STD] = (float)(0.15 * r * exp(0.3 * rng_normal(g)));
        *a[VA_AVG_RADIUS_AVG] = avgf;
        *a[VA_AVG_RADIUS_STD] = (float)(0.12 * avg * exp(0.3 * rng_normal(g)));
        *a[VA_MAX_RADIUS_AVG] = maxf;
        *a[VA_MAX_RADIUS_STD] = (float)(0.15 * max * exp(0.3 * rng_normal(g)));
        *a[VA_ROUNDNESS_AVG] = clampf(0.53 + 0.1 * rng_normal(g), 0.05, 1.0);
        *a[VA_ROUNDNESS_STD] = (float)(0.09 * exp(0.3 * rng_normal(g)));
    }
}

static void stream_rng(struct rng *r, uint64_t seed, const char *purpose)
{
    rng_init(r, seed, rng_stream_id(purpose), 0);
}

bool vessel_generate(int64_t edges, uint64_t seed, struct vessel_graph *vg, char *err, size_t errlen)
{
    memset(vg, 0, sizeof *vg);
    if (edges < 100 || edges > VESSEL_MAX_EDGES) {
        snprintf(err, errlen, "family 'vessel' needs '--edges' in 100..%d, got %lld", VESSEL_MAX_EDGES,
                 (long long)edges);
        return false;
    }
    struct rng structure, size, attr;
    stream_rng(&structure, seed, "vessel-structure");
    stream_rng(&size, seed, "vessel-size");
    stream_rng(&attr, seed, "vessel-attributes");

    struct build b;
    memset(&b, 0, sizeof b);
    int64_t cells = llround((double)edges * (1 - TRUNK_EDGES_PER_E) / BED_EDGES_PER_CELL);
    if (cells < 16) cells = 16;
    bed(&b, &structure, cells);
    trunks(&b, &structure, edges);
    edges_by_node(&b);
    clean(&b);
    if (getenv("DAR_VESSEL_DEBUG"))
        fprintf(stderr, "vessel: cells %lld, edges before sizing %lld (E %lld), trunk nodes %lld\n",
                (long long)cells, (long long)live_edges(&b), (long long)edges, (long long)(b.n - cells));
    exact_size(&b, &size, edges);

    /* Nodes that keep an edge, numbered in spatial order (by cell, z then
     * y then x, ties in creation order), as Voreen numbers them roughly. */
    int64_t ncell = (int64_t)b.gx * b.gy * b.gz;
    int32_t *cell_of = xmalloc(sizeof *cell_of * (size_t)b.n);
    int64_t *bucket = xcalloc((size_t)ncell + 1, sizeof *bucket);
    for (int x = 0; x < b.n; x++) {
        const float *p = b.pos + 3 * (size_t)x;
        int cx = (int)(p[0] / BED_SPACING), cy = (int)(p[1] / BED_SPACING), cz = (int)(p[2] / BED_SPACING);
        if (cx >= b.gx) cx = b.gx - 1;
        if (cy >= b.gy) cy = b.gy - 1;
        if (cz >= b.gz) cz = b.gz - 1;
        if (cx < 0) cx = 0;
        if (cy < 0) cy = 0;
        if (cz < 0) cz = 0;
        cell_of[x] = (int32_t)(((int64_t)cz * b.gy + cy) * b.gx + cx);
        if (b.deg[x] > 0)
            bucket[cell_of[x] + 1]++;
    }
    for (int64_t c = 0; c < ncell; c++)
        bucket[c + 1] += bucket[c];
    int n = (int)bucket[ncell];
    int32_t *newid = xmalloc(sizeof *newid * (size_t)b.n);
    struct graph *g = &vg->g;
    vg->pos = xmalloc(sizeof *vg->pos * 3 * (size_t)(n ? n : 1));
    for (int x = 0; x < b.n; x++) {
        newid[x] = -1;
        if (b.deg[x] > 0) {
            newid[x] = (int32_t)bucket[cell_of[x]]++;
            memcpy(vg->pos + 3 * (size_t)newid[x], b.pos + 3 * (size_t)x, 3 * sizeof(float));
        }
    }
    free(bucket);
    free(cell_of);

    int m = (int)edges;
    int32_t *su = xmalloc(sizeof *su * (size_t)m), *sv = xmalloc(sizeof *sv * (size_t)m);
    float *sr = xmalloc(sizeof *sr * (size_t)m);
    int k = 0;
    for (int64_t e = 0; e < b.m; e++) {
        if (b.dead[e])
            continue;
        int x = newid[b.u[e]], y = newid[b.v[e]];
        su[k] = x < y ? x : y;
        sv[k] = x < y ? y : x;
        sr[k] = b.r[e];
        k++;
    }
    free(newid);
    free(b.pos); free(b.deg); free(b.u); free(b.v); free(b.r); free(b.dead);
    if (k != m)
        die(EX_SOFTWARE, "vessel: %d edges made, expected %d", k, m);

    int32_t *perm = xmalloc(sizeof *perm * (size_t)m);
    vessel_sort_edges(n, m, su, sv, perm);
    g->n = n;
    g->m = m;
    g->src = xmalloc(sizeof *g->src * (size_t)m);
    g->dst = xmalloc(sizeof *g->dst * (size_t)m);
    float *radius = xmalloc(sizeof *radius * (size_t)m);
    for (int e = 0; e < m; e++) {
        g->src[e] = su[perm[e]];
        g->dst[e] = sv[perm[e]];
        radius[e] = sr[perm[e]];
    }
    free(perm); free(su); free(sv); free(sr);
    attributes(vg, radius, &attr);
    free(radius);
    vessel_finish(vg, seed);
    return true;
}

void vessel_finish(struct vessel_graph *v, uint64_t seed)
{
    struct graph *g = &v->g;
    int m = g->m;
    g->id = 0;
    snprintf(g->family, sizeof g->family, "vessel");
    g->directed = false;
    g->cap_scale = 0;
    bool labelled = v->label != NULL;   /* the CSV reader labels from the text's double */
    if (!labelled)
        v->label = xmalloc((size_t)(m ? m : 1));
    g->cap = xmalloc(sizeof *g->cap * (size_t)(m ? m : 1));
    g->w = xmalloc(sizeof *g->w * (size_t)(m ? m : 1));
    double rmax = 0;
    for (int e = 0; e < m; e++) {
        if (!labelled)
            v->label[e] = vessel_label(v->attr[VA_MIN_RADIUS_AVG][e]);
        if (v->attr[VA_AVG_RADIUS_AVG][e] > rmax)
            rmax = v->attr[VA_AVG_RADIUS_AVG][e];
    }
    /* cap = pi r^2 / (pi r_max^2): the cross-section, largest vessel 1 */
    for (int e = 0; e < m; e++) {
        double q = rmax > 0 ? v->attr[VA_AVG_RADIUS_AVG][e] / rmax : 1.0;
        g->cap[e] = (float)(q * q);
        if (!(g->cap[e] >= 0) || !isfinite(g->cap[e]))
            g->cap[e] = 0;
    }
    struct rng wr;
    stream_rng(&wr, seed, "vessel-weight");
    for (int e = 0; e < m; e++)
        g->w[e] = fmaxf(rng_uniform_f32(&wr), rng_uniform_f32(&wr));
    struct adjacency a;
    adjacency_build(&a, g->n, m, g->src, g->dst);
    int s = 0, t = 1;
    if (g->n >= 2) {
        double_sweep(&a, -1, &s, &t);
        if (s == t)
            t = s == 0 ? 1 : 0;
    }
    adjacency_free(&a);
    g->s = s;
    g->t = t;
}

void vessel_write(struct writer *w, const struct vessel_graph *v)
{
    mp_map(w, VESSEL_KEYS);
    graph_write_core(w, &v->g);
    int64_t shape[2] = { v->g.n, 3 };
    mp_key(w, "pos");
    mp_tensor(w, DT_F32, 2, shape, v->pos);
    for (int k = 0; k < VESSEL_ATTRS; k++) {
        mp_key(w, vessel_attr_names[k]);
        mp_vector(w, DT_F32, v->g.m, v->attr[k]);
    }
    mp_key(w, "label");
    mp_vector(w, DT_U8, v->g.m, v->label);
}

void vessel_free(struct vessel_graph *v)
{
    graph_free(&v->g);
    free(v->pos);
    for (int k = 0; k < VESSEL_ATTRS; k++)
        free(v->attr[k]);
    free(v->label);
    memset(v, 0, sizeof *v);
}
