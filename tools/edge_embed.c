/* edge_embed.c - one Ford-Fulkerson step of a DAR model on a huge graph
 * (formats/edge-embed.md §2): P_BF then P_F from the frame-0 hints (mask
 * e_s, pi identity, flow 0), each one PGN round, node embeddings from their
 * states, edge embeddings the sum of the endpoints'.
 *
 * The computation is dar.c's (model.md §2) laid out for memory and cores:
 * - arcs are grouped by receiver (the adjacency lists of graph_bfs.h, in
 *   increasing edge order, then the self-loop: dar.c's arc order per
 *   receiver), and a work unit is a contiguous range of receivers holding
 *   about `chunk` arcs, so a unit owns its aggregates and its rows of h;
 * - nothing of size A×H exists: the sender half of the first message layer
 *   (M2 z_u) is recomputed per arc block, the receiver half per unit; the
 *   only n×H arrays are the two networks' states;
 * - threads take units from a shared counter; since a unit's result does
 *   not depend on who computes it, nor on how the arcs are cut into units
 *   (the dense products are gemm.h's fixed-order chains, whose result for a
 *   row does not depend on the other rows of the call; without AVX2 every
 *   sgemm runs on blocks of exactly BLOCK rows, padded, OpenBLAS's result
 *   for a row depending on the call's row count), the output is
 *   bit-identical for every --threads, and for every --chunk where the
 *   CPU has AVX2 (OpenBLAS's result for a row may also depend on its
 *   position in the call: its Haswell kernels' does).
 * Per arc the pre-activation is formed as dar.c does (An[v] + Bn[u] + b_me,
 * then f_φ·(Me a_φ) feature by feature), so results match dar_predict to
 * float rounding (sgemm shapes differ). */
#include "edge_embed.h"
#include "gemm.h"
#include "rows.h"
#include "die.h"
#include "graph_bfs.h"
#include "stream.h"
#include "tensor.h"
#include <cblas.h>
#ifdef __SSE__
#include <xmmintrin.h>
#endif
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { BLOCK = 256 };           /* rows of every sgemm call */

static const char *const node_names[] = {"both", "flow", "hd"};

bool edge_node_parse(const char *s, enum edge_node *e)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(s, node_names[i]) == 0) {
            *e = (enum edge_node)i;
            return true;
        }
    return false;
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

/* relu and max use SSE's maxps where there is one: maxps(a, b) = a > b ? a : b,
 * exactly the scalar rule (NaN and -0 included); gcc lowers the generic
 * 8-wide compare to scalar code on baseline x86-64. */
static void relu_rows(float *x, int64_t count)
{
    int64_t i = 0;
#ifdef __SSE__
    __m128 zero = _mm_setzero_ps();
    for (; i + 4 <= count; i += 4)
        _mm_storeu_ps(x + i, _mm_max_ps(_mm_loadu_ps(x + i), zero));
#endif
    for (; i < count; i++)
        x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

/* out = (x + out) + b */
static inline void row_sum3_inplace(float *out, const float *x, const float *b, int H)
{
    int h = 0;
    for (; h + 8 <= H; h += 8)
        store8(out + h, load8(x + h) + load8(out + h) + load8(b + h));
    for (; h < H; h++)
        out[h] = x[h] + out[h] + b[h];
}


/* out = max(out, m) elementwise (m replaces out only when larger) */
static inline void row_max(float *out, const float *m, int H)
{
    int h = 0;
#ifdef __SSE__
    for (; h + 4 <= H; h += 4)
        _mm_storeu_ps(out + h, _mm_max_ps(_mm_loadu_ps(m + h), _mm_loadu_ps(out + h)));
#endif
    for (; h < H; h++)
        if (m[h] > out[h])
            out[h] = m[h];
}


void edge_embed_node_input(const struct dar_net *net, int H, int n, int s, int t, int v, float *x)
{
    static const int feature[4] = {DAR_F_POS, DAR_F_S, DAR_F_T, DAR_F_MASK};
    float f[4] = {(float)v / (float)n, v == s, v == t, v == s};
    memset(x, 0, sizeof(float) * (size_t)H);
    for (int p = 0; p < 4; p++)
        if (net->encodes[feature[p]] && f[p] != 0.0f)
            row_axpy(x, f[p], net->enc[feature[p]], H);
}

/* ---- one network over all receivers ------------------------------------------ */

/* The arc features of dar.c, in its order. */
enum { F_CAP, F_W, F_FLOW, F_PTR, F_LENGTH, F_DISTANCE, F_CURVENESS, F_COUNT };
static const int arc_feature[F_COUNT] = {DAR_F_CAP, DAR_F_W, DAR_F_FLOW, DAR_F_PTR,
                                         DAR_F_LENGTH, DAR_F_DISTANCE, DAR_F_CURVENESS};

enum { WT_M1, WT_M2, WT_L1, WT_L2, WT_O1, WT_O2, WT_COUNT };

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
    float *kme[F_COUNT];        /* Me·a_φ, NULL when not encoded */
    float *weight_t[WT_COUNT];  /* the dense layers' Wᵀ, or NULL without gemm.h's kernels */
    int64_t nunits;
    int32_t *unit_start;        /* [nunits+1] receiver ranges */
    atomic_llong next;
    pthread_mutex_t lock;
    struct progress *progress;
    int64_t done, progress_base;
};

struct scratch {
    float *zr, *an, *agg, *ho;          /* per unit: rows×2H, rows×H, rows×H, rows×H */
    int64_t rows_cap;
    float *zs, *pre, *r1, *pad_in, *pad_out;   /* per block */
    int32_t *brecv, *bsend, *bedge;     /* [BLOCK] */
    float *x;                           /* [H] */
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
static void message_block(const struct job *j, struct scratch *sc, int nb, int v0)
{
    const struct dar_net *net = j->net;
    const struct graph *g = j->g;
    int H = j->H;
    for (int a = 0; a < nb; a++)
        z_row(j, sc->bsend[a], sc->zs + (int64_t)a * 2 * H);
    block_linear(sc->pre, sc->zs, 2 * H, net->m2.weight, j->weight_t[WT_M2],
                 2 * H, net->m2.bias, nb, 2 * H, H, false,
                 sc->pad_in, sc->pad_out);
    for (int a = 0; a < nb; a++) {
        float *out = sc->pre + (int64_t)a * H;
        const float *x = sc->an + (int64_t)(sc->brecv[a] - v0) * H;
        row_sum3_inplace(out, x, net->me.bias, H);
        int e = sc->bedge[a];
        float f[F_COUNT] = {0};
        if (e >= 0) {
            f[F_CAP] = g->cap[e];
            f[F_W] = g->w[e];
            if (j->vessel)
                for (int k = 0; k < 3; k++)
                    f[F_LENGTH + k] = j->vessel[k][e];
        } else {
            f[F_PTR] = 1.0f;
        }
        for (int p = 0; p < F_COUNT; p++)
            if (j->kme[p] && f[p] != 0.0f)
                row_axpy(out, f[p], j->kme[p], H);
    }
    relu_rows(sc->pre, (int64_t)nb * H);
    block_linear(sc->r1, sc->pre, H, net->l1.weight, j->weight_t[WT_L1],
                 H, net->l1.bias, nb, H, H, false, sc->pad_in,
                 sc->pad_out);
    relu_rows(sc->r1, (int64_t)nb * H);
    block_linear(sc->pre, sc->r1, H, net->l2.weight, j->weight_t[WT_L2],
                 H, net->l2.bias, nb, H, H, false, sc->pad_in,
                 sc->pad_out);
    relu_rows(sc->pre, (int64_t)nb * H);
    for (int a = 0; a < nb; a++) {
        float *out = sc->agg + (int64_t)(sc->brecv[a] - v0) * H;
        const float *m = sc->pre + (int64_t)a * H;
        if (j->agg == DAR_AGG_MAX)
            row_max(out, m, H);
        else
            row_add(out, m, H);
    }
}

static void run_unit(struct job *j, struct scratch *sc, int64_t u)
{
    const struct dar_net *net = j->net;
    const struct adjacency *adj = j->adj;
    int H = j->H;
    int v0 = j->unit_start[u], v1 = j->unit_start[u + 1];
    int64_t rows = v1 - v0;
    for (int64_t r = 0; r < rows; r++)
        z_row(j, (int)(v0 + r), sc->zr + r * 2 * H);
    block_linear(sc->an, sc->zr, 2 * H, net->m1.weight, j->weight_t[WT_M1],
                 2 * H, net->m1.bias, rows, 2 * H, H, false,
                 sc->pad_in, sc->pad_out);
    for (int64_t i = 0; i < rows * H; i++)
        sc->agg[i] = j->agg == DAR_AGG_MAX ? -INFINITY : 0.0f;
    int nb = 0;
    for (int v = v0; v < v1; v++) {
        for (int64_t k = adj->off[v]; k <= adj->off[v + 1]; k++) {
            bool self = k == adj->off[v + 1];
            sc->brecv[nb] = v;
            sc->bsend[nb] = self ? v : adj->nbr[k];
            sc->bedge[nb] = self ? -1 : adj->edge_of[k];
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
    block_linear(sc->ho, sc->zr, 2 * H, net->o1.weight, j->weight_t[WT_O1],
                 2 * H, net->o1.bias, rows, 2 * H, H, false,
                 sc->pad_in, sc->pad_out);
    block_linear(sc->ho, sc->agg, H, net->o2.weight, j->weight_t[WT_O2],
                 H, net->o2.bias, rows, H, H, true, sc->pad_in,
                 sc->pad_out);
    relu_rows(sc->ho, rows * H);
    memcpy(j->hout + (int64_t)v0 * H, sc->ho, sizeof(float) * (size_t)(rows * H));
}

static void *worker(void *arg)
{
    struct job *j = arg;
    int H = j->H;
    struct scratch sc = {0};
    int64_t maxrows = 0;
    for (int64_t u = 0; u < j->nunits; u++)
        if (j->unit_start[u + 1] - j->unit_start[u] > maxrows)
            maxrows = j->unit_start[u + 1] - j->unit_start[u];
    sc.zr = xmalloc(sizeof(float) * (size_t)(maxrows * 2 * H + 1));
    sc.an = xmalloc(sizeof(float) * (size_t)(maxrows * H + 1));
    sc.agg = xmalloc(sizeof(float) * (size_t)(maxrows * H + 1));
    sc.ho = xmalloc(sizeof(float) * (size_t)(maxrows * H + 1));
    sc.zs = xmalloc(sizeof(float) * (size_t)BLOCK * 2 * H);
    sc.pre = xmalloc(sizeof(float) * (size_t)BLOCK * H);
    sc.r1 = xmalloc(sizeof(float) * (size_t)BLOCK * H);
    sc.pad_in = xmalloc(sizeof(float) * (size_t)BLOCK * 2 * H);
    sc.pad_out = xmalloc(sizeof(float) * (size_t)BLOCK * 2 * H);
    sc.brecv = xmalloc(sizeof(int32_t) * BLOCK);
    sc.bsend = xmalloc(sizeof(int32_t) * BLOCK);
    sc.bedge = xmalloc(sizeof(int32_t) * BLOCK);
    for (;;) {
        int64_t u = atomic_fetch_add(&j->next, 1);
        if (u >= j->nunits)
            break;
        run_unit(j, &sc, u);
        int v0 = j->unit_start[u], v1 = j->unit_start[u + 1];
        int64_t arcs = j->adj->off[v1] - j->adj->off[v0] + (v1 - v0);
        pthread_mutex_lock(&j->lock);
        j->done += arcs;
        progress_update(j->progress, j->progress_base + j->done);
        pthread_mutex_unlock(&j->lock);
    }
    free(sc.zr); free(sc.an); free(sc.agg); free(sc.ho); free(sc.zs); free(sc.pre); free(sc.r1);
    free(sc.pad_in); free(sc.pad_out); free(sc.brecv); free(sc.bsend); free(sc.bedge);
    return NULL;
}

static void run_net(struct job *j, int threads)
{
    const struct dar_net *net = j->net;
    int H = j->H;
    for (int p = 0; p < F_COUNT; p++) {
        j->kme[p] = NULL;
        if (!net->encodes[arc_feature[p]])
            continue;
        const float *a = net->enc[arc_feature[p]];
        j->kme[p] = xmalloc(sizeof(float) * (size_t)H);
        for (int o = 0; o < H; o++) {
            const float *w = net->me.weight + (int64_t)o * H;
            float s = 0.0f;
            for (int h = 0; h < H; h++)
                s += w[h] * a[h];
            j->kme[p][o] = s;
        }
    }
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
    atomic_store(&j->next, 0);
    j->done = 0;
    if (threads <= 1) {
        worker(j);
    } else {
        pthread_t *tid = xmalloc(sizeof *tid * (size_t)threads);
        for (int i = 0; i < threads; i++)
            if (pthread_create(&tid[i], NULL, worker, j) != 0)
                die(EX_OSERR, "cannot start a thread:");
        for (int i = 0; i < threads; i++)
            pthread_join(tid[i], NULL);
        free(tid);
    }
    for (int p = 0; p < F_COUNT; p++)
        free(j->kme[p]);
    for (int k = 0; k < WT_COUNT; k++)
        free(j->weight_t[k]);
}

void edge_embed_states(const struct dar_model *model, const struct graph *g, int s, int t,
                       float *const vessel[3], int64_t chunk, int threads,
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
    /* our threads own the cores: OpenBLAS runs one thread inside each */
    openblas_set_num_threads(1);

    j.net = &model->nets[model->bf];
    j.hprev = NULL;
    j.hout = h_bf;
    j.progress_base = 0;
    run_net(&j, threads);
    j.net = &model->nets[model->flow];
    j.hprev = h_bf;
    j.hout = h_f;
    j.progress_base = A;
    run_net(&j, threads);

    progress_end(&p);
    pthread_mutex_destroy(&j.lock);
    free(unit_start);
    adjacency_free(&adj);
}

/* ---- records ------------------------------------------------------------------ */

static void pack_bin_key(struct writer *w, const char *key)
{
    msgpack_pack_bin_with_body(&w->pk, key, strlen(key));
}

static void embed_record(struct writer *w, const struct record *rec, const struct edge_embed_options *o)
{
    static const char *const keys[] = {"edge_embed"};
    const struct dar_model *model = o->model;
    long r = rec->index;
    record_expect_kind(rec, "graph");
    if (!record_has(rec, "w"))
        die_record(r, "missing key 'w' (the model encodes the Bellman-Ford weights)");
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
        die_record(r, "no two connected nodes: the double sweep finds no source and sink");
    int dim = o->node == EDGE_NODE_FLOW ? H : o->node == EDGE_NODE_BOTH ? 2 * H : 3 * H;
    uint64_t nbytes = (uint64_t)g.m * (uint64_t)dim * sizeof(float);
    if (nbytes > UINT32_MAX)
        die_record(r, "'edge_embed' would take %llu bytes, more than a MessagePack binary holds "
                   "(4 GiB); use --node flow", (unsigned long long)nbytes);
    float *h_bf = xmalloc(sizeof(float) * (size_t)n * (size_t)H);
    float *h_f = xmalloc(sizeof(float) * (size_t)n * (size_t)H);
    edge_embed_states(model, &g, s, t, vessel, o->chunk, o->threads, o->progress, h_bf, h_f);
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
    const struct dar_net *fl = &model->nets[model->flow];
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
    if (m->config.variant != DAR_PRIMAL && m->config.variant != DAR_DUAL)
        die(EX_DATAERR, "the model is a %s model; edge-embed runs a primal or dual DAR model "
            "(P_BF then P_F)", dar_variant_name(m->config.variant));
    if (m->config.processor != DAR_PGN)
        die(EX_DATAERR, "the model's processor is %s; edge-embed runs PGN models (message "
            "passing along the graph's edges)", dar_processor_name(m->config.processor));
    if (m->config.leak_cut)
        die(EX_DATAERR, "the model was trained with --leak-cut (it reads the true min cut), "
            "which edge-embed does not have");
    struct reader rd;
    struct record rec;
    struct writer w;
    reader_init(&rd, in, in_name);
    writer_init(&w, out);
    while (reader_next(&rd, &rec))
        embed_record(&w, &rec, o);
    reader_free(&rd);
}
