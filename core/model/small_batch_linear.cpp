#include "core/model/small_batch_linear.h"

#include <ATen/Parallel.h>

#include "core/model/vector_clones.h"

namespace fovea {

namespace {

constexpr int kLanes = 16;

/// Output columns [j0, j1) for R input rows: each weight row is read once, its dot products with
/// all R rows accumulated in R × 16 lanes.
template <int R>
FOVEA_VECTOR_CLONES void rows_times_weights(const float* x, const float* W, const float* bias, float* y, std::int64_t K,
                                            std::int64_t N, std::int64_t j0, std::int64_t j1) {
  for (std::int64_t j = j0; j < j1; ++j) {
    const float* w = W + j * K;
    float acc[R][kLanes] = {};
    std::int64_t k = 0;
    for (; k + kLanes <= K; k += kLanes) {
      for (int r = 0; r < R; ++r) {
        for (int l = 0; l < kLanes; ++l) acc[r][l] += x[r * K + k + l] * w[k + l];
      }
    }
    for (int r = 0; r < R; ++r) {
      float s = bias ? bias[j] : 0.0f;
      for (std::int64_t kk = k; kk < K; ++kk) s += x[r * K + kk] * w[kk];
      for (int l = 0; l < kLanes; ++l) s += acc[r][l];
      y[r * N + j] = s;
    }
  }
}

template <int R>
void run(const float* x, const float* W, const float* bias, float* y, std::int64_t K, std::int64_t N) {
  const std::int64_t grain = std::max<std::int64_t>(16, 65536 / std::max<std::int64_t>(K, 1));
  at::parallel_for(0, N, grain, [&](std::int64_t j0, std::int64_t j1) { rows_times_weights<R>(x, W, bias, y, K, N, j0, j1); });
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
  if (!applies(x, weight, bias)) return torch::linear(x, weight, bias);
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
