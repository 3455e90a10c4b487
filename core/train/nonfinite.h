#pragma once
/// How a run notices that training went wrong numerically: a non-finite loss term or gradient
/// norm at the step it happens, weights or optimiser state that are no longer finite (never
/// written to a checkpoint), and a loss that grows by orders of magnitude over its running
/// average (a warning, before it becomes NaN). What the run then does is TrainConfig::on_nonfinite.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

namespace fovea {

/// What a run does at a step with a non-finite value (TrainConfig::on_nonfinite).
enum class NonFinitePolicy {
  Stop,      ///< stop with a message and a non-zero exit (the default)
  Skip,      ///< leave the weights as they are and go on with the next batch
  Rollback,  ///< go back to the last checkpoint with the learning rate halved
};
NonFinitePolicy parse_nonfinite_policy(const std::string& s);

/// Consecutive skipped steps after which a Skip run stops: by then the weights themselves have diverged.
inline constexpr std::int64_t kMaxSkipsInARow = 20;
/// Rollbacks after which a Rollback run stops (the learning rate is then 1/1024 of what it was).
inline constexpr std::int64_t kMaxRollbacks = 10;

/// A training run stopped because its numbers stopped being finite. The message names the step,
/// the quantity and what to try; the last checkpoint on disk is the last finite one.
class TrainingDiverged : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One named value a step computed ("NLL", "gradient norm", ...).
using NamedValue = std::pair<std::string, double>;

/// The first value that is NaN or infinite, in the order given; nothing when all are finite.
std::optional<NamedValue> first_nonfinite(const std::vector<NamedValue>& values);

/// "nan", "inf", "-inf" or the number.
std::string describe_value(double v);

/// What may be written to a checkpoint: every parameter and buffer of `module` and every tensor of
/// the optimiser's state finite. Else the part that is not: "weights", "batch-norm statistics" or
/// "optimiser state".
std::optional<std::string> nonfinite_training_state(const torch::nn::Module& module,
                                                    const torch::optim::Optimizer& optimizer);

/// Watches a run's per-step loss for growth by orders of magnitude over its running average.
class LossSpikeDetector {
 public:
  /// A loss this many times the running average is a spike.
  static constexpr double kFactor = 100;
  /// Feeds one step's (finite) loss. True when it starts a spike: more than kFactor times the
  /// running average after a warm-up of a few steps. One warning per spike: the detector
  /// re-arms once the loss is back under a tenth of that.
  bool observe(double loss);
  double average() const { return average_; }

 private:
  double average_ = 0;
  std::int64_t seen_ = 0;
  bool armed_ = true;
};

}  // namespace fovea
