/* gnn.h - the GNN baselines of the brain-vessel study (paper §4.2, Table 3):
 * GCN and GraphSAGE convolutions on the line graph, then a linear head that
 * also reads per-edge embeddings (the "(primal)", "(dual)", "(N2V)"
 * variants); float32, forward and backward by hand.
 *
 * Architecture (reference/table3-baselines.md §3, reading A: "several graph
 * convolutional layers with ReLU activations followed by a linear module",
 * the embeddings "concatenated ... prior the final linear layer"):
 *
 *   h0 = x                                          [n, C] standardised inputs
 *   h_l = dropout(relu(conv_l(h_{l-1})))            [n, H], l = 1..L
 *   logits = [h_L ; e] W_headᵀ + b_head              [n, 3], e [n, D] (D may be 0)
 *
 *   SAGE conv (PyG SAGEConv, mean): z = (M h) W_lᵀ + b_l + h W_rᵀ, M = D⁻¹A
 *   GCN conv (PyG GCNConv):          z = Â (h Wᵀ) + b, Â = S(A + I)S
 *
 * The head's weight on the concatenation is kept as two parameters, its h
 * block [3, H] and its e block [3, D], so each is a contiguous matrix for
 * linear_forward; together they are one nn.Linear(H + D, 3).
 *
 * Dropout is inverted (kept units × 1/(1 − p)) after every ReLU, the last
 * conv's included, none on x or e.  Its mask is drawn per block of DROP_BLOCK
 * rows from rng stream ("gnn-dropout", (step·64 + layer)·2^24 + block) of
 * the seed, so it does not depend on the thread count; the backward pass
 * reads it back from the stored activations (kept iff h > 0).
 *
 * Loss: the benchmark's weighted NLL, L = Σ_i w_i (−log p_{i,y_i}) / Σ_i w_i
 * with w_i = class weight of y_i on train rows, 0 elsewhere. */
#ifndef DAR_GNN_H
#define DAR_GNN_H
#include "line_graph.h"
#include "optim.h"
#include <stdbool.h>
#include <stdint.h>

enum { GNN_CLASSES = 3, GNN_MAX_LAYERS = 16, GNN_MAX_PARAMS = 3 * GNN_MAX_LAYERS + 3 };
enum gnn_conv { GNN_GCN, GNN_SAGE };

struct gnn_config {
    enum gnn_conv conv;
    int layers;          /* convolutions, 1..GNN_MAX_LAYERS */
    int hidden;          /* H */
    int inputs;          /* C, width of x */
    int embed;           /* D, width of e (0: none) */
    float dropout;       /* p in [0, 1) */
};

/* Parameters in a fixed order (names as the model record and the twin use):
 *   SAGE layer l: conv{l}.lin_l.weight [H, C_l], conv{l}.lin_l.bias [H], conv{l}.lin_r.weight [H, C_l]
 *   GCN layer l:  conv{l}.weight [H, C_l], conv{l}.bias [H]
 *   head: head.weight_h [3, H], head.weight_e [3, D] (only if D > 0), head.bias [3]
 * C_1 = C, C_l = H after. */
struct gnn_model {
    struct gnn_config cfg;
    int nparams;
    struct param params[GNN_MAX_PARAMS];
    char names[GNN_MAX_PARAMS][32];
    int64_t shape[GNN_MAX_PARAMS][2];   /* rows, columns (0 for a vector) */
};

/* Allocate and initialise: SAGE and the head as torch.nn.Linear
 * (U(±1/√fan_in), weight then bias, layers in order), GCN weights glorot
 * U(±√(6/(C+H))) and zero bias (PyG 1.7.2), from rng stream ("gnn-init", 0)
 * of seed.  Gradients zeroed. */
void gnn_model_init(struct gnn_model *m, const struct gnn_config *cfg, uint64_t seed);
void gnn_model_free(struct gnn_model *m);
/* The parameter called name, or NULL. */
struct param *gnn_param(struct gnn_model *m, const char *name);

/* One graph the model runs on: the whole line graph, or a C-SAGE batch. */
struct gnn_graph {
    const struct line_graph *g;
    const float *scale;  /* [n] gcn_scale(g), GCN only */
    const float *x;      /* [n, C] */
    const float *e;      /* [n, D] or NULL */
};

/* Activations of one forward pass, kept for the backward pass. */
struct gnn_work {
    int64_t n;
    float *h[GNN_MAX_LAYERS + 1];   /* h[1..L] [n, H] (h[0] is the graph's x) */
    float *a;                       /* [n, max(C, H)] scratch; after a SAGE forward
                                     * pass, the last layer's aggregate M h_{L-1} */
    uint64_t *mask;                 /* [n max(C, H) / 64] relu/dropout mask bits */
    float *logits, *dlogits;        /* [n, 3] */
};
void gnn_work_alloc(struct gnn_work *w, const struct gnn_config *cfg, int64_t n);
void gnn_work_free(struct gnn_work *w);

/* logits (in w->logits) of the graph; training: dropout on, with the masks
 * of optimiser step `step` and the seed. */
void gnn_forward(struct gnn_work *w, const struct gnn_model *m, const struct gnn_graph *gr, bool training,
                 uint64_t seed, int64_t step, int threads);
/* The weighted NLL of the last forward and, when backward, its gradient into
 * the model's grads (accumulated; zero them first).  label [n] in 0..2,
 * row_weight [n] = w_{y_i} on rows that count, 0 elsewhere; the loss is
 * Σ row_weight·nll / Σ row_weight (0 when the sum is 0).  The forward pass
 * must have been a training pass (or have p = 0) on the same graph, its work
 * untouched since: its activations are overwritten by gradients, and SAGE
 * reads its last aggregate back. */
double gnn_loss_backward(struct gnn_work *w, struct gnn_model *m, const struct gnn_graph *gr, const int32_t *label,
                         const float *row_weight, bool backward, int threads);

/* In place: h = relu(h), then inverted dropout with the mask of (seed,
 * step, layer) when p > 0: per block of DROP_BLOCK rows, two 32-bit draws
 * per rng_u64, a unit dropped when its draw is below p · 2^32; blocks split
 * over threads.  [n, H] */
void relu_dropout_forward(float *h, int64_t n, int H, float p, uint64_t seed, int64_t step, int layer, int threads);
/* dz = dh / (1 − p) where the forward output h > 0, else 0.  dz may be h
 * (the activation is not needed after).  [n, H] */
void relu_dropout_backward(float *dz, const float *dh, const float *h, int64_t count, float p);

#endif
