/* test_vessel.c - the vessel generator (common/graphs/vessel.c), the double sweep
 * (common/graphs/graph_bfs.c) and the VesselGraph CSV reader on a well-formed
 * pair (malformed ones end the process: tests/600-vessel.bats). */
#include "check.h"
#include "graph_bfs.h"
#include "vessel.h"
#include "vesselgraph_csv.h"
#include "die.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

static void test_bfs(void)
{
    /* a path 0-1-2-3-4 plus a spur 2-5, and a separate edge 6-7 */
    int32_t src[] = { 0, 1, 2, 3, 2, 6 }, dst[] = { 1, 2, 3, 4, 5, 7 };
    struct adjacency a;
    adjacency_build(&a, 8, 6, src, dst);
    int32_t dist[8];
    int reached;
    int far = graph_bfs(&a, 2, dist, &reached);
    CHECK(reached == 6 && dist[0] == 2 && dist[4] == 2 && dist[5] == 1 && dist[6] == -1 && far == 0,
          "bfs from 2: reached %d, farthest %d (lowest id among ties)", reached, far);
    CHECK(graph_largest_component_node(&a) == 0, "largest component found");
    int s, t, d = double_sweep(&a, -1, &s, &t);
    CHECK(d == 4 && ((s == 0 && t == 4) || (s == 4 && t == 0)), "double sweep on a tree is exact: %d-%d, %d hops",
          s, t, d);
    d = double_sweep(&a, 6, &s, &t);
    CHECK(d == 1 && s != t, "double sweep inside a small component: %d hops", d);
    adjacency_free(&a);

    /* a 30-cycle: every node's eccentricity is 15 */
    int32_t cs[30], cd[30];
    for (int i = 0; i < 30; i++) { cs[i] = i; cd[i] = (i + 1) % 30; }
    adjacency_build(&a, 30, 30, cs, cd);
    d = double_sweep(&a, 7, &s, &t);
    CHECK(d == 15, "double sweep on a cycle reaches the diameter (%d)", d);
    adjacency_free(&a);
}

static void test_labels_and_sort(void)
{
    CHECK(vessel_label(5.0) == 0 && vessel_label(5.0000001) == 1 && vessel_label(13.33) == 1 &&
          vessel_label(13.3300001) == 2 && vessel_label(0.5) == 0 && vessel_label(38.7) == 2,
          "label bins: <= 5 capillary, <= 13.33 vein, above artery");
    CHECK(vessel_label((float)13.33) == 1, "float32 13.33 (13.3299999) is a vein");
    int32_t s[] = { 3, 0, 2, 0, 3, 1 }, d[] = { 4, 5, 4, 1, 5, 2 }, perm[6];
    vessel_sort_edges(6, 6, s, d, perm);
    bool sorted = true;
    for (int i = 1; i < 6; i++)
        sorted &= s[perm[i - 1]] < s[perm[i]] || (s[perm[i - 1]] == s[perm[i]] && d[perm[i - 1]] < d[perm[i]]);
    CHECK(sorted && perm[0] == 3 && perm[1] == 1, "edges sorted by (src, dst)");
}

struct stats { double share[3], mean_degree; int deg2, deg0, unsorted, bad_distance, bad_curve, bad_label, bad_len; };

static struct stats stats_of(const struct vessel_graph *v)
{
    struct stats st;
    memset(&st, 0, sizeof st);
    const struct graph *g = &v->g;
    int *deg = calloc((size_t)g->n, sizeof *deg);
    int64_t count[3] = { 0, 0, 0 };
    for (int e = 0; e < g->m; e++) {
        deg[g->src[e]]++;
        deg[g->dst[e]]++;
        if (g->src[e] >= g->dst[e] || (e && (g->src[e - 1] > g->src[e] ||
                                            (g->src[e - 1] == g->src[e] && g->dst[e - 1] >= g->dst[e]))))
            st.unsorted++;
        const float *p = v->pos + 3 * (size_t)g->src[e], *q = v->pos + 3 * (size_t)g->dst[e];
        double dx = (double)p[0] - q[0], dy = (double)p[1] - q[1], dz = (double)p[2] - q[2];
        if (v->attr[VA_DISTANCE][e] != (float)sqrt(dx * dx + dy * dy + dz * dz))
            st.bad_distance++;
        float l = v->attr[VA_LENGTH][e], d = v->attr[VA_DISTANCE][e], c = v->attr[VA_CURVENESS][e];
        if (!(d > 0) || fabsf(c - l / d) > 2e-7f * c)
            st.bad_curve++;
        if (l < d)
            st.bad_len++;
        if (v->label[e] != vessel_label(v->attr[VA_MIN_RADIUS_AVG][e]))
            st.bad_label++;
        count[v->label[e]]++;
    }
    for (int x = 0; x < g->n; x++) {
        st.deg2 += deg[x] == 2;
        st.deg0 += deg[x] == 0;
    }
    for (int k = 0; k < 3; k++)
        st.share[k] = 100.0 * (double)count[k] / g->m;
    st.mean_degree = 2.0 * g->m / g->n;
    free(deg);
    return st;
}

static void test_generator(int64_t edges)
{
    struct vessel_graph v, w;
    char err[256];
    bool ok = vessel_generate(edges, 5, &v, err, sizeof err);
    CHECK(ok && v.g.m == edges, "--edges %lld makes exactly %d edges", (long long)edges, v.g.m);
    if (!ok)
        return;
    struct stats st = stats_of(&v);
    CHECK(fabs(st.share[0] - 95) <= 1.5 && fabs(st.share[1] - 4) <= 1.5 && fabs(st.share[2] - 1) <= 1.5,
          "E=%lld class shares %.2f/%.2f/%.2f (95/4/1 +- 1.5)", (long long)edges, st.share[0], st.share[1],
          st.share[2]);
    CHECK(st.mean_degree >= 2.8 && st.mean_degree <= 3.3, "E=%lld mean degree %.3f", (long long)edges,
          st.mean_degree);
    CHECK(st.deg2 == 0 && st.deg0 == 0, "no degree-2 (%d) or isolated (%d) nodes", st.deg2, st.deg0);
    CHECK(st.unsorted == 0, "edges sorted by (src, dst), src < dst, no pair twice");
    CHECK(st.bad_distance == 0, "distance is the exact Euclidean distance of the endpoints (%d off)",
          st.bad_distance);
    CHECK(st.bad_curve == 0 && st.bad_len == 0, "curveness = length/distance (%d off), length >= distance (%d)",
          st.bad_curve, st.bad_len);
    CHECK(st.bad_label == 0, "labels are the minRadiusAvg bins");
    CHECK(v.g.s != v.g.t && v.g.s >= 0 && v.g.t < v.g.n && !v.g.directed && v.g.cap_scale == 0 &&
          strcmp(v.g.family, "vessel") == 0, "core keys: s %d, t %d", v.g.s, v.g.t);
    bool caps = true;
    float capmax = 0;
    for (int e = 0; e < v.g.m; e++) {
        caps &= v.g.cap[e] >= 0 && v.g.cap[e] <= 1 && v.g.w[e] >= 0 && v.g.w[e] <= 1;
        capmax = fmaxf(capmax, v.g.cap[e]);
    }
    CHECK(caps && capmax == 1.0f, "cap in [0,1] with largest 1, w in [0,1]");

    vessel_generate(edges, 5, &w, err, sizeof err);
    bool same = w.g.n == v.g.n && w.g.s == v.g.s && w.g.t == v.g.t &&
                memcmp(w.g.src, v.g.src, 4 * (size_t)edges) == 0 && memcmp(w.g.dst, v.g.dst, 4 * (size_t)edges) == 0 &&
                memcmp(w.pos, v.pos, 12 * (size_t)v.g.n) == 0 && memcmp(w.g.w, v.g.w, 4 * (size_t)edges) == 0;
    for (int k = 0; k < VESSEL_ATTRS && same; k++)
        same = memcmp(w.attr[k], v.attr[k], 4 * (size_t)edges) == 0;
    CHECK(same, "same seed, same graph");
    vessel_free(&w);
    vessel_generate(edges, 6, &w, err, sizeof err);
    CHECK(w.g.m == edges && (w.g.n != v.g.n || memcmp(w.pos, v.pos, 12 * (size_t)v.g.n) != 0),
          "another seed, another graph of the same size");
    vessel_free(&w);
    vessel_free(&v);
}

static void test_csv(void)
{
    char dir[] = "/tmp/test_vessel_XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp");
        return;
    }
    char path[256];
    snprintf(path, sizeof path, "%s/x_nodes_processed.csv", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "id;pos_x;pos_y;pos_z;degree;isAtSampleBorder\n2;0;0;0;1;1\n0;3;4;0;3;0\n1;3;4;12;1;0\n\n3;0;8;0;1;1\n");
    fclose(f);
    snprintf(path, sizeof path, "%s/x_edges_processed.csv", dir);
    f = fopen(path, "w");
    const char *cols = "length;distance;curveness;volume;avgCrossSection;minRadiusAvg;minRadiusStd;avgRadiusAvg;"
                       "avgRadiusStd;maxRadiusAvg;maxRadiusStd;roundnessAvg;roundnessStd";
    fprintf(f, "id;node1id;node2id;%s;num_voxels\r\n", cols);
    fprintf(f, "0;2;0;6;5;1.2;1;1;2.5;0;3;0;4;0;0.5;0.1;4\r\n");
    fprintf(f, "1;0;1;13;12;1.0833;1;1;13.3300001;0;20;0;25;0;0.5;0.1;9\r\n");
    fprintf(f, "2;3;0;5;5;1;1;1;5.0;0;7;0;9;0;0.5;0.1;4\r\n");
    fclose(f);
    struct vessel_graph v;
    vesselgraph_read(dir, 0, &v);
    CHECK(v.g.n == 4 && v.g.m == 3, "read 4 nodes and 3 edges (blank line skipped, CRLF accepted)");
    CHECK(v.g.src[0] == 0 && v.g.dst[0] == 1 && v.g.src[1] == 0 && v.g.dst[1] == 2 && v.g.src[2] == 0 &&
          v.g.dst[2] == 3, "edges stored src < dst, sorted");
    CHECK(v.pos[3 * 2] == 0 && v.pos[3 * 1 + 2] == 12 && v.pos[0] == 3, "positions placed by node id");
    CHECK(v.label[0] == 2 && v.label[1] == 0 && v.label[2] == 0 && v.attr[VA_MIN_RADIUS_AVG][1] == 2.5f,
          "labels from minRadiusAvg: 13.3300001 artery, 5.0 capillary");
    CHECK(v.g.cap[0] == 1.0f && fabsf(v.g.cap[1] - 9.0f / 400.0f) < 1e-7f, "cap = (avgRadiusAvg / max)^2");
    CHECK((v.g.s == 1 || v.g.s == 2 || v.g.s == 3) && (v.g.t == 1 || v.g.t == 2 || v.g.t == 3) && v.g.s != v.g.t,
          "s, t: two leaves of the star, 2 hops apart");
    vessel_free(&v);
    snprintf(path, sizeof path, "%s/x_nodes_processed.csv", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/x_edges_processed.csv", dir);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    check_file_name = "vessel";
    test_bfs();
    test_labels_and_sort();
    test_generator(100);
    test_generator(3234);
    test_generator(50001);
    test_csv();
    return check_done();
}
