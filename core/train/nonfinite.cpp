#include "core/train/nonfinite.h"

#include <cmath>
#include <sstream>

namespace fovea {

namespace {

constexpr std::int64_t kSpikeWarmup = 1;  ///< steps before the running average is compared with
constexpr double kSpikeDecay = 0.95;       ///< weight of the past in the running average

bool all_finite(const torch::Tensor& t) {
  if (!t.defined() || t.numel() == 0 || !t.is_floating_point()) return true;
  return torch::isfinite(t).all().item<bool>();
}

}  // namespace

NonFinitePolicy parse_nonfinite_policy(const std::string& s) {
  if (s == "stop") return NonFinitePolicy::Stop;
  if (s == "skip") return NonFinitePolicy::Skip;
  if (s == "rollback") return NonFinitePolicy::Rollback;
  throw std::invalid_argument("on_nonfinite must be stop, skip or rollback, got '" + s + "'");
}

std::optional<NamedValue> first_nonfinite(const std::vector<NamedValue>& values) {
  for (const auto& v : values) {
    if (!std::isfinite(v.second)) return v;
  }
  return std::nullopt;
}

std::string describe_value(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::ostringstream s;
  s << v;
  return s.str();
}

std::optional<std::string> nonfinite_training_state(const torch::nn::Module& module,
                                                    const torch::optim::Optimizer& optimizer) {
  torch::NoGradGuard no_grad;
  for (const auto& p : module.parameters()) {
    if (!all_finite(p)) return "weights";
  }
  for (const auto& b : module.buffers()) {
    if (!all_finite(b)) return "batch-norm statistics";
  }
  for (const auto& entry : optimizer.state()) {
    if (const auto* adam = dynamic_cast<const torch::optim::AdamParamState*>(entry.second.get())) {
      if (!all_finite(adam->exp_avg()) || !all_finite(adam->exp_avg_sq())) return "optimiser state";
    }
  }
  return std::nullopt;
}

bool LossSpikeDetector::observe(double loss) {
  if (!std::isfinite(loss)) return false;
  ++seen_;
  if (seen_ > kSpikeWarmup && average_ > 0 && loss > kFactor * average_) {
    const bool starts = armed_;
    armed_ = false;
    return starts;  // a spike does not move the average it is measured against
  }
  if (loss < kFactor / 10 * average_) armed_ = true;
  average_ = seen_ == 1 ? loss : kSpikeDecay * average_ + (1 - kSpikeDecay) * loss;
  return false;
}

}  // namespace fovea
