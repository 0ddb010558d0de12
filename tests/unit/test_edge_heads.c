/* test_edge_heads.c - the processor's edge decoders by probe type, apart
 * from any entry: a test-only algorithm whose one network encodes a node
 * scalar, an edge scalar input and an edge mask hint, and decodes an edge
 * scalar (squared error) and an edge mask (BCE) with the symmetric edge
 * head, and a node scalar; its loss gradient against central finite
 * differences, PGN and MPNN, every aggregator.  (The matching entry's twin,
 * tests/twin/match_twin.py, covers the edge mask head against PyTorch; the
 * edge scalar head, which only the loss tells apart, is covered here.) */
#include "check.h"
#include "dar.h"
#include "dar_processor.h"
#include "die.h"
#include "rng.h"
#include <stdlib.h>
#include <string.h>

enum { P_POS, P_X, P_HINT, P_Y, P_Z, P_NODE, P_COUNT };

static const struct dar_probe probes[P_COUNT] = {
    [P_POS] = {NULL, "pos", NULL, DAR_STAGE_INPUT, DAR_LOCATION_NODE, DAR_TYPE_SCALAR, 1, -1, false},
    [P_X] = {"w", "x", NULL, DAR_STAGE_INPUT, DAR_LOCATION_EDGE, DAR_TYPE_SCALAR, 1, -1, false},
    [P_HINT] = {NULL, "hint", NULL, DAR_STAGE_HINT, DAR_LOCATION_EDGE, DAR_TYPE_MASK, 1, -1, false},
    [P_Y] = {NULL, NULL, "y", DAR_STAGE_OUTPUT, DAR_LOCATION_EDGE, DAR_TYPE_SCALAR, 1, -1, false},
    [P_Z] = {NULL, NULL, "z", DAR_STAGE_OUTPUT, DAR_LOCATION_EDGE, DAR_TYPE_MASK, 1, -1, false},
    [P_NODE] = {NULL, NULL, "v", DAR_STAGE_OUTPUT, DAR_LOCATION_NODE, DAR_TYPE_SCALAR, 1, -1, false},
};

static const struct dar_layout layouts[DAR_VARIANTS] = {
    [DAR_PRIMAL] = {1, {{"net", (1u << P_POS) | (1u << P_X) | (1u << P_HINT), 3, {P_Y, P_Z, P_NODE}}}},
};

static const char *const loss_names[] = {"y", "z", "v"};

/* Per graph: the targets and the hint, in the graph's probe[]. */
static const float *edge_input(const struct dar_graph *dg, int p) { return p == P_X ? dg->g.w : NULL; }

static void check(const struct dar_model *m, struct dar_graph *const *g, int B, bool training, int embed) {}

static struct dar_scales batch_scales(const struct dar_model *m, struct dar_graph *const *g, int B, bool first)
{
    return (struct dar_scales){{0}};
}

/* Two steps of the one network, h carried; the losses at the second. */
static void run_group(struct dar_group *c)
{
    int list[8];
    for (int b = 0; b < c->B; b++)
        list[b] = b;
    struct dar_run *runs[2];
    for (int i = 0; i < 2; i++) {
        struct dar_run *r = runs[i] = dar_run_new(c, &c->model->nets[0], list, c->B);
        for (int k = 0; k < c->B; k++) {
            const struct dar_graph *dg = c->gd[k].dg;
            struct dar_inputs in = {0};
            in.probe[P_POS] = dg->probe[P_NODE];        /* any node scalar will do */
            in.probe[P_HINT] = dg->probe[P_HINT];
            dar_run_set_inputs(c, r, k, &in);
            if (i == 1)
                r->carry_in[k] = true;
        }
        dar_run_forward(c, r, dar_carry_hprev(c, r));
        for (int k = 0; k < c->B; k++)
            dar_carry_from_run(c, r, k);
    }
    struct dar_run *r = runs[1];
    for (int k = 0; k < c->B; k++) {
        const struct dar_graph *dg = c->gd[k].dg;
        int n = c->gd[k].n, m = c->gd[k].m;
        for (int t = 0; t < 3; t++) {
            int p = t == 0 ? P_Y : t == 1 ? P_Z : P_NODE;
            struct dar_head_out *o = &r->head[r->net->head_of[p]];
            int64_t at = p == P_NODE ? r->node_offset[k] : r->edge_offset[k];
            c->sum[t] += dar_probe_loss(c, probes[p].type, 1, c->backward ? o->grad + at : NULL, o->value + at,
                                        dg->probe[p], 1.0f / (float)(p == P_NODE ? n : m),
                                        p == P_NODE ? n : m);
        }
    }
    for (int b = 0; b < c->B; b++)
        c->carry[b].h_valid = false;
    if (!c->backward)
        return;
    for (int b = 0; b < c->B; b++)
        c->carry[b].dh_pending = false;
    dar_run_backward(c, runs[1], true, true);
    dar_run_backward(c, runs[0], true, true);
}

static double total_loss(const struct dar_model *m, const double *sum, const struct dar_scales *sc, double *terms)
{
    for (int t = 0; t < 3; t++)
        terms[t] = sum[t];
    return sum[0] + sum[1] + sum[2];
}

static const struct dar_algorithm edge_test = {
    .name = "edge-test", .summary = "test", .nprobes = P_COUNT, .probes = probes, .vessel_replaces = -1,
    .layouts = layouts, .nlosses = 3, .loss_names = loss_names, .edge_input = edge_input, .check = check,
    .batch_scales = batch_scales, .run_group = run_group, .total_loss = total_loss,
};

/* A small random graph with its targets: an undirected graph on n nodes. */
static void make_graph(struct dar_graph *dg, int n, struct rng *r)
{
    memset(dg, 0, sizeof *dg);
    struct graph *g = &dg->g;
    g->n = n;
    g->src = xmalloc(sizeof(int32_t) * (size_t)(n * n));
    g->dst = xmalloc(sizeof(int32_t) * (size_t)(n * n));
    for (int u = 0; u < n; u++)
        for (int v = u + 1; v < n; v++)
            if (rng_below(r, 2)) {
                g->src[g->m] = u;
                g->dst[g->m] = v;
                g->m++;
            }
    g->w = xmalloc(sizeof(float) * (size_t)(g->m + 1));
    float *y = xmalloc(sizeof(float) * (size_t)(g->m + 1)), *node = xmalloc(sizeof(float) * (size_t)n);
    uint8_t *z = xmalloc((size_t)g->m + 1), *hint = xmalloc((size_t)g->m + 1);
    for (int e = 0; e < g->m; e++) {
        g->w[e] = rng_uniform_f32(r);
        y[e] = 2.0f * rng_uniform_f32(r) - 1.0f;
        z[e] = (uint8_t)rng_below(r, 2);
        hint[e] = (uint8_t)rng_below(r, 2);
    }
    for (int v = 0; v < n; v++)
        node[v] = rng_uniform_f32(r);
    dg->probe[P_Y] = y;
    dg->probe[P_Z] = z;
    dg->probe[P_HINT] = hint;
    dg->probe[P_NODE] = node;
    dg->steps = 3;
}

static double loss_of(struct dar_model *m, struct dar_workspace *ws, struct dar_graph **g, int B)
{
    return dar_loss_and_grad(m, ws, g, B, NULL, 0, false, NULL);
}

/* Central differences along a random ±1/√count direction per parameter
 * tensor, against the analytic directional derivative.  In float32 a relu
 * or max kink within a step spoils an estimate now and then, on any
 * parameter; the seeds are fixed, so the test is deterministic, and a wrong
 * backward of a head shows on its own parameters at every seed. */
static int gradient_check(struct dar_model *m, struct dar_workspace *ws, struct dar_graph **g, int B,
                          struct rng *r, double *worst, char *bad, size_t badcap)
{
    params_zero_grad(m->params, m->nparams);
    dar_loss_and_grad(m, ws, g, B, NULL, 0, true, NULL);
    int failures = 0;
    *worst = 0;
    bad[0] = 0;
    for (int k = 0; k < m->nparams; k++) {
        struct param *p = &m->params[k];
        float *saved = xmalloc(sizeof(float) * (size_t)p->count), *dir = xmalloc(sizeof(float) * (size_t)p->count);
        memcpy(saved, p->value, sizeof(float) * (size_t)p->count);
        double want = 0;
        float unit = (float)(1.0 / sqrt((double)p->count));
        for (int64_t i = 0; i < p->count; i++) {
            dir[i] = rng_below(r, 2) ? unit : -unit;
            want += (double)dir[i] * p->grad[i];
        }
        /* a relu or max kink within eps spoils an estimate: the central and
         * both one-sided ones, at three step sizes, and one must agree */
        bool ok = false;
        double fd = 0, base = loss_of(m, ws, g, B);
        static const float eps[] = {3e-3f, 1e-3f, 3e-4f};
        for (int e = 0; e < 3 && !ok; e++) {
            double side[2];
            for (int s = 0; s < 2; s++) {
                for (int64_t i = 0; i < p->count; i++)
                    p->value[i] = saved[i] + (s ? -eps[e] : eps[e]) * dir[i];
                side[s] = loss_of(m, ws, g, B);
            }
            memcpy(p->value, saved, sizeof(float) * (size_t)p->count);
            double estimates[3] = {(side[0] - side[1]) / (2.0 * eps[e]), (side[0] - base) / eps[e],
                                   (base - side[1]) / eps[e]};
            for (int q = 0; q < 3 && !ok; q++) {
                fd = estimates[q];
                double d = fabs(fd - want);
                ok = d <= 3e-5 || d <= 3e-2 * fmax(fabs(want), fabs(fd));
                if (ok && fabs(want) > 1e-3 && d / fabs(want) > *worst)
                    *worst = d / fabs(want);
            }
        }
        if (!ok) {
            failures++;
            size_t len = strlen(bad);
            snprintf(bad + len, badcap - len, " %s: analytic %.6g, differences %.6g;", p->name, want, fd);
        }
        free(saved);
        free(dir);
    }
    return failures;
}

static void test_gradients(void)
{
    struct rng r;
    rng_init(&r, 5, 1, 0);
    struct dar_graph graphs[3], *g[3];
    int sizes[3] = {5, 7, 4};
    for (int b = 0; b < 3; b++) {
        make_graph(&graphs[b], sizes[b], &r);
        g[b] = &graphs[b];
    }
    struct dar_workspace *ws = dar_workspace_new();
    char bad[4000];
    for (int p = 0; p < 2; p++)
        for (int a = 0; a < 3; a++) {
            struct dar_config c = {.variant = DAR_PRIMAL, .processor = (enum dar_processor)p, .agg = (enum dar_agg)a, .hidden = 6,
                                   .algorithm = &edge_test};
            struct dar_model m;
            dar_model_init(&m, &c, 2 + 3 * p + a);
            double worst;
            int fails = gradient_check(&m, ws, g, 3, &r, &worst, bad, sizeof bad);
            CHECK(fails == 0, "%s %s: the edge scalar, edge mask and node scalar heads' gradients match finite "
                  "differences (worst rel %.2g)%s", dar_processor_name(c.processor), dar_agg_name(c.agg), worst, bad);
            dar_model_free(&m);
        }
    /* the parameters the edge heads have: q1 with its bias, q3 without */
    struct dar_config c = {.variant = DAR_PRIMAL, .processor = DAR_PGN, .agg = DAR_AGG_MAX, .hidden = 6, .algorithm = &edge_test};
    struct dar_model m;
    dar_model_init(&m, &c, 1);
    CHECK(dar_param_index(&m, "net.dec.y.q1.weight") >= 0 && dar_param_index(&m, "net.dec.y.q1.bias") >= 0 &&
          dar_param_index(&m, "net.dec.y.q3.weight") >= 0 && dar_param_index(&m, "net.dec.y.q3.bias") < 0 &&
          dar_param_index(&m, "net.dec.z.q1.weight") >= 0 && dar_param_index(&m, "net.dec.v.weight") >= 0,
          "an edge head has q1 (weight, bias) and q3 (weight), a node scalar head one layer");
    dar_model_free(&m);
    for (int b = 0; b < 3; b++)
        dar_graph_free(&graphs[b]);
    dar_workspace_free(ws);
}

int main(void)
{
    check_file_name = "edge_heads";
    test_gradients();
    return check_done();
}
