#include "core/model/attention_score_rows.h"

#include "core/model/vector_clones.h"
#include "core/model/vector_math.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define FOVEA_SCORE_ROW_INTRINSICS 1
#endif

namespace fovea {

namespace {

/// The plain loops: the division as written (the compiler's clones vectorise them).
FOVEA_VECTOR_CLONES float plain_row(const float* ep, const float* eq, const float* w, std::int64_t A) {
  float lanes[kReductionLanes] = {};
  std::int64_t a = 0;
  for (; a + kReductionLanes <= A; a += kReductionLanes) {
    for (int j = 0; j < kReductionLanes; ++j) {
      lanes[j] += w[a + j] * (1.0f - 2.0f / (ep[a + j] * eq[a + j] + 1.0f));
    }
  }
  float s = 0;
  for (; a < A; ++a) s += w[a] * (1.0f - 2.0f / (ep[a] * eq[a] + 1.0f));
  for (int j = 0; j < kReductionLanes; ++j) s += lanes[j];
  return s;
}

template <bool kProjection>
FOVEA_VECTOR_CLONES void plain_backward(const float* __restrict ep, const float* __restrict eq, float de,
                                        const float* __restrict w, float* __restrict grad_p,
                                        float* __restrict grad_q, float* __restrict grad_w, std::int64_t A) {
  for (std::int64_t a = 0; a < A; ++a) {
    const float s = 2.0f / (ep[a] * eq[a] + 1.0f);
    const float g = de * w[a] * (s * (2.0f - s));
    if constexpr (kProjection) grad_p[a] += g;
    grad_q[a] += g;
    grad_w[a] += de * (1.0f - s);
  }
}

void plain_row_backward(const float* ep, const float* eq, float de, const float* w, float* grad_p, float* grad_q,
                        float* grad_w, std::int64_t A) {
  if (grad_p) {
    plain_backward<true>(ep, eq, de, w, grad_p, grad_q, grad_w, A);
  } else {
    plain_backward<false>(ep, eq, de, w, grad_p, grad_q, grad_w, A);
  }
}

constexpr float kLargestDenominator = 8.507059e37f;  // 2^126: its reciprocal is still a normal float

#ifdef FOVEA_SCORE_ROW_INTRINSICS
// GCC 12's intrinsics start some results from a deliberately undefined register (_mm512_undefined_ps)
// and then warn, once inlined here, that it is uninitialised.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define FOVEA_AVX512 __attribute__((target("avx512f")))
#define FOVEA_AVX2 __attribute__((target("avx2,fma")))

/// 2 / d for d = ep eq + 1 >= 1 over 16 lanes.
FOVEA_AVX512 inline __m512 two_over_512(__m512 ep, __m512 eq) {
  const __m512 one = _mm512_set1_ps(1.0f);
  // The minimum returns its second operand when either is NaN: a NaN stays NaN.
  const __m512 d = _mm512_min_ps(_mm512_set1_ps(kLargestDenominator), _mm512_fmadd_ps(ep, eq, one));
  const __m512 r = _mm512_rcp14_ps(d);
  const __m512 refined = _mm512_fmadd_ps(r, _mm512_fnmadd_ps(d, r, one), r);
  return _mm512_add_ps(refined, refined);
}

FOVEA_AVX512 float avx512_row(const float* ep, const float* eq, const float* w, std::int64_t A) {
  const __m512 one = _mm512_set1_ps(1.0f);
  __m512 sum = _mm512_setzero_ps();
  for (std::int64_t a = 0; a < A; a += 16) {
    const __mmask16 m = A - a >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (A - a)) - 1);
    const __m512 s = two_over_512(_mm512_maskz_loadu_ps(m, ep + a), _mm512_maskz_loadu_ps(m, eq + a));
    sum = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, w + a), _mm512_sub_ps(one, s), sum);  // w = 0 past A
  }
  return _mm512_reduce_add_ps(sum);
}

FOVEA_AVX512 void avx512_row_backward(const float* ep, const float* eq, float de, const float* w, float* grad_p,
                                     float* grad_q, float* grad_w, std::int64_t A) {
  const __m512 one = _mm512_set1_ps(1.0f), two = _mm512_set1_ps(2.0f), d = _mm512_set1_ps(de);
  for (std::int64_t a = 0; a < A; a += 16) {
    const __mmask16 m = A - a >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (A - a)) - 1);
    const __m512 s = two_over_512(_mm512_maskz_loadu_ps(m, ep + a), _mm512_maskz_loadu_ps(m, eq + a));
    const __m512 dw = _mm512_mul_ps(d, _mm512_maskz_loadu_ps(m, w + a));
    const __m512 g = _mm512_mul_ps(dw, _mm512_mul_ps(s, _mm512_sub_ps(two, s)));
    if (grad_p) _mm512_mask_storeu_ps(grad_p + a, m, _mm512_add_ps(_mm512_maskz_loadu_ps(m, grad_p + a), g));
    _mm512_mask_storeu_ps(grad_q + a, m, _mm512_add_ps(_mm512_maskz_loadu_ps(m, grad_q + a), g));
    _mm512_mask_storeu_ps(grad_w + a, m, _mm512_fmadd_ps(d, _mm512_sub_ps(one, s), _mm512_maskz_loadu_ps(m, grad_w + a)));
  }
}

/// 2 / d over 8 lanes; rcpps is within 1.5 · 2^-12, one Newton step brings it to about 2^-23.
FOVEA_AVX2 inline __m256 two_over_256(__m256 ep, __m256 eq) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 d = _mm256_min_ps(_mm256_set1_ps(kLargestDenominator), _mm256_fmadd_ps(ep, eq, one));
  const __m256 r = _mm256_rcp_ps(d);
  const __m256 refined = _mm256_fmadd_ps(r, _mm256_fnmadd_ps(d, r, one), r);
  return _mm256_add_ps(refined, refined);
}

FOVEA_AVX2 float avx2_row(const float* ep, const float* eq, const float* w, std::int64_t A) {
  const __m256 one = _mm256_set1_ps(1.0f);
  __m256 sum0 = _mm256_setzero_ps(), sum1 = _mm256_setzero_ps();
  std::int64_t a = 0;
  for (; a + 16 <= A; a += 16) {
    const __m256 s0 = two_over_256(_mm256_loadu_ps(ep + a), _mm256_loadu_ps(eq + a));
    const __m256 s1 = two_over_256(_mm256_loadu_ps(ep + a + 8), _mm256_loadu_ps(eq + a + 8));
    sum0 = _mm256_fmadd_ps(_mm256_loadu_ps(w + a), _mm256_sub_ps(one, s0), sum0);
    sum1 = _mm256_fmadd_ps(_mm256_loadu_ps(w + a + 8), _mm256_sub_ps(one, s1), sum1);
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, _mm256_add_ps(sum0, sum1));
  float total = 0;
  for (; a < A; ++a) total += w[a] * (1.0f - 2.0f / (ep[a] * eq[a] + 1.0f));
  for (float lane : lanes) total += lane;
  return total;
}

FOVEA_AVX2 void avx2_row_backward(const float* ep, const float* eq, float de, const float* w, float* grad_p,
                                  float* grad_q, float* grad_w, std::int64_t A) {
  const __m256 one = _mm256_set1_ps(1.0f), two = _mm256_set1_ps(2.0f), d = _mm256_set1_ps(de);
  std::int64_t a = 0;
  for (; a + 8 <= A; a += 8) {
    const __m256 s = two_over_256(_mm256_loadu_ps(ep + a), _mm256_loadu_ps(eq + a));
    const __m256 g = _mm256_mul_ps(_mm256_mul_ps(d, _mm256_loadu_ps(w + a)), _mm256_mul_ps(s, _mm256_sub_ps(two, s)));
    if (grad_p) _mm256_storeu_ps(grad_p + a, _mm256_add_ps(_mm256_loadu_ps(grad_p + a), g));
    _mm256_storeu_ps(grad_q + a, _mm256_add_ps(_mm256_loadu_ps(grad_q + a), g));
    _mm256_storeu_ps(grad_w + a, _mm256_fmadd_ps(d, _mm256_sub_ps(one, s), _mm256_loadu_ps(grad_w + a)));
  }
  if (a < A) plain_row_backward(ep + a, eq + a, de, w + a, grad_p ? grad_p + a : nullptr, grad_q + a, grad_w + a, A - a);
}

#undef FOVEA_AVX512
#undef FOVEA_AVX2
#pragma GCC diagnostic pop
#endif

struct ScoreRows {
  float (*row)(const float*, const float*, const float*, std::int64_t);
  void (*backward)(const float*, const float*, float, const float*, float*, float*, float*, std::int64_t);
  const char* form;
};

ScoreRows pick_score_rows() {
#ifdef FOVEA_SCORE_ROW_INTRINSICS
  __builtin_cpu_init();
#ifndef FOVEA_NO_AVX512_KERNELS
  if (__builtin_cpu_supports("avx512f")) return {avx512_row, avx512_row_backward, "AVX-512"};
#endif
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return {avx2_row, avx2_row_backward, "AVX2"};
#endif
  return {plain_row, plain_row_backward, "plain"};
}

const ScoreRows& score_rows() {
  static const ScoreRows rows = pick_score_rows();
  return rows;
}

}  // namespace

float exponential_score_row(const float* ep, const float* eq, const float* w, std::int64_t A) {
  return score_rows().row(ep, eq, w, A);
}

void exponential_score_row_backward(const float* ep, const float* eq, float de, const float* w, float* grad_p,
                                    float* grad_q, float* grad_w, std::int64_t A) {
  score_rows().backward(ep, eq, de, w, grad_p, grad_q, grad_w, A);
}

const char* exponential_score_rows_form() { return score_rows().form; }

}  // namespace fovea
