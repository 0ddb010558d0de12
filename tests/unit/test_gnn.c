/* test_gnn.c - gnn-train's kernels: the sparse mean and GCN products and
 * their backward passes against the _naive twins (which scatter along the
 * transposed product, so they also check the symmetry the fast kernels
 * rely on), the same bits at any thread count; relu + dropout; the METIS
 * partition (every node in exactly one part, parts used, deterministic) and
 * induced subgraphs against the definition.  The model's gradients are
 * checked against the PyTorch twin in tests/720-gnn-train.bats. */
#include "check.h"
#include "gnn.h"
#include "line_graph.h"
#include "partition.h"
#include "rng.h"
#include "sparse.h"
#include "workers.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The line graph of a random graph (a vessel-like sparse one). */
static void random_line_graph(struct line_graph *g, int64_t nodes, int64_t m, uint64_t seed)
{
    struct rng r;
    rng_init(&r, seed, rng_stream_id("test-gnn"), 0);
    int32_t *src = malloc(sizeof *src * (size_t)m), *dst = malloc(sizeof *dst * (size_t)m);
    for (int64_t e = 0; e < m; e++) {
        src[e] = (int32_t)rng_below(&r, (uint64_t)nodes);
        do
            dst[e] = (int32_t)rng_below(&r, (uint64_t)nodes);
        while (dst[e] == src[e]);
    }
    char err[200];
    line_graph_build(g, nodes, m, src, dst, err, sizeof err);
    free(src);
    free(dst);
}

static float *random_matrix(int64_t count, uint64_t seed)
{
    struct rng r;
    rng_init(&r, seed, rng_stream_id("test-gnn-x"), 0);
    float *x = malloc(sizeof *x * (size_t)count);
    for (int64_t i = 0; i < count; i++)
        x[i] = (float)rng_normal(&r);
    return x;
}

static double max_rel_diff(const float *a, const float *b, int64_t count)
{
    double worst = 0, scale = 1e-30;
    for (int64_t i = 0; i < count; i++) {
        worst = fmax(worst, fabs((double)a[i] - b[i]));
        scale = fmax(scale, fabs((double)b[i]));
    }
    return worst / scale;
}

static void test_sparse(void)
{
    /* 4000 nodes of G, 6000 edges: 6000 line-graph nodes (some isolated), rows beyond one grain */
    struct line_graph g;
    random_line_graph(&g, 4000, 6000, 1);
    int64_t n = g.n;
    bool isolated = false;
    for (int64_t i = 0; i < n; i++)
        isolated = isolated || g.offsets[i + 1] == g.offsets[i];
    int widths[] = {1, 3, 17};
    float *scale = malloc(sizeof *scale * (size_t)n);
    gcn_scale(scale, &g);
    for (int w = 0; w < 3; w++) {
        int H = widths[w];
        int64_t count = n * H;
        float *x = random_matrix(count, (uint64_t)H), *d0 = random_matrix(count, 100 + (uint64_t)H);
        float *fast = malloc(sizeof(float) * (size_t)count), *naive = malloc(sizeof(float) * (size_t)count);
        float *fast3 = malloc(sizeof(float) * (size_t)count);
        /* mean forward */
        sparse_mean_forward(fast, x, &g, H, 1);
        sparse_mean_forward(fast3, x, &g, H, 3);
        sparse_mean_forward_naive(naive, x, &g, H);
        CHECK(max_rel_diff(fast, naive, count) < 1e-6, "mean forward = naive, H %d (rel %.2g)", H,
              max_rel_diff(fast, naive, count));
        CHECK(!memcmp(fast, fast3, sizeof(float) * (size_t)count), "mean forward: same bits on 1 and 3 threads, H %d", H);
        /* mean backward: accumulates onto d0 */
        memcpy(fast, d0, sizeof(float) * (size_t)count);
        memcpy(fast3, d0, sizeof(float) * (size_t)count);
        memcpy(naive, d0, sizeof(float) * (size_t)count);
        sparse_mean_backward(fast, x, &g, H, 1);
        sparse_mean_backward(fast3, x, &g, H, 3);
        sparse_mean_backward_naive(naive, x, &g, H);
        CHECK(max_rel_diff(fast, naive, count) < 1e-5, "mean backward (pull, symmetric) = naive scatter of M^T, H %d (rel %.2g)",
              H, max_rel_diff(fast, naive, count));
        CHECK(!memcmp(fast, fast3, sizeof(float) * (size_t)count), "mean backward: same bits on 1 and 3 threads, H %d", H);
        /* in place: the same bits, for 1 and 3 threads; dout ends divided by the degrees */
        for (int t = 1; t <= 3; t += 2) {
            float *scratch = malloc(sizeof(float) * (size_t)count), *dx = malloc(sizeof(float) * (size_t)count);
            memcpy(scratch, x, sizeof(float) * (size_t)count);
            memcpy(dx, d0, sizeof(float) * (size_t)count);
            sparse_mean_backward_in_place(dx, scratch, &g, H, t);
            CHECK(!memcmp(dx, fast, sizeof(float) * (size_t)count),
                  "mean backward in place: the bits of sparse_mean_backward, H %d, %d threads", H, t);
            bool divided = true;
            for (int64_t i = 0; i < n; i++) {
                float deg = (float)(g.offsets[i + 1] - g.offsets[i]);
                for (int c = 0; c < H; c++)
                    divided = divided && scratch[i * H + c] == (deg > 1 ? x[i * H + c] / deg : x[i * H + c]);
            }
            CHECK(divided, "mean backward in place: dout's rows divided by their degrees, H %d, %d threads", H, t);
            free(scratch);
            free(dx);
        }
        /* gcn forward and backward */
        sparse_gcn_forward(fast, x, scale, NULL, &g, H, 1);
        sparse_gcn_forward(fast3, x, scale, NULL, &g, H, 3);
        sparse_gcn_forward_naive(naive, x, scale, &g, H);
        CHECK(max_rel_diff(fast, naive, count) < 1e-6, "gcn forward = naive, H %d (rel %.2g)", H,
              max_rel_diff(fast, naive, count));
        CHECK(!memcmp(fast, fast3, sizeof(float) * (size_t)count), "gcn forward: same bits on 1 and 3 threads, H %d", H);
        /* with a bias: the bits of adding it to each row after the product */
        float *bias = random_matrix(H, 200 + (uint64_t)H);
        for (int64_t i = 0; i < count; i++)
            naive[i] = fast[i] + bias[i % H];
        sparse_gcn_forward(fast3, x, scale, bias, &g, H, 3);
        CHECK(!memcmp(naive, fast3, sizeof(float) * (size_t)count), "gcn forward with bias: the bits of the product, then + bias, H %d", H);
        free(bias);
        memcpy(fast, d0, sizeof(float) * (size_t)count);
        memcpy(fast3, d0, sizeof(float) * (size_t)count);
        memcpy(naive, d0, sizeof(float) * (size_t)count);
        sparse_gcn_backward(fast, x, scale, &g, H, 1);
        sparse_gcn_backward(fast3, x, scale, &g, H, 3);
        sparse_gcn_backward_naive(naive, x, scale, &g, H);
        CHECK(max_rel_diff(fast, naive, count) < 1e-5, "gcn backward = naive scatter of Â^T, H %d (rel %.2g)", H,
              max_rel_diff(fast, naive, count));
        CHECK(!memcmp(fast, fast3, sizeof(float) * (size_t)count), "gcn backward: same bits on 1 and 3 threads, H %d", H);
        free(x);
        free(d0);
        free(fast);
        free(fast3);
        free(naive);
    }
    CHECK(isolated, "the test graph has isolated line-graph nodes (rows of 0)");
    free(scale);
    line_graph_free(&g);
}

static void test_relu_dropout(void)
{
    int64_t n = 3000;
    int H = 8;
    float *a = random_matrix(n * H, 5), *b = malloc(sizeof(float) * (size_t)(n * H));
    memcpy(b, a, sizeof(float) * (size_t)(n * H));
    float *orig = malloc(sizeof(float) * (size_t)(n * H));
    memcpy(orig, a, sizeof(float) * (size_t)(n * H));
    relu_dropout_forward(a, n, H, 0.25f, 7, 3, 2, 1);
    relu_dropout_forward(b, n, H, 0.25f, 7, 3, 2, 3);
    CHECK(!memcmp(a, b, sizeof(float) * (size_t)(n * H)), "dropout: the same mask for the same seed, step and layer, on 1 and 3 threads");
    int64_t positive = 0, kept = 0;
    bool scaled = true;
    for (int64_t i = 0; i < n * H; i++)
        if (orig[i] > 0) {
            positive++;
            if (a[i] != 0) {
                kept++;
                scaled = scaled && a[i] == orig[i] * (1.0f / 0.75f);
            }
        } else
            scaled = scaled && a[i] == 0;
    double rate = (double)kept / (double)positive;
    CHECK(rate > 0.72 && rate < 0.78 && scaled, "dropout 0.25 keeps %.3f of the positive units, scaled by 1/0.75; relu zeroes the rest", rate);
    memcpy(b, orig, sizeof(float) * (size_t)(n * H));
    relu_dropout_forward(b, n, H, 0.25f, 7, 4, 2, 1);
    CHECK(memcmp(a, b, sizeof(float) * (size_t)(n * H)), "another step, another mask");
    float *d = random_matrix(n * H, 6), *dz = malloc(sizeof(float) * (size_t)(n * H));
    relu_dropout_backward(dz, d, a, n * H, 0.25f);
    bool good = true;
    for (int64_t i = 0; i < n * H; i++)
        good = good && dz[i] == (a[i] > 0 ? d[i] * (1.0f / 0.75f) : 0.0f);
    CHECK(good, "backward: dh / (1 - p) on kept units, 0 elsewhere");
    free(a);
    free(b);
    free(orig);
    free(d);
    free(dz);
}

static void test_partition(void)
{
    struct line_graph g;
    random_line_graph(&g, 3000, 5000, 2);
    int parts = 9;
    int32_t *part = malloc(sizeof *part * (size_t)g.n), *again = malloc(sizeof *again * (size_t)g.n);
    char err[200] = "";
    int64_t cut = -1;
    int rc = partition_metis(part, &g, parts, &cut, err, sizeof err);
    CHECK(rc == 0, "METIS partitions a 5000-node line graph into 9 parts (%s)", err);
    /* every node in exactly one part: the cluster lists gnn-train builds cover 0..n-1 once */
    int64_t size[9] = {0};
    bool in_range = true;
    for (int64_t i = 0; i < g.n; i++) {
        in_range = in_range && part[i] >= 0 && part[i] < parts;
        if (in_range)
            size[part[i]]++;
    }
    int64_t total = 0, smallest = g.n, largest = 0;
    for (int p = 0; p < parts; p++) {
        total += size[p];
        smallest = size[p] < smallest ? size[p] : smallest;
        largest = size[p] > largest ? size[p] : largest;
    }
    CHECK(in_range && total == g.n && smallest > 0, "every node in exactly one part; parts of %lld to %lld nodes",
          (long long)smallest, (long long)largest);
    int64_t cut_entries = 0;
    for (int64_t i = 0; i < g.n; i++)
        for (int64_t k = g.offsets[i]; k < g.offsets[i + 1]; k++)
            cut_entries += part[g.neighbors[k]] != part[i];
    CHECK(cut_entries == 2 * cut && cut < g.offsets[g.n] / 4, "METIS's edge cut %lld is the cut of the parts", (long long)cut);
    partition_metis(again, &g, parts, NULL, err, sizeof err);
    CHECK(!memcmp(part, again, sizeof *part * (size_t)g.n), "the partition is deterministic (METIS's seed)");
    CHECK(partition_metis(again, &g, 1, NULL, err, sizeof err) == 0 && again[0] == 0 && again[g.n - 1] == 0,
          "one part skips METIS");

    /* induced subgraph of parts 2 and 5, nodes part by part */
    int32_t *nodes = malloc(sizeof *nodes * (size_t)g.n), *local = malloc(sizeof *local * (size_t)g.n);
    int64_t k = 0;
    for (int want = 2; want <= 5; want += 3)
        for (int64_t i = 0; i < g.n; i++)
            if (part[i] == want)
                nodes[k++] = (int32_t)i;
    for (int64_t i = 0; i < g.n; i++)
        local[i] = -1;
    struct line_graph sub;
    line_graph_induced(&sub, &g, nodes, k, local);
    bool good = sub.n == k, restored = true;
    for (int64_t a = 0; a < k && good; a++) {
        /* row a = the neighbours of nodes[a] among nodes, as local indices, ascending */
        int64_t expect = 0;
        for (int64_t b = 0; b < k; b++) {
            bool adjacent = false;
            for (int64_t e = g.offsets[nodes[a]]; e < g.offsets[nodes[a] + 1]; e++)
                adjacent = adjacent || g.neighbors[e] == nodes[b];
            if (adjacent) {
                good = good && sub.offsets[a] + expect < sub.offsets[a + 1] && sub.neighbors[sub.offsets[a] + expect] == b;
                expect++;
            }
        }
        good = good && sub.offsets[a + 1] - sub.offsets[a] == expect;
    }
    for (int64_t i = 0; i < g.n; i++)
        restored = restored && local[i] == -1;
    CHECK(good && restored, "the subgraph of two clusters (%lld nodes) is the induced one; scratch restored", (long long)k);
    line_graph_free(&sub);
    free(nodes);
    free(local);
    free(part);
    free(again);
    line_graph_free(&g);
}

int main(void)
{
    check_file_name = "gnn";
    workers_start(3);      /* the kernels' 1- and 3-thread runs share this pool */
    test_sparse();
    test_relu_dropout();
    test_partition();
    workers_stop();
    return check_done();
}
