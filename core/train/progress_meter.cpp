#include "core/train/progress_meter.h"

namespace fovea {

void ProgressMeter::restart_window() {
  window_start_ = Clock::now();
  window_tokens_ = 0;
  window_loss_ = 0;
  window_steps_ = 0;
}

TrainProgress ProgressMeter::count_step(std::int64_t tokens, double loss, std::int64_t step, std::int64_t total_steps,
                                        double elapsed_s, double paused_s) {
  window_tokens_ += tokens;
  window_loss_ += loss;
  ++window_steps_;
  const double window_s = std::chrono::duration<double>(Clock::now() - window_start_).count();
  window_tokens_per_s_ = window_s > 0 ? double(window_tokens_) / window_s : 0;
  last_.loss = window_loss_ / double(window_steps_);
  if (rate_start_step_ < 0) {  // the first step measures from its own end
    rate_start_ = Clock::now();
    rate_start_step_ = step;
    rate_paused_s_ = paused_s;
    rate_tokens_ = 0;
    last_.tokens_per_s = window_tokens_per_s_;
    last_.eta_s = window_s * double(total_steps - step);
  } else {
    rate_tokens_ += tokens;
    const double run_s = std::chrono::duration<double>(Clock::now() - rate_start_).count() - (paused_s - rate_paused_s_);
    const auto steps = double(step - rate_start_step_);
    last_.tokens_per_s = run_s > 0 ? double(rate_tokens_) / run_s : 0;
    last_.eta_s = run_s > 0 ? double(total_steps - step) * run_s / steps : 0;
  }
  last_.elapsed_s = elapsed_s;
  return last_;
}

}  // namespace fovea
