// The GUI thread's blocks, measured by a 1 ms precise timer: each gap between two ticks, minus
// the interval, is how long the thread could not answer. A block is charged to the phase that
// was current when it ended (the phase whose action caused it, as the benches start each action
// at the top of a tick).
//
// Two figures per gap: the wall-clock block, what a user sees, and the GUI thread's own CPU time
// within it. On a quiet machine they agree; on a loaded one (other programs, a training run on
// the same cores) the wall figure also holds the time the thread waited for a core, which no
// change to the GUI can remove, while the CPU figure is the GUI's own work.
#pragma once

#include <QElapsedTimer>
#include <QTimer>

#include <deque>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fovea::ui_bench {

class GapProbe {
 public:
  struct Phase {
    std::vector<double> blocked_ms;  // wall clock, interval subtracted
    std::vector<double> busy_ms;     // the GUI thread's CPU time within each gap
  };

  GapProbe();
  void start();
  void stop();
  /// Gaps from now on are charged to `phase` (created on first use).
  void enter(const std::string& phase);
  Phase& phase(const std::string& name);
  /// For each phase "<name>_max_blocked_ms" and "<name>_max_busy_ms", and the overall
  /// "max_blocked_ms", "max_busy_ms", "p99_blocked_ms", "median_blocked_ms" and "ticks".
  nlohmann::json report() const;
  /// Drops what was recorded so far (the probe keeps running).
  void clear();

 private:
  QTimer timer_;
  QElapsedTimer clock_;
  qint64 last_wall_ns_ = 0;
  double last_cpu_ms_ = 0;
  std::deque<std::pair<std::string, Phase>> phases_;  // a deque: `current_` stays valid
  Phase* current_ = nullptr;
};

/// CPU time this thread has used, in milliseconds.
double thread_cpu_ms();
double percentile(std::vector<double> v, double p);

}  // namespace fovea::ui_bench
