/* optim.c - SGD and Adam over a parameter list (see optim.h).  The float
 * arithmetic follows PyTorch's single-tensor ("foreach=False") code paths
 * so results agree to rounding with torch.optim on the same gradients. */
#include "optim.h"
#include "die.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void params_zero_grad(struct param *params, int nparams)
{
    for (int k = 0; k < nparams; k++)
        memset(params[k].grad, 0, (size_t)params[k].count * sizeof(float));
}

int64_t params_count(const struct param *params, int nparams)
{
    int64_t total = 0;
    for (int k = 0; k < nparams; k++)
        total += params[k].count;
    return total;
}

double params_clip_grad_norm(struct param *params, int nparams, double max_norm)
{
    double sum = 0.0;
    for (int k = 0; k < nparams; k++)
        for (int64_t i = 0; i < params[k].count; i++)
            sum += (double)params[k].grad[i] * params[k].grad[i];
    double norm = sqrt(sum);
    if (norm > max_norm && norm > 0.0) {
        float scale = (float)(max_norm / norm);
        for (int k = 0; k < nparams; k++)
            for (int64_t i = 0; i < params[k].count; i++)
                params[k].grad[i] *= scale;
    }
    return norm;
}

void sgd_step(const struct sgd *opt, struct param *params, int nparams)
{
    float lr = opt->lr, wd = opt->weight_decay;
    for (int k = 0; k < nparams; k++) {
        float *p = params[k].value;
        const float *g = params[k].grad;
        for (int64_t i = 0; i < params[k].count; i++)
            p[i] -= lr * (g[i] + wd * p[i]);
    }
}

void adam_init(struct adam *opt, const struct param *params, int nparams,
               float lr, float weight_decay)
{
    opt->lr = lr;
    opt->beta1 = 0.9f;
    opt->beta2 = 0.999f;
    opt->eps = 1e-8f;
    opt->weight_decay = weight_decay;
    opt->step = 0;
    opt->count = params_count(params, nparams);
    // one spare entry so an empty list still gets a real allocation
    opt->m = xcalloc((size_t)opt->count + 1, sizeof(float));
    opt->v = xcalloc((size_t)opt->count + 1, sizeof(float));
}

void adam_step(struct adam *opt, struct param *params, int nparams)
{
    if (params_count(params, nparams) != opt->count)
        die(EX_SOFTWARE, "adam: the parameter list has %lld entries, the optimiser %lld",
            (long long)params_count(params, nparams), (long long)opt->count);
    opt->step++;
    // the bias corrections are Python floats (double) in torch
    double correction1 = 1.0 - pow(opt->beta1, (double)opt->step);
    double correction2 = 1.0 - pow(opt->beta2, (double)opt->step);
    float step_size = (float)(opt->lr / correction1);
    float correction2_sqrt = (float)sqrt(correction2);
    float beta1 = opt->beta1, beta2 = opt->beta2, eps = opt->eps, wd = opt->weight_decay;
    float *m = opt->m, *v = opt->v;
    for (int k = 0; k < nparams; k++) {
        float *p = params[k].value;
        const float *grad = params[k].grad;
        for (int64_t i = 0; i < params[k].count; i++) {
            float g = wd != 0.0f ? grad[i] + wd * p[i] : grad[i];
            m[i] = m[i] * beta1 + (1.0f - beta1) * g;
            v[i] = v[i] * beta2 + (1.0f - beta2) * g * g;
            float denom = sqrtf(v[i]) / correction2_sqrt + eps;
            p[i] -= step_size * (m[i] / denom);
        }
        m += params[k].count;
        v += params[k].count;
    }
}

/* cos(pi x) for x in [0, 1] by its Taylor series in plain double
 * arithmetic: libm's cos picks its code path by CPU (an FMA variant where
 * there is FMA), and a last bit that differs there could round a learning
 * rate differently on another machine. */
static double cos_pi(double x)
{
    double sign = 1.0;
    if (x > 0.5) {          /* cos(pi x) = -cos(pi (1 - x)): the series only up to pi/2 */
        x = 1.0 - x;
        sign = -1.0;
    }
    double a2 = (M_PI * x) * (M_PI * x), term = 1.0, sum = 1.0;
    for (int k = 1; k <= 12; k++) {
        term *= -a2 / (double)((2 * k - 1) * (2 * k));
        sum += term;
    }
    return sign * sum;
}

double lr_schedule_factor(enum lr_schedule schedule, int64_t k, int64_t n)
{
    if (schedule == LR_CONSTANT || n <= 0)
        return 1.0;
    if (k >= n)
        return 0.0;
    return 0.5 * (1.0 + cos_pi((double)k / (double)n));
}

void adam_free(struct adam *opt)
{
    free(opt->m);
    free(opt->v);
    opt->m = opt->v = NULL;
}
