/* test_lc_train.c - lc-train's building blocks: the weighted softmax CE and
 * its gradient (finite differences, the sgemm path against the naive one),
 * standardisation, class weights, the split's proportions. */
#include "check.h"
#include "lc_train.h"
#include "rng.h"
#include "workers.h"
#include <stdlib.h>
#include <string.h>

#define NK LC_CLASSES

static void test_softmax_ce(void)
{
    /* one row, logits 0 0 0: p = 1/3 each, label 1 weight 2:
     * loss = 2 log 3, dlogits = 2 (1/3, -2/3, 1/3) * scale 0.5 */
    float z[3] = {0, 0, 0}, dz[3];
    uint8_t y = 1;
    double w[3] = {1, 2, 1};
    double loss = lc_softmax_ce_backward(dz, z, &y, w, 1, 0.5f);
    CHECK(check_close(loss, 2 * log(3.0), 1e-6, 0), "CE of uniform logits = w log 3 (%.9f)", loss);
    CHECK(check_close(dz[0], 1.0 / 3, 1e-6, 0) && check_close(dz[1], -2.0 / 3, 1e-6, 0) && check_close(dz[2], 1.0 / 3, 1e-6, 0),
          "dlogits = scale w (p - onehot)");
    CHECK(check_close(z[0] + z[1] + z[2], 1, 1e-6, 0), "logits replaced by probabilities");
    /* large logits do not overflow */
    float big[3] = {1000, 0, -1000};
    uint8_t y0 = 0;
    loss = lc_softmax_ce_backward(dz, big, &y0, w, 1, 1);
    CHECK(isfinite(loss) && loss < 1e-6 && big[0] == 1.0f, "stable for logits of 1000");
}

/* The loss (divided by denominator) at W, b, via the naive twin. */
static double block_loss(const float *x, const uint8_t *y, const float *W, const float *b, const double *cw,
                         int64_t n, int q, int64_t denom)
{
    float *gW = malloc(sizeof *gW * (size_t)q * NK), gb[NK];
    double l = lc_block_gradient_naive(gW, gb, x, y, W, b, cw, n, q, denom) / (double)denom;
    free(gW);
    return l;
}

static void test_gradient(void)
{
    enum { N = 37, Q = 5 };
    struct rng r;
    rng_init(&r, 7, 1, 0);
    float x[N * Q], W[Q * NK], b[NK];
    uint8_t y[N];
    double cw[NK] = {0.4, 3.0, 9.5};
    for (int i = 0; i < N * Q; i++)
        x[i] = (float)rng_normal(&r);
    for (int i = 0; i < Q * NK; i++)
        W[i] = (float)(0.5 * rng_normal(&r));
    for (int c = 0; c < NK; c++)
        b[c] = (float)(0.3 * rng_normal(&r));
    for (int i = 0; i < N; i++)
        y[i] = (uint8_t)rng_below(&r, NK);
    float gW[Q * NK], gb[NK], nW[Q * NK], nb[NK], work[2 * N * NK];
    double loss = lc_block_gradient(gW, gb, work, x, y, W, b, cw, N, Q, 50);
    double nloss = lc_block_gradient_naive(nW, nb, x, y, W, b, cw, N, Q, 50);
    CHECK(check_close(loss, nloss, 1e-5, 0), "loss: sgemm path %.9f = naive %.9f", loss, nloss);
    double worst = 0;
    for (int i = 0; i < Q * NK; i++)
        worst = fmax(worst, fabs(gW[i] - nW[i]));
    for (int c = 0; c < NK; c++)
        worst = fmax(worst, fabs(gb[c] - nb[c]));
    CHECK(worst < 1e-6, "gradient: sgemm path = naive (max |diff| %.2g)", worst);

    /* central finite differences of the weighted CE in float64 */
    const double h = 1e-2;
    double worst_rel = 0;
    for (int i = 0; i < Q * NK + NK; i++) {
        float *p = i < Q * NK ? &W[i] : &b[i - Q * NK];
        float keep = *p;
        *p = (float)(keep + h);
        double up = block_loss(x, y, W, b, cw, N, Q, 50);
        *p = (float)(keep - h);
        double down = block_loss(x, y, W, b, cw, N, Q, 50);
        *p = keep;
        double fd = (up - down) / ((double)(float)(keep + h) - (double)(float)(keep - h));
        double an = i < Q * NK ? gW[i] : gb[i - Q * NK];
        worst_rel = fmax(worst_rel, fabs(fd - an) / fmax(fabs(fd), 1e-3));
    }
    CHECK(worst_rel < 2e-3, "gradient = finite differences of the weighted CE (max rel err %.2g)", worst_rel);

    /* the denominator scales the gradient, not the returned sum */
    float g2[Q * NK], b2[NK];
    double l2 = lc_block_gradient(g2, b2, work, x, y, W, b, cw, N, Q, 100);
    CHECK(l2 == loss && check_close(g2[3], gW[3] / 2, 1e-6, 1e-9), "denominator divides the gradient only");
}

static void test_split(void)
{
    int64_t sizes[3];
    const int64_t ms[] = {20000, 1000, 7, 1, 5791309};
    const int64_t want[][3] = {{16000, 2000, 2000}, {800, 100, 100}, {5, 1, 1}, {0, 0, 1}, {4633047, 579131, 579131}};
    for (int k = 0; k < 5; k++) {
        int64_t m = ms[k];
        uint8_t *s = malloc((size_t)m);
        memset(s, 9, (size_t)m);
        lc_split(s, m, 12, sizes);
        int64_t count[3] = {0, 0, 0}, bad = 0;
        for (int64_t e = 0; e < m; e++)
            if (s[e] < 3)
                count[s[e]]++;
            else
                bad++;
        CHECK(!bad && sizes[0] == want[k][0] && sizes[1] == want[k][1] && sizes[2] == want[k][2] &&
              count[0] == sizes[0] && count[1] == sizes[1] && count[2] == sizes[2],
              "m = %lld: split %lld/%lld/%lld = int(0.8 m), int(0.9 m) - int(0.8 m), rest",
              (long long)m, (long long)count[0], (long long)count[1], (long long)count[2]);
        free(s);
    }
    uint8_t a[1000], b[1000], c[1000];
    lc_split(a, 1000, 12, sizes);
    lc_split(b, 1000, 12, sizes);
    lc_split(c, 1000, 13, sizes);
    CHECK(!memcmp(a, b, sizeof a) && memcmp(a, c, sizeof a), "same seed same split, another seed another");
    /* random, not blocks: the val and test edges spread over the index range */
    int64_t first_half_val = 0;
    for (int e = 0; e < 500; e++)
        first_half_val += a[e] == 1;
    CHECK(first_half_val > 30 && first_half_val < 70, "val edges spread evenly (%lld of 100 in the first half)",
          (long long)first_half_val);
    CHECK(lc_batch_size(16000) == 62 && lc_batch_size(100) == 32 && lc_batch_size(4633047) == 4096, "auto batch size");
}

static void test_class_weights(void)
{
    /* train labels 0 0 0 0 0 0 1 1 (class 2 only outside train): n 8,
     * w0 = 8 / (3 * 6), w1 = 8 / (3 * 2), w2 = 0 */
    uint8_t label[10] = {0, 0, 0, 0, 0, 0, 1, 1, 2, 2}, split[10] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 2};
    double w[3];
    int64_t counts[3];
    lc_class_weights(w, counts, label, split, 10);
    CHECK(counts[0] == 6 && counts[1] == 2 && counts[2] == 0 && check_close(w[0], 8.0 / 18, 1e-15, 0) &&
          check_close(w[1], 8.0 / 6, 1e-15, 0) && w[2] == 0, "class weights n / (K count_c) on train, 0 for an absent class");
}

static void test_standardize(void)
{
    enum { M = 200003, D = 3 };   /* several statistics blocks, a partial last one */
    float *a = malloc(sizeof *a * M), *emb = malloc(sizeof *emb * M * D);
    uint8_t *split = malloc(M);
    struct rng r;
    rng_init(&r, 3, 2, 0);
    for (int64_t e = 0; e < M; e++) {
        a[e] = (float)(1000 + 5 * rng_normal(&r));          /* large mean: a naive sum of squares loses digits */
        emb[e * D] = (float)rng_uniform(&r);
        emb[e * D + 1] = 2.5f;                               /* constant: std 1 */
        emb[e * D + 2] = (float)(e % 7);
        split[e] = e % 10 < 8 ? 0 : (uint8_t)(e % 2 + 1);
    }
    struct lc_inputs in = {2, {"a", "emb"}, {(const unsigned char *)a, (const unsigned char *)emb}, {1, D}, 1 + D, M, NULL};
    double mean[4], std[4], mean3[4], std3[4];
    lc_standardize_stats(mean, std, &in, split, 0);
    workers_start(3);
    lc_standardize_stats(mean3, std3, &in, split, 0);
    workers_stop();
    CHECK(!memcmp(mean, mean3, sizeof mean) && !memcmp(std, std3, sizeof std), "statistics bit-identical with 1 and 3 threads");
    /* two-pass float64 reference over the train rows */
    double ref_mean[4] = {0}, ref_var[4] = {0};
    int64_t n = 0;
    for (int64_t e = 0; e < M; e++)
        if (!split[e]) {
            n++;
            ref_mean[0] += a[e];
            for (int j = 0; j < D; j++)
                ref_mean[1 + j] += emb[e * D + j];
        }
    for (int j = 0; j < 4; j++)
        ref_mean[j] /= (double)n;
    for (int64_t e = 0; e < M; e++)
        if (!split[e]) {
            ref_var[0] += (a[e] - ref_mean[0]) * (a[e] - ref_mean[0]);
            for (int j = 0; j < D; j++)
                ref_var[1 + j] += (emb[e * D + j] - ref_mean[1 + j]) * (emb[e * D + j] - ref_mean[1 + j]);
        }
    bool ok = true;
    for (int j = 0; j < 4; j++) {
        double rs = j == 2 ? 1 : sqrt(ref_var[j] / (double)n);
        ok = ok && check_close(mean[j], ref_mean[j], 1e-12, 1e-12) && check_close(std[j], rs, 1e-9, 0);
    }
    CHECK(ok, "mean and population std over train rows only (means %.6f %.6f %.6f %.6f, std %.6f %.6f %.6f %.6f)",
          mean[0], mean[1], mean[2], mean[3], std[0], std[1], std[2], std[3]);
    /* gather: standardised rows in the order asked */
    float shift[4], scale[4], x[2 * 4];
    for (int j = 0; j < 4; j++) {
        shift[j] = (float)mean[j];
        scale[j] = (float)(1 / std[j]);
    }
    int64_t rows[2] = {17, 3};
    lc_gather(x, &in, rows, 2, shift, scale);
    CHECK(x[0] == (a[17] - shift[0]) * scale[0] && x[4 + 3] == (emb[3 * D + 2] - shift[3]) * scale[3] && x[2] == 0,
          "gather standardises rows in the order asked (constant column -> 0)");
    free(a);
    free(emb);
    free(split);
}

int main(void)
{
    check_file_name = "lc_train";
    test_softmax_ce();
    test_gradient();
    test_split();
    test_class_weights();
    test_standardize();
    return check_done();
}
