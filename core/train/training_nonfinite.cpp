// Non-finite steps and loss spikes within a run (core/train/nonfinite.h).
#include <filesystem>
#include <limits>
#include <sstream>

#include "core/model/module_state.h"
#include "core/train/training_session.h"

namespace fovea {

namespace {

std::string number(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

}  // namespace

void TrainingSession::log_event(const TrainEvent& e, bool say) {
  metrics_ << to_json(e).dump() << "\n" << std::flush;
  if (say) message(e.message);
  if (cb_.on_event) cb_.on_event(e);
}

std::string TrainingSession::last_finite_checkpoint() const {
  return saved_step_ >= 0 ? " last.ckpt (step " + std::to_string(saved_step_) + ") keeps the last finite weights." : "";
}

std::string TrainingSession::what_to_try() const {
  return last_finite_checkpoint() + " Try a lower --lr (this run's is " + number(config_.lr) + "; gradients are already clipped to norm " +
         number(kGradClip) + ")";
}

void TrainingSession::check_saveable(const std::string& file) {
  const auto bad = nonfinite_training_state(*model_.net, *optimizer_);
  if (!bad) return;
  handle_nonfinite({*bad, std::numeric_limits<double>::quiet_NaN()}, false,
                   std::filesystem::path(file).filename().string());
}

void TrainingSession::handle_nonfinite(const NamedValue& bad, bool in_step, const std::string& unwritten) {
  const auto policy = parse_nonfinite_policy(config_.on_nonfinite);
  TrainEvent e;
  e.what = "nonfinite";
  e.quantity = bad.first;
  e.value = bad.second;
  e.step = e.failed_step = in_step ? state_.step + 1 : state_.step;
  e.lr_scale = state_.lr_scale;
  const std::string step = (pretraining_ ? "pretraining step " + std::to_string(state_.pretrain_step)
                                         : "step " + std::to_string(e.failed_step));
  const std::string met = in_step ? step + ": the " + bad.first + " is " + describe_value(bad.second)
                                  : step + ": the " + bad.first + " are no longer finite (" + unwritten + " not written)";
  if (!pretraining_ && in_step && policy == NonFinitePolicy::Skip && ++skips_in_a_row_ <= kMaxSkipsInARow) {
    ++state_.step;
    e.action = "skip";
    e.message = met + "; the batch was skipped, the weights left as they were";
    return log_event(e, true);
  }
  const bool can_roll_back = saved_step_ >= 0 && std::filesystem::exists(last_checkpoint_path(config_.out_dir));
  if (!pretraining_ && policy == NonFinitePolicy::Rollback && state_.rollbacks < kMaxRollbacks && can_roll_back) {
    const double scale = state_.lr_scale / 2;
    const std::int64_t rollbacks = state_.rollbacks + 1;
    roll_back_to_last_checkpoint();
    state_.lr_scale = scale;
    state_.rollbacks = rollbacks;
    e.step = state_.step;
    e.lr_scale = scale;
    e.action = "rollback";
    e.message = met + "; back to the checkpoint of step " + std::to_string(state_.step) +
                " with the learning rate halved (" + number(captioning_lr(config_, state_.step / steps_per_epoch_) * scale) +
                " now; rollback " + std::to_string(rollbacks) + " of at most " + std::to_string(kMaxRollbacks) + ")";
    log_event(e, true);
    save_last();  // the halved rate survives an interruption
    throw RolledBack{};
  }
  e.action = "stop";
  std::string why;
  if (pretraining_) {
    why = " (the pretraining's learning rate is fixed: try --precision fp32, or --pretrain-steps 0)";
  } else if (policy == NonFinitePolicy::Skip) {
    why = in_step ? " (" + std::to_string(kMaxSkipsInARow) + " steps in a row: the weights themselves have diverged)"
                  : " (skipping a batch cannot undo it)";
  } else if (policy == NonFinitePolicy::Rollback) {
    why = can_roll_back ? " (after " + std::to_string(kMaxRollbacks) + " rollbacks)" : " (no checkpoint to go back to)";
  }
  // The pretraining's learning rate is fixed: --lr is no advice there (`why` says what is).
  const std::string advice =
      pretraining_ ? last_finite_checkpoint()
                   : what_to_try() + (policy == NonFinitePolicy::Stop
                                          ? ", or --on-nonfinite rollback to go back to the last checkpoint with the "
                                            "learning rate halved."
                                          : ".");
  e.message =
      met + why + (in_step && !pretraining_ ? "; the run stopped without updating the weights." : "; the run stopped.") + advice;
  log_event(e, false);  // the exception carries the message
  throw TrainingDiverged(e.message);
}

void TrainingSession::roll_back_to_last_checkpoint() {
  const auto ckpt = load_checkpoint(last_checkpoint_path(config_.out_dir), torch::kCPU);
  copy_matching_state(*model_.net, *ckpt.model.net);
  restore_training_state(ckpt, *optimizer_, device_);
  state_ = run_state_from_json(ckpt.training, config_.baseline_decay);
  if (writes_run()) {
    metrics_.close();
    samples_.close();
    truncate_metrics(metrics_path(config_.out_dir), state_.step, state_.pretrain_step);
    truncate_metrics(samples_path(config_.out_dir), state_.step, state_.pretrain_step);
    metrics_.open(metrics_path(config_.out_dir), std::ios::app);
    samples_.open(samples_path(config_.out_dir), std::ios::app);
  }
  order_epoch_ = -1;  // the epoch's batch order is drawn again
  loss_spikes_ = LossSpikeDetector();
  skips_in_a_row_ = 0;
  window_start_ = Clock::now();
  window_tokens_ = window_steps_ = 0;
  window_loss_ = 0;
}

void TrainingSession::watch_loss(double loss) {
  if (!loss_spikes_.observe(loss)) return;
  TrainEvent e;
  e.what = "loss_spike";
  e.quantity = "loss";
  e.value = loss;
  e.action = "warn";
  e.step = e.failed_step = state_.step;
  e.lr_scale = state_.lr_scale;
  e.message = "warning: step " + std::to_string(state_.step) + ": the loss (" + number(loss) + ") is over " +
              number(LossSpikeDetector::kFactor) + " times its running average (" + number(loss_spikes_.average()) +
              "): training may be diverging; a lower --lr helps";
  log_event(e, true);
}

}  // namespace fovea
