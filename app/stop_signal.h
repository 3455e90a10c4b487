#pragma once
/// Ctrl-C and SIGTERM during a long command (training, pretraining): the run stops at its next step
/// and writes a checkpoint instead of dying mid-write.
#include <atomic>

namespace fovea::cli {

/// Installs SIGINT and SIGTERM handlers that set the returned flag (one per process); pass it as
/// TrainCallbacks::stop.
std::atomic<bool>* stop_on_interrupt();

}  // namespace fovea::cli
