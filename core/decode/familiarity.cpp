#include "core/decode/familiarity.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fovea {
namespace {

/// Shrinkage towards a scaled identity: with a few thousand images and hundreds of dimensions
/// the sample covariance is singular; this keeps every direction's variance positive.
constexpr double kShrinkage = 0.1;
/// The threshold is this many times the distance 99% of validation images stay within: images
/// drawn like the training data land inside, anything of another kind far outside.
constexpr double kThresholdMargin = 1.5;

}  // namespace

std::vector<std::string> familiarity_tensor_names() {
  return {"familiarity/mean", "familiarity/precision", "familiarity/distances"};
}

std::vector<torch::Tensor> familiarity_tensors(const FamiliarityStats& s) {
  return {s.mean, s.precision, torch::tensor({s.validation_q99, s.threshold}, torch::kDouble)};
}

FamiliarityStats familiarity_from_tensors(const std::vector<torch::Tensor>& t) {
  if (t.size() != 3 || t[2].numel() != 2) throw std::invalid_argument("familiarity statistics are incomplete");
  FamiliarityStats s;
  s.mean = t[0].to(torch::kFloat);
  s.precision = t[1].to(torch::kFloat);
  s.validation_q99 = t[2][0].item<double>();
  s.threshold = t[2][1].item<double>();
  if (s.mean.dim() != 1 || s.precision.dim() != 2 || s.precision.size(0) != s.mean.size(0) ||
      s.precision.size(1) != s.mean.size(0))
    throw std::invalid_argument("familiarity statistics have inconsistent sizes");
  return s;
}

torch::Tensor pooled_annotations(const torch::Tensor& annotations) {
  return annotations.detach().to(torch::kFloat).mean(1);
}

FamiliarityStats fit_familiarity(const torch::Tensor& train_pooled, const torch::Tensor& val_pooled) {
  if (train_pooled.dim() != 2 || train_pooled.size(0) < 2 || val_pooled.dim() != 2 || val_pooled.size(0) < 2)
    throw std::invalid_argument("familiarity needs at least 2 training and 2 validation images");
  torch::NoGradGuard no_grad;
  const auto x = train_pooled.to(torch::kCPU, torch::kDouble);
  const auto D = x.size(1);
  FamiliarityStats s;
  const auto mean = x.mean(0);
  const auto centred = x - mean;
  const auto cov = centred.t().mm(centred) / double(x.size(0) - 1);
  const double average_variance = cov.diagonal().mean().item<double>();
  const auto shrunk = cov * (1 - kShrinkage) + torch::eye(D, torch::kDouble) * (kShrinkage * std::max(average_variance, 1e-12));
  s.mean = mean.to(torch::kFloat);
  s.precision = torch::inverse(shrunk).to(torch::kFloat);
  const auto d = std::get<0>(familiarity_distances(s, val_pooled).to(torch::kDouble).sort());
  const auto n = d.size(0);
  const std::int64_t q = std::min<std::int64_t>(n - 1, std::int64_t(std::ceil(0.99 * double(n))) - 1);
  s.validation_q99 = d[q].item<double>();
  s.threshold = kThresholdMargin * s.validation_q99;
  return s;
}

torch::Tensor familiarity_distances(const FamiliarityStats& s, const torch::Tensor& pooled) {
  torch::NoGradGuard no_grad;
  const auto centred = pooled.to(torch::kCPU, torch::kFloat) - s.mean;
  return (centred.mm(s.precision) * centred).sum(1).clamp_min(0).sqrt();
}

}  // namespace fovea
