// What `--precision auto` trains in (TrainingSession::settle_precision).
#include <algorithm>

#include "core/runtime/runtime.h"
#include "core/runtime/torch_compat.h"
#include "core/train/training_session.h"

namespace fovea {

using Clock = TrainingSession::Clock;

namespace {

/// Timed steps in each precision, interleaved, after one untimed one each (oneDNN creates its
/// primitives and the allocator its blocks on the first): the median of five takes out two steps
/// a busy host slowed.
constexpr int kTimedSteps = 5;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

void TrainingSession::settle_precision() {
  if (precision_.empty()) precision_ = state_.precision;  // a resumed run goes on as it started
  if (precision_.empty()) {
    message("precision auto: timing a step in fp32 and in bf16 on this machine");
    std::string bf16_failed;
    state_.precision_trial = time_precisions(next_batch(state_.step / steps_per_epoch_), bf16_failed);
    precision_ = faster_precision(state_.precision_trial);
    message("precision " + precision_ + " (auto: " +
            (bf16_failed.empty() ? describe(state_.precision_trial) : "bf16 products failed here: " + bf16_failed) + ")");
  }
  state_.precision = precision_;
}

PrecisionTrial TrainingSession::time_precisions(const Batch& batch, std::string& bf16_failed) {
  // Whatever a step changes besides the gradients goes back as it was after each timed one: the
  // batch-norm statistics, the baseline, and the random numbers (dropout masks, glimpses), so the
  // run that follows is the one an explicit --precision would have trained.
  model_.net->train();
  const auto before = snapshot_step();
  const auto random_state = compat::cpu_rng_state();
  std::vector<double> times[2];
  const std::string precisions[2] = {"fp32", "bf16"};
  for (int round = 0; round <= kTimedSteps && bf16_failed.empty(); ++round) {
    for (int p = 0; p < 2 && bf16_failed.empty(); ++p) {
      precision_ = precisions[p];
      try {
        const auto start = Clock::now();
        compute_gradients(batch);
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        if (round > 0) times[p].push_back(seconds);
      } catch (const std::exception& e) {  // fp32 is the run's own step: its errors are the run's
        if (p == 0) throw;
        bf16_failed = e.what();
      }
      undo_gradients(before);
      compat::set_cpu_rng_state(random_state);
    }
  }
  precision_.clear();
  PrecisionTrial trial;
  double failed = bf16_failed.empty() ? 0 : 1;
  if (failed == 0) {
    trial.fp32_step_s = median(times[0]);
    trial.bf16_step_s = median(times[1]);
  }
  if (group_ != nullptr) {  // every process sees the same sums and chooses alike
    failed = group_->all_reduce_sum(failed);
    trial.fp32_step_s = group_->all_reduce_sum(trial.fp32_step_s) / double(group_->size());
    trial.bf16_step_s = group_->all_reduce_sum(trial.bf16_step_s) / double(group_->size());
    if (failed > 0 && bf16_failed.empty()) bf16_failed = "in another process of the group";
  }
  return failed > 0 ? PrecisionTrial{} : trial;
}

}  // namespace fovea
