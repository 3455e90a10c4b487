#include "core/train/fused_adam.h"

#include <ATen/Parallel.h>
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/model/vector_clones.h"
#include "core/runtime/torch_compat.h"

namespace fovea {

namespace {

/// One Adam update of n weights, torch::optim::Adam's arithmetic element by element:
/// m = β₁m + (1-β₁)g, v = β₂v + (1-β₂)g², w -= step · m / (√v / √c₂ + ε). Vectorised (this file
/// is compiled without errno for sqrt, which would otherwise keep the loop scalar).
FOVEA_VECTOR_CLONES void adam_update(float* __restrict w, const float* __restrict g, float* __restrict m,
                                     float* __restrict v, std::int64_t n, float b1, float a1, float b2, float a2,
                                     float root_c2, float eps, float step_size) {
  for (std::int64_t i = 0; i < n; ++i) {
    const float gi = g[i];
    const float mi = m[i] * b1 + a1 * gi;
    const float vi = v[i] * b2 + a2 * gi * gi;
    m[i] = mi;
    v[i] = vi;
    w[i] -= step_size * mi / (std::sqrt(vi) / root_c2 + eps);
  }
}

/// Adam's update where the gradient is zero (a weight row the batch did not touch): the moments
/// decay and the weight still moves by them, bit for bit as adam_update with g = 0.
FOVEA_VECTOR_CLONES void adam_update_without_gradient(float* __restrict w, float* __restrict m, float* __restrict v,
                                                      std::int64_t n, float b1, float b2, float root_c2, float eps,
                                                      float step_size) {
  for (std::int64_t i = 0; i < n; ++i) {
    const float mi = m[i] * b1;
    const float vi = v[i] * b2;
    m[i] = mi;
    v[i] = vi;
    w[i] -= step_size * mi / (std::sqrt(vi) / root_c2 + eps);
  }
}

bool float_cpu(const torch::Tensor& t) {
  return t.device().is_cpu() && t.scalar_type() == torch::kFloat && t.is_contiguous();
}

/// A gradient given as rows of a 2-D weight (core/model/word_gradient_rows.h).
bool fusable_rows(const torch::Tensor& p) {
  const auto& g = p.grad();
  return p.dim() == 2 && g.sparse_dim() == 1 && g.dense_dim() == 1 && g.sizes() == p.sizes() &&
         g.device().is_cpu() && g.scalar_type() == torch::kFloat;
}

bool fusable(const torch::Tensor& p) {
  if (!float_cpu(p) || !p.grad().defined()) return false;
  return p.grad().is_sparse() ? fusable_rows(p) : float_cpu(p.grad());
}

/// Each row's gradient in `values`, or nullptr for a row without one; `g` is coalesced (each row
/// once), `values` its values made contiguous.
std::vector<const float*> gradient_rows(const torch::Tensor& g, const torch::Tensor& values) {
  std::vector<const float*> rows(std::size_t(g.size(0)), nullptr);
  const auto index = g.indices()[0].contiguous();
  const auto* row = index.data_ptr<std::int64_t>();
  const float* first = values.data_ptr<float>();
  for (std::int64_t i = 0; i < index.numel(); ++i) rows[std::size_t(row[i])] = first + i * g.size(1);
  return rows;
}

/// One step's constants of Adam's update (torch::optim::Adam's, in float).
struct AdamStep {
  float b1, a1, b2, a2, root_c2, eps, step_size;
};

AdamStep adam_step(const torch::optim::AdamOptions& options, std::int64_t step) {
  const double beta1 = std::get<0>(options.betas()), beta2 = std::get<1>(options.betas());
  const double correction1 = 1 - std::pow(beta1, double(step));
  const double correction2 = 1 - std::pow(beta2, double(step));
  return {float(beta1),  float(1 - beta1), float(beta2), float(1 - beta2), float(std::sqrt(correction2)),
          float(options.eps()), float(options.lr() / correction1)};
}

/// The update of one parameter whose gradient is fusable(), in parallel over its elements (rows).
void update(const torch::Tensor& p, torch::optim::AdamParamState& s, const AdamStep& k) {
  float* w = p.data_ptr<float>();
  float* m = s.exp_avg().data_ptr<float>();
  float* v = s.exp_avg_sq().data_ptr<float>();
  constexpr std::int64_t kGrain = 1 << 14;
  if (!p.grad().is_sparse()) {
    const float* g = p.grad().data_ptr<float>();
    at::parallel_for(0, p.numel(), kGrain, [&](std::int64_t begin, std::int64_t end) {
      adam_update(w + begin, g + begin, m + begin, v + begin, end - begin, k.b1, k.a1, k.b2, k.a2, k.root_c2, k.eps,
                  k.step_size);
    });
    return;
  }
  const auto g = p.grad().coalesce();  // the parts' rows added up: each row once
  const auto values = g.values().contiguous();
  const auto rows = gradient_rows(g, values);
  const std::int64_t width = p.size(1);
  at::parallel_for(0, p.size(0), std::max<std::int64_t>(1, kGrain / std::max<std::int64_t>(1, width)),
                   [&](std::int64_t begin, std::int64_t end) {
                     for (std::int64_t r = begin; r < end; ++r) {
                       const auto o = r * width;
                       if (const float* row = rows[std::size_t(r)]) {
                         adam_update(w + o, row, m + o, v + o, width, k.b1, k.a1, k.b2, k.a2, k.root_c2, k.eps,
                                     k.step_size);
                       } else {
                         adam_update_without_gradient(w + o, m + o, v + o, width, k.b1, k.b2, k.root_c2, k.eps,
                                                      k.step_size);
                       }
                     }
                   });
}

}  // namespace

torch::Tensor FusedAdam::step(LossClosure closure) {
  bool fused = true;
  for (const auto& group : param_groups()) {
    const auto& options = static_cast<const torch::optim::AdamOptions&>(group.options());
    fused = fused && !options.amsgrad() && options.weight_decay() == 0;
    for (const auto& p : group.params()) fused = fused && (!p.grad().defined() || fusable(p));
  }
  if (!fused) {  // torch::optim::Adam takes dense gradients only
    for (auto& group : param_groups()) {
      for (auto& p : group.params()) {
        if (p.grad().defined() && p.grad().is_sparse()) p.mutable_grad() = p.grad().to_dense();
      }
    }
    return torch::optim::Adam::step(std::move(closure));
  }
  torch::NoGradGuard no_grad;
  torch::Tensor loss;
  if (closure != nullptr) {
    at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  auto& states = state();
  for (auto& group : param_groups()) {
    const auto& options = static_cast<const torch::optim::AdamOptions&>(group.options());
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      const auto key = compat::optimizer_state_key(states, p);
      auto entry = states.find(key);
      if (entry == states.end()) {  // as torch::optim::Adam starts a parameter's state
        auto fresh = std::make_unique<torch::optim::AdamParamState>();
        fresh->step(0);
        fresh->exp_avg(torch::zeros_like(p, at::MemoryFormat::Preserve));
        fresh->exp_avg_sq(torch::zeros_like(p, at::MemoryFormat::Preserve));
        entry = states.emplace(key, std::move(fresh)).first;
      }
      auto& s = static_cast<torch::optim::AdamParamState&>(*entry->second);
      s.step(s.step() + 1);
      update(p, s, adam_step(options, s.step()));
      // Written through raw pointers: say so, as an in-place operation would, so that what
      // caches a weight by its version (the decoder's decoding weights) sees the new one.
      p.unsafeGetTensorImpl()->bump_version();
      s.exp_avg().unsafeGetTensorImpl()->bump_version();
      s.exp_avg_sq().unsafeGetTensorImpl()->bump_version();
    }
  }
  return loss;
}

void clear_gradients(torch::optim::Optimizer& optimizer) {
  for (auto& group : optimizer.param_groups()) {
    for (auto& p : group.params()) p.mutable_grad() = torch::Tensor();
  }
}

}  // namespace fovea
