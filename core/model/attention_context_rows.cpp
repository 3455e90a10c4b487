#include "core/model/attention_context_rows.h"

#include <algorithm>
#include <vector>

#include "core/model/vector_clones.h"
#include "core/model/vector_math.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define FOVEA_CONTEXT_ROW_INTRINSICS 1
#endif

namespace fovea {

namespace {

FOVEA_VECTOR_CLONES void plain_context_row(const float* alpha, const std::uint16_t* a, float* out, std::int64_t L,
                                           std::int64_t D) {
  std::fill(out, out + D, 0.0f);
  for (std::int64_t l = 0; l < L; ++l) {
    const float w = alpha[l];
    const std::uint16_t* row = a + l * D;
    for (std::int64_t d = 0; d < D; ++d) out[d] += w * from_bf16_bits(row[d]);
  }
}

/// g · row over D, in kReductionLanes partial sums so that the loop vectorises.
FOVEA_VECTOR_CLONES float plain_dot(const float* g, const std::uint16_t* row, std::int64_t D) {
  float lanes[kReductionLanes] = {};
  std::int64_t d = 0;
  for (; d + kReductionLanes <= D; d += kReductionLanes) {
    for (int j = 0; j < kReductionLanes; ++j) lanes[j] += g[d + j] * from_bf16_bits(row[d + j]);
  }
  float s = 0;
  for (; d < D; ++d) s += g[d] * from_bf16_bits(row[d]);
  for (int j = 0; j < kReductionLanes; ++j) s += lanes[j];
  return s;
}

void plain_alpha_gradient(const float* g, const std::uint16_t* a, float* grad_alpha, std::int64_t L, std::int64_t D) {
  for (std::int64_t l = 0; l < L; ++l) grad_alpha[l] = plain_dot(g, a + l * D, D);
}

#ifdef FOVEA_CONTEXT_ROW_INTRINSICS
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define FOVEA_AVX512 __attribute__((target("avx512f")))

/// 32 bf16 values as floats: the even-numbered ones and the odd-numbered ones.
FOVEA_AVX512 inline void widen_pairs(const std::uint16_t* p, __m512& even, __m512& odd) {
  const __m512i v = _mm512_loadu_si512(p);
  even = _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));
  odd = _mm512_castsi512_ps(_mm512_and_si512(v, _mm512_set1_epi32(int(0xFFFF0000u))));
}

/// Sums over the L rows for columns [d0, d0 + 32 kBlocks), kept in registers, written in order.
template <int kBlocks>
FOVEA_AVX512 void context_columns(const float* alpha, const std::uint16_t* a, float* out, std::int64_t L,
                                  std::int64_t D, std::int64_t d0) {
  __m512 even[kBlocks], odd[kBlocks];
  for (int k = 0; k < kBlocks; ++k) even[k] = odd[k] = _mm512_setzero_ps();
  for (std::int64_t l = 0; l < L; ++l) {
    const __m512 w = _mm512_set1_ps(alpha[l]);
    const std::uint16_t* row = a + l * D + d0;
    for (int k = 0; k < kBlocks; ++k) {
      __m512 e, o;
      widen_pairs(row + 32 * k, e, o);
      even[k] = _mm512_fmadd_ps(w, e, even[k]);
      odd[k] = _mm512_fmadd_ps(w, o, odd[k]);
    }
  }
  const __m512i first = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
  const __m512i second = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
  for (int k = 0; k < kBlocks; ++k) {
    _mm512_storeu_ps(out + d0 + 32 * k, _mm512_permutex2var_ps(even[k], first, odd[k]));
    _mm512_storeu_ps(out + d0 + 32 * k + 16, _mm512_permutex2var_ps(even[k], second, odd[k]));
  }
}

FOVEA_AVX512 void avx512_context_row(const float* alpha, const std::uint16_t* a, float* out, std::int64_t L,
                                     std::int64_t D) {
  const std::int64_t whole = D / 32 * 32;
  std::int64_t d0 = 0;
  for (; d0 + 256 <= whole; d0 += 256) context_columns<8>(alpha, a, out, L, D, d0);
  for (; d0 < whole; d0 += 32) context_columns<1>(alpha, a, out, L, D, d0);
  if (whole == D) return;
  std::fill(out + whole, out + D, 0.0f);
  for (std::int64_t l = 0; l < L; ++l) {
    for (std::int64_t d = whole; d < D; ++d) out[d] += alpha[l] * from_bf16_bits(a[l * D + d]);
  }
}

FOVEA_AVX512 void avx512_alpha_gradient(const float* g, const std::uint16_t* a, float* grad_alpha, std::int64_t L,
                                        std::int64_t D) {
  const std::int64_t whole = D / 32 * 32;
  // g in the order widen_pairs reads a row: per 32 columns, the even ones, then the odd ones.
  thread_local std::vector<float> paired;  // kept from call to call: one call an image at every word
  paired.resize(std::size_t(whole));
  for (std::int64_t d0 = 0; d0 < whole; d0 += 32) {
    for (int j = 0; j < 16; ++j) {
      paired[std::size_t(d0 + j)] = g[d0 + 2 * j];
      paired[std::size_t(d0 + 16 + j)] = g[d0 + 2 * j + 1];
    }
  }
  for (std::int64_t l = 0; l < L; ++l) {
    const std::uint16_t* row = a + l * D;
    __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
    for (std::int64_t d0 = 0; d0 < whole; d0 += 32) {
      __m512 e, o;
      widen_pairs(row + d0, e, o);
      s0 = _mm512_fmadd_ps(e, _mm512_loadu_ps(paired.data() + d0), s0);
      s1 = _mm512_fmadd_ps(o, _mm512_loadu_ps(paired.data() + d0 + 16), s1);
    }
    float s = _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
    for (std::int64_t d = whole; d < D; ++d) s += g[d] * from_bf16_bits(row[d]);
    grad_alpha[l] = s;
  }
}

#undef FOVEA_AVX512
#pragma GCC diagnostic pop
#endif

struct ContextRows {
  void (*row)(const float*, const std::uint16_t*, float*, std::int64_t, std::int64_t);
  void (*alpha_gradient)(const float*, const std::uint16_t*, float*, std::int64_t, std::int64_t);
};

ContextRows pick_context_rows() {
#if defined(FOVEA_CONTEXT_ROW_INTRINSICS) && !defined(FOVEA_NO_AVX512_KERNELS)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return {avx512_context_row, avx512_alpha_gradient};
#endif
  return {plain_context_row, plain_alpha_gradient};
}

const ContextRows& context_rows() {
  static const ContextRows rows = pick_context_rows();
  return rows;
}

}  // namespace

void bf16_context_row(const float* alpha, const std::uint16_t* a, float* out, std::int64_t L, std::int64_t D) {
  context_rows().row(alpha, a, out, L, D);
}

void bf16_context_alpha_gradient(const float* g, const std::uint16_t* a, float* grad_alpha, std::int64_t L,
                                 std::int64_t D) {
  context_rows().alpha_gradient(g, a, grad_alpha, L, D);
}

}  // namespace fovea
