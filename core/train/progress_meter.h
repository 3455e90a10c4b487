#pragma once
/// What a run reports after every captioning step: the loss over the logging window, tokens a
/// second and the time left. The rate counts from this process's first step to now, leaving out
/// pauses (validations and snapshots included), so the ETA is steady.
#include <chrono>
#include <cstdint>

#include "core/train/train_records.h"

namespace fovea {

class ProgressMeter {
 public:
  using Clock = std::chrono::steady_clock;

  /// Counts a captioning step of `tokens` words and loss `loss`, `step` of `total_steps` now
  /// done; `paused_s` is the time the run has been paused so far. Returns the progress to report
  /// (step, total and epoch fields left for the caller).
  TrainProgress count_step(std::int64_t tokens, double loss, std::int64_t step, std::int64_t total_steps,
                           double elapsed_s, double paused_s);
  /// Tokens a second over the window up to the last counted step (what metrics.jsonl records).
  double window_tokens_per_s() const { return window_tokens_per_s_; }
  /// The window starts again: after a record, a pause, a rollback or the pretraining.
  void restart_window();
  /// The last progress reported.
  const TrainProgress& last() const { return last_; }

 private:
  TrainProgress last_;
  Clock::time_point window_start_ = Clock::now();
  std::int64_t window_tokens_ = 0, window_steps_ = 0;
  double window_loss_ = 0, window_tokens_per_s_ = 0;
  Clock::time_point rate_start_;
  std::int64_t rate_start_step_ = -1, rate_tokens_ = 0;
  double rate_paused_s_ = 0;
};

}  // namespace fovea
