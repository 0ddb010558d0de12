/* edge_embed.c - one Ford-Fulkerson step of a DAR model on a huge graph
 * (formats/edge-embed.md §2): P_BF then P_F from the frame-0 hints (mask
 * e_s, pi identity, flow 0), each one PGN round, node embeddings from their
 * states, edge embeddings the sum of the endpoints'.
 *
 * The computation is dar_forward.c's (model.md §2) laid out for memory and
 * cores:
 * - arcs are grouped by receiver (the adjacency lists of graph_bfs.h, in
 *   increasing edge order, then the self-loop: dar_layout.c's arc order per
 *   receiver), and a work unit is a contiguous range of receivers holding
 *   about `chunk` arcs, so a unit owns its aggregates and its rows of h;
 * - nothing of size A×H exists: the sender half of the first message layer
 *   (M2 z_u) is recomputed per arc block, the receiver half per unit; the
 *   only n×H arrays are the two networks' states;
 * - the units are workers.h tasks, each on its thread's scratch; since a unit's result does
 *   not depend on who computes it, nor on how the arcs are cut into units
 *   (the dense products are gemm.h's fixed-order chains, whose result for a
 *   row does not depend on the other rows of the call; without AVX2 every
 *   sgemm runs on blocks of exactly BLOCK rows, padded, OpenBLAS's result
 *   for a row depending on the call's row count), the output is
 *   bit-identical for every --threads, and for every --chunk where the
 *   CPU has AVX2 (OpenBLAS's result for a row may also depend on its
 *   position in the call: its Haswell kernels' does).
 * Per arc the pre-activation is formed as dar_forward.c does (An[v] + Bn[u]
 * + b_me, then f_φ·(Me a_φ) feature by feature), so results match
 * dar_predict to float rounding (sgemm shapes differ). */
#include "edge_embed.h"
#include "arena.h"
#include "gemm.h"
#include "layers.h"
#include "rows.h"
#include "die.h"
#include "graph_bfs.h"
#include "names.h"
#include "stream.h"
#include "tensor.h"
#include "workers.h"
#include <cblas.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { BLOCK = 256 };           /* rows of every sgemm call */

static const char *const node_names[] = {"both", "flow", "hd"};

bool edge_node_parse(const char *s, enum edge_node *e)
{
    int i = name_index(s, node_names, 3);
    if (i >= 0) *e = (enum edge_node)i;
    return i >= 0;
}

/* out[r] (= or +=) in[r]·Wᵀ + b for r < rows, always as sgemm calls of
 * BLOCK rows (a short tail is padded through the scratch buffers, each
 * BLOCK×max(C, OC) floats).  in has row stride ldin, W is OC×C with row
 * stride ldw. */
static void block_linear(float *out, const float *in, int ldin, const float *W,
                         const float *W_t, int ldw, const float *bias, int64_t rows, int C,
                         int OC, bool accumulate, float *pad_in, float *pad_out)
{
    if (W_t) {
        /* gemm.h: a row's result does not depend on the rows around it, so
         * no padding is needed; W_t is Wᵀ (C×OC) */
        gemm_chain(out, OC, in, ldin, 1, W_t, OC, bias, rows, OC, C, accumulate);
        return;
    }
    for (int64_t r0 = 0; r0 < rows; r0 += BLOCK) {
        int64_t nr = rows - r0 < BLOCK ? rows - r0 : BLOCK;
        const float *src = in + r0 * ldin;
        float *dst = out + r0 * OC;
        int lda = ldin;
        if (nr < BLOCK) {
            for (int64_t r = 0; r < nr; r++)
                memcpy(pad_in + r * C, src + r * ldin, sizeof(float) * (size_t)C);
            memset(pad_in + nr * C, 0, sizeof(float) * (size_t)((BLOCK - nr) * C));
            src = pad_in;
            lda = C;
            if (accumulate)
                memcpy(pad_out, dst, sizeof(float) * (size_t)(nr * OC));
            dst = pad_out;
        }
        for (int64_t r = 0; r < BLOCK; r++) {
            float *o = dst + r * OC;
            if (r >= nr) {
                memset(o, 0, sizeof(float) * (size_t)OC);
                continue;
            }
            if (accumulate)
                for (int j = 0; j < OC; j++)
                    o[j] += bias[j];
            else
                memcpy(o, bias, sizeof(float) * (size_t)OC);
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, BLOCK, OC, C, 1.0f, src, lda, W, ldw,
                    1.0f, dst, OC);
        if (nr < BLOCK)
            memcpy(out + r0 * OC, pad_out, sizeof(float) * (size_t)(nr * OC));
    }
}

void edge_embed_node_input(const struct dar_net *net, int H, int n, int s, int t, int v, float *x)
{
    static const int feature[4] = {MAXFLOW_POS, MAXFLOW_S, MAXFLOW_T, MAXFLOW_MASK};
    float f[4] = {(float)v / (float)n, v == s, v == t, v == s};
    memset(x, 0, sizeof(float) * (size_t)H);
    for (int p = 0; p < 4; p++)
        if (net->encodes[feature[p]] && f[p] != 0.0f)
            row_axpy(x, f[p], net->enc[feature[p]], H);
}

/* ---- one network over all receivers ------------------------------------------ */

enum { WT_M1, WT_M2, WT_L1, WT_L2, WT_O1, WT_O2, WT_COUNT };

struct scratch {
    float *z_unit, *An, *agg, *h_out;   /* per unit: rows×2H, rows×H, rows×H, rows×H */
    float *z_block, *pre, *r1, *pad_in, *pad_out;  /* per block: the senders' z, messages */
    int32_t *block_recv, *block_send, *block_edge;  /* [BLOCK] */
};

struct job {
    const struct dar_model *model;
    const struct dar_net *net;
    const struct graph *g;
    const struct adjacency *adj;
    float *const *vessel;
    int H, s, t;
    enum dar_agg agg;
    const float *hprev;         /* n×H or NULL (zero) */
    float *hout;                /* n×H */
    float *kme[MAXFLOW_ARC_COLUMNS];        /* Me·a_φ, NULL when not encoded */
    float *weight_t[WT_COUNT];  /* the dense layers' Wᵀ, or NULL without gemm.h's kernels */
    int64_t nunits;
    int32_t *unit_start;        /* [nunits+1] receiver ranges */
    struct scratch *scratch;    /* [workers_threads()] */
    pthread_mutex_t lock;
    struct progress *progress;
    int64_t done, progress_base;
};


static void z_row(const struct job *j, int v, float *z)
{
    int H = j->H;
    edge_embed_node_input(j->net, H, j->g->n, j->s, j->t, v, z);
    if (j->hprev)
        memcpy(z + H, j->hprev + (int64_t)v * H, sizeof(float) * (size_t)H);
    else
        memset(z + H, 0, sizeof(float) * (size_t)H);
}

/* The messages of one block of arcs into agg (rows of the unit). */
CLONES static void message_block(const struct job *j, struct scratch *sc, int nb, int v0)
{
    const struct dar_net *net = j->net;
    const struct graph *g = j->g;
    int H = j->H;
    for (int a = 0; a < nb; a++)
        z_row(j, sc->block_send[a], sc->z_block + (int64_t)a * 2 * H);
    block_linear(sc->pre, sc->z_block, 2 * H, net->m2.weight, j->weight_t[WT_M2],
                 2 * H, net->m2.bias, nb, 2 * H, H, false,
                 sc->pad_in, sc->pad_out);
    for (int a = 0; a < nb; a++) {
        float *out = sc->pre + (int64_t)a * H;
        const float *x = sc->An + (int64_t)(sc->block_recv[a] - v0) * H;
        row_sum3(out, x, out, net->me.bias, H);   /* (An[v] + Bn[u]) + b_me, as dar_forward.c */
        int e = sc->block_edge[a];
        float f[MAXFLOW_ARC_COLUMNS] = {0};
        if (e >= 0) {
            f[MAXFLOW_ARC_CAP] = g->cap[e];
            f[MAXFLOW_ARC_W] = g->w[e];
            if (j->vessel)
                for (int k = 0; k < 3; k++)
                    f[MAXFLOW_ARC_LENGTH + k] = j->vessel[k][e];
        } else {
            f[MAXFLOW_ARC_PTR] = 1.0f;
        }
        for (int p = 0; p < MAXFLOW_ARC_COLUMNS; p++)
            if (j->kme[p] && f[p] != 0.0f)
                row_axpy(out, f[p], j->kme[p], H);
    }
    relu_forward(sc->pre, sc->pre, (int64_t)nb * H);
    block_linear(sc->r1, sc->pre, H, net->l1.weight, j->weight_t[WT_L1],
                 H, net->l1.bias, nb, H, H, false, sc->pad_in,
                 sc->pad_out);
    relu_forward(sc->r1, sc->r1, (int64_t)nb * H);
    block_linear(sc->pre, sc->r1, H, net->l2.weight, j->weight_t[WT_L2],
                 H, net->l2.bias, nb, H, H, false, sc->pad_in,
                 sc->pad_out);
    relu_forward(sc->pre, sc->pre, (int64_t)nb * H);
    for (int a = 0; a < nb; a++) {
        float *out = sc->agg + (int64_t)(sc->block_recv[a] - v0) * H;
        const float *m = sc->pre + (int64_t)a * H;
        if (j->agg == DAR_AGG_MAX)
            row_max_value(out, m, H);
        else
            row_add(out, m, H);
    }
}

CLONES static void run_unit(struct job *j, struct scratch *sc, int64_t u)
{
    const struct dar_net *net = j->net;
    const struct adjacency *adj = j->adj;
    int H = j->H;
    int v0 = j->unit_start[u], v1 = j->unit_start[u + 1];
    int64_t rows = v1 - v0;
    for (int64_t r = 0; r < rows; r++)
        z_row(j, (int)(v0 + r), sc->z_unit + r * 2 * H);
    block_linear(sc->An, sc->z_unit, 2 * H, net->m1.weight, j->weight_t[WT_M1],
                 2 * H, net->m1.bias, rows, 2 * H, H, false,
                 sc->pad_in, sc->pad_out);
    for (int64_t i = 0; i < rows * H; i++)
        sc->agg[i] = j->agg == DAR_AGG_MAX ? -INFINITY : 0.0f;
    int nb = 0;
    for (int v = v0; v < v1; v++) {
        for (int64_t k = adj->off[v]; k <= adj->off[v + 1]; k++) {
            bool self = k == adj->off[v + 1];
            sc->block_recv[nb] = v;
            sc->block_send[nb] = self ? v : adj->nbr[k];
            sc->block_edge[nb] = self ? -1 : adj->edge_of[k];
            if (++nb == BLOCK) {
                message_block(j, sc, nb, v0);
                nb = 0;
            }
        }
    }
    if (nb)
        message_block(j, sc, nb, v0);
    for (int64_t r = 0; r < rows; r++) {
        float *out = sc->agg + r * H;
        if (j->agg == DAR_AGG_MAX) {
            for (int h = 0; h < H; h++)
                if (out[h] == -INFINITY)
                    out[h] = 0.0f;
        } else if (j->agg == DAR_AGG_MEAN) {
            float degree = (float)(adj->off[v0 + r + 1] - adj->off[v0 + r] + 1);
            for (int h = 0; h < H; h++)
                out[h] /= degree;
        }
    }
    block_linear(sc->h_out, sc->z_unit, 2 * H, net->o1.weight, j->weight_t[WT_O1],
                 2 * H, net->o1.bias, rows, 2 * H, H, false,
                 sc->pad_in, sc->pad_out);
    block_linear(sc->h_out, sc->agg, H, net->o2.weight, j->weight_t[WT_O2],
                 H, net->o2.bias, rows, H, H, true, sc->pad_in,
                 sc->pad_out);
    relu_forward(sc->h_out, sc->h_out, rows * H);
    memcpy(j->hout + (int64_t)v0 * H, sc->h_out, sizeof(float) * (size_t)(rows * H));
}

/* One thread's buffers, sized for the largest unit (arena: freed at once). */
static void scratch_init(struct scratch *sc, struct arena *memory, const struct job *j)
{
    int H = j->H;
    int64_t maxrows = 0;
    for (int64_t u = 0; u < j->nunits; u++)
        if (j->unit_start[u + 1] - j->unit_start[u] > maxrows)
            maxrows = j->unit_start[u + 1] - j->unit_start[u];
    sc->z_unit = arena_floats(memory, maxrows * 2 * H);
    sc->An = arena_floats(memory, maxrows * H);
    sc->agg = arena_floats(memory, maxrows * H);
    sc->h_out = arena_floats(memory, maxrows * H);
    sc->z_block = arena_floats(memory, (int64_t)BLOCK * 2 * H);
    sc->pre = arena_floats(memory, (int64_t)BLOCK * H);
    sc->r1 = arena_floats(memory, (int64_t)BLOCK * H);
    sc->pad_in = arena_floats(memory, (int64_t)BLOCK * 2 * H);
    sc->pad_out = arena_floats(memory, (int64_t)BLOCK * 2 * H);
    sc->block_recv = arena_alloc(memory, sizeof(int32_t) * BLOCK);
    sc->block_send = arena_alloc(memory, sizeof(int32_t) * BLOCK);
    sc->block_edge = arena_alloc(memory, sizeof(int32_t) * BLOCK);
}

/* workers.h task u: one unit on the running thread's scratch. */
static void unit_task(void *context, int64_t u, int worker)
{
    struct job *j = context;
    run_unit(j, &j->scratch[worker], u);
    int v0 = j->unit_start[u], v1 = j->unit_start[u + 1];
    int64_t arcs = j->adj->off[v1] - j->adj->off[v0] + (v1 - v0);
    pthread_mutex_lock(&j->lock);
    j->done += arcs;
    progress_update(j->progress, j->progress_base + j->done);
    pthread_mutex_unlock(&j->lock);
}

static void run_net(struct job *j)
{
    const struct dar_net *net = j->net;
    int H = j->H;
    for (int p = 0; p < MAXFLOW_ARC_COLUMNS; p++)
        j->kme[p] = net->encodes[maxflow_arc_probe[p]] ? xmalloc(sizeof(float) * (size_t)H) : NULL;
    dar_net_arc_products(j->model, net, j->kme);
    const struct dar_linear *dense[WT_COUNT] = {&net->m1, &net->m2, &net->l1, &net->l2,
                                                &net->o1, &net->o2};
    for (int k = 0; k < WT_COUNT; k++) {
        j->weight_t[k] = NULL;
        if (!gemm_available())
            continue;
        const struct dar_linear *L = dense[k];
        j->weight_t[k] = xmalloc(sizeof(float) * (size_t)((int64_t)L->in * L->out + 1));
        for (int o = 0; o < L->out; o++)
            for (int c = 0; c < L->in; c++)
                j->weight_t[k][(int64_t)c * L->out + o] = L->weight[(int64_t)o * L->in + c];
    }
    j->done = 0;
    workers_run(j->nunits, unit_task, j);
    for (int p = 0; p < MAXFLOW_ARC_COLUMNS; p++)
        free(j->kme[p]);
    for (int k = 0; k < WT_COUNT; k++)
        free(j->weight_t[k]);
}

void edge_embed_states(const struct dar_model *model, const struct graph *g, int s, int t,
                       float *const vessel[3], int64_t chunk,
                       enum progress_mode progress, float *h_bf, float *h_f)
{
    int n = g->n;
    struct adjacency adj;
    adjacency_build(&adj, n, g->m, g->src, g->dst);
    if (chunk < 1)
        chunk = 1;
    int64_t nunits = 0;
    int32_t *unit_start = xmalloc(sizeof(int32_t) * (size_t)(n + 2));
    unit_start[0] = 0;
    for (int v = 0; v < n;) {
        int64_t arcs = 0;
        int w = v;
        while (w < n && (arcs == 0 || arcs + adj.off[w + 1] - adj.off[w] + 1 <= chunk)) {
            arcs += adj.off[w + 1] - adj.off[w] + 1;
            w++;
        }
        unit_start[++nunits] = w;
        v = w;
    }
    int64_t A = 2 * (int64_t)g->m + n;
    struct progress p;
    progress_begin(&p, progress, "arcs", 2 * A);
    struct job j = {0};
    j.model = model;
    j.g = g;
    j.adj = &adj;
    j.vessel = model->config.vessel_inputs ? vessel : NULL;
    j.H = model->config.hidden;
    j.s = s;
    j.t = t;
    j.agg = model->config.agg;
    j.nunits = nunits;
    j.unit_start = unit_start;
    j.progress = &p;
    pthread_mutex_init(&j.lock, NULL);
    int threads = workers_threads();
    struct arena memory = {0};
    j.scratch = arena_alloc(&memory, sizeof *j.scratch * (size_t)threads);
    for (int i = 0; i < threads; i++)
        scratch_init(&j.scratch[i], &memory, &j);

    j.net = &model->nets[dar_net_index(model, "bf")];
    j.hprev = NULL;
    j.hout = h_bf;
    j.progress_base = 0;
    run_net(&j);
    j.net = &model->nets[dar_net_index(model, "flow")];
    j.hprev = h_bf;
    j.hout = h_f;
    j.progress_base = A;
    run_net(&j);

    progress_end(&p);
    arena_free(&memory);
    pthread_mutex_destroy(&j.lock);
    free(unit_start);
    adjacency_free(&adj);
}

/* ---- records ------------------------------------------------------------------ */

static void pack_bin_key(struct writer *w, const char *key)
{
    msgpack_pack_bin_with_body(&w->pk, key, strlen(key));
}

static void embed_record(struct writer *w, const struct record *rec, void *context)
{
    const struct edge_embed_options *o = context;
    static const char *const keys[] = {"edge_embed"};
    const struct dar_model *model = o->model;
    record_expect_kind(rec, "graph");
    if (!record_has(rec, "w"))
        record_die(rec, "missing key 'w' (the model encodes the Bellman-Ford weights)");
    struct graph g;
    graph_read(&g, rec);
    float *vessel[3] = {NULL, NULL, NULL};
    if (model->config.vessel_inputs)
        vessel_inputs_read(rec, g.m, vessel, "the model's edge inputs are vessel features "
                           "(a reconstructed model)");
    int H = model->config.hidden, n = g.n;
    struct adjacency adj;
    adjacency_build(&adj, n, g.m, g.src, g.dst);
    int s, t;
    int d = double_sweep(&adj, -1, &s, &t);
    adjacency_free(&adj);
    if (d == 0)
        record_die(rec, "no two connected nodes: the double sweep finds no source and sink");
    int dim = o->node == EDGE_NODE_FLOW ? H : o->node == EDGE_NODE_BOTH ? 2 * H : 3 * H;
    uint64_t nbytes = (uint64_t)g.m * (uint64_t)dim * sizeof(float);
    if (nbytes > UINT32_MAX)
        record_die(rec, "'edge_embed' would take %llu bytes, more than a MessagePack binary holds "
                   "(4 GiB); use --node flow", (unsigned long long)nbytes);
    float *h_bf = xmalloc(sizeof(float) * (size_t)n * (size_t)H);
    float *h_f = xmalloc(sizeof(float) * (size_t)n * (size_t)H);
    edge_embed_states(model, &g, s, t, vessel, o->chunk, o->progress, h_bf, h_f);
    for (int k = 0; k < 3; k++)
        free(vessel[k]);

    writer_begin_enriched(w, rec, keys, 1);
    mp_key(w, "edge_embed");
    msgpack_pack_map(&w->pk, 5);
    pack_bin_key(w, "nd");
    msgpack_pack_true(&w->pk);
    pack_bin_key(w, "type");
    mp_str(w, "<f4");
    pack_bin_key(w, "kind");
    msgpack_pack_bin_with_body(&w->pk, "", 0);
    pack_bin_key(w, "shape");
    msgpack_pack_array(&w->pk, 2);
    msgpack_pack_int64(&w->pk, g.m);
    msgpack_pack_int64(&w->pk, dim);
    pack_bin_key(w, "data");
    msgpack_pack_bin(&w->pk, (size_t)nbytes);
    enum { EDGES = 4096 };
    float *buf = xmalloc(sizeof(float) * (size_t)EDGES * (size_t)dim);
    float *xs = xmalloc(sizeof(float) * (size_t)H), *xd = xmalloc(sizeof(float) * (size_t)H);
    const struct dar_net *fl = &model->nets[dar_net_index(model, "flow")];
    for (int64_t e0 = 0; e0 < g.m; e0 += EDGES) {
        int64_t ne = g.m - e0 < EDGES ? g.m - e0 : EDGES;
        for (int64_t i = 0; i < ne; i++) {
            int u = g.src[e0 + i], v = g.dst[e0 + i];
            float *out = buf + i * dim;
            if (o->node == EDGE_NODE_HD) {
                edge_embed_node_input(fl, H, n, s, t, u, xs);
                edge_embed_node_input(fl, H, n, s, t, v, xd);
                for (int h = 0; h < H; h++)
                    *out++ = xs[h] + xd[h];
            }
            if (o->node != EDGE_NODE_FLOW)
                for (int h = 0; h < H; h++)
                    *out++ = h_bf[(int64_t)u * H + h] + h_bf[(int64_t)v * H + h];
            for (int h = 0; h < H; h++)
                *out++ = h_f[(int64_t)u * H + h] + h_f[(int64_t)v * H + h];
        }
        msgpack_pack_bin_body(&w->pk, buf, sizeof(float) * (size_t)(ne * dim));
    }
    free(buf);
    free(xs);
    free(xd);
    free(h_bf);
    free(h_f);
    graph_free(&g);
}

void edge_embed_run(FILE *in, const char *in_name, FILE *out, const struct edge_embed_options *o)
{
    const struct dar_model *m = o->model;
    if (m->config.algorithm != &dar_algorithm_maxflow)
        die(EX_DATAERR, "the model was trained on %s; edge-embed runs %s models", m->config.algorithm->name,
            dar_algorithm_maxflow.name);
    if (m->config.variant != DAR_PRIMAL && m->config.variant != DAR_DUAL)
        die(EX_DATAERR, "the model is a %s model; edge-embed runs a primal or dual DAR model "
            "(P_BF then P_F)", dar_variant_name(m->config.variant));
    if (m->config.processor != DAR_PGN)
        die(EX_DATAERR, "the model's processor is %s; edge-embed runs PGN models (message "
            "passing along the graph's edges)", dar_processor_name(m->config.processor));
    if (m->config.leak_dual)
        die(EX_DATAERR, "the model was trained with --leak-cut (it reads the true min cut), "
            "which edge-embed does not have");
    /* edge-embed's own processor pass (for graphs too big for a batch) has
     * the plain node update only */
    if (m->config.layer_norm || m->config.gated)
        die(EX_DATAERR, "the model has a %s node update, which edge-embed's processor does not compute",
            m->config.layer_norm ? "layer-normalised" : "gated");
    if (m->config.triplets)
        die(EX_DATAERR, "the model has triplet messages (--triplets), which edge-embed's processor does not "
            "compute");
    workers_start_option(o->threads);
    stream_map(in, in_name, out, &(struct stream_map){.each = embed_record, .context = (void *)o});
    workers_stop();
}
