#include "core/train/gradient_clipping.h"

namespace fovea {

namespace {

/// The values a gradient holds: a dense one itself, a sparse one's (coalesced: each row once).
torch::Tensor held_values(torch::Tensor& grad) {
  if (!grad.is_sparse()) return grad;
  if (!grad.is_coalesced()) grad = grad.coalesce();
  return grad.values();
}

}  // namespace

double clip_gradient_norm(const std::vector<torch::Tensor>& parameters, double max_norm) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> values, norms;
  for (auto p : parameters) {
    if (!p.grad().defined()) continue;
    values.push_back(held_values(p.mutable_grad()));
    norms.push_back(values.back().norm(2));
  }
  if (norms.empty()) return 0.0;
  const auto total = norms.size() == 1 ? norms[0] : torch::stack(norms).norm(2);
  // As clip_grad_norm_ computes it, in the gradients' type; a factor of 1 would change nothing.
  const auto factor = torch::clamp(max_norm / (total + 1e-6), c10::nullopt, 1.0);
  if (factor.item<double>() < 1.0) {
    for (auto& v : values) v.mul_(factor);
  }
  return total.item<double>();
}

}  // namespace fovea
