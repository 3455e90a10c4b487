#pragma once
/// How Fovea's programs start the other processes of a data-parallel group on this machine: copies
/// of the `fovea` tool with torchrun's variables set, so each joins the group exactly as under
/// torchrun (core/train/process_group.h). The core only asks for them (core/train/local_group.h).
#include <map>
#include <string>
#include <vector>

#include "core/train/local_group.h"

namespace fovea {

/// The exit status of `fovea train --processes N` when one of its processes was killed by a signal
/// or crashed (not 128 + the signal: the launcher itself was not killed).
constexpr int kProcessDiedExitCode = 3;

struct LocalGroupResult {
  int exit_code = 0;    ///< 0 when every process finished; else the first failure's code (kProcessDiedExitCode when killed)
  std::string failure;  ///< "process 1 of 2 (pid 1234) was killed by signal 9", empty on success
};

/// Processes first_rank .. processes - 1 of a group, started on this machine (the caller may be
/// process 0 itself). Each gets RANK and LOCAL_RANK, WORLD_SIZE and LOCAL_WORLD_SIZE,
/// MASTER_ADDR=127.0.0.1 and MASTER_PORT=port, and OMP_NUM_THREADS = cores / processes (at least
/// 1) unless the environment sets it. Each dies with the thread that started it (SIGTERM when it
/// ends, PR_SET_PDEATHSIG), so a launcher killed with -9 leaves no orphans.
class LocalProcesses {
 public:
  /// Throws naming the program when one cannot be started (those started are stopped).
  LocalProcesses(int processes, int first_rank, const std::string& program, const std::vector<std::string>& args, int port);
  /// Stops those still running (SIGTERM, SIGKILL 30 s later) and waits for them.
  ~LocalProcesses();
  LocalProcesses(const LocalProcesses&) = delete;
  LocalProcesses& operator=(const LocalProcesses&) = delete;

  /// Waits for every process. When one fails, the others get SIGTERM (a training run then writes
  /// its checkpoint and stops) and SIGKILL 30 s later if still running. SIGINT and SIGTERM sent to
  /// this process meanwhile are passed on to them.
  LocalGroupResult wait();

 private:
  void signal_all(int signal);
  int processes_;
  std::map<int, int> running_;  ///< pid -> rank
};

/// `fovea train --processes N`: runs `program` with `args` as the whole group, processes 0 .. N-1,
/// on a free port, and waits for them; SIGINT and SIGTERM are passed on to them meanwhile (each
/// writes its checkpoint and stops).
LocalGroupResult run_local_group(int processes, const std::string& program, const std::vector<std::string>& args);

/// Starts the other processes of a run as `fovea_program train <the run's settings>`.
class FoveaToolLauncher : public GroupLauncher {
 public:
  explicit FoveaToolLauncher(std::string fovea_program) : program_(std::move(fovea_program)) {}
  void start(const TrainConfig& config, int processes, int port) override;
  GroupOutcome wait() override;

 private:
  std::string program_;
  std::unique_ptr<LocalProcesses> others_;
};

}  // namespace fovea
