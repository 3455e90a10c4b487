#pragma once
/// Data-parallel runs on this machine without torchrun: this process is process 0 of the group
/// and the application starts the others (`fovea train --processes N`, fovea-studio's New run
/// dialog). The core never runs a program itself: it asks the GroupLauncher it is handed.
#include <string>

#include "core/train/trainer.h"

namespace fovea {

/// How the other processes of a group ended.
struct GroupOutcome {
  bool ok = true;                 ///< every process finished
  bool stopped_when_asked = false;  ///< they stopped because the run was interrupted, as asked
  std::string failure;            ///< "process 1 of 2 (pid 1234) was killed by signal 9" when not ok
};

/// Starts processes 1 .. processes - 1 of a group that joins process 0's store on 127.0.0.1:port,
/// each training `config` (the programs hand in launch/local_processes.h's).
class GroupLauncher {
 public:
  virtual ~GroupLauncher() = default;
  /// Throws naming the program when one cannot be started (those started are stopped).
  virtual void start(const TrainConfig& config, int processes, int port) = 0;
  /// Waits for those started; when one fails, the others are told to stop.
  virtual GroupOutcome wait() = 0;
};

/// A new run trained by `processes` processes on this machine: this process is process 0 (it
/// reports through `callbacks`, as train() does) and `launcher` starts the others. Throws what
/// train() throws, and naming the process when another one fails.
TrainResult train_with_local_processes(const TrainConfig& config, const TrainCallbacks& callbacks, int processes,
                                       GroupLauncher& launcher);

}  // namespace fovea
