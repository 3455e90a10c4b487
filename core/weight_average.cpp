#include "core/weight_average.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>

namespace fovea {

WeightAverage::WeightAverage(NamedTensors tracked, double decay) : tracked_(std::move(tracked)), decay_(decay) {
  if (!(decay > 0 && decay < 1)) throw std::invalid_argument("weight averaging decay must be in (0, 1)");
}

void WeightAverage::update() {
  torch::NoGradGuard no_grad;
  if (averages_.empty()) {
    for (auto& [name, t] : tracked_) averages_.push_back(t.detach().clone());
    updates_ = 1;
    return;
  }
  const double d = std::min(decay_, double(1 + updates_) / double(10 + updates_));
  for (std::size_t i = 0; i < averages_.size(); ++i) averages_[i].mul_(d).add_(tracked_[i].second.detach(), 1 - d);
  ++updates_;
}

void WeightAverage::swap() {
  if (averages_.empty()) return;
  torch::NoGradGuard no_grad;
  for (std::size_t i = 0; i < averages_.size(); ++i) {
    auto weights = tracked_[i].second.detach();
    const auto kept = weights.clone();
    weights.copy_(averages_[i]);
    averages_[i].copy_(kept);
  }
}

WeightAverage::NamedTensors WeightAverage::state() const {
  NamedTensors out;
  for (std::size_t i = 0; i < averages_.size(); ++i) out.emplace_back(tracked_[i].first, averages_[i]);
  return out;
}

void WeightAverage::load(const NamedTensors& saved, std::int64_t updates) {
  std::map<std::string, torch::Tensor> by_name(saved.begin(), saved.end());
  std::vector<torch::Tensor> averages;
  for (const auto& [name, t] : tracked_) {
    const auto it = by_name.find(name);
    if (it == by_name.end()) throw std::runtime_error("weight average of '" + name + "' is missing");
    if (it->second.sizes() != t.sizes()) {
      std::ostringstream msg;
      msg << "weight average of '" << name << "' has shape " << it->second.sizes() << ", the model's " << t.sizes();
      throw std::runtime_error(msg.str());
    }
    averages.push_back(it->second.detach().to(t.device(), t.scalar_type()).clone());
  }
  averages_ = std::move(averages);
  updates_ = updates;
}

AveragedWeights::AveragedWeights(WeightAverage* average) : average_(average && average->started() ? average : nullptr) {
  if (average_) average_->swap();
}

AveragedWeights::~AveragedWeights() {
  if (average_) average_->swap();
}

WeightAverage::NamedTensors averaged_state(ShowAttendTellImpl& net) {
  WeightAverage::NamedTensors out;
  const auto skip = [](const std::string& name) { return name.rfind("item_classifier.", 0) == 0; };
  for (const auto& p : net.named_parameters()) {
    if (p.value().requires_grad() && !skip(p.key())) out.emplace_back(p.key(), p.value());
  }
  for (const auto& b : net.named_buffers()) {
    if (b.value().is_floating_point() && !skip(b.key())) out.emplace_back(b.key(), b.value());
  }
  for (auto& [name, p] : net.encoder->backbone_parameters()) {
    if (p.requires_grad()) out.emplace_back("encoder.backbone." + name, p);
  }
  return out;
}

}  // namespace fovea
