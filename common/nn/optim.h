/* optim.h - parameter updates: plain SGD and Adam, with PyTorch's semantics.
 *
 * The optimisers work on a list of flat float tensors (struct param), each a
 * value array and its gradient array of the same count; the model owns those
 * arrays.  State that outlives a step (Adam's moments) belongs to the
 * optimiser and is laid out in the order of the list.  Updates are plain
 * loops in memory order: deterministic, no threads. */
#ifndef DAR_OPTIM_H
#define DAR_OPTIM_H
#include <stdint.h>

struct param {
    const char *name;       /* for checkpoints and messages; may be NULL */
    float *value;
    float *grad;
    int64_t count;
};

/* Set every gradient of the list to zero (backward kernels accumulate). */
void params_zero_grad(struct param *params, int nparams);
/* Total number of entries over the list. */
int64_t params_count(const struct param *params, int nparams);

/* Scale every gradient by max_norm / ‖g‖ when the global L2 norm ‖g‖ over
 * the list exceeds max_norm (optax.clip_by_global_norm, CLRS's 1.0), the sum
 * of squares in double in list order; returns ‖g‖ before clipping. */
double params_clip_grad_norm(struct param *params, int nparams, double max_norm);

/* torch.optim.SGD without momentum: p ← p − lr·(g + wd·p). */
struct sgd {
    float lr;
    float weight_decay;
};
void sgd_step(const struct sgd *opt, struct param *params, int nparams);

/* torch.optim.Adam (amsgrad off): weight decay is L2 added to the gradient,
 *   g' = g + wd·p;  m ← β1·m + (1−β1)·g';  v ← β2·v + (1−β2)·g'²;
 *   p ← p − lr/(1−β1^t) · m / (√v/√(1−β2^t) + eps). */
struct adam {
    float lr, beta1, beta2, eps, weight_decay;
    int64_t step;           /* t, steps taken so far */
    int64_t count;          /* entries the moments cover */
    float *m, *v;           /* first and second moments, owned */
};
/* Zeroed moments for the list's total count; β1 = 0.9, β2 = 0.999, eps = 1e-8
 * (PyTorch's defaults, which callers may overwrite before the first step). */
void adam_init(struct adam *opt, const struct param *params, int nparams,
               float lr, float weight_decay);
void adam_step(struct adam *opt, struct param *params, int nparams);
void adam_free(struct adam *opt);

/* Learning-rate schedules: the factor the base rate is multiplied by at
 * 0-based iteration k of a schedule whose horizon is n iterations.
 *   constant  1
 *   cosine    (1 + cos(pi min(k, n) / n)) / 2, from 1 at k = 0 to 0 at n
 *             (optax.cosine_decay_schedule with alpha 0)
 * The factor depends on k alone, so a run resumed at any iteration takes
 * the rates of an uninterrupted one. */
enum lr_schedule { LR_CONSTANT, LR_COSINE };
double lr_schedule_factor(enum lr_schedule schedule, int64_t k, int64_t n);

#endif
