#pragma once
/// Says when a process of a group has waited a long time for the others in one collective (a
/// peer stopped with SIGSTOP, stuck, or far slower): the group itself only gives up after its
/// collective timeout (30 minutes for training), which would otherwise pass in silence.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace fovea {

class StallWatch {
 public:
  /// `after`: how long a collective may wait before it is said; the environment's
  /// FOVEA_STALL_WARNING_S (seconds) replaces it when set.
  explicit StallWatch(std::chrono::seconds after = std::chrono::seconds(60));
  ~StallWatch();
  StallWatch(const StallWatch&) = delete;
  StallWatch& operator=(const StallWatch&) = delete;

  /// Where the warning goes (the run's messages); none: it is not said.
  void on_stall(std::function<void(const std::string&)> say);
  /// A collective (`what`, e.g. "an all-reduce") starts / ends. Once per collective that waits
  /// longer than the limit, `say` hears how long it has waited.
  void start(const char* what);
  /// The same for a wait that is not a collective: `text` is said whole ("waiting N s " + text).
  void start_wait(std::string text);
  void end();

 private:
  void watch();

  std::chrono::milliseconds after_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::function<void(const std::string&)> say_;
  const char* what_ = nullptr;  ///< the collective waiting, or none
  std::string text_;            ///< start_wait's text, said whole (what_ points into it then)
  bool whole_text_ = false;     ///< the wait is start_wait's, not a collective's
  std::chrono::steady_clock::time_point since_;
  bool said_ = false, quit_ = false;
  std::thread thread_;
};

/// Marks one collective for a StallWatch while alive.
class StallWatchScope {
 public:
  StallWatchScope(StallWatch& watch, const char* what) : watch_(watch) { watch_.start(what); }
  ~StallWatchScope() { watch_.end(); }
  StallWatchScope(const StallWatchScope&) = delete;
  StallWatchScope& operator=(const StallWatchScope&) = delete;

 private:
  StallWatch& watch_;
};

}  // namespace fovea
