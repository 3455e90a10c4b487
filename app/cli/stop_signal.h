#pragma once
/// Ctrl-C, SIGTERM and SIGHUP (a closed terminal) during a long command (training, pretraining): the run stops at its next step
/// and writes a checkpoint instead of dying mid-write.
#include <atomic>

namespace fovea::cli {

/// Installs SIGINT, SIGTERM and SIGHUP handlers that set the returned flag (one per process); pass it as
/// TrainCallbacks::stop.
std::atomic<bool>* stop_on_interrupt();

}  // namespace fovea::cli
