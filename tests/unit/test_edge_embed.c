/* test_edge_embed.c - edge_embed_states (tools/edge_embed.c), the third
 * copy of the PGN message and aggregate (dar.h says why there are three),
 * against dar_predict(DAR_EMBED_FIRST): P_BF's and P_F's node states after
 * one step from frame 0 must be dar.c's, for primal and dual, every
 * aggregation, a model with capacity inputs and one with vessel inputs, on
 * graphs cut into one work unit and into many, on one thread and on two. */
#include "check.h"
#include "algo_maxflow.h"
#include "dar.h"
#include "die.h"
#include "edge_embed.h"
#include "workers.h"
#include "graph.h"
#include "graphgen.h"
#include "rng.h"
#include <cblas.h>
#include <stdlib.h>
#include <string.h>

/* Graph k of an Erdos-Renyi family with n nodes (no trace: the first step
 * needs none). */
static struct dar_graph random_graph(int n, double density, int64_t k)
{
    struct graphgen_options o = {.family = "erdos-renyi", .nodes = n, .density = density,
                                 .inter_density = 0.05, .capacity = CAP_MAX_OF_TWO, .seed = 5};
    struct dar_graph dg = {0};
    char err[200];
    if (!graphgen(&o, k, &dg.g, err, sizeof err))
        die(EX_SOFTWARE, "graphgen: %s", err);
    return dg;
}

/* Vessel inputs in [0, 1], m each, drawn from a seeded stream. */
static void vessel_features(float *out[3], int64_t m)
{
    struct rng r;
    rng_init(&r, 9, rng_stream_id("test-vessel"), 0);
    for (int k = 0; k < 3; k++) {
        out[k] = xmalloc(sizeof(float) * (size_t)(m + 1));
        for (int64_t e = 0; e < m; e++)
            out[k][e] = (float)rng_uniform(&r);
    }
}

/* Largest |a − b| over max(|b|, 1e-3), over count floats. */
static double worst_relative(const float *a, const float *b, int64_t count, int64_t stride_a,
                             int64_t stride_b, int H)
{
    double worst = 0;
    for (int64_t v = 0; v < count; v++)
        for (int h = 0; h < H; h++) {
            double x = a[v * stride_a + h], y = b[v * stride_b + h];
            double d = fabs(x - y) / fmax(fabs(y), 1e-3);
            if (!(d <= worst))
                worst = isnan(d) ? INFINITY : d;
        }
    return worst;
}

static void check_states(enum dar_variant variant, enum dar_agg agg, bool vessel_inputs,
                         struct dar_graph *dg)
{
    int H = 8, n = dg->g.n;
    struct dar_config config = {.variant = variant, .processor = DAR_PGN, .agg = agg, .hidden = H,
                                .vessel_inputs = vessel_inputs, .algorithm = &dar_algorithm_maxflow};
    struct dar_model model;
    dar_model_init(&model, &config, 11);
    float *vessel[3] = {NULL, NULL, NULL};
    if (vessel_inputs) {
        vessel_features(vessel, dg->g.m);
        dg->length = vessel[0];
        dg->distance = vessel[1];
        dg->curveness = vessel[2];
    }
    struct dar_workspace *ws = dar_workspace_new();
    float *embed = xcalloc((size_t)n * 3 * (size_t)H, sizeof(float));
    struct dar_prediction p = {.embed = embed};
    struct dar_graph *one[] = {dg};
    dar_predict(&model, ws, one, 1, DAR_EMBED_FIRST, &p);

    const char *name = vessel_inputs ? "vessel" : "cap";
    static const int64_t chunks[] = {1 << 20, 7};
    static const int threads[] = {1, 2};
    for (int i = 0; i < 2; i++) {
        float *h_bf = xmalloc(sizeof(float) * (size_t)n * (size_t)H);
        float *h_f = xmalloc(sizeof(float) * (size_t)n * (size_t)H);
        workers_start(threads[i]);
        edge_embed_states(&model, &dg->g, dg->g.s, dg->g.t, vessel, chunks[i], PROGRESS_OFF, h_bf, h_f);
        workers_stop();
        /* P_F's hd = [x_F; h_prev = h_BF; h_F] */
        double bf = worst_relative(h_bf, embed + H, n, H, 3 * H, H);
        double fl = worst_relative(h_f, embed + 2 * H, n, H, 3 * H, H);
        double norm = 0;
        for (int64_t i2 = 0; i2 < (int64_t)n * H; i2++)
            norm += fabs(h_f[i2]);
        CHECK(bf <= 1e-5 && fl <= 1e-5 && norm > 0,
              "%s %s, %s inputs, chunk %lld, %d thread(s): h_BF and h_F equal dar_predict's "
              "first-step states (worst relative difference %.2g, %.2g)",
              dar_variant_name(variant), dar_agg_name(agg), name, (long long)chunks[i], threads[i],
              bf, fl);
        free(h_bf);
        free(h_f);
    }
    free(embed);
    dar_workspace_free(ws);
    dar_model_free(&model);
}

int main(void)
{
    check_file_name = "edge_embed";
    openblas_set_num_threads(1);
    struct dar_graph dg = random_graph(40, 0.15, 0);
    static const enum dar_variant variants[] = {DAR_PRIMAL, DAR_DUAL};
    static const enum dar_agg aggs[] = {DAR_AGG_MAX, DAR_AGG_MEAN, DAR_AGG_SUM};
    for (int v = 0; v < 2; v++)
        for (int a = 0; a < 3; a++)
            check_states(variants[v], aggs[a], false, &dg);
    check_states(DAR_DUAL, DAR_AGG_MAX, true, &dg);   /* dar_graph_free frees the vessel inputs */
    dar_graph_free(&dg);
    return check_done();
}
