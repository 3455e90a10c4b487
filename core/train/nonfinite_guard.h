#pragma once
/// What a run does when its numbers stop being finite (TrainConfig::on_nonfinite), decided in one
/// place for the soft and the hard path, in one process or in every process of a group alike (they
/// meet the same values: the loss terms and the gradient norm are sums over the group). The guard
/// decides and words the event; the run (core/train/trainer.cpp) carries it out.
#include <cstdint>
#include <optional>
#include <string>

#include "core/train/nonfinite.h"
#include "core/train/train_config.h"
#include "core/train/train_records.h"

namespace fovea {

/// Where the run stands when a non-finite value is met.
struct NonFiniteContext {
  /// A loss term or gradient norm of the step being taken (the weights are still the step's
  /// start); else a part of the training state found before writing the checkpoint `unwritten`.
  bool in_step = true;
  std::string unwritten;
  bool pretraining = false;  ///< in the encoder's pretraining, whose learning rate is fixed: it stops
  std::int64_t step = 0, pretrain_step = 0;  ///< steps done
  double lr_scale = 1;
  std::int64_t rollbacks = 0;   ///< rollbacks so far
  std::int64_t saved_step = -1;  ///< the step of the last.ckpt written (-1: none yet)
  bool checkpoint_on_disk = false;  ///< that last.ckpt is there to go back to
  /// The learning rate at the checkpoint's step before halving (what a rollback halves).
  double lr_at_saved_step = 0;
};

enum class NonFiniteAction {
  Skip,      ///< leave the weights as they are and take the next batch (the step counts)
  RollBack,  ///< reload last.ckpt, train on at event.lr_scale
  Stop,      ///< end the run: throw TrainingDiverged(event.message)
};

struct NonFiniteDecision {
  NonFiniteAction action = NonFiniteAction::Stop;
  TrainEvent event;  ///< to log; its message says what happened and, to stop, what to try
};

class NonFiniteGuard {
 public:
  explicit NonFiniteGuard(const TrainConfig& config);

  /// What to do about `bad` (the first non-finite value, in order) met `at`.
  NonFiniteDecision decide(const NamedValue& bad, const NonFiniteContext& at);
  /// A step whose values were all finite: skips no longer run in a row.
  void step_was_finite() { skips_in_a_row_ = 0; }
  /// After a rollback: the loss's running average and the skips start again.
  void restart();
  /// A warning event when `loss` (finite) is orders of magnitude over its running average.
  std::optional<TrainEvent> watch_loss(double loss, std::int64_t step, double lr_scale);

 private:
  /// " Try a lower --lr (this run's is X; ...)", naming the settings that feed `quantity`.
  std::string what_to_try(const std::string& quantity) const;

  const TrainConfig& config_;
  NonFinitePolicy policy_;
  std::int64_t skips_in_a_row_ = 0;
  LossSpikeDetector loss_spikes_;
};

}  // namespace fovea
