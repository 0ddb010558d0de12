/* test_dar.c - the DAR model (common/dar/dar*.c):
 * - the parameter list: names, counts, init bounds and determinism;
 * - the whole model's gradient against central finite differences of its
 *   loss, for every variant × processor × aggregation, with teacher forcing
 *   on (hint inputs from the trace) and, for some, off (predicted flows feed
 *   back through time, so the gradient crosses steps);
 * - batching: a batch's pooled losses from the per-graph ones, a graph's
 *   predictions unchanged beside a much longer graph, [A] against [A, A],
 *   batch order;
 * - model and graph records: write -> read round trips, exact;
 * - bit-identical results across runs and across 1 and 2 BLAS threads.
 * Graphs are small random traced networks (5-8 nodes) built here with
 * graphgen and maxflow_trace. */
#include "check.h"
#include "algo_maxflow.h"
#include "die.h"
#include "graph.h"
#include "graphgen.h"
#include "maxflow.h"
#include "rng.h"
#include "registry.h"
#include "stream.h"
#include "tensor.h"
#include "workers.h"
#include <cblas.h>
#include <stdlib.h>
#include <string.h>

/* ---- test graphs ---------------------------------------------------------- */

/* Run the trace on dg->g and fill dg's trace keys. */
static void trace_graph(struct dar_graph *dg)
{
    struct graph *g = &dg->g;
    int64_t *cap = xmalloc(sizeof(int64_t) * (size_t)(g->m + 1));
    int64_t *flow = xmalloc(sizeof(int64_t) * (size_t)(g->m + 1));
    double scale = graph_capacity_units(g, cap);
    struct flownet net = flownet_from_graph(g, cap);
    struct trace tr = {0};
    dg->probe[MAXFLOW_CUT_OUT] = xmalloc((size_t)g->n);
    maxflow_trace(&net, &tr, flow, maxflow_cut(dg));
    int T = tr.steps;
    dg->steps = T;
    dg->phase = xmalloc((size_t)T);
    memcpy(dg->phase, tr.phase, (size_t)T);
    dg->probe[MAXFLOW_MASK] = xmalloc((size_t)T * g->n);
    memcpy(maxflow_hint_mask(dg), tr.mask, (size_t)T * g->n);
    dg->probe[MAXFLOW_PTR] = xmalloc(sizeof(int32_t) * (size_t)T * g->n);
    memcpy(maxflow_hint_pi(dg), tr.pi, sizeof(int32_t) * (size_t)T * g->n);
    dg->probe[MAXFLOW_FLOW] = xmalloc(sizeof(float) * (size_t)(T * g->m + 1));
    for (int64_t i = 0; i < (int64_t)T * g->m; i++)
        maxflow_hint_flow(dg)[i] = (float)((double)tr.flow[i] / (double)scale);
    dg->probe[MAXFLOW_FLOW_OUT] = xmalloc(sizeof(float) * (size_t)(g->m + 1));
    for (int e = 0; e < g->m; e++)
        maxflow_flow(dg)[e] = (float)((double)flow[e] / (double)scale);
    trace_free(&tr);
    free(cap);
    free(flow);
}

static int flow_steps(const struct dar_graph *dg)
{
    int count = 0;
    for (int i = 0; i + 1 < dg->steps; i++)
        count += !dg->phase[i];
    return count;
}

/* Graph k of an Erdos-Renyi family with n nodes, traced; NULL if the trace
 * is shorter than min_steps or has no flow step (so every loss term shows). */
static struct dar_graph *traced_graph(int n, double density, uint64_t seed, int64_t k, int min_steps,
                                      int max_steps)
{
    struct graphgen_options o = {.family = "erdos-renyi", .nodes = n, .density = density,
                                 .inter_density = 0.05, .capacity = CAP_MAX_OF_TWO, .seed = seed};
    struct dar_graph *dg = xcalloc(1, sizeof *dg);
    char err[200];
    if (!graphgen(&o, k, &dg->g, err, sizeof err))
        die(EX_SOFTWARE, "graphgen: %s", err);
    trace_graph(dg);
    if (dg->steps < min_steps || dg->steps > max_steps || flow_steps(dg) == 0) {
        dar_graph_free(dg);
        free(dg);
        return NULL;
    }
    return dg;
}

/* A graph whose sink cannot be reached: its trace has no flow step. */
static struct dar_graph *unreachable_sink_graph(void)
{
    static const int32_t src[] = {0, 1, 0}, dst[] = {1, 2, 2};
    static const float cap[] = {0.5f, 0.25f, 0.75f}, w[] = {0.5f, 0.5f, 0.25f};
    struct dar_graph *dg = xcalloc(1, sizeof *dg);
    struct graph *g = &dg->g;
    g->n = 5;
    g->m = 3;
    g->s = 0;
    g->t = 4;
    g->src = xmalloc(sizeof src);
    g->dst = xmalloc(sizeof dst);
    g->cap = xmalloc(sizeof cap);
    g->w = xmalloc(sizeof w);
    memcpy(g->src, src, sizeof src);
    memcpy(g->dst, dst, sizeof dst);
    memcpy(g->cap, cap, sizeof cap);
    memcpy(g->w, w, sizeof w);
    trace_graph(dg);
    return dg;
}

/* The first graph of the family, from index *k on, with T in [lo, hi]. */
static struct dar_graph *find_graph(int n, double density, int64_t *k, int lo, int hi)
{
    for (;; (*k)++) {
        struct dar_graph *g = traced_graph(n, density, 77, *k, lo, hi);
        if (g) {
            (*k)++;
            return g;
        }
        if (*k > 100000)
            die(EX_SOFTWARE, "no graph with %d..%d steps", lo, hi);
    }
}

static void free_graph(struct dar_graph *g)
{
    dar_graph_free(g);
    free(g);
}

/* ---- helpers -------------------------------------------------------------- */

static struct dar_config config_of(enum dar_variant v, enum dar_processor p, enum dar_agg a, int H,
                                   bool leak)
{
    return (struct dar_config){.variant = v, .processor = p, .agg = a, .hidden = H, .leak_dual = leak,
                                .algorithm = &dar_algorithm_maxflow};
}

static double loss_of(struct dar_model *m, struct dar_workspace *ws, struct dar_graph **g, int B,
                      const uint8_t *tf, int tf_len)
{
    return dar_loss_and_grad(m, ws, g, B, tf, tf_len, false, NULL);
}

static double grads_of(struct dar_model *m, struct dar_workspace *ws, struct dar_graph **g, int B,
                       const uint8_t *tf, int tf_len, struct dar_losses *L)
{
    params_zero_grad(m->params, m->nparams);
    return dar_loss_and_grad(m, ws, g, B, tf, tf_len, true, L);
}

/* The loss at the parameters moved by ±eps along direction dir (NULL:
 * entry j of parameter k alone). */
static void perturbed_losses(struct dar_model *m, struct dar_workspace *ws, struct dar_graph **g,
                             int B, const uint8_t *tf, int tf_len, int k, int64_t j,
                             const float *dir, float eps, double *plus, double *minus)
{
    struct param *p = &m->params[k];
    float *saved = xmalloc(sizeof(float) * (size_t)p->count);
    memcpy(saved, p->value, sizeof(float) * (size_t)p->count);
    for (int side = 0; side < 2; side++) {
        float e = side ? -eps : eps;
        if (dir)
            for (int64_t i = 0; i < p->count; i++) p->value[i] = saved[i] + e * dir[i];
        else
            p->value[j] = saved[j] + e;
        *(side ? minus : plus) = loss_of(m, ws, g, B, tf, tf_len);
        memcpy(p->value, saved, sizeof(float) * (size_t)p->count);
    }
    free(saved);
}

/* Finite differences of every parameter tensor: the directional derivative
 * along a random ±1/√count direction over the whole tensor, and two single
 * entries.  A relu or max kink, or a binarised/argmax input flipping, within
 * eps spoils an estimate; the loss is piecewise smooth, so the one-sided
 * difference on the side without the kink stays right, and such errors
 * shrink with eps while a wrong gradient does not.  So an entry passes when
 * the central, forward or backward difference agrees at one of three eps.  Returns the number
 * of tensors that disagree; worst receives the largest relative error seen
 * on a gradient of some size. */
static int gradient_check(struct dar_model *m, struct dar_workspace *ws, struct dar_graph **g, int B,
                          const uint8_t *tf, int tf_len, struct rng *r, double *worst,
                          char *bad, size_t badcap)
{
    /* P_F reads stopgrad(h of P_BF): finite differences see it as a constant */
    dar_workspace_hprev_mode(ws, DAR_HPREV_RECORD);
    grads_of(m, ws, g, B, tf, tf_len, NULL);
    dar_workspace_hprev_mode(ws, DAR_HPREV_REPLAY);
    double base = loss_of(m, ws, g, B, tf, tf_len);
    float *analytic = xmalloc(sizeof(float) * (size_t)m->count);
    memcpy(analytic, m->grads, sizeof(float) * (size_t)m->count);
    int failures = 0;
    *worst = 0;
    bad[0] = 0;
    int64_t offset = 0;
    for (int k = 0; k < m->nparams; k++) {
        struct param *p = &m->params[k];
        const float *ga = analytic + offset;
        offset += p->count;
        float *dir = xmalloc(sizeof(float) * (size_t)p->count);
        double want = 0;
        float unit = (float)(1.0 / sqrt((double)p->count));
        for (int64_t i = 0; i < p->count; i++) {
            dir[i] = rng_below(r, 2) ? unit : -unit;
            want += (double)dir[i] * ga[i];
        }
        for (int trial = 0; trial < 3; trial++) {
            int64_t j = trial == 0 ? -1 : (int64_t)rng_below(r, (uint64_t)p->count);
            double expect = j < 0 ? want : ga[j];
            const double floor_abs = 3e-5;
            bool ok = false;
            static const float eps[] = {1e-3f, 3e-4f, 1e-4f};
            for (int e = 0; e < 3 && !ok; e++) {
                double plus, minus;
                perturbed_losses(m, ws, g, B, tf, tf_len, k, j, j < 0 ? dir : NULL, eps[e], &plus, &minus);
                double estimates[3] = {(plus - minus) / (2.0 * eps[e]), (plus - base) / eps[e],
                                       (base - minus) / eps[e]};
                double fd = estimates[0], d = fabs(fd - expect);
                for (int q = 0; q < 3 && !ok; q++) {
                    fd = estimates[q];
                    d = fabs(fd - expect);
                    ok = d <= floor_abs || d <= 3e-2 * fmax(fabs(expect), fabs(fd));
                }
                if (ok && fabs(expect) > 30 * floor_abs && d / fabs(expect) > *worst)
                    *worst = d / fabs(expect);
                if (!ok && e == 2) {
                    failures++;
                    size_t len = strlen(bad);
                    snprintf(bad + len, badcap - len, " %s[%lld]: analytic %.6g fd %.6g;", p->name,
                             (long long)j, expect, fd);
                }
            }
            if (!ok)
                break;
        }
        free(dir);
    }
    free(analytic);
    dar_workspace_hprev_mode(ws, DAR_HPREV_LIVE);
    return failures;
}

/* ---- tests ---------------------------------------------------------------- */

static void test_parameters(void)
{
    struct dar_model m;
    const int H = 65;
    struct { enum dar_variant v; int64_t count; int tensors; } want[] = {
        /* P_BF 16H²+20H+1; P_F primal 10H²+32H+7, dual 10H²+46H+11 */
        {DAR_PRIMAL, 26LL * H * H + 52LL * H + 8, 0},
        {DAR_DUAL, 26LL * H * H + 66LL * H + 12, 0},
        /* mincut 10H²+18H+2; bf with cut 16H²+22H+1; flow with cut 10H²+34H+7 */
        {DAR_PIPELINE, 36LL * H * H + 74LL * H + 10, 0},
        /* net: encoders 5H, processor 10H²+7H, flow head 7H+3 */
        {DAR_NO_ALGO, 10LL * H * H + 19LL * H + 3, 0},
    };
    for (int i = 0; i < 4; i++) {
        struct dar_config c = config_of(want[i].v, DAR_PGN, DAR_AGG_MAX, H, false);
        dar_model_init(&m, &c, 5);
        CHECK(m.count == want[i].count, "%s has %lld parameters, expected %lld",
              dar_variant_name(want[i].v), (long long)m.count, (long long)want[i].count);
        bool bounded = true;
        for (int k = 0; k < m.nparams; k++) {
            double bound = 1.0 / sqrt((double)m.info[k].fan_in);
            for (int64_t j = 0; j < m.params[k].count; j++)
                bounded &= fabs(m.params[k].value[j]) <= bound;
        }
        CHECK(bounded, "%s: every initial value within 1/sqrt(fan_in)", dar_variant_name(want[i].v));
        dar_model_free(&m);
    }
    struct dar_config c = config_of(DAR_DUAL, DAR_PGN, DAR_AGG_MAX, 4, false);
    dar_model_init(&m, &c, 5);
    static const char *const first[] = {
        "bf.enc.pos", "bf.enc.s", "bf.enc.t", "bf.enc.mask", "bf.enc.cap", "bf.enc.w", "bf.enc.flow",
        "bf.enc.ptr", "bf.proc.m1.weight", "bf.proc.m1.bias", "bf.proc.m2.weight"};
    bool names = true;
    for (int k = 0; k < 11; k++)
        names &= strcmp(m.info[k].name, first[k]) == 0;
    int f = dar_param_index(&m, "flow.enc.cut"), q = dar_param_index(&m, "flow.dec.flow_hint.q3.weight");
    int last = m.nparams - 1;
    CHECK(names && f > 0 && m.info[f].shape[0] == 4 && m.info[f].shape[1] == 2 && q > 0 &&
          m.info[q].shape[0] == 1 && m.info[q].shape[1] == 4 &&
          strcmp(m.info[last].name, "flow.dec.cut.bias") == 0 && dar_param_index(&m, "bf.dec.cut.weight") < 0 &&
          dar_param_index(&m, "flow.dec.pi1.weight") < 0,
          "dual parameter names, order and shapes follow model.md §6");
    /* init draws rng(seed, "init", 0) parameter by parameter, weight before bias */
    struct rng r;
    rng_init(&r, 5, rng_stream_id("init"), 0);
    double u = rng_uniform(&r);
    CHECK(m.params[0].value[0] == (float)((2.0 * u - 1.0) * 1.0), "the first draw initialises bf.enc.pos[0]");
    struct dar_model m2;
    dar_model_init(&m2, &c, 5);
    CHECK(memcmp(m.values, m2.values, sizeof(float) * (size_t)m.count) == 0, "init is deterministic");
    dar_model_free(&m2);
    dar_model_free(&m);
}

static void test_gradients(struct dar_graph **g, int B)
{
    struct dar_workspace *ws = dar_workspace_new();
    struct rng r;
    rng_init(&r, 11, 1, 0);
    int steps = dar_batch_steps(g, B);
    uint8_t *all = xmalloc((size_t)steps + 1), *none = xcalloc((size_t)steps + 1, 1);
    uint8_t *mixed = xmalloc((size_t)steps + 1);
    memset(all, 1, (size_t)steps + 1);
    for (int i = 0; i <= steps; i++)
        mixed[i] = (i % 3) != 1;
    char bad[4000];
    for (int v = 0; v < 4; v++)
        for (int p = 0; p < 2; p++)
            for (int a = 0; a < 3; a++) {
                struct dar_config c = config_of((enum dar_variant)v, (enum dar_processor)p,
                                                (enum dar_agg)a, 5, false);
                struct dar_model m;
                dar_model_init(&m, &c, 100 + v * 10 + p * 3 + a);
                double worst;
                int fails = gradient_check(&m, ws, g, B, all, steps + 1, &r, &worst, bad, sizeof bad);
                CHECK(fails == 0, "%s %s %s, teacher forcing on: gradient matches finite differences "
                      "(worst rel %.2g)%s", dar_variant_name(c.variant), dar_processor_name(c.processor),
                      dar_agg_name(c.agg), worst, bad);
                dar_model_free(&m);
            }
    /* teacher forcing off or mixed: predicted flows feed later steps */
    struct { enum dar_variant v; enum dar_processor p; enum dar_agg a; bool leak; const uint8_t *tf; const char *what; } off[] = {
        {DAR_DUAL, DAR_PGN, DAR_AGG_MAX, false, none, "off"},
        {DAR_PRIMAL, DAR_PGN, DAR_AGG_SUM, false, none, "off"},
        {DAR_PIPELINE, DAR_MPNN, DAR_AGG_MEAN, false, mixed, "mixed"},
        {DAR_DUAL, DAR_MPNN, DAR_AGG_SUM, true, mixed, "mixed, --leak-cut"},
        {DAR_NO_ALGO, DAR_PGN, DAR_AGG_MEAN, false, none, "off"},
    };
    for (int i = 0; i < 5; i++) {
        struct dar_config c = config_of(off[i].v, off[i].p, off[i].a, 5, off[i].leak);
        struct dar_model m;
        dar_model_init(&m, &c, 300 + i);
        double worst;
        int fails = gradient_check(&m, ws, g, B, off[i].tf, steps + 1, &r, &worst, bad, sizeof bad);
        CHECK(fails == 0, "%s %s %s, teacher forcing %s: gradient matches finite differences (worst rel %.2g)%s",
              dar_variant_name(c.variant), dar_processor_name(c.processor), dar_agg_name(c.agg),
              off[i].what, worst, bad);
        dar_model_free(&m);
    }
    /* CLRS's parts: the edge pointer head, the layer norm and the gate */
    for (int i = 0; i < 6; i++) {
        static const enum dar_processor proc[] = {DAR_PGN, DAR_MPNN, DAR_PGN, DAR_PGN, DAR_MPNN, DAR_PGN};
        static const enum dar_variant var[] = {DAR_DUAL, DAR_PRIMAL, DAR_NO_ALGO, DAR_DUAL, DAR_PIPELINE, DAR_NO_ALGO};
        struct dar_config c = config_of(var[i], proc[i], i == 1 || i == 4 ? DAR_AGG_SUM : DAR_AGG_MAX, 5, false);
        c.edge_pointer = i < 3 || i == 5;
        c.layer_norm = i >= 3;
        c.gated = i >= 4 || i == 2;
        struct dar_model m;
        dar_model_init(&m, &c, 400 + i);
        double worst;
        /* teacher-forced (but no-algo): a predicted pointer is an argmax, and
         * at init the edge head's logits are near ties that eps flips */
        int fails = gradient_check(&m, ws, g, B, i == 2 ? none : all, steps + 1, &r, &worst, bad, sizeof bad);
        CHECK(fails == 0, "%s %s %s,%s%s%s: gradient matches finite differences (worst rel %.2g)%s",
              dar_variant_name(c.variant), dar_processor_name(c.processor), dar_agg_name(c.agg),
              c.edge_pointer ? " edge pointer head" : "", c.layer_norm ? " layer norm" : "", c.gated ? " gate" : "",
              worst, bad);
        dar_model_free(&m);
    }
    /* Triplet-GMPNN's triplet messages, alone and with the gate, PGN and
     * MPNN (every pair an arc), teacher forcing on and off */
    struct { enum dar_variant v; enum dar_processor p; enum dar_agg a; bool gated; const uint8_t *tf; } tri[] = {
        {DAR_DUAL, DAR_PGN, DAR_AGG_MAX, false, all},
        {DAR_PRIMAL, DAR_MPNN, DAR_AGG_SUM, false, none},
        {DAR_PIPELINE, DAR_PGN, DAR_AGG_MEAN, true, mixed},
    };
    for (int i = 0; i < 3; i++) {
        struct dar_config c = config_of(tri[i].v, tri[i].p, tri[i].a, 5, false);
        c.triplets = true;
        c.gated = tri[i].gated;
        struct dar_model m;
        dar_model_init(&m, &c, 500 + i);
        double worst;
        int fails = gradient_check(&m, ws, g, B, tri[i].tf, steps + 1, &r, &worst, bad, sizeof bad);
        /* and the triplet maps take a gradient: a relu that never opens
         * would pass the check with zeros on both sides */
        grads_of(&m, ws, g, B, tri[i].tf, steps + 1, NULL);
        bool reached = true;
        static const char *maps[] = {"bf.proc.t1.weight", "bf.proc.t2.bias", "bf.proc.t3.weight",
                                     "bf.proc.te1.weight", "bf.proc.te2.weight", "bf.proc.te3.weight",
                                     "bf.proc.o3.weight"};
        for (int q = 0; q < 7; q++) {
            const struct param *p = &m.params[dar_param_index(&m, maps[q])];
            double sum = 0;
            for (int64_t j = 0; j < p->count; j++)
                sum += fabs(p->grad[j]);
            reached &= sum > 0;
        }
        CHECK(fails == 0 && reached, "%s %s %s, triplets%s: gradient matches finite differences "
              "(worst rel %.2g)%s", dar_variant_name(c.variant), dar_processor_name(c.processor),
              dar_agg_name(c.agg), c.gated ? ", gate" : "", worst, bad);
        dar_model_free(&m);
    }
    free(all);
    free(none);
    free(mixed);
    dar_workspace_free(ws);
}

/* The flow gradient crosses steps: with teacher forcing off, the flow_hint
 * head of P_F is trained by later steps' losses too. */
static void test_through_time(struct dar_graph **g, int B)
{
    struct dar_workspace *ws = dar_workspace_new();
    struct dar_config c = config_of(DAR_DUAL, DAR_PGN, DAR_AGG_MAX, 5, false);
    struct dar_model m;
    dar_model_init(&m, &c, 9);
    int steps = dar_batch_steps(g, B);
    uint8_t *all = xmalloc((size_t)steps + 1);
    memset(all, 1, (size_t)steps + 1);
    int k = dar_param_index(&m, "bf.enc.flow");
    grads_of(&m, ws, g, B, all, steps + 1, NULL);
    double forced = 0, free_running = 0;
    for (int64_t j = 0; j < m.params[k].count; j++)
        forced += fabs(m.params[k].grad[j]);
    int q = dar_param_index(&m, "flow.dec.flow_hint.q1.weight");
    float *g_forced = xmalloc(sizeof(float) * (size_t)m.params[q].count);
    memcpy(g_forced, m.params[q].grad, sizeof(float) * (size_t)m.params[q].count);
    grads_of(&m, ws, g, B, NULL, 0, NULL);
    for (int64_t j = 0; j < m.params[k].count; j++)
        free_running += fabs(m.params[k].grad[j]);
    bool differs = memcmp(g_forced, m.params[q].grad, sizeof(float) * (size_t)m.params[q].count) != 0;
    CHECK(forced > 0 && free_running > 0 && differs,
          "without teacher forcing the flow_hint head gets gradient from later steps");
    free(g_forced);
    free(all);
    dar_model_free(&m);
    dar_workspace_free(ws);
}

static double rel_diff(const float *a, const float *b, int64_t n)
{
    double d = 0, s = 1e-6;
    for (int64_t i = 0; i < n; i++) {
        d = fmax(d, fabs((double)a[i] - b[i]));
        s = fmax(s, fabs((double)b[i]));
    }
    return d / s;
}

static void graph_counts(const struct dar_graph *g, double *mask, double *pi, double *fh)
{
    *mask = *pi = *fh = 0;
    for (int i = 0; i + 1 < g->steps; i++) {
        *mask += 1;
        if (g->phase[i]) *pi += 1;
        else *fh += 1;
    }
}

static void test_batching(struct dar_graph *A, struct dar_graph *L)
{
    struct dar_workspace *ws = dar_workspace_new();
    for (int v = 0; v < 4; v++) {
        struct dar_config c = config_of((enum dar_variant)v, DAR_PGN, DAR_AGG_MAX, 6, false);
        struct dar_model m;
        dar_model_init(&m, &c, 21 + v);
        struct dar_losses la, ll, lb;
        struct dar_graph *one_a[] = {A}, *one_l[] = {L}, *both[] = {A, L}, *swapped[] = {L, A},
                         *twice[] = {A, A};
        grads_of(&m, ws, one_a, 1, NULL, 0, &la);
        float *ga = xmalloc(sizeof(float) * (size_t)m.count);
        memcpy(ga, m.grads, sizeof(float) * (size_t)m.count);
        grads_of(&m, ws, one_l, 1, NULL, 0, &ll);
        grads_of(&m, ws, both, 2, NULL, 0, &lb);
        float *gb = xmalloc(sizeof(float) * (size_t)m.count);
        memcpy(gb, m.grads, sizeof(float) * (size_t)m.count);

        /* pooled losses from the per-graph ones */
        double ma, pa, fa, ml, pl, fl;
        graph_counts(A, &ma, &pa, &fa);
        graph_counts(L, &ml, &pl, &fl);
        double adj_a = 2.0 * A->g.m + A->g.n, adj_l = 2.0 * L->g.m + L->g.n;
        double na = A->g.n, nl = L->g.n;
        bool ok = true;
        if (v != DAR_NO_ALGO) {
            ok &= check_close(lb.term[MAXFLOW_LOSS_MASK], (la.term[MAXFLOW_LOSS_MASK] * ma + ll.term[MAXFLOW_LOSS_MASK] * ml) / (ma + ml), 1e-5, 1e-7);
            ok &= check_close(lb.term[MAXFLOW_LOSS_PI], (la.term[MAXFLOW_LOSS_PI] * pa + ll.term[MAXFLOW_LOSS_PI] * pl) / (pa + pl), 1e-5, 1e-7);
            ok &= check_close(lb.term[MAXFLOW_LOSS_FLOW_HINT], (la.term[MAXFLOW_LOSS_FLOW_HINT] * fa + ll.term[MAXFLOW_LOSS_FLOW_HINT] * fl) / (fa + fl), 1e-5, 1e-7);
            ok &= check_close(lb.term[MAXFLOW_LOSS_CUT_HINT], (la.term[MAXFLOW_LOSS_CUT_HINT] * fa + ll.term[MAXFLOW_LOSS_CUT_HINT] * fl) / (fa + fl), 1e-5, 1e-7);
            ok &= check_close(lb.term[MAXFLOW_LOSS_CUT], (la.term[MAXFLOW_LOSS_CUT] * na + ll.term[MAXFLOW_LOSS_CUT] * nl) / (na + nl), 1e-5, 1e-7);
        }
        ok &= check_close(lb.term[MAXFLOW_LOSS_FLOW], (la.term[MAXFLOW_LOSS_FLOW] * adj_a + ll.term[MAXFLOW_LOSS_FLOW] * adj_l) / (adj_a + adj_l), 1e-5, 1e-7);
        CHECK(ok, "%s: the losses of a batch pool the per-graph ones", dar_variant_name(c.variant));

        struct dar_losses ls, lt;
        grads_of(&m, ws, swapped, 2, NULL, 0, &ls);
        double d_swap = rel_diff(m.grads, gb, m.count);
        grads_of(&m, ws, twice, 2, NULL, 0, &lt);
        double d_twice = rel_diff(m.grads, ga, m.count);
        CHECK(check_close(ls.total, lb.total, 1e-6, 1e-9) && d_swap < 1e-5,
              "%s: batch order changes nothing (grads rel %.2g)", dar_variant_name(c.variant), d_swap);
        CHECK(check_close(lt.total, la.total, 1e-6, 1e-9) && d_twice < 1e-5,
              "%s: [A, A] equals [A] (grads rel %.2g)", dar_variant_name(c.variant), d_twice);

        /* A's predictions beside a much longer graph */
        int H = c.hidden, n = A->g.n, mm = A->g.m, T = A->steps;
        struct dar_prediction p1 = {0}, p2[2] = {{0}, {0}};
        p1.probe[MAXFLOW_FLOW_OUT] = xcalloc((size_t)mm, sizeof(float));
        p1.probe[MAXFLOW_CUT_OUT] = xcalloc((size_t)n, sizeof(float));
        p1.probe[MAXFLOW_PTR] = xcalloc((size_t)(T * n), sizeof(int32_t));
        p1.probe[MAXFLOW_MASK] = xcalloc((size_t)(T * n), 1);
        p1.probe[MAXFLOW_FLOW] = xcalloc((size_t)(T * mm), sizeof(float));
        p1.embed = xcalloc((size_t)(n * 3 * H), sizeof(float));
        p2[0].probe[MAXFLOW_FLOW_OUT] = xcalloc((size_t)mm, sizeof(float));
        p2[0].probe[MAXFLOW_CUT_OUT] = xcalloc((size_t)n, sizeof(float));
        p2[0].probe[MAXFLOW_PTR] = xcalloc((size_t)(T * n), sizeof(int32_t));
        p2[0].probe[MAXFLOW_MASK] = xcalloc((size_t)(T * n), 1);
        p2[0].probe[MAXFLOW_FLOW] = xcalloc((size_t)(T * mm), sizeof(float));
        p2[0].embed = xcalloc((size_t)(n * 3 * H), sizeof(float));
        dar_predict(&m, ws, one_a, 1, DAR_EMBED_LAST, &p1);
        dar_predict(&m, ws, both, 2, DAR_EMBED_LAST, p2);
        bool same = rel_diff(maxflow_pred_flow(&p2[0]), maxflow_pred_flow(&p1), mm) < 1e-5 && rel_diff(p2[0].embed, p1.embed, n * 3 * H) < 1e-5;
        if (v != DAR_NO_ALGO)
            same &= memcmp(maxflow_pred_pi(&p1), maxflow_pred_pi(&p2[0]), sizeof(int32_t) * (size_t)(T * n)) == 0 &&
                    memcmp(maxflow_pred_mask(&p1), maxflow_pred_mask(&p2[0]), (size_t)(T * n)) == 0 &&
                    rel_diff(maxflow_pred_hint_flow(&p2[0]), maxflow_pred_hint_flow(&p1), T * mm) < 1e-5;
        if (v == DAR_DUAL || v == DAR_PIPELINE)
            same &= rel_diff(maxflow_pred_cut(&p2[0]), maxflow_pred_cut(&p1), n) < 1e-5;
        CHECK(same, "%s: a graph's predictions are unchanged beside a graph of %d steps (it has %d)",
              dar_variant_name(c.variant), L->steps, A->steps);
        /* predictions are the loss's forward pass: the training forward pass
         * without teacher forcing scores the same F_out */
        if (v != DAR_NO_ALGO) {
            double lf = 0;
            for (int e = 0; e < mm; e++)
                lf += 2.0 * ((double)maxflow_pred_flow(&p1)[e] - maxflow_flow(A)[e]) * ((double)maxflow_pred_flow(&p1)[e] - maxflow_flow(A)[e]);
            lf /= adj_a;
            CHECK(check_close(lf, la.term[MAXFLOW_LOSS_FLOW], 1e-5, 1e-8), "%s: predicted flow scores the training L_f",
                  dar_variant_name(c.variant));
        }
        free(p1.probe[MAXFLOW_FLOW_OUT]); free(p1.probe[MAXFLOW_CUT_OUT]); free(p1.probe[MAXFLOW_PTR]); free(p1.probe[MAXFLOW_MASK]); free(p1.probe[MAXFLOW_FLOW]); free(p1.embed);
        free(p2[0].probe[MAXFLOW_FLOW_OUT]); free(p2[0].probe[MAXFLOW_CUT_OUT]); free(p2[0].probe[MAXFLOW_PTR]); free(p2[0].probe[MAXFLOW_MASK]); free(p2[0].probe[MAXFLOW_FLOW]);
        free(p2[0].embed);
        free(ga);
        free(gb);
        dar_model_free(&m);
    }
    dar_workspace_free(ws);
}

/* No augmentation: F_out = 0 and c_out logits 0 (P = 0.5), constant losses;
 * beside other graphs, gradients still match finite differences. */
static void test_no_flow_step(struct dar_graph *U, struct dar_graph **g)
{
    struct dar_workspace *ws = dar_workspace_new();
    struct rng r;
    rng_init(&r, 12, 1, 0);
    char bad[4000];
    double sum_flow2 = 0;
    for (int e = 0; e < U->g.m; e++)
        sum_flow2 += 2.0 * maxflow_flow(U)[e] * maxflow_flow(U)[e];
    for (int v = 0; v < 4; v++) {
        struct dar_config c = config_of((enum dar_variant)v, DAR_PGN, DAR_AGG_MAX, 5, false);
        struct dar_model m;
        dar_model_init(&m, &c, 50 + v);
        struct dar_graph *one[] = {U};
        struct dar_losses L;
        grads_of(&m, ws, one, 1, NULL, 0, &L);
        /* no-algo is read at its last step whatever the phases */
        bool ok = flow_steps(U) == 0 &&
                  (v == DAR_NO_ALGO || check_close(L.term[MAXFLOW_LOSS_FLOW], sum_flow2 / (2.0 * U->g.m + U->g.n), 1e-6, 1e-9));
        if (v == DAR_DUAL)
            ok &= check_close(L.term[MAXFLOW_LOSS_CUT], log(2.0), 1e-6, 1e-9);
        struct dar_prediction p = {0};
        p.probe[MAXFLOW_FLOW_OUT] = xmalloc(sizeof(float) * (size_t)U->g.m);
        p.probe[MAXFLOW_CUT_OUT] = xmalloc(sizeof(float) * (size_t)U->g.n);
        dar_predict(&m, ws, one, 1, DAR_EMBED_LAST, &p);
        for (int e = 0; e < U->g.m && v != DAR_NO_ALGO; e++)
            ok &= maxflow_pred_flow(&p)[e] == 0.0f;
        if (v == DAR_DUAL)
            for (int n = 0; n < U->g.n; n++)
                ok &= maxflow_pred_cut(&p)[n] == 0.5f;
        CHECK(ok, "%s: a graph without augmentation %s (L_f %.6g)", dar_variant_name(c.variant),
              v == DAR_NO_ALGO ? "still runs its T-1 steps" : "predicts no flow", L.term[MAXFLOW_LOSS_FLOW]);
        free(p.probe[MAXFLOW_FLOW_OUT]);
        free(p.probe[MAXFLOW_CUT_OUT]);
        struct dar_graph *mixed[] = {U, g[0], g[1]};
        double worst;
        int fails = gradient_check(&m, ws, mixed, 3, NULL, 0, &r, &worst, bad, sizeof bad);
        CHECK(fails == 0, "%s: gradients with such a graph in the batch match finite differences%s",
              dar_variant_name(c.variant), bad);
        dar_model_free(&m);
    }
    dar_workspace_free(ws);
}

/* Prediction streams the arcs of big runs in chunks: 500 copies of a graph
 * predict what one does. */
static void test_streamed(struct dar_graph *A)
{
    struct dar_workspace *ws = dar_workspace_new();
    enum { COPIES = 460 };   /* 16,560 arcs: more than one chunk */
    struct dar_graph **many = xmalloc(sizeof *many * COPIES);
    for (int i = 0; i < COPIES; i++)
        many[i] = A;
    int n = A->g.n, m = A->g.m, H = 6;
    for (int a = 0; a < 3; a++) {
        struct dar_config c = config_of(DAR_DUAL, DAR_MPNN, (enum dar_agg)a, H, false);
        struct dar_model model;
        dar_model_init(&model, &c, 60 + a);
        struct dar_prediction *p = xcalloc(COPIES, sizeof *p), one = {0};
        for (int i = 0; i < COPIES; i++) {
            p[i].probe[MAXFLOW_FLOW_OUT] = xmalloc(sizeof(float) * (size_t)m);
            p[i].embed = xmalloc(sizeof(float) * (size_t)(n * 3 * H));
        }
        one.probe[MAXFLOW_FLOW_OUT] = xmalloc(sizeof(float) * (size_t)m);
        one.embed = xmalloc(sizeof(float) * (size_t)(n * 3 * H));
        dar_predict(&model, ws, many, COPIES, DAR_EMBED_LAST, p);
        dar_predict(&model, ws, many, 1, DAR_EMBED_LAST, &one);
        double worst = 0;
        for (int i = 0; i < COPIES; i++) {
            worst = fmax(worst, rel_diff(maxflow_pred_flow(&p[i]), maxflow_pred_flow(&one), m));
            worst = fmax(worst, rel_diff(p[i].embed, one.embed, n * 3 * H));
        }
        CHECK(worst < 1e-5, "%s: %d graphs of %d arcs (streamed in chunks) predict what one does (rel %.2g)",
              dar_agg_name(c.agg), COPIES, n * n, worst);
        for (int i = 0; i < COPIES; i++) {
            free(p[i].probe[MAXFLOW_FLOW_OUT]);
            free(p[i].embed);
        }
        free(p);
        free(one.probe[MAXFLOW_FLOW_OUT]);
        free(one.embed);
        dar_model_free(&model);
    }
    free(many);
    dar_workspace_free(ws);
}

static void test_embed_first(struct dar_graph *A)
{
    struct dar_workspace *ws = dar_workspace_new();
    struct dar_config c = config_of(DAR_DUAL, DAR_PGN, DAR_AGG_MAX, 6, false);
    struct dar_model m;
    dar_model_init(&m, &c, 3);
    /* the same graph without its trace */
    struct dar_graph bare = {0};
    bare.g = A->g;
    bare.record = 0;
    struct dar_graph *one[] = {&bare};
    int n = A->g.n;
    float *e1 = xcalloc((size_t)(n * 18), sizeof(float)), *e2 = xcalloc((size_t)(n * 18), sizeof(float));
    struct dar_prediction p = {0};
    p.embed = e1;
    dar_predict(&m, ws, one, 1, DAR_EMBED_FIRST, &p);
    struct dar_graph *traced[] = {A};
    p.embed = e2;
    dar_predict(&m, ws, traced, 1, DAR_EMBED_FIRST, &p);
    double norm = 0;
    for (int i = 0; i < n * 18; i++)
        norm += fabs(e1[i]);
    CHECK(norm > 0 && memcmp(e1, e2, sizeof(float) * (size_t)(n * 18)) == 0,
          "first-step embeddings need no trace and equal those of the traced graph");
    free(e1);
    free(e2);
    dar_model_free(&m);
    dar_workspace_free(ws);
}

static void test_records(struct dar_graph *A)
{
    /* model record round trip */
    struct dar_config c = config_of(DAR_PIPELINE, DAR_MPNN, DAR_AGG_MEAN, 7, true);
    struct dar_model m, back;
    dar_model_init(&m, &c, 8);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct writer w;
    writer_init(&w, f);
    dar_model_write(&w, &m, NULL);
    fclose(f);
    f = fmemopen(buf, len, "rb");
    struct reader rd;
    struct record rec;
    reader_init(&rd, f, "<memory>");
    bool got = reader_next(&rd, &rec);
    dar_model_read(&back, &rec, dar_algorithm_of_model);
    reader_free(&rd);
    fclose(f);
    CHECK(got && back.count == m.count && back.nparams == m.nparams &&
          memcmp(back.values, m.values, sizeof(float) * (size_t)m.count) == 0 &&
          back.config.variant == c.variant && back.config.processor == c.processor &&
          back.config.agg == c.agg && back.config.hidden == c.hidden && back.config.leak_dual,
          "model record write -> read is exact (%zu bytes)", len);
    /* writing the read model gives the same bytes */
    char *buf2 = NULL;
    size_t len2 = 0;
    f = open_memstream(&buf2, &len2);
    writer_init(&w, f);
    dar_model_write(&w, &back, NULL);
    fclose(f);
    CHECK(len2 == len && memcmp(buf, buf2, len) == 0, "model records are byte-stable");
    free(buf);
    free(buf2);
    dar_model_free(&back);
    dar_model_free(&m);

    /* graph record: the fields maxflow_read_graph loads equal what was written */
    buf = NULL;
    f = open_memstream(&buf, &len);
    writer_init(&w, f);
    const struct graph *g = &A->g;
    int T = A->steps;
    mp_map(&w, GRAPH_CORE_KEYS + 7);
    graph_write_core(&w, g);
    mp_key(&w, "steps"); mp_int(&w, T);
    mp_key(&w, "hint_phase"); mp_vector(&w, DT_U8, T, A->phase);
    mp_key(&w, "hint_mask"); mp_tensor(&w, DT_U8, 2, (int64_t[]){T, g->n}, maxflow_hint_mask(A));
    mp_key(&w, "hint_pi"); mp_tensor(&w, DT_I32, 2, (int64_t[]){T, g->n}, maxflow_hint_pi(A));
    mp_key(&w, "hint_flow"); mp_tensor(&w, DT_F32, 2, (int64_t[]){T, g->m}, maxflow_hint_flow(A));
    mp_key(&w, "flow"); mp_vector(&w, DT_F32, g->m, maxflow_flow(A));
    mp_key(&w, "cut"); mp_vector(&w, DT_U8, g->n, maxflow_cut(A));
    fclose(f);
    f = fmemopen(buf, len, "rb");
    reader_init(&rd, f, "<memory>");
    reader_next(&rd, &rec);
    struct dar_graph dg;
    maxflow_read_graph(&dg, &rec, DAR_NEED_TRAINING);
    reader_free(&rd);
    fclose(f);
    free(buf);
    CHECK(dg.g.n == g->n && dg.g.m == g->m && dg.steps == T &&
          memcmp(dg.phase, A->phase, (size_t)T) == 0 &&
          memcmp(maxflow_hint_pi(&dg), maxflow_hint_pi(A), sizeof(int32_t) * (size_t)(T * g->n)) == 0 &&
          memcmp(maxflow_hint_flow(&dg), maxflow_hint_flow(A), sizeof(float) * (size_t)(T * g->m)) == 0 &&
          memcmp(maxflow_flow(&dg), maxflow_flow(A), sizeof(float) * (size_t)g->m) == 0 &&
          memcmp(maxflow_cut(&dg), maxflow_cut(A), (size_t)g->n) == 0,
          "graph record -> maxflow_read_graph keeps the trace");
    dar_graph_free(&dg);
}

static void test_determinism(struct dar_graph **g, int B)
{
    struct dar_workspace *ws = dar_workspace_new();
    struct dar_config c = config_of(DAR_DUAL, DAR_PGN, DAR_AGG_MAX, 24, false);
    struct dar_model m;
    dar_model_init(&m, &c, 4);
    float *first = xmalloc(sizeof(float) * (size_t)m.count);
    struct dar_losses L1, L2, L3;
    int saved = openblas_get_num_threads();
    openblas_set_num_threads(1);   /* and 2 below */
    grads_of(&m, ws, g, B, NULL, 0, &L1);
    memcpy(first, m.grads, sizeof(float) * (size_t)m.count);
    grads_of(&m, ws, g, B, NULL, 0, &L2);
    bool same_run = memcmp(first, m.grads, sizeof(float) * (size_t)m.count) == 0 && L1.total == L2.total;
    openblas_set_num_threads(2);
    struct dar_workspace *ws2 = dar_workspace_new();
    grads_of(&m, ws2, g, B, NULL, 0, &L3);
    bool same_threads = memcmp(first, m.grads, sizeof(float) * (size_t)m.count) == 0 && L1.total == L3.total;
    openblas_set_num_threads(saved);
    workers_start(2);
    grads_of(&m, ws2, g, B, NULL, 0, &L3);
    bool same_workers = memcmp(first, m.grads, sizeof(float) * (size_t)m.count) == 0 && L1.total == L3.total;
    workers_start(1);
    CHECK(same_run, "two runs give bit-identical loss and gradients");
    CHECK(same_threads, "1 and 2 BLAS threads give bit-identical loss and gradients");
    CHECK(same_workers, "1 and 2 worker threads give bit-identical loss and gradients");
    free(first);
    dar_model_free(&m);
    dar_workspace_free(ws);
    dar_workspace_free(ws2);
}

int main(void)
{
    check_file_name = "dar";
    /* small products: one BLAS thread is faster, and the thread test sets its own */
    openblas_set_num_threads(1);
    int64_t k = 0;
    struct dar_graph *g[3];
    g[0] = find_graph(6, 0.6, &k, 8, 16);
    g[1] = find_graph(5, 0.7, &k, 5, 12);
    g[2] = find_graph(7, 0.5, &k, 14, 26);
    int64_t kl = 0;
    struct dar_graph *longer = find_graph(8, 0.7, &kl, 40, 200);

    test_parameters();
    test_gradients(g, 3);
    test_through_time(g, 3);
    test_batching(g[1], longer);
    struct dar_graph *unreachable = unreachable_sink_graph();
    test_no_flow_step(unreachable, g);
    free_graph(unreachable);
    test_streamed(g[0]);
    test_embed_first(g[0]);
    test_records(g[0]);
    test_determinism(g, 3);

    for (int i = 0; i < 3; i++)
        free_graph(g[i]);
    free_graph(longer);
    return check_done();
}
