/* rows.h - loops over rows of H features, shared by the model (dar.c) and
 * the big-graph embedding (edge_embed.c).
 *
 * gcc -O2 does not vectorise loops of unknown length, so these work on eight
 * floats at a time with GNU C vector types, then the tail one by one; every
 * element sees the scalar loop's operations in the scalar loop's order, so
 * results are the same bits as the plain loops. */
#ifndef DAR_ROWS_H
#define DAR_ROWS_H
#include <stdint.h>
#include <string.h>

typedef float vec8 __attribute__((vector_size(32)));
typedef int32_t ivec8 __attribute__((vector_size(32)));
typedef uint8_t bvec8 __attribute__((vector_size(8)));

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
static inline void row_add(float *out, const float *x, int H)
{
    int h = 0;
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

#endif
