#pragma once
/// A one-line terminal progress bar for training (step, loss, throughput, ETA).
#include <cstdint>
#include <string>

namespace fovea::cli {

class ProgressBar {
 public:
  ProgressBar();
  void update(std::int64_t step, std::int64_t total, std::int64_t epoch, double loss, double tokens_per_s, double eta_s);
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
