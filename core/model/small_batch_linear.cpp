#include "core/model/small_batch_linear.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/model/matrix_product.h"
#include "core/model/vector_clones.h"
#include "core/runtime/vector_lanes.h"

namespace fovea {

namespace {

/// Output columns [j0, j1) for R input rows: each weight row is read once, its dot products with
/// all R rows accumulated in R × kReductionLanes lanes.
template <int R>
FOVEA_VECTOR_CLONES void rows_times_weights(const float* x, const float* W, const float* bias, float* y, std::int64_t K,
                                            std::int64_t N, std::int64_t j0, std::int64_t j1) {
  for (std::int64_t j = j0; j < j1; ++j) {
    const float* w = W + j * K;
    float acc[R][kReductionLanes] = {};
    std::int64_t k = 0;
    for (; k + kReductionLanes <= K; k += kReductionLanes) {
      for (int r = 0; r < R; ++r) {
        for (int l = 0; l < kReductionLanes; ++l) acc[r][l] += x[r * K + k + l] * w[k + l];
      }
    }
    for (int r = 0; r < R; ++r) {
      float s = bias ? bias[j] : 0.0f;
      for (std::int64_t kk = k; kk < K; ++kk) s += x[r * K + kk] * w[kk];
      for (int l = 0; l < kReductionLanes; ++l) s += acc[r][l];
      y[r * N + j] = s;
    }
  }
}

#ifdef FOVEA_X86_KERNELS
/// The same with 8 (AVX2) or 16 (AVX-512) lanes written out: one accumulator register per input
/// row, each weight vector loaded once and multiplied into all R rows. GCC's vectorisation of the
/// loop above spilled the accumulators to the stack and built the input vectors from scalars.
__attribute__((target("avx2,fma"))) inline float sum_lanes(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

template <int R>
__attribute__((target("avx2,fma"))) void rows_times_weights_avx2(const float* x, const float* W, const float* bias,
                                                                 float* y, std::int64_t K, std::int64_t N,
                                                                 std::int64_t j0, std::int64_t j1) {
  const std::int64_t K8 = K / 8 * 8;
  for (std::int64_t j = j0; j < j1; ++j) {
    const float* w = W + j * K;
    __m256 acc[R];
    for (int r = 0; r < R; ++r) acc[r] = _mm256_setzero_ps();
    for (std::int64_t k = 0; k < K8; k += 8) {
      const __m256 wk = _mm256_loadu_ps(w + k);
      for (int r = 0; r < R; ++r) acc[r] = _mm256_fmadd_ps(_mm256_loadu_ps(x + r * K + k), wk, acc[r]);
    }
    for (int r = 0; r < R; ++r) {
      float s = (bias ? bias[j] : 0.0f) + sum_lanes(acc[r]);
      for (std::int64_t k = K8; k < K; ++k) s += x[r * K + k] * w[k];
      y[r * N + j] = s;
    }
  }
}

// GCC 12's AVX-512 headers start the shuffle and the cast from _mm512_undefined_ps(), which
// -Wmaybe-uninitialized reports (GCC bug 105593, fixed in GCC 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
template <int R>
__attribute__((target("avx512f,avx2,fma"))) void rows_times_weights_avx512(const float* x, const float* W, const float* bias,
                                                                 float* y, std::int64_t K, std::int64_t N,
                                                                 std::int64_t j0, std::int64_t j1) {
  const std::int64_t K16 = K / 16 * 16;
  for (std::int64_t j = j0; j < j1; ++j) {
    const float* w = W + j * K;
    __m512 acc[R];
    for (int r = 0; r < R; ++r) acc[r] = _mm512_setzero_ps();
    for (std::int64_t k = 0; k < K16; k += 16) {
      const __m512 wk = _mm512_loadu_ps(w + k);
      for (int r = 0; r < R; ++r) acc[r] = _mm512_fmadd_ps(_mm512_loadu_ps(x + r * K + k), wk, acc[r]);
    }
    for (int r = 0; r < R; ++r) {
      const __m512 halves = _mm512_add_ps(acc[r], _mm512_shuffle_f32x4(acc[r], acc[r], 0x4e));  // lanes 0-7 + 8-15
      float s = (bias ? bias[j] : 0.0f) + sum_lanes(_mm512_castps512_ps256(halves));
      for (std::int64_t k = K16; k < K; ++k) s += x[r * K + k] * w[k];
      y[r * N + j] = s;
    }
  }
}
#pragma GCC diagnostic pop
#endif

template <int R>
void run(const float* x, const float* W, const float* bias, float* y, std::int64_t K, std::int64_t N) {
  const std::int64_t grain = std::max<std::int64_t>(16, 65536 / std::max<std::int64_t>(K, 1));
  const auto isa = vector_lanes();
  at::parallel_for(0, N, grain, [&](std::int64_t j0, std::int64_t j1) {
#ifdef FOVEA_X86_KERNELS
    if (isa == VectorLanes::Avx512) return rows_times_weights_avx512<R>(x, W, bias, y, K, N, j0, j1);
    if (isa == VectorLanes::Avx2) return rows_times_weights_avx2<R>(x, W, bias, y, K, N, j0, j1);
#endif
    rows_times_weights<R>(x, W, bias, y, K, N, j0, j1);
  });
}

bool applies(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
  if (torch::GradMode::is_enabled() && (x.requires_grad() || weight.requires_grad() || (bias.defined() && bias.requires_grad()))) {
    return false;
  }
  auto cpu_float = [](const torch::Tensor& t) { return t.device().is_cpu() && t.scalar_type() == torch::kFloat; };
  return x.dim() == 2 && x.size(0) >= 1 && x.size(0) <= kSmallBatchRows && weight.dim() == 2 &&
         weight.size(1) == x.size(1) && cpu_float(x) && cpu_float(weight) && weight.is_contiguous() &&
         (!bias.defined() || (cpu_float(bias) && bias.dim() == 1 && bias.size(0) == weight.size(0)));
}

}  // namespace

torch::Tensor linear_for_decoding(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
  RECORD_FUNCTION("fovea::linear_for_decoding", std::vector<c10::IValue>());
  if (!applies(x, weight, bias)) return linear_product(x, weight, bias);
  const auto xc = x.contiguous();
  const auto b = bias.defined() ? bias.contiguous() : torch::Tensor();
  const std::int64_t R = xc.size(0), K = xc.size(1), N = weight.size(0);
  auto y = torch::empty({R, N}, xc.options());
  const float* X = xc.data_ptr<float>();
  const float* W = weight.data_ptr<float>();
  const float* B = b.defined() ? b.data_ptr<float>() : nullptr;
  float* Y = y.data_ptr<float>();
  switch (R) {
    case 1: run<1>(X, W, B, Y, K, N); break;
    case 2: run<2>(X, W, B, Y, K, N); break;
    case 3: run<3>(X, W, B, Y, K, N); break;
    case 4: run<4>(X, W, B, Y, K, N); break;
    case 5: run<5>(X, W, B, Y, K, N); break;
    case 6: run<6>(X, W, B, Y, K, N); break;
    case 7: run<7>(X, W, B, Y, K, N); break;
    default: run<8>(X, W, B, Y, K, N); break;
  }
  return y;
}

}  // namespace fovea
