#pragma once
/// A one-line terminal progress bar for training (step, loss, throughput, ETA).
#include <cstdint>
#include <string>

namespace fovea::cli {

class ProgressBar {
 public:
  ProgressBar();
  /// `phase`: what the steps are ("pretraining", "epoch 2/4"); tokens_per_s 0: not shown.
  void update(const std::string& phase, std::int64_t step, std::int64_t total, double loss, double tokens_per_s,
              double eta_s);
  /// A count of items done rather than training steps ("annotations 1200/6000 | 41 images/s");
  /// per_s 0: not shown.
  void update_count(const std::string& what, std::int64_t done, std::int64_t total, const std::string& unit, double per_s,
                    double eta_s);
  /// Prints a message on its own line without garbling the bar.
  void message(const std::string& text);
  void finish();

 private:
  bool tty_;
  bool drawn_ = false;
  std::int64_t last_printed_step_ = -1;
};

std::string format_duration(double seconds);

}  // namespace fovea::cli
