// The scores' rows with e^2p in bf16 (core/model/attention_score_rows.h): r = 1 / (e^2p e^2q + 1)
// from the reciprocal estimate alone, tanh = 1 − 2r, 1 − tanh² = 4 (r − r²).
#include <algorithm>
#include <vector>

#include "core/model/attention_score_rows.h"
#include "core/model/vector_clones.h"
#include "core/model/vector_math.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define FOVEA_SCORE_ROW_INTRINSICS 1
#endif

namespace fovea {

namespace {

/// The backward's sums over an image's rows, per cell a: Σ_l 4 de[l] (r − r²), and Σ_l de[l] r.
/// Kept apart from grad_q and grad_w (rows padded to the widest vector, zeros past A) and turned
/// into their terms once the rows are done. The thread's own buffers, kept from call to call (the
/// backward runs once for each image at every word).
struct RowSums {
  explicit RowSums(std::int64_t A) : q(buffer(0, A)), w(buffer(1, A)) {}
  std::vector<float>& q;
  std::vector<float>& w;

 private:
  static std::vector<float>& buffer(int k, std::int64_t A) {
    thread_local std::vector<float> buffers[2];
    buffers[k].assign(std::size_t((A + 15) / 16 * 16), 0.0f);
    return buffers[k];
  }
};

/// grad_q += w ⊙ Σ 4 de (r − r²); grad_w += Σ de (1 − 2r) = Σ de − 2 Σ de r.
void add_row_sums(const RowSums& sums, const float* de, std::int64_t L, const float* w, float* grad_q, float* grad_w,
                  std::int64_t A) {
  float de_sum = 0.0f;
  for (std::int64_t l = 0; l < L; ++l) de_sum += de[l];
  for (std::int64_t a = 0; a < A; ++a) {
    grad_q[a] += w[a] * sums.q[std::size_t(a)];
    grad_w[a] += de_sum - 2.0f * sums.w[std::size_t(a)];
  }
}

/// Σ_a w[a], which turns Σ w (1 − 2r) into Σ w − 2 Σ w r.
float weight_sum(const float* w, std::int64_t A) {
  float s = 0.0f;
  for (std::int64_t a = 0; a < A; ++a) s += w[a];
  return s;
}

/// The plain loops divide.
FOVEA_VECTOR_CLONES void plain_scores(const std::uint16_t* ep, std::int64_t L, const float* eq, const float* w,
                                      std::int64_t A, float* out) {
  const float w_sum = weight_sum(w, A);
  for (std::int64_t l = 0; l < L; ++l) {
    const std::uint16_t* row = ep + l * A;
    float lanes[kReductionLanes] = {};
    std::int64_t a = 0;
    for (; a + kReductionLanes <= A; a += kReductionLanes) {
      for (int j = 0; j < kReductionLanes; ++j) lanes[j] += w[a + j] / (from_bf16_bits(row[a + j]) * eq[a + j] + 1.0f);
    }
    float s = 0.0f;
    for (; a < A; ++a) s += w[a] / (from_bf16_bits(row[a]) * eq[a] + 1.0f);
    for (int j = 0; j < kReductionLanes; ++j) s += lanes[j];
    out[l] = w_sum - 2.0f * s;
  }
}

FOVEA_VECTOR_CLONES void plain_row_sums(const std::uint16_t* __restrict row, const float* __restrict eq, float de,
                                        const float* __restrict w, float* __restrict grad_p, float* __restrict sum_q,
                                        float* __restrict sum_w, std::int64_t A) {
  const float de4 = 4.0f * de;
  for (std::int64_t a = 0; a < A; ++a) {
    const float r = 1.0f / (from_bf16_bits(row[a]) * eq[a] + 1.0f);
    const float t = r - r * r;
    if (grad_p) grad_p[a] += t * (de4 * w[a]);
    sum_q[a] += de4 * t;
    sum_w[a] += de * r;
  }
}

void plain_scores_backward(const std::uint16_t* ep, std::int64_t L, const float* eq, const float* de, const float* w,
                           float* grad_p, float* grad_q, float* grad_w, std::int64_t A) {
  RowSums sums(A);
  for (std::int64_t l = 0; l < L; ++l) {
    plain_row_sums(ep + l * A, eq, de[l], w, grad_p ? grad_p + l * A : nullptr, sums.q.data(), sums.w.data(), A);
  }
  add_row_sums(sums, de, L, w, grad_q, grad_w, A);
}

#ifdef FOVEA_SCORE_ROW_INTRINSICS
// GCC 12's intrinsics start some results from a deliberately undefined register (_mm512_undefined_ps)
// and then warn, once inlined here, that it is uninitialised.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define FOVEA_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))
#define FOVEA_AVX2 __attribute__((target("avx2,fma")))

/// 1 / (e^2p e^2q + 1) over 16 lanes, the first m of them read (zeros after: r = 1 there).
FOVEA_AVX512 inline __m512 reciprocal_512(__mmask16 m, const std::uint16_t* ep, const float* eq) {
  const __m512 keys = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(m, ep)), 16));
  return _mm512_rcp14_ps(_mm512_fmadd_ps(keys, _mm512_maskz_loadu_ps(m, eq), _mm512_set1_ps(1.0f)));
}

FOVEA_AVX512 inline __mmask16 lanes_512(std::int64_t left) {
  return left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
}

FOVEA_AVX512 void avx512_scores(const std::uint16_t* ep, std::int64_t L, const float* eq, const float* w,
                                std::int64_t A, float* out) {
  const float w_sum = weight_sum(w, A);
  for (std::int64_t l = 0; l < L; ++l) {
    const std::uint16_t* row = ep + l * A;
    __m512 sum = _mm512_setzero_ps();
    for (std::int64_t a = 0; a < A; a += 16) {
      const __mmask16 m = lanes_512(A - a);
      sum = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, w + a), reciprocal_512(m, row + a, eq + a), sum);  // w = 0 past A
    }
    out[l] = w_sum - 2.0f * _mm512_reduce_add_ps(sum);
  }
}

FOVEA_AVX512 void avx512_scores_backward(const std::uint16_t* ep, std::int64_t L, const float* eq, const float* de,
                                         const float* w, float* grad_p, float* grad_q, float* grad_w, std::int64_t A) {
  RowSums sums(A);
  float* sum_q = sums.q.data();
  float* sum_w = sums.w.data();
  for (std::int64_t l = 0; l < L; ++l) {
    const std::uint16_t* row = ep + l * A;
    float* gp = grad_p ? grad_p + l * A : nullptr;
    const __m512 d = _mm512_set1_ps(de[l]), d4 = _mm512_set1_ps(4.0f * de[l]);
    for (std::int64_t a = 0; a < A; a += 16) {
      const __mmask16 m = lanes_512(A - a);
      const __m512 r = reciprocal_512(m, row + a, eq + a);
      const __m512 t = _mm512_fnmadd_ps(r, r, r);  // r − r²
      if (gp) {
        const __m512 g = _mm512_mul_ps(t, _mm512_mul_ps(d4, _mm512_maskz_loadu_ps(m, w + a)));
        _mm512_mask_storeu_ps(gp + a, m, _mm512_add_ps(_mm512_maskz_loadu_ps(m, gp + a), g));
      }
      _mm512_storeu_ps(sum_q + a, _mm512_fmadd_ps(d4, t, _mm512_loadu_ps(sum_q + a)));  // sums are padded
      _mm512_storeu_ps(sum_w + a, _mm512_fmadd_ps(d, r, _mm512_loadu_ps(sum_w + a)));
    }
  }
  add_row_sums(sums, de, L, w, grad_q, grad_w, A);
}

/// 1 / (e^2p e^2q + 1) over 8 lanes.
FOVEA_AVX2 inline __m256 reciprocal_256(const std::uint16_t* ep, const float* eq) {
  const __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ep));
  const __m256 keys = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16));
  return _mm256_rcp_ps(_mm256_fmadd_ps(keys, _mm256_loadu_ps(eq), _mm256_set1_ps(1.0f)));
}

FOVEA_AVX2 float horizontal_sum(__m256 v) {
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, v);
  float s = 0.0f;
  for (float lane : lanes) s += lane;
  return s;
}

FOVEA_AVX2 void avx2_scores(const std::uint16_t* ep, std::int64_t L, const float* eq, const float* w, std::int64_t A,
                            float* out) {
  const float w_sum = weight_sum(w, A);
  for (std::int64_t l = 0; l < L; ++l) {
    const std::uint16_t* row = ep + l * A;
    __m256 sum = _mm256_setzero_ps();
    std::int64_t a = 0;
    for (; a + 8 <= A; a += 8) sum = _mm256_fmadd_ps(_mm256_loadu_ps(w + a), reciprocal_256(row + a, eq + a), sum);
    float s = horizontal_sum(sum);
    for (; a < A; ++a) s += w[a] / (from_bf16_bits(row[a]) * eq[a] + 1.0f);
    out[l] = w_sum - 2.0f * s;
  }
}

FOVEA_AVX2 void avx2_scores_backward(const std::uint16_t* ep, std::int64_t L, const float* eq, const float* de,
                                     const float* w, float* grad_p, float* grad_q, float* grad_w, std::int64_t A) {
  RowSums sums(A);
  float* sum_q = sums.q.data();
  float* sum_w = sums.w.data();
  const std::int64_t vectors = A / 8 * 8;
  for (std::int64_t l = 0; l < L; ++l) {
    const std::uint16_t* row = ep + l * A;
    float* gp = grad_p ? grad_p + l * A : nullptr;
    const __m256 d = _mm256_set1_ps(de[l]), d4 = _mm256_set1_ps(4.0f * de[l]);
    for (std::int64_t a = 0; a < vectors; a += 8) {
      const __m256 r = reciprocal_256(row + a, eq + a);
      const __m256 t = _mm256_fnmadd_ps(r, r, r);
      if (gp) {
        const __m256 g = _mm256_mul_ps(t, _mm256_mul_ps(d4, _mm256_loadu_ps(w + a)));
        _mm256_storeu_ps(gp + a, _mm256_add_ps(_mm256_loadu_ps(gp + a), g));
      }
      _mm256_storeu_ps(sum_q + a, _mm256_fmadd_ps(d4, t, _mm256_loadu_ps(sum_q + a)));
      _mm256_storeu_ps(sum_w + a, _mm256_fmadd_ps(d, r, _mm256_loadu_ps(sum_w + a)));
    }
    if (vectors < A) {
      plain_row_sums(row + vectors, eq + vectors, de[l], w + vectors, gp ? gp + vectors : nullptr, sum_q + vectors,
                     sum_w + vectors, A - vectors);
    }
  }
  add_row_sums(sums, de, L, w, grad_q, grad_w, A);
}

#undef FOVEA_AVX512
#undef FOVEA_AVX2
#pragma GCC diagnostic pop
#endif

struct Bf16ScoreRows {
  void (*scores)(const std::uint16_t*, std::int64_t, const float*, const float*, std::int64_t, float*);
  void (*backward)(const std::uint16_t*, std::int64_t, const float*, const float*, const float*, float*, float*, float*,
                   std::int64_t);
};

Bf16ScoreRows pick_bf16_score_rows() {
#ifdef FOVEA_SCORE_ROW_INTRINSICS
  __builtin_cpu_init();
#ifndef FOVEA_NO_AVX512_KERNELS
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) {
    return {avx512_scores, avx512_scores_backward};
  }
#endif
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return {avx2_scores, avx2_scores_backward};
#endif
  return {plain_scores, plain_scores_backward};
}

const Bf16ScoreRows& bf16_score_rows() {
  static const Bf16ScoreRows rows = pick_bf16_score_rows();
  return rows;
}

}  // namespace

void exponential_scores_bf16(const std::uint16_t* ep, std::int64_t L, const float* eq, const float* w, std::int64_t A,
                             float* out) {
  bf16_score_rows().scores(ep, L, eq, w, A, out);
}

void exponential_scores_backward_bf16(const std::uint16_t* ep, std::int64_t L, const float* eq, const float* de,
                                      const float* w, float* grad_p, float* grad_q, float* grad_w, std::int64_t A) {
  bf16_score_rows().backward(ep, L, eq, de, w, grad_p, grad_q, grad_w, A);
}

}  // namespace fovea
