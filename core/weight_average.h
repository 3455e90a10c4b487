#pragma once
/// A moving average of a model's weights over the training steps (Polyak averaging, as
/// TensorFlow's ExponentialMovingAverage with num_updates): validation, best.ckpt and the shipped
/// model can use the average instead of the last step's weights, which the step-to-step noise of
/// Adam at a constant rate moves around (docs/attention.md, "Weight averaging").
/// Not thread-safe: update and swap it from the training thread only.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "core/show_attend_tell.h"

namespace fovea {

class WeightAverage {
 public:
  using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

  /// Averages `tracked` (a model's parameters and float buffers, by name); `decay` in (0, 1).
  WeightAverage(NamedTensors tracked, double decay);

  /// After an optimiser step: average = d·average + (1−d)·weights, d = min(decay, (1+k)/(10+k)), k
  /// the updates so far (the first copies the weights), so that early averages span about a tenth
  /// of the steps made instead of reaching back to the start.
  void update();
  /// Exchanges the tracked tensors' values with the averages; calling it twice restores them.
  void swap();
  bool started() const { return updates_ > 0; }
  std::int64_t updates() const { return updates_; }

  /// The averages by the tracked tensors' names, and the update count, for a checkpoint.
  NamedTensors state() const;
  /// Restores state() as saved; throws std::runtime_error naming the tensor when one is missing
  /// or has another shape.
  void load(const NamedTensors& saved, std::int64_t updates);

 private:
  NamedTensors tracked_;
  std::vector<torch::Tensor> averages_;
  double decay_;
  std::int64_t updates_ = 0;
};

/// While alive, the tracked tensors hold their averages (WeightAverage::swap), restored at the end
/// of the scope even when it is left by an exception. Does nothing for a null or unstarted average.
class AveragedWeights {
 public:
  explicit AveragedWeights(WeightAverage* average);
  ~AveragedWeights();
  AveragedWeights(const AveragedWeights&) = delete;
  AveragedWeights& operator=(const AveragedWeights&) = delete;

 private:
  WeightAverage* average_;
};

/// What a captioning run averages: every parameter that learns (a fine-tuned TorchScript
/// backbone's too) and the float buffers (batch-norm statistics) of `net`, without its frozen item
/// classifier.
WeightAverage::NamedTensors averaged_state(ShowAttendTellImpl& net);

}  // namespace fovea
