/* dar.c - the call (formats/model.md §4-§5): the batch split into groups of
 * consecutive graphs run as tasks of the worker pool, each group laid out
 * and handed to its algorithm's schedule (algorithm.h, dar_processor.h),
 * the groups' gradients and losses added in group order; the model as one
 * call sees it (weights transposed, the decoders fused into one product,
 * a group's own gradient); and the workspace that keeps their memory
 * between calls.  The computation a schedule drives is in dar_layout.c,
 * dar_forward.c, dar_backward.c and dar_steps.c; dar.h says how the batch
 * is laid out and what is kept for backward. */
#include "dar.h"
#include "dar_processor.h"
#include "dar_internal.h"
#include "arena.h"
#include "die.h"
#include "workers.h"
#include <stdlib.h>
#include <string.h>

/* ---- the workspace: one call's memory, kept for the next call -------------------- */

struct dar_workspace {
    struct arena *arenas;       /* [groups]: one per group of the batch */
    int groups;
    float *grads;               /* [groups][grads_count]: each group's gradient */
    int64_t grads_count;
    float *weights_t;           /* [model count]: every weight transposed, for the call */
    int64_t weights_t_count;
    float *heads;               /* per network: the fused decoders' Wᵀ then biases */
    int64_t heads_room;
    enum dar_hprev_mode hprev_mode;
    float *hprev;               /* recorded h_prev of the hooked runs, in call order */
    int64_t hprev_count, hprev_room, hprev_cursor;
};

/* Room for `groups` groups of a model with `count` parameters. */
static void workspace_reserve(struct dar_workspace *ws, int groups, int64_t count)
{
    if (groups > ws->groups) {
        ws->arenas = xrealloc(ws->arenas, sizeof *ws->arenas * (size_t)groups);
        memset(ws->arenas + ws->groups, 0, sizeof *ws->arenas * (size_t)(groups - ws->groups));
    }
    if (groups > ws->groups || count != ws->grads_count) {
        int most = groups > ws->groups ? groups : ws->groups;
        free(ws->grads);
        ws->grads = xmalloc(sizeof(float) * (size_t)(most * count + 1));
        ws->grads_count = count;
    }
    if (groups > ws->groups)
        ws->groups = groups;
}

void dar_workspace_hprev_mode(struct dar_workspace *ws, enum dar_hprev_mode mode)
{
    ws->hprev_mode = mode;
}

struct dar_workspace *dar_workspace_new(void) { return xcalloc(1, sizeof(struct dar_workspace)); }

void dar_workspace_free(struct dar_workspace *ws)
{
    if (!ws)
        return;
    for (int g = 0; g < ws->groups; g++)
        arena_free(&ws->arenas[g]);
    free(ws->arenas);
    free(ws->grads);
    free(ws->weights_t);
    free(ws->heads);
    free(ws->hprev);
    free(ws);
}

size_t dar_workspace_bytes(const struct dar_workspace *ws)
{
    size_t bytes = sizeof(float) * (size_t)(ws->groups * ws->grads_count);
    for (int g = 0; g < ws->groups; g++)
        bytes += ws->arenas[g].bytes;
    return bytes;
}

/* Here and not beside the steps: it reads and grows the workspace. */
void dar_hprev_test_hook(struct dar_group *c, float *h, int64_t count)
{
    struct dar_workspace *ws = c->ws;
    if (ws->hprev_mode == DAR_HPREV_RECORD) {
        if (ws->hprev_count + count > ws->hprev_room) {
            ws->hprev_room = 2 * (ws->hprev_count + count);
            ws->hprev = xrealloc(ws->hprev, sizeof(float) * (size_t)ws->hprev_room);
        }
        memcpy(ws->hprev + ws->hprev_count, h, sizeof(float) * (size_t)count);
        ws->hprev_count += count;
    } else if (ws->hprev_mode == DAR_HPREV_REPLAY) {
        if (ws->hprev_cursor + count > ws->hprev_count)
            die(EX_SOFTWARE, "BUG: replayed h_prev of another batch");
        memcpy(h, ws->hprev + ws->hprev_cursor, sizeof(float) * (size_t)count);
        ws->hprev_cursor += count;
    }
}

/* ---- one group ------------------------------------------------------------------ */

/* One group of graphs of the batch, start to end: the graphs laid out, the
 * products cached, the carried state zeroed; then the algorithm's schedule
 * (forward, losses into c->sum, predictions, backward of its runs); then the
 * rank-4 products' gradients. */
static void run_group(struct dar_group *c)
{
    int B = c->B, H = c->H;
    arena_reset(c->arena);
    c->gd = arena_zero(c->arena, sizeof(struct dar_graph_layout) * (size_t)(B ? B : 1));
    c->carry = arena_zero(c->arena, sizeof(struct dar_carry) * (size_t)(B ? B : 1));
    for (int b = 0; b < B; b++)
        dar_prepare_graph(c, &c->gd[b], c->graphs[b]);
    dar_netcache_init(c);
    for (int b = 0; b < B; b++) {
        int64_t n = c->gd[b].n;
        c->carry[b].h = arena_zero_floats(c->arena, n * H);
        c->carry[b].dh = arena_zero_floats(c->arena, n * H);
    }
    c->alg->run_group(c);
    if (c->backward)
        dar_netcache_backward(c);
}

/* Every dense layer of a network: the processor's, then the heads'. */
static int net_layers(struct dar_net *net, struct dar_linear **out)
{
    struct dar_linear *fixed[] = {&net->m1, &net->m2, &net->me, &net->l1, &net->l2, &net->o1, &net->o2,
                                  &net->g1, &net->g2, &net->g3,
                                  &net->t1, &net->t2, &net->t3, &net->te1, &net->te2, &net->te3, &net->o3};
    int count = 0;
    for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++)
        if (fixed[k]->weight)
            out[count++] = fixed[k];
    for (int hd = 0; hd < net->nheads; hd++)
        for (int l = 0; l < net->heads[hd].nlinear; l++)
            out[count++] = &net->heads[hd].linear[l];
    return count;
}

enum { MAX_NET_LAYERS = 17 + 4 * DAR_MAX_HEADS };

/* The model as a group sees it: the same parameters, gradients into grads
 * (laid out as model->grads). */
static void model_with_grads(struct dar_model *view, const struct dar_model *model, float *grads)
{
    *view = *model;
    view->grads = grads;
#define REBASE(p) do { if (p) (p) = grads + ((p) - model->grads); } while (0)
    for (int i = 0; i < view->nparams; i++)
        REBASE(view->params[i].grad);
    for (int j = 0; j < view->nnets; j++) {
        struct dar_net *net = &view->nets[j];
        for (int f = 0; f < DAR_MAX_PROBES; f++)
            REBASE(net->denc[f]);
        REBASE(net->dln_scale);
        REBASE(net->dln_offset);
        struct dar_linear *layers[MAX_NET_LAYERS];
        int count = net_layers(net, layers);
        for (int k = 0; k < count; k++) {
            REBASE(layers[k]->dweight);
            REBASE(layers[k]->dbias);
        }
    }
#undef REBASE
}

/* The heads' layers that read hd, in the order of their columns in the
 * fused product (heads_forward reads them in this order): all of a head's
 * but an edge head's q3, which reads the arc encoders, and an edge
 * pointer's d3 and d4; returns how many. */
static int decoder_list(const struct dar_net *net, const struct dar_linear *const **out)
{
    static _Thread_local const struct dar_linear *list[4 * DAR_MAX_HEADS];
    int count = 0;
    for (int hd = 0; hd < net->nheads; hd++) {
        const struct dar_head *head = &net->heads[hd];
        /* a pointer's d3 and d4 read the arcs and the max, not hd */
        int reading = head->type == DAR_TYPE_POINTER ? 2 : arc_layer(head) ? head->nlinear - 1 : head->nlinear;
        for (int l = 0; l < reading; l++)
            list[count++] = &head->linear[l];
    }
    *out = list;
    return count;
}

/* The model for one call: weight_t of every dense layer set to its weight
 * transposed (in×out, in ws), which the forward products read. */
static void model_with_transposed_weights(struct dar_model *view, const struct dar_model *model,
                                          struct dar_workspace *ws)
{
    *view = *model;
    if (ws->weights_t_count != model->count) {
        free(ws->weights_t);
        ws->weights_t = xmalloc(sizeof(float) * (size_t)(model->count + 1));
        ws->weights_t_count = model->count;
    }
    for (int j = 0; j < view->nnets; j++) {
        struct dar_net *net = &view->nets[j];
        struct dar_linear *layers[MAX_NET_LAYERS];
        int count = net_layers(net, layers);
        for (int k = 0; k < count; k++) {
            struct dar_linear *L = layers[k];
            if (!L->weight)
                continue;
            if (L->weight < model->values || L->weight >= model->values + model->count)
                die(EX_SOFTWARE, "BUG: a weight outside the model's storage");
            float *t = ws->weights_t + (L->weight - model->values);
            for (int o = 0; o < L->out; o++)
                for (int i = 0; i < L->in; i++)
                    t[(int64_t)i * L->out + o] = L->weight[(int64_t)o * L->in + i];
            L->weight_t = t;
        }
    }
    // the decoders on hd as one product: one pass over hd instead of one a
    // decoder, and no product of one or two columns (a vector per column)
    int64_t need = 0;
    for (int j = 0; j < view->nnets; j++) {
        const struct dar_linear *const *heads;
        int count = decoder_list(&view->nets[j], &heads);
        int out = 0;
        for (int k = 0; k < count; k++)
            out += heads[k]->out;
        need += (int64_t)(3 * view->config.hidden + 1) * out;
    }
    if (need > ws->heads_room) {
        free(ws->heads);
        ws->heads_room = need;
        ws->heads = xmalloc(sizeof(float) * (size_t)need);
    }
    float *next = ws->heads;
    for (int j = 0; j < view->nnets; j++) {
        struct dar_net *net = &view->nets[j];
        const struct dar_linear *const *heads;
        int count = decoder_list(net, &heads);
        int out = 0;
        for (int k = 0; k < count; k++)
            out += heads[k]->out;
        int C = 3 * view->config.hidden;
        float *wt = next, *bias = next + (int64_t)C * out;
        next = bias + out;
        for (int k = 0, col = 0; k < count; col += heads[k]->out, k++)
            for (int o = 0; o < heads[k]->out; o++) {
                for (int i = 0; i < C; i++)
                    wt[(int64_t)i * out + col + o] = heads[k]->weight_t[(int64_t)i * heads[k]->out + o];
                bias[col + o] = heads[k]->bias ? heads[k]->bias[o] : 0.0f;
            }
        net->heads_t = wt;
        net->heads_bias = bias;
        net->heads_out = out;
    }
}

/* Graphs per group.  The batch is split into groups of this many consecutive
 * graphs, run as tasks of the worker pool, each with its own gradient; the
 * gradients are added in group order.  A constant: it fixes how the sums of
 * dW are grouped, so the bits do not depend on the thread count. */
enum { GROUP_GRAPHS = 2 };

struct batch_job {
    struct dar_model *model;
    struct dar_workspace *ws;
    struct dar_graph *const *graphs;
    int B;
    const uint8_t *teacher;
    int teacher_len;
    bool backward, training;
    struct dar_scales scales;
    double (*sums)[DAR_MAX_LOSSES];     /* [groups] */
    struct dar_prediction *pred;        /* [B] or NULL */
    enum dar_embed embed;
    const int *order;                   /* [groups]: task i runs group order[i] */
};

/* About the work of a group: steps times nodes and arcs, summed. */
static double group_cost(struct dar_graph *const *graphs, int B, int g, bool pgn)
{
    double cost = 0;
    for (int b = g * GROUP_GRAPHS; b < B && b < (g + 1) * GROUP_GRAPHS; b++) {
        double n = graphs[b]->g.n, arcs = pgn ? 2.0 * graphs[b]->g.m + n : n * n;
        cost += (graphs[b]->steps + 1.0) * (n + arcs);
    }
    return cost;
}

/* The groups, costliest first, so that no thread is left with a big one at
 * the end (which thread runs a group never changes its result). */
static void group_order(int *order, struct dar_graph *const *graphs, int B, int groups, bool pgn)
{
    double cost[groups > 0 ? groups : 1];
    for (int g = 0; g < groups; g++) {
        cost[g] = group_cost(graphs, B, g, pgn);
        int i = g;
        while (i > 0 && cost[order[i - 1]] < cost[g]) {
            order[i] = order[i - 1];
            i--;
        }
        order[i] = g;
    }
}

static void group_task(void *context, int64_t task, int worker)
{
    const struct batch_job *j = context;
    int64_t g = j->order[task];
    int first = (int)g * GROUP_GRAPHS;
    struct dar_model view;
    struct dar_model *model = j->model;
    if (j->backward) {
        float *grads = j->ws->grads + g * j->model->count;
        memset(grads, 0, sizeof(float) * (size_t)j->model->count);
        model_with_grads(&view, j->model, grads);
        model = &view;
    }
    const struct dar_config *config = &model->config;
    struct dar_group c = {
        .model = model,
        .alg = config->algorithm,
        .ws = j->ws,
        .arena = &j->ws->arenas[g],
        .H = config->hidden,
        .B = j->B - first < GROUP_GRAPHS ? j->B - first : GROUP_GRAPHS,
        .graphs = j->graphs + first,
        .training = j->training,
        .backward = j->backward,
        .variant = config->variant,
        .embed_first = j->embed == DAR_EMBED_FIRST,
        .teacher = j->teacher,
        .teacher_len = j->teacher_len,
        .scales = j->scales,
        .pred = j->pred ? j->pred + first : NULL,
    };
    run_group(&c);
    memcpy(j->sums[g], c.sum, sizeof c.sum);
}

/* Entries of the gradient per task when the groups' gradients are added. */
enum { GRADIENT_SPAN = 8192 };

struct gradient_sum { float *grads; const float *groups; int64_t count; int ngroups; };

static void gradient_sum_span(void *context, int64_t span, int worker)
{
    const struct gradient_sum *j = context;
    int64_t i0 = span * GRADIENT_SPAN, i1 = i0 + GRADIENT_SPAN < j->count ? i0 + GRADIENT_SPAN : j->count;
    for (int g = 0; g < j->ngroups; g++) {
        const float *src = j->groups + g * j->count;
        for (int64_t i = i0; i < i1; i++)
            j->grads[i] += src[i];
    }
}

/* The groups' loss terms added in group order, and reported per term by
 * the algorithm into *losses (when not NULL); returns the total. */
static double sum_losses(struct dar_losses *losses, double (*group_sums)[DAR_MAX_LOSSES], int groups,
                         const struct dar_model *model, const struct dar_scales *sc)
{
    double sum[DAR_MAX_LOSSES] = {0};
    for (int g = 0; g < groups; g++)
        for (int t = 0; t < DAR_MAX_LOSSES; t++)
            sum[t] += group_sums[g][t];
    if (!losses)
        return 0.0;
    memset(losses, 0, sizeof *losses);
    losses->total = model->config.algorithm->total_loss(model, sum, sc, losses->term);
    return losses->total;
}

static double dar_run(struct dar_model *model, struct dar_workspace *ws,
                      struct dar_graph *const *graphs, int B, const uint8_t *teacher,
                      int teacher_len, bool backward, bool training, struct dar_losses *losses,
                      struct dar_prediction *pred, enum dar_embed embed)
{
    int groups = (B + GROUP_GRAPHS - 1) / GROUP_GRAPHS;
    workspace_reserve(ws, groups, model->count);
    if (ws->hprev_mode == DAR_HPREV_RECORD)
        ws->hprev_count = 0;
    ws->hprev_cursor = 0;
    double group_sums[groups > 0 ? groups : 1][DAR_MAX_LOSSES];
    memset(group_sums, 0, sizeof group_sums);
    int order[groups > 0 ? groups : 1];
    group_order(order, graphs, B, groups, model->config.processor == DAR_PGN);
    struct dar_model view;
    model_with_transposed_weights(&view, model, ws);
    model = &view;
    struct batch_job job = {model, ws, graphs, B, teacher, teacher_len, backward, training,
                            model->config.algorithm->batch_scales(model, graphs, B,
                                                                  embed == DAR_EMBED_FIRST),
                            group_sums, pred, embed, order};
    if (ws->hprev_mode == DAR_HPREV_LIVE) {
        workers_run(groups, group_task, &job);
    } else {    /* the recorded h_prev are in group order */
        for (int g = 0; g < groups; g++)
            group_task(&job, g, 0);
    }
    if (backward) {
        struct gradient_sum gs = {model->grads, ws->grads, model->count, groups};
        workers_run((model->count + GRADIENT_SPAN - 1) / GRADIENT_SPAN, gradient_sum_span, &gs);
    }
    return sum_losses(losses, group_sums, groups, model, &job.scales);
}

int dar_batch_steps(struct dar_graph *const *graphs, int B)
{
    int steps = 0;
    for (int b = 0; b < B; b++)
        if (graphs[b]->steps - 1 > steps)
            steps = graphs[b]->steps - 1;
    return steps;
}

void dar_config_check(const struct dar_config *config, const struct dar_algorithm *alg)
{
    if (config->leak_dual && !alg->leakable_dual)
        die(EX_USAGE, "the %s model's dual cannot be fed its true output (a leaked dual)", alg->name);
    if (config->soft_hints && !alg->soft_hints)
        die(EX_USAGE, "the %s model cannot feed its predicted hints back as probabilities (soft hints)",
            alg->name);
}

/* Refuses what the row's flags do not offer (a first-step embedding, the
 * configuration's), in words that fit every entry, then the entry's check. */
static void check_call(const struct dar_model *model, struct dar_graph *const *graphs, int B, bool training,
                       int embed)
{
    const struct dar_algorithm *alg = model->config.algorithm;
    if (embed == DAR_EMBED_FIRST && !alg->embeds_first_step)
        die(EX_USAGE, "the %s model has no first-step embedding", alg->name);
    dar_config_check(&model->config, alg);
    alg->check(model, graphs, B, training, embed);
}

double dar_loss_and_grad(struct dar_model *model, struct dar_workspace *ws,
                         struct dar_graph *const *graphs, int B,
                         const uint8_t *teacher, int teacher_len, bool backward,
                         struct dar_losses *out)
{
    struct dar_losses local;
    check_call(model, graphs, B, true, DAR_EMBED_LAST);
    return dar_run(model, ws, graphs, B, teacher, teacher_len, backward, true,
                   out ? out : &local, NULL, DAR_EMBED_LAST);
}

void dar_predict(struct dar_model *model, struct dar_workspace *ws,
                 struct dar_graph *const *graphs, int B, enum dar_embed embed,
                 struct dar_prediction *out)
{
    check_call(model, graphs, B, false, embed);
    dar_run(model, ws, graphs, B, NULL, 0, false, false, NULL, out, embed);
}
