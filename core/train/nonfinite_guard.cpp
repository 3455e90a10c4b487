#include "core/train/nonfinite_guard.h"

#include <sstream>

namespace fovea {

namespace {

std::string number(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

std::string last_finite_checkpoint(const NonFiniteContext& at) {
  return at.saved_step >= 0 ? " last.ckpt (step " + std::to_string(at.saved_step) + ") keeps the last finite weights."
                            : "";
}

}  // namespace

NonFiniteGuard::NonFiniteGuard(const TrainConfig& config)
    : config_(config), policy_(parse_nonfinite_policy(config.on_nonfinite)) {}

void NonFiniteGuard::restart() {
  loss_spikes_ = LossSpikeDetector();
  skips_in_a_row_ = 0;
}

std::string NonFiniteGuard::what_to_try(const std::string& quantity) const {
  std::string s = " Try a lower --lr (this run's is " + number(config_.lr) + "; gradients are already clipped to norm " +
                  number(kGradClip) + ")";
  // The settings that scale the quantity itself, beside the learning rate that feeds them all.
  if (quantity == "penalty") s += " or a lower --lambda (" + number(config_.objective.lambda) + ")";
  if (quantity == "REINFORCE reward") {
    s += " or a lower --lambda-r (" + number(config_.objective.lambda_r) + ") or --lambda-e (" +
         number(config_.objective.lambda_e) + ")";
  }
  if (quantity == "auxiliary loss") s += " or a lower --aux-weight (" + number(config_.aux_weight) + ")";
  if (quantity == "attention supervision loss") {
    s += " or a lower --attention-supervision (" + number(config_.attention_supervision) + ")";
  }
  return s;
}

NonFiniteDecision NonFiniteGuard::decide(const NamedValue& bad, const NonFiniteContext& at) {
  NonFiniteDecision d;
  auto& e = d.event;
  e.what = "nonfinite";
  e.quantity = bad.first;
  e.value = bad.second;
  e.step = e.failed_step = at.in_step ? at.step + 1 : at.step;
  e.lr_scale = at.lr_scale;
  const std::string step = at.pretraining ? "pretraining step " + std::to_string(at.pretrain_step)
                                          : "step " + std::to_string(e.failed_step);
  const std::string met = at.in_step ? step + ": the " + bad.first + " is " + describe_value(bad.second)
                                     : step + ": the " + bad.first + " are no longer finite (" + at.unwritten + " not written)";
  if (!at.pretraining && at.in_step && policy_ == NonFinitePolicy::Skip && ++skips_in_a_row_ <= kMaxSkipsInARow) {
    d.action = NonFiniteAction::Skip;
    e.action = "skip";
    e.message = met + "; the batch was skipped, the weights left as they were";
    return d;
  }
  const bool can_roll_back = at.saved_step >= 0 && at.checkpoint_on_disk;
  if (!at.pretraining && policy_ == NonFinitePolicy::Rollback && at.rollbacks < kMaxRollbacks && can_roll_back) {
    d.action = NonFiniteAction::RollBack;
    e.step = at.saved_step;
    e.lr_scale = at.lr_scale / 2;
    e.action = "rollback";
    e.message = met + "; back to the checkpoint of step " + std::to_string(at.saved_step) +
                " with the learning rate halved (" + number(at.lr_at_saved_step * e.lr_scale) + " now; rollback " +
                std::to_string(at.rollbacks + 1) + " of at most " + std::to_string(kMaxRollbacks) + ")";
    return d;
  }
  d.action = NonFiniteAction::Stop;
  e.action = "stop";
  std::string why;
  if (at.pretraining) {
    why = " (the pretraining's learning rate is fixed: try --precision fp32, or --pretrain-steps 0)";
  } else if (policy_ == NonFinitePolicy::Skip) {
    why = at.in_step ? " (" + std::to_string(kMaxSkipsInARow) + " steps in a row: the weights themselves have diverged)"
                     : " (skipping a batch cannot undo it)";
  } else if (policy_ == NonFinitePolicy::Rollback) {
    why = can_roll_back ? " (after " + std::to_string(kMaxRollbacks) + " rollbacks)" : " (no checkpoint to go back to)";
  }
  // The pretraining's learning rate is fixed: --lr is no advice there (`why` says what is).
  const std::string advice =
      at.pretraining ? last_finite_checkpoint(at)
                     : last_finite_checkpoint(at) + what_to_try(bad.first) +
                           (policy_ == NonFinitePolicy::Stop ? ", or --on-nonfinite rollback to go back to the last "
                                                               "checkpoint with the learning rate halved."
                                                             : ".");
  e.message = met + why +
              (at.in_step && !at.pretraining ? "; the run stopped without updating the weights." : "; the run stopped.") +
              advice;
  return d;
}

std::optional<TrainEvent> NonFiniteGuard::watch_loss(double loss, std::int64_t step, double lr_scale) {
  if (!loss_spikes_.observe(loss)) return std::nullopt;
  TrainEvent e;
  e.what = "loss_spike";
  e.quantity = "loss";
  e.value = loss;
  e.action = "warn";
  e.step = e.failed_step = step;
  e.lr_scale = lr_scale;
  e.message = "warning: step " + std::to_string(step) + ": the loss (" + number(loss) + ") is over " +
              number(LossSpikeDetector::kFactor) + " times its running average (" + number(loss_spikes_.average()) +
              "): training may be diverging; a lower --lr helps";
  return e;
}

}  // namespace fovea
