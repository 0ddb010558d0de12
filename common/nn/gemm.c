/* gemm.c - fixed-order dense products (gemm.h).
 *
 * A tile of R rows × V vectors of C lives in registers: for each k in
 * order, V vectors of B's row k are loaded and each row's A(i,k) is
 * broadcast and fused-multiply-added into its R×V accumulators.  So every
 * element sees init, then one fma per k in increasing k: the chain of
 * gemm.h whatever R, V or the vector width.  The last vector of a row is
 * masked (N need not be a multiple of the width); nothing is packed, so
 * small products cost no copies. */
#include "gemm.h"
#include <immintrin.h>
#include <math.h>

static void chain_naive(float *C, int64_t ldc, const float *A, int64_t a_row, int64_t a_col,
                        const float *B, int64_t ldb, const float *bias, int64_t M, int N, int64_t K,
                        bool accumulate, bool relu)
{
    // C is (M,N) with row stride ldc, A(i,k) = A[i*a_row + k*a_col], B is (K,N) with row stride ldb
    for (int64_t i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float sum = accumulate ? C[i * ldc + j] : 0.0f;
            if (bias)
                sum = accumulate ? sum + bias[j] : bias[j];
            for (int64_t k = 0; k < K; k++)
                sum = fmaf(A[i * a_row + k * a_col], B[k * ldb + j], sum);
            C[i * ldc + j] = relu ? (sum > 0.0f ? sum : 0.0f) : sum;
        }
}

void gemm_chain_naive(float *C, int64_t ldc, const float *A, int64_t a_row, int64_t a_col,
                      const float *B, int64_t ldb, const float *bias, int64_t M, int N, int64_t K,
                      bool accumulate)
{
    // C is (M,N) with row stride ldc, A(i,k) = A[i*a_row + k*a_col], B is (K,N) with row stride ldb
    chain_naive(C, ldc, A, a_row, a_col, B, ldb, bias, M, N, K, accumulate, false);
}

void gemm_chain_relu_naive(float *C, int64_t ldc, const float *A, int64_t a_row, int64_t a_col,
                           const float *B, int64_t ldb, const float *bias, int64_t M, int N,
                           int64_t K, bool accumulate)
{
    chain_naive(C, ldc, A, a_row, a_col, B, ldb, bias, M, N, K, accumulate, true);
}

#if defined(__x86_64__) && defined(__GNUC__)

#define INLINE static inline __attribute__((always_inline))

/* ---- AVX-512: 16 floats a vector, tiles up to 4 rows × 5 vectors ---------- */

#define T512 __attribute__((target("avx512f")))

INLINE T512 void tile512(float *C, int64_t ldc, const float *A, int64_t a_row, int64_t a_col,
                         const float *B, int64_t ldb, const float *bias, int64_t K, bool accumulate,
                         bool relu, const int R, const int V, __mmask16 tail)
{
    __m512 c[4][5], b[5];
#pragma GCC unroll 8
    for (int v = 0; v < V; v++) {
        __mmask16 m = v == V - 1 ? tail : 0xffff;
        __m512 init = bias ? _mm512_maskz_loadu_ps(m, bias + 16 * v) : _mm512_setzero_ps();
#pragma GCC unroll 8
        for (int r = 0; r < R; r++) {
            if (accumulate) {
                c[r][v] = _mm512_maskz_loadu_ps(m, C + r * ldc + 16 * v);
                if (bias)
                    c[r][v] = _mm512_add_ps(c[r][v], init);
            } else {
                c[r][v] = init;
            }
        }
    }
    for (int64_t k = 0; k < K; k++) {
        const float *brow = B + k * ldb;
#pragma GCC unroll 8
        for (int v = 0; v < V; v++)
            b[v] = _mm512_maskz_loadu_ps(v == V - 1 ? tail : 0xffff, brow + 16 * v);
        const float *a = A + k * a_col;
#pragma GCC unroll 8
        for (int r = 0; r < R; r++) {
            __m512 x = _mm512_set1_ps(a[r * a_row]);
#pragma GCC unroll 8
            for (int v = 0; v < V; v++)
                c[r][v] = _mm512_fmadd_ps(x, b[v], c[r][v]);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; r++)
#pragma GCC unroll 8
        for (int v = 0; v < V; v++)
            _mm512_mask_storeu_ps(C + r * ldc + 16 * v, v == V - 1 ? tail : 0xffff,
                                  relu ? _mm512_max_ps(c[r][v], _mm512_setzero_ps()) : c[r][v]);
}

#define TILE512(R, V) \
    tile512(C, ldc, A, a_row, a_col, B, ldb, bias, K, accumulate, relu, R, V, tail)

static T512 void block512(float *C, int64_t ldc, const float *A, int64_t a_row, int64_t a_col,
                          const float *B, int64_t ldb, const float *bias, int64_t K,
                          bool accumulate, bool relu, int R, int V, int width)
{
    __mmask16 tail = (__mmask16)(width - 16 * (V - 1) >= 16 ? 0xffff
                                                           : (1u << (width - 16 * (V - 1))) - 1);
    switch (R * 8 + V) {
#define CASE(r, v) case r * 8 + v: TILE512(r, v); break;
    CASE(1, 1) CASE(1, 2) CASE(1, 3) CASE(1, 4) CASE(1, 5)
    CASE(2, 1) CASE(2, 2) CASE(2, 3) CASE(2, 4) CASE(2, 5)
    CASE(3, 1) CASE(3, 2) CASE(3, 3) CASE(3, 4) CASE(3, 5)
    CASE(4, 1) CASE(4, 2) CASE(4, 3) CASE(4, 4) CASE(4, 5)
#undef CASE
    }
}

static T512 void gemm512(float *C, int64_t ldc, const float *A, int64_t a_row, int64_t a_col,
                         const float *B, int64_t ldb, const float *bias, int64_t M, int N,
                         int64_t K, bool accumulate, bool relu)
{
    // columns in blocks of at most 5 vectors, as even as can be
    int vectors = (N + 15) / 16;
    int blocks = (vectors + 4) / 5;
    for (int blk = 0, v0 = 0; blk < blocks; blk++) {
        int V = (vectors - v0 + (blocks - blk) - 1) / (blocks - blk);
        int j0 = 16 * v0, width = N - j0 < 16 * V ? N - j0 : 16 * V;
        for (int64_t i = 0; i < M; i += 4) {
            int R = M - i < 4 ? (int)(M - i) : 4;
            block512(C + i * ldc + j0, ldc, A + i * a_row, a_row, a_col, B + j0, ldb,
                     bias ? bias + j0 : NULL, K, accumulate, relu, R, V, width);
        }
        v0 += V;
    }
}

/* ---- AVX2 + FMA: 8 floats a vector, tiles up to 4 rows × 3 vectors -------- */

#define T256 __attribute__((target("avx2,fma")))

INLINE T256 __m256i mask256(int lanes)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(lanes), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

INLINE T256 void tile256(float *C, int64_t ldc, const float *A, int64_t a_row, int64_t a_col,
                         const float *B, int64_t ldb, const float *bias, int64_t K, bool accumulate,
                         bool relu, const int R, const int V, const bool part, __m256i tail)
{
    // AMD's masked stores are microcoded (several cycles each): a vector
    // whose lanes are all in the row is loaded and stored plainly, and only
    // a partial last vector (part) goes through the mask.
    __m256 c[4][3], b[3];
#define LOAD(p, v) ((part && (v) == V - 1) ? _mm256_maskload_ps((p), tail) : _mm256_loadu_ps(p))
#pragma GCC unroll 8
    for (int v = 0; v < V; v++) {
        __m256 init = bias ? LOAD(bias + 8 * v, v) : _mm256_setzero_ps();
#pragma GCC unroll 8
        for (int r = 0; r < R; r++) {
            if (accumulate) {
                c[r][v] = LOAD(C + r * ldc + 8 * v, v);
                if (bias)
                    c[r][v] = _mm256_add_ps(c[r][v], init);
            } else {
                c[r][v] = init;
            }
        }
    }
    for (int64_t k = 0; k < K; k++) {
        const float *brow = B + k * ldb;
#pragma GCC unroll 8
        for (int v = 0; v < V; v++)
            b[v] = LOAD(brow + 8 * v, v);
        const float *a = A + k * a_col;
#pragma GCC unroll 8
        for (int r = 0; r < R; r++) {
            __m256 x = _mm256_broadcast_ss(a + r * a_row);
#pragma GCC unroll 8
            for (int v = 0; v < V; v++)
                c[r][v] = _mm256_fmadd_ps(x, b[v], c[r][v]);
        }
    }
#undef LOAD
#pragma GCC unroll 8
    for (int r = 0; r < R; r++)
#pragma GCC unroll 8
        for (int v = 0; v < V; v++) {
            __m256 out = relu ? _mm256_max_ps(c[r][v], _mm256_setzero_ps()) : c[r][v];
            if (part && v == V - 1)
                _mm256_maskstore_ps(C + r * ldc + 8 * v, tail, out);
            else
                _mm256_storeu_ps(C + r * ldc + 8 * v, out);
        }
}

#define TILE256(R, V, P) \
    tile256(C, ldc, A, a_row, a_col, B, ldb, bias, K, accumulate, relu, R, V, P, tail)

static T256 void block256(float *C, int64_t ldc, const float *A, int64_t a_row, int64_t a_col,
                          const float *B, int64_t ldb, const float *bias, int64_t K,
                          bool accumulate, bool relu, int R, int V, int width)
{
    int lanes = width - 8 * (V - 1);
    __m256i tail = mask256(lanes);
    switch ((R * 8 + V) * 2 + (lanes < 8)) {
#define CASE(r, v) case (r * 8 + v) * 2: TILE256(r, v, false); break; \
                   case (r * 8 + v) * 2 + 1: TILE256(r, v, true); break;
    CASE(1, 1) CASE(1, 2) CASE(1, 3)
    CASE(2, 1) CASE(2, 2) CASE(2, 3)
    CASE(3, 1) CASE(3, 2) CASE(3, 3)
    CASE(4, 1) CASE(4, 2) CASE(4, 3)
#undef CASE
    }
}

static T256 void gemm256(float *C, int64_t ldc, const float *A, int64_t a_row, int64_t a_col,
                         const float *B, int64_t ldb, const float *bias, int64_t M, int N,
                         int64_t K, bool accumulate, bool relu)
{
    int vectors = (N + 7) / 8;
    int blocks = (vectors + 2) / 3;
    for (int blk = 0, v0 = 0; blk < blocks; blk++) {
        int V = (vectors - v0 + (blocks - blk) - 1) / (blocks - blk);
        int j0 = 8 * v0, width = N - j0 < 8 * V ? N - j0 : 8 * V;
        for (int64_t i = 0; i < M; i += 4) {
            int R = M - i < 4 ? (int)(M - i) : 4;
            block256(C + i * ldc + j0, ldc, A + i * a_row, a_row, a_col, B + j0, ldb,
                     bias ? bias + j0 : NULL, K, accumulate, relu, R, V, width);
        }
        v0 += V;
    }
}

static int isa_present(void)
{
    static int level = -1;
    if (level < 0) {
        __builtin_cpu_init();
        level = __builtin_cpu_supports("avx512f") ? 2
              : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 1 : 0;
    }
    return level;
}
#else
static int isa_present(void) { return 0; }
#endif

static int isa_limit = 2;

int gemm_limit_isa(int level)
{
    int previous = isa_limit;
    isa_limit = level;
    return previous;
}

static int isa(void)
{
    int level = isa_present();
    return level < isa_limit ? level : isa_limit;
}

bool gemm_available(void) { return isa() > 0; }

const char *gemm_kernel_name(void)
{
    static const char *const names[] = {"none", "avx2", "avx512"};
    return names[isa()];
}

static void chain(float *C, int64_t ldc, const float *A, int64_t a_row, int64_t a_col,
                  const float *B, int64_t ldb, const float *bias, int64_t M, int N, int64_t K,
                  bool accumulate, bool relu)
{
    if (M <= 0 || N <= 0)
        return;
#if defined(__x86_64__) && defined(__GNUC__)
    switch (isa()) {
    case 2: gemm512(C, ldc, A, a_row, a_col, B, ldb, bias, M, N, K, accumulate, relu); return;
    case 1: gemm256(C, ldc, A, a_row, a_col, B, ldb, bias, M, N, K, accumulate, relu); return;
    }
#endif
    chain_naive(C, ldc, A, a_row, a_col, B, ldb, bias, M, N, K, accumulate, relu);
}

void gemm_chain(float *C, int64_t ldc, const float *A, int64_t a_row, int64_t a_col,
                const float *B, int64_t ldb, const float *bias, int64_t M, int N, int64_t K,
                bool accumulate)
{
    // C is (M,N) with row stride ldc, A(i,k) = A[i*a_row + k*a_col], B is (K,N) with row stride ldb
    chain(C, ldc, A, a_row, a_col, B, ldb, bias, M, N, K, accumulate, false);
}

void gemm_chain_relu(float *C, int64_t ldc, const float *A, int64_t a_row, int64_t a_col,
                     const float *B, int64_t ldb, const float *bias, int64_t M, int N, int64_t K,
                     bool accumulate)
{
    // as gemm_chain, then C = C > 0 ? C : 0 on the way out
    chain(C, ldc, A, a_row, a_col, B, ldb, bias, M, N, K, accumulate, true);
}

