#include "app/cli/stop_signal.h"

#include <csignal>

namespace fovea::cli {

namespace {

std::atomic<bool> g_stop{false};
extern "C" void on_stop_signal(int) { g_stop.store(true); }

}  // namespace

std::atomic<bool>* stop_on_interrupt() {
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGHUP, on_stop_signal);  // the terminal or ssh session closed
  return &g_stop;
}

}  // namespace fovea::cli
