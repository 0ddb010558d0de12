/* rows.h - loops over rows of H features: the one row vocabulary of the
 * kernels (layers.c), the model (dar_forward.c, dar_backward.c), the
 * big-graph embedding (edge_embed.c) and the sparse aggregations of the GNNs
 * (sparse.c).
 *
 * gcc -O2 does not vectorise loops of unknown length, so these work on eight
 * floats at a time with GNU C vector types, then the tail one by one; every
 * element sees the scalar loop's operations in the scalar loop's order, so
 * results are the same bits as the plain loops.  gcc lowers an 8-wide
 * compare to scalar code on baseline x86-64, so a function whose loops
 * compare (row_max, relu) is marked CLONES: an AVX2 clone, chosen at load
 * time, beside the baseline one (a compare and a mask give the same bits on
 * either). */
#ifndef DAR_ROWS_H
#define DAR_ROWS_H
#include <stdint.h>
#include <string.h>

typedef float vec8 __attribute__((vector_size(32)));
typedef int32_t ivec8 __attribute__((vector_size(32)));
typedef uint8_t bvec8 __attribute__((vector_size(8)));

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CLONES
#endif

/* Macros, not functions: a 32-byte vector passed by value draws gcc's ABI
 * notes on baseline x86-64. */
#define load8(p) ({ vec8 load8_v; memcpy(&load8_v, (p), sizeof load8_v); load8_v; })
#define store8(p, v) do { vec8 store8_v = (v); memcpy((p), &store8_v, sizeof store8_v); } while (0)

/* out = x + y + b */
static inline void row_sum3(float *out, const float *x, const float *y, const float *b, int H)
{
    int h = 0;
    for (; h + 8 <= H; h += 8)
        store8(out + h, load8(x + h) + load8(y + h) + load8(b + h));
    for (; h < H; h++)
        out[h] = x[h] + y[h] + b[h];
}

/* out += f·k */
static inline void row_axpy(float *out, float f, const float *k, int H)
{
    int h = 0;
    vec8 fv = (vec8){0} + f;
    for (; h + 8 <= H; h += 8)
        store8(out + h, load8(out + h) + fv * load8(k + h));
    for (; h < H; h++)
        out[h] += f * k[h];
}

/* out += x */
static inline void row_add(float *out, const float *x, int64_t H)
{
    int64_t h = 0;
    for (; h + 8 <= H; h += 8)
        store8(out + h, load8(out + h) + load8(x + h));
    for (; h < H; h++)
        out[h] += x[h];
}

/* Σ_h x[h]·y[h]: eight partial sums, then the tail, in a fixed order. */
static inline float row_dot(const float *x, const float *y, int H)
{
    vec8 acc = {0};
    int h = 0;
    for (; h + 8 <= H; h += 8)
        acc += load8(x + h) * load8(y + h);
    float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (; h < H; h++)
        s += x[h] * y[h];
    return s;
}

/* out += x / divisor */
static inline void row_add_divided(float *out, const float *x, float divisor, int64_t H)
{
    int64_t h = 0;
    for (; h + 8 <= H; h += 8)
        store8(out + h, load8(out + h) + load8(x + h) / divisor);
    for (; h < H; h++)
        out[h] += x[h] / divisor;
}

/* row /= divisor */
static inline void row_divide(float *row, float divisor, int64_t H)
{
    int64_t h = 0;
    for (; h + 8 <= H; h += 8)
        store8(row + h, load8(row + h) / divisor);
    for (; h < H; h++)
        row[h] /= divisor;
}

/* y = a x */
static inline void row_scale(float *y, float a, const float *x, int H)
{
    int c = 0;
    for (; c + 8 <= H; c += 8)
        store8(y + c, a * load8(x + c));
    for (; c < H; c++)
        y[c] = a * x[c];
}

/* y = 0 + x: the first term of a sum that starts from zero, with the sum's
 * bits (a -0 becomes +0, as 0 + x gives), without zeroing y first. */
static inline void row_set_plus_zero(float *y, const float *x, int H)
{
    const vec8 zero = {0};
    int c = 0;
    for (; c + 8 <= H; c += 8)
        store8(y + c, zero + load8(x + c));
    for (; c < H; c++)
        y[c] = 0.0f + x[c];
}

/* y = a x + b */
static inline void row_scale_add(float *y, float a, const float *x, const float *b, int H)
{
    int c = 0;
    for (; c + 8 <= H; c += 8)
        store8(y + c, a * load8(x + c) + load8(b + c));
    for (; c < H; c++)
        y[c] = a * x[c] + b[c];
}

/* Where x > best: best = x. */
static inline void row_max_value(float *best, const float *x, int64_t H)
{
    int64_t h = 0;
    for (; h + 8 <= H; h += 8) {
        vec8 m = load8(x + h), b = load8(best + h);
        ivec8 greater = m > b;
        store8(best + h, (vec8)(((ivec8)m & greater) | ((ivec8)b & ~greater)));
    }
    for (; h < H; h++)
        if (x[h] > best[h])
            best[h] = x[h];
}

/* Where x > best: best = x, winner = index. */
static inline void row_max(float *best, int32_t *winner, const float *x, int32_t index, int64_t H)
{
    int64_t h = 0;
    ivec8 indices = (ivec8){0} + index;
    for (; h + 8 <= H; h += 8) {
        vec8 m = load8(x + h), b = load8(best + h);
        ivec8 greater = m > b;
        ivec8 old;
        memcpy(&old, winner + h, sizeof old);
        store8(best + h, (vec8)(((ivec8)m & greater) | ((ivec8)b & ~greater)));
        ivec8 won = (indices & greater) | (old & ~greater);
        memcpy(winner + h, &won, sizeof won);
    }
    for (; h < H; h++)
        if (x[h] > best[h]) {
            best[h] = x[h];
            winner[h] = index;
        }
}

/* x = max(x, 0), over count floats (out may be in). */
static inline void row_relu(float *out, const float *in, int64_t count)
{
    int64_t i = 0;
    for (; i + 8 <= count; i += 8) {
        vec8 x = load8(in + i);
        store8(out + i, (vec8)((ivec8)x & (x > 0.0f)));
    }
    for (; i < count; i++)
        out[i] = in[i] > 0.0f ? in[i] : 0.0f;
}

#endif
