/* test_sgns.c - PyG's skip-gram loss on a walk (common/graphnn/sgns.c): the
 * gradient against central finite differences of the loss written out here
 * in float64 (per table row, so a node met twice sums its positions), the
 * vectorised kernel against its naive twin, the saturation PyG's 1e-15
 * gives, and SparseAdam's row update against torch's formula. */
#include "check.h"
#include "rng.h"
#include "sgns.h"
#include <stdlib.h>
#include <string.h>

enum { NODES = 6, DIM = 12, LENGTH = 9, CONTEXT = 4 };
static const int walk[LENGTH] = {0, 1, 2, 1, 3, 4, 0, 5, 5};

/* The loss of the walk over a float64 table: PyG's formula, scaled. */
static double walk_loss(const double *table, bool positive, double scale)
{
    double loss = 0;
    for (int j = 0; j + CONTEXT <= LENGTH; j++)
        for (int k = 1; k < CONTEXT; k++) {
            double s = 0;
            for (int h = 0; h < DIM; h++)
                s += table[walk[j] * DIM + h] * table[walk[j + k] * DIM + h];
            double sig = 1 / (1 + exp(-s));
            loss += -log((positive ? sig : 1 - sig) + 1e-15);
        }
    return loss * scale;
}

static void test_gradient(bool positive)
{
    struct rng r;
    rng_init(&r, 3, positive, 0);
    float table[NODES * DIM];
    double table64[NODES * DIM];
    for (int i = 0; i < NODES * DIM; i++)
        table64[i] = table[i] = (float)(0.45 * rng_normal(&r));
    const float *rows[LENGTH];
    for (int i = 0; i < LENGTH; i++)
        rows[i] = table + walk[i] * DIM;
    const float scale = 1.0f / 7;
    float grad[LENGTH * DIM], naive[LENGTH * DIM];
    double loss = sgns_walk_backward(grad, rows, LENGTH, CONTEXT, DIM, positive, scale, true);
    double loss_naive = sgns_walk_backward_naive(naive, rows, LENGTH, CONTEXT, DIM, positive, scale);
    double loss64 = walk_loss(table64, positive, 1);
    CHECK(check_close(loss, loss64, 1e-5, 0) && check_close(loss_naive, loss64, 1e-12, 0),
          "%s: loss %.9f, naive %.12f, float64 %.12f", positive ? "positive" : "negative", loss, loss_naive, loss64);
    double worst = 0;
    for (int i = 0; i < LENGTH * DIM; i++)
        worst = fmax(worst, fabs(grad[i] - naive[i]) / (fabs(naive[i]) + 1e-6));
    CHECK(worst < 1e-4, "%s: kernel = naive twin (worst relative difference %.2g)", positive ? "positive" : "negative", worst);
    /* per table row: the sum of the positions of that node, against
     * central differences of the float64 loss */
    double worst_fd = 0;
    for (int v = 0; v < NODES; v++)
        for (int h = 0; h < DIM; h++) {
            double g = 0;
            for (int i = 0; i < LENGTH; i++)
                if (walk[i] == v)
                    g += naive[i * DIM + h];
            const double step = 1e-5;
            double keep = table64[v * DIM + h];
            table64[v * DIM + h] = keep + step;
            double up = walk_loss(table64, positive, scale);
            table64[v * DIM + h] = keep - step;
            double down = walk_loss(table64, positive, scale);
            table64[v * DIM + h] = keep;
            double fd = (up - down) / (2 * step);
            worst_fd = fmax(worst_fd, fabs(g - fd) / (fabs(fd) + 1e-4));
        }
    CHECK(worst_fd < 2e-6, "%s: gradient = finite differences, node met twice included (worst %.2g)",
          positive ? "positive" : "negative", worst_fd);
}

static void test_pair_saturation(void)
{
    /* PyG's 1e-15 inside the log: a positive pair at s = -50 costs
     * -log(sigmoid(-50) + 1e-15) = 34.5 and its gradient nearly vanishes;
     * at s = 50 a positive pair costs nothing. */
    float d;
    float l = sgns_pair_loss(-50, true, &d);
    double sig = 1 / (1 + exp(50.0)), want = -sig * (1 - sig) / (sig + 1e-15);
    CHECK(check_close(l, -log(sig + 1e-15), 1e-6, 0) && check_close(d, want, 1e-4, 0),
          "positive at -50: loss %.6f, d %.3g (float64 %.3g)", l, d, want);
    l = sgns_pair_loss(50, true, &d);
    CHECK(l == 0 && fabsf(d) < 1e-20f, "positive at 50: loss %g, d %g", l, d);
    l = sgns_pair_loss(3, false, &d);
    sig = 1 / (1 + exp(-3.0));
    CHECK(check_close(l, -log(1 - sig + 1e-15), 1e-6, 0) && check_close(d, sig, 1e-6, 0),
          "negative at 3: loss %.6f, d %.6f = sigmoid(3)", l, d);
    CHECK(sgns_walk_pairs(40, 15) == 364 && sgns_walk_pairs(10, 11) == 0, "40-node walks, windows of 15: 364 pairs");
}

static void test_sparse_adam(void)
{
    enum { D = 5 };
    float p[D] = {0.5f, -1, 2, 0, 3}, m[D] = {0}, v[D] = {0};
    double p64[D], m64[D] = {0}, v64[D] = {0};
    for (int h = 0; h < D; h++)
        p64[h] = p[h];
    const double lr = 0.01, b1 = 0.9, b2 = 0.999, eps = 1e-8;
    for (int t = 1; t <= 3; t++) {
        float g[D];
        for (int h = 0; h < D; h++)
            g[h] = (float)(0.1 * (h - 2) * t + 0.01);
        double step = lr * sqrt(1 - pow(b2, t)) / (1 - pow(b1, t));
        sparse_adam_row(p, m, v, g, D, (float)step, (float)b1, (float)b2, (float)eps);
        for (int h = 0; h < D; h++) {
            m64[h] = b1 * m64[h] + (1 - b1) * g[h];
            v64[h] = b2 * v64[h] + (1 - b2) * (double)g[h] * g[h];
            p64[h] -= step * m64[h] / (sqrt(v64[h]) + eps);
        }
    }
    double worst = 0;
    for (int h = 0; h < D; h++)
        worst = fmax(worst, fabs(p[h] - p64[h]));
    CHECK(worst < 1e-6, "SparseAdam row = torch's formula over 3 steps (worst %.2g)", worst);
}

int main(void)
{
    check_file_name = "sgns";
    test_gradient(true);
    test_gradient(false);
    test_pair_saturation();
    test_sparse_adam();
    return check_done();
}
