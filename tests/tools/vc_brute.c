/* vc_brute - the lightest vertex cover of small graphs by trying every one
 * of the 2^n node subsets, for tests/250-algos.bats: the check of the exact
 * solvers (common/algos/vertex_cover_exact.c) that shares no code with them.
 *
 *   vc_brute < graphs.mp > checked.mp     (adds brute_cover, brute_weight)
 *
 * A set is a cover exactly when its complement is independent.  Subsets are
 * visited in increasing order as bit masks, so the mask without its lowest
 * node v came before it: I is independent iff I - {v} is and v has no
 * neighbour in I, and the weight of a mask is its predecessor's plus w_v.
 * Two arrays of 2^n entries and O(1) work per subset; a Python loop over the
 * same 2^20 subsets takes far longer than the test can afford.  The reported
 * weight is re-summed over the winning cover in node order, as a reader
 * would sum it.  More than BRUTE_MAX_NODES nodes is refused (one line, 65). */
#include "cli.h"
#include "die.h"
#include "graph.h"
#include "algo_vertex_cover.h"
#include "io.h"
#include "stream.h"
#include "tensor.h"
#include <stdlib.h>
#include <string.h>

#define BRUTE_MAX_NODES 22

static const char *input = "-", *output = "-";
static bool force;

static const struct cli_option options[] = {
    CLI_INPUT(input),
    CLI_OUTPUT(output),
    CLI_FORCE(force),
    {0},
};

static const struct cli_spec spec = {
    "vc_brute", "[options] < graphs.mp > checked.mp",
    "Test helper: the lightest vertex cover of graphs of at most 22 nodes, by trying every subset.",
    "gen-graphs --instance vertex-cover --nodes 20 | vc_brute",
    options,
    NULL,
};

/* cover[n] gets a lightest cover of the graph (src, dst, w); returns its weight. */
static double lightest_cover(int n, int m, const int32_t *src, const int32_t *dst, const float *w, uint8_t *cover)
{
    uint32_t neighbours[BRUTE_MAX_NODES] = {0};
    for (int e = 0; e < m; e++) {
        neighbours[src[e]] |= 1u << dst[e];
        neighbours[dst[e]] |= 1u << src[e];
    }
    uint32_t full = (1u << n) - 1, subsets = full + 1;
    uint8_t *independent = xmalloc(subsets);
    double *weight = xmalloc(subsets * sizeof *weight);
    independent[0] = 1;
    weight[0] = 0;
    for (uint32_t mask = 1; mask < subsets; mask++) {
        int v = __builtin_ctz(mask);
        uint32_t before = mask & (mask - 1);
        independent[mask] = independent[before] && !(neighbours[v] & mask);
        weight[mask] = weight[before] + (double)w[v];
    }
    /* the empty set is independent, so every node is a cover: best exists */
    uint32_t best = full;
    for (uint32_t set = 0; set < subsets; set++)
        if (independent[set] && weight[full ^ set] < weight[best])
            best = full ^ set;
    double total = 0;
    for (int v = 0; v < n; v++) {
        cover[v] = best >> v & 1;
        if (cover[v])
            total += (double)w[v];
    }
    free(independent);
    free(weight);
    return total;
}

static void each(struct writer *w, const struct record *rec, void *context)
{
    struct graph g;
    graph_read_instance(&g, rec, dar_algorithm_vertex_cover.instance_keys, dar_algorithm_vertex_cover.ninstance_keys, "vertex-cover");
    if (g.n > BRUTE_MAX_NODES)
        record_die(rec, "%d nodes, over the %d a brute force tries", g.n, BRUTE_MAX_NODES);
    uint8_t *cover = xmalloc((size_t)(g.n ? g.n : 1));
    double weight = lightest_cover(g.n, g.m, g.src, g.dst, g.node_w, cover);
    static const char *const keys[] = {"brute_cover", "brute_weight"};
    writer_begin_enriched(w, rec, keys, 2);
    mp_key(w, "brute_cover");  mp_vector(w, DT_U8, g.n, cover);
    mp_key(w, "brute_weight"); mp_double(w, weight);
    free(cover);
    graph_free(&g);
}

int main(int argc, char **argv)
{
    cli_no_operand(&spec, argc, argv, cli_parse(&spec, argc, argv));
    FILE *in = io_open_input(input);
    FILE *out = io_open_output(output, 1, force);
    struct stream_map map = {.each = each};
    stream_map(in, strcmp(input, "-") ? input : NULL, out, &map);
    io_close_output(out);
    return 0;
}
