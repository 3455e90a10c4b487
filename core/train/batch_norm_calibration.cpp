#include "core/train/batch_norm_calibration.h"

#include <vector>

namespace fovea {

int recalibrate_batch_norm(torch::nn::Module& module, int batches, const std::function<void(int)>& forward) {
  std::vector<torch::nn::BatchNorm2dImpl*> layers;
  for (const auto& m : module.modules(/*include_self=*/true)) {
    if (auto* bn = m->as<torch::nn::BatchNorm2dImpl>(); bn && bn->options.track_running_stats()) layers.push_back(bn);
  }
  if (layers.empty() || batches <= 0) return 0;

  torch::NoGradGuard no_grad;
  // Puts momenta and training flags back however forward() ends.
  struct Restore {
    torch::nn::Module& module;
    std::vector<torch::nn::BatchNorm2dImpl*>& layers;
    std::vector<c10::optional<double>> momenta;
    bool was_training;
    ~Restore() {
      for (std::size_t i = 0; i < layers.size(); ++i) layers[i]->options.momentum(momenta[i]);
      module.train(was_training);
    }
  } restore{module, layers, {}, module.is_training()};
  module.eval();
  for (auto* bn : layers) {
    restore.momenta.push_back(bn->options.momentum());
    bn->options.momentum(c10::nullopt);  // cumulative average over the calls below
    bn->reset_running_stats();
    bn->train(true);
  }
  for (int b = 0; b < batches; ++b) forward(b);
  return int(layers.size());
}

}  // namespace fovea
