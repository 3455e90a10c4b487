#include "core/train/fused_adam.h"

#include <ATen/Parallel.h>
#include <cmath>

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

bool fusable(const torch::Tensor& p) {
  return p.device().is_cpu() && p.scalar_type() == torch::kFloat && p.is_contiguous() && p.grad().defined() &&
         p.grad().device().is_cpu() && p.grad().scalar_type() == torch::kFloat && p.grad().is_contiguous() &&
         !p.grad().is_sparse();
}

}  // namespace

torch::Tensor FusedAdam::step(LossClosure closure) {
  for (const auto& group : param_groups()) {
    const auto& options = static_cast<const torch::optim::AdamOptions&>(group.options());
    if (options.amsgrad() || options.weight_decay() != 0) return torch::optim::Adam::step(std::move(closure));
    for (const auto& p : group.params()) {
      if (p.grad().defined() && !fusable(p)) return torch::optim::Adam::step(std::move(closure));
    }
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
    const double beta1 = std::get<0>(options.betas()), beta2 = std::get<1>(options.betas());
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
      const double correction1 = 1 - std::pow(beta1, double(s.step()));
      const double correction2 = 1 - std::pow(beta2, double(s.step()));
      const float b1 = float(beta1), a1 = float(1 - beta1), b2 = float(beta2), a2 = float(1 - beta2);
      const float root_c2 = float(std::sqrt(correction2)), eps = float(options.eps());
      const float step_size = float(options.lr() / correction1);
      float* w = p.data_ptr<float>();
      const float* g = p.grad().data_ptr<float>();
      float* m = s.exp_avg().data_ptr<float>();
      float* v = s.exp_avg_sq().data_ptr<float>();
      at::parallel_for(0, p.numel(), 1 << 14, [&](std::int64_t begin, std::int64_t end) {
        adam_update(w + begin, g + begin, m + begin, v + begin, end - begin, b1, a1, b2, a2, root_c2, eps, step_size);
      });
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
