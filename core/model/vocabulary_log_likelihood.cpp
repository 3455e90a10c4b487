#include "core/model/vocabulary_log_likelihood.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/model/batch_weight_gradients.h"
#include "core/model/bf16_product.h"
#include "core/model/bf16_weights.h"
#include "core/model/matrix_product.h"
#include "core/model/vector_clones.h"
#include "core/model/vector_math.h"

namespace fovea {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

/// row += bias; returns the row's maximum.
FOVEA_VECTOR_CLONES float add_bias_max(float* __restrict row, const float* __restrict bias, std::int64_t V) {
  float lanes[kReductionLanes];
  std::fill(lanes, lanes + kReductionLanes, -std::numeric_limits<float>::infinity());
  std::int64_t j = 0;
  for (; j + kReductionLanes <= V; j += kReductionLanes) {
    for (int k = 0; k < kReductionLanes; ++k) {
      row[j + k] += bias[j + k];
      lanes[k] = std::max(lanes[k], row[j + k]);
    }
  }
  float m = -std::numeric_limits<float>::infinity();
  for (; j < V; ++j) row[j] += bias[j], m = std::max(m, row[j]);
  for (int k = 0; k < kReductionLanes; ++k) m = std::max(m, lanes[k]);
  return m;
}

/// Σ_j e^(row[j] - m).
FOVEA_VECTOR_CLONES float exp_sum(const float* __restrict row, float m, std::int64_t V) {
  float lanes[kReductionLanes] = {};
  std::int64_t j = 0;
  for (; j + kReductionLanes <= V; j += kReductionLanes) {
    for (int k = 0; k < kReductionLanes; ++k) lanes[k] += exp_nonpositive(row[j + k] - m);
  }
  float s = 0.0f;
  for (; j < V; ++j) s += exp_nonpositive(row[j] - m);
  for (int k = 0; k < kReductionLanes; ++k) s += lanes[k];
  return s;
}

/// out[j] = -g e^(row[j] - lse), also added to column_sums[j].
FOVEA_VECTOR_CLONES void scaled_softmax(const float* __restrict row, float lse, float g, float* __restrict out,
                                        float* __restrict column_sums, std::int64_t V) {
  for (std::int64_t j = 0; j < V; ++j) {
    out[j] = -g * exp_nonpositive(row[j] - lse);
    column_sums[j] += out[j];
  }
}

/// out[j] = row[j] rounded to bfloat16.
FOVEA_VECTOR_CLONES void round_row(const float* __restrict row, std::uint16_t* __restrict out, std::int64_t V) {
  for (std::int64_t j = 0; j < V; ++j) out[j] = bf16_bits(row[j]);
}

class FusedLogLikelihood : public torch::autograd::Function<FusedLogLikelihood> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& weight,
                               const torch::Tensor& bias, const torch::Tensor& targets) {
    // Products in bf16 round x and the weight once, for the forward and both gradients.
    const bool bf16 = Bf16Products::active();
    const auto xs = bf16 ? to_bf16(x) : x, ws = bf16 ? shared_bf16(weight) : weight;
    auto logits = matrix_product(xs, ws.t()).contiguous();  // (N, V), bias added below
    const std::int64_t N = logits.size(0), V = logits.size(1);
    const auto b = bias.contiguous();
    const auto t = targets.to(torch::kLong).contiguous();
    auto lse = torch::empty({N}, logits.options());
    auto out = torch::empty({N}, logits.options());
    float* L = logits.data_ptr<float>();
    const float* B = b.data_ptr<float>();
    const std::int64_t* T = t.data_ptr<std::int64_t>();
    float* LSE = lse.data_ptr<float>();
    float* O = out.data_ptr<float>();
    at::parallel_for(0, N, 16, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i) {
        float* row = L + i * V;
        const float m = add_bias_max(row, B, V);
        LSE[i] = m + std::log(exp_sum(row, m, V));
        O[i] = row[T[i]] - LSE[i];
      }
    });
    ctx->save_for_backward({xs, ws, logits, lse, t});
    ctx->saved_data["weight"] = weight;  // the parameter, whose gradient a batch in parts may defer
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const auto &x = saved[0], &weight = saved[1], &logits = saved[2], &lse = saved[3], &t = saved[4];
    const auto g = grad_outputs[0].contiguous();
    const std::int64_t N = logits.size(0), V = logits.size(1);
    // d/dlogits of log_softmax(logits)[t] · g = g (onehot(t) - softmax(logits)). For products in
    // bf16 each row is written to a float row that stays in cache and rounded from there, the
    // operand the two products read: no float (N, V) gradient is written and read back.
    const bool bf16 = x.scalar_type() == torch::kBFloat16;
    auto d = torch::empty({N, V}, logits.options().dtype(bf16 ? torch::kBFloat16 : torch::kFloat));
    const float* L = logits.data_ptr<float>();
    const float* LSE = lse.data_ptr<float>();
    const float* G = g.data_ptr<float>();
    const std::int64_t* T = t.data_ptr<std::int64_t>();
    float* D = bf16 ? nullptr : d.data_ptr<float>();
    auto* D16 = bf16 ? reinterpret_cast<std::uint16_t*>(d.data_ptr<at::BFloat16>()) : nullptr;
    // The bias's gradient, Σ_i d_i, is summed as the rows are written: rows in one chunk per
    // thread, each chunk with its own partial sums.
    const std::int64_t chunks = std::max<std::int64_t>(1, std::min<std::int64_t>(at::get_num_threads(), N / 16));
    auto partial_sums = torch::zeros({chunks, V}, logits.options());
    float* S = partial_sums.data_ptr<float>();
    at::parallel_for(0, chunks, 1, [&](std::int64_t c0, std::int64_t c1) {
      std::vector<float> float_row(bf16 ? std::size_t(V) : 0);
      for (std::int64_t c = c0; c < c1; ++c) {
        float* sums = S + c * V;
        for (std::int64_t i = c * N / chunks; i < (c + 1) * N / chunks; ++i) {
          float* row = bf16 ? float_row.data() : D + i * V;
          scaled_softmax(L + i * V, LSE[i], G[i], row, sums, V);
          row[T[i]] += G[i];
          sums[T[i]] += G[i];
          if (bf16) round_row(row, D16 + i * V, V);
        }
      }
    });
    const auto& dl = d;
    const bool weight_grad =
        ctx->needs_input_grad(1) && !BatchWeightGradients::defer(ctx->saved_data["weight"].toTensor(), {dl}, {x}, bf16);
    return {ctx->needs_input_grad(0) ? matrix_product(dl, weight) : torch::Tensor(),
            weight_grad ? matrix_product(dl.t(), x) : torch::Tensor(),
            ctx->needs_input_grad(2) ? partial_sums.sum(0) : torch::Tensor(), torch::Tensor()};
  }
};

bool fusable(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
  auto cpu_float = [](const torch::Tensor& v) { return v.defined() && v.is_cpu() && v.scalar_type() == torch::kFloat; };
  return cpu_float(x) && cpu_float(weight) && cpu_float(bias) && !compat::cpu_autocast_enabled() && x.dim() == 2;
}

}  // namespace

torch::Tensor vocabulary_log_likelihood(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                                        const torch::Tensor& targets) {
  RECORD_FUNCTION("fovea::vocabulary_log_likelihood", std::vector<c10::IValue>());
  TORCH_CHECK(x.dim() == 2 && weight.dim() == 2 && x.size(1) == weight.size(1) && bias.dim() == 1 &&
                  bias.size(0) == weight.size(0) && targets.dim() == 1 && targets.size(0) == x.size(0),
              "vocabulary_log_likelihood: x (N, E), weight (V, E), bias (V), targets (N); got ", x.sizes(), ", ",
              weight.sizes(), ", ", bias.sizes(), ", ", targets.sizes());
  if (targets.is_cpu() && targets.numel() > 0) {  // CUDA: gather checks, without a sync
    const auto range = torch::aminmax(targets);
    TORCH_CHECK(
        std::get<0>(range).item<std::int64_t>() >= 0 && std::get<1>(range).item<std::int64_t>() < weight.size(0),
        "vocabulary_log_likelihood: targets must lie in [0, ", weight.size(0), ")");
  }
  if (!fusable(x, weight, bias) || x.size(0) == 0) {
    return torch::log_softmax(torch::nn::functional::linear(x, weight, bias), 1)
        .gather(1, targets.to(torch::kLong).unsqueeze(1))
        .squeeze(1);
  }
  return FusedLogLikelihood::apply(x, weight, bias, targets);
}

}  // namespace fovea
