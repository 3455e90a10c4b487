#pragma once
/// Data-parallel runs on this machine without torchrun: `fovea train --processes N` and
/// fovea-studio's New run dialog start copies of the `fovea` tool with torchrun's variables set,
/// so each joins the same process group (core/train/process_group.h) exactly as under torchrun.
#include <map>
#include <string>
#include <vector>

#include "core/train/trainer.h"

namespace fovea {

struct LocalGroupResult {
  int exit_code = 0;    ///< 0 when every process finished; else the first failure's code (128 + signal when killed)
  std::string failure;  ///< "process 1 of 2 (pid 1234) was killed by signal 9", empty on success
};

/// Processes first_rank .. processes - 1 of a group, started on this machine (the caller may be
/// process 0 itself). Each gets RANK and LOCAL_RANK, WORLD_SIZE and LOCAL_WORLD_SIZE,
/// MASTER_ADDR=127.0.0.1 and MASTER_PORT=port, and OMP_NUM_THREADS = cores / processes (at least
/// 1) unless the environment sets it.
class LocalProcesses {
 public:
  /// Throws naming the program when one cannot be started (those started are stopped).
  LocalProcesses(int processes, int first_rank, const std::string& program, const std::vector<std::string>& args, int port);
  /// Stops those still running (SIGTERM, SIGKILL 30 s later) and waits for them.
  ~LocalProcesses();
  LocalProcesses(const LocalProcesses&) = delete;
  LocalProcesses& operator=(const LocalProcesses&) = delete;

  /// Waits for every process. When one fails, the others get SIGTERM (a training run then writes
  /// its checkpoint and stops) and SIGKILL 30 s later if still running.
  LocalGroupResult wait();

 private:
  void signal_all(int signal);
  int processes_;
  std::map<int, int> running_;  ///< pid -> rank
};

/// `fovea train --processes N`: runs `program` with `args` as the whole group, processes 0 .. N-1,
/// on a free port, and waits for them; Ctrl-C and SIGTERM are theirs meanwhile (each writes its
/// checkpoint and stops).
LocalGroupResult run_local_group(int processes, const std::string& program, const std::vector<std::string>& args);

/// A new run trained by `processes` processes on this machine: this process is process 0 (it
/// reports through `callbacks`, as train() does) and the others are `fovea_program train` with
/// the run's settings. Throws what train() throws, and naming the process when another one fails.
TrainResult train_with_local_processes(const TrainConfig& config, const TrainCallbacks& callbacks, int processes,
                                       const std::string& fovea_program);

}  // namespace fovea
