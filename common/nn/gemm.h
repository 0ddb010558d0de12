/* gemm.h - the model's small dense products, with every output element
 * computed in one fixed order, so the bits do not depend on the CPU's
 * vector width, on tiling, nor on threads.
 *
 *   C[i,j] = init[i,j] ∘ A(i,0)·B[0,j] ∘ A(i,1)·B[1,j] ∘ … ∘ A(i,K−1)·B[K−1,j]
 *
 * where ∘ is a fused multiply-add (one rounding) and init[i,j] is C[i,j]
 * (accumulate), else 0, plus bias[j] when bias is given (one rounded add).
 * A(i,k) = A[i·a_row + k·a_col], so A may be read transposed (dW = doutᵀ·in)
 * at no cost; B is row-major K×N with row stride ldb; C has row stride ldc.
 *
 * The same chain is computed by an AVX-512 kernel, an AVX2+FMA kernel and
 * the scalar fmaf loop of gemm_chain_naive: all three give the same bits.
 * The kernels are chosen at run time; a CPU with neither (gemm_available()
 * false) is left to the caller (layers.c then uses OpenBLAS). */
#ifndef DAR_GEMM_H
#define DAR_GEMM_H
#include <stdbool.h>
#include <stdint.h>

/* An AVX2+FMA or AVX-512 kernel runs on this CPU. */
bool gemm_available(void);
/* "avx512", "avx2" or "none". */
const char *gemm_kernel_name(void);
/* Testing: use at most this instruction set (2 = AVX-512, 1 = AVX2, 0 =
 * none); returns the previous limit. */
int gemm_limit_isa(int level);

void gemm_chain(float *C, int64_t ldc, const float *A, int64_t a_row, int64_t a_col,
                const float *B, int64_t ldb, const float *bias, int64_t M, int N, int64_t K,
                bool accumulate);
void gemm_chain_naive(float *C, int64_t ldc, const float *A, int64_t a_row, int64_t a_col,
                      const float *B, int64_t ldb, const float *bias, int64_t M, int N, int64_t K,
                      bool accumulate);
/* gemm_chain then relu (C = C > 0 ? C : 0, NaN and −0 giving +0) as each
 * element is stored: one pass over C instead of two. */
void gemm_chain_relu(float *C, int64_t ldc, const float *A, int64_t a_row, int64_t a_col,
                     const float *B, int64_t ldb, const float *bias, int64_t M, int N, int64_t K,
                     bool accumulate);
void gemm_chain_relu_naive(float *C, int64_t ldc, const float *A, int64_t a_row, int64_t a_col,
                           const float *B, int64_t ldb, const float *bias, int64_t M, int N,
                           int64_t K, bool accumulate);

#endif
