#include "core/train/local_group.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "core/train/data_parallel.h"
#include "core/train/train_settings.h"

extern char** environ;

namespace fovea {
namespace {

/// How long processes told to stop (SIGTERM) get to write their checkpoint.
constexpr auto kStopGrace = std::chrono::seconds(30);

/// This process's environment with `set` replacing or adding variables.
std::vector<std::string> environment_with(const std::map<std::string, std::string>& set) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (set.count(entry.substr(0, entry.find('='))) == 0) env.push_back(entry);
  }
  for (const auto& [name, value] : set) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (auto& s : strings) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

int exit_code_of(int status) { return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status); }

/// Ignores SIGINT and SIGTERM while alive: they are for the processes of the group (the
/// terminal sends Ctrl-C to all of them), and the launcher waits for them to stop.
struct IgnoreStopSignals {
  struct sigaction old_int {}, old_term {};
  IgnoreStopSignals() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGINT, &ignore, &old_int);
    sigaction(SIGTERM, &ignore, &old_term);
  }
  ~IgnoreStopSignals() {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
  }
};

}  // namespace

LocalProcesses::LocalProcesses(int processes, int first_rank, const std::string& program,
                               const std::vector<std::string>& args, int port)
    : processes_(processes) {
  if (processes < 1) throw std::invalid_argument("--processes must be at least 1, got " + std::to_string(processes));
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const char* omp = std::getenv("OMP_NUM_THREADS");
  const std::string threads = omp != nullptr && *omp != '\0' ? omp : std::to_string(std::max(1u, cores / unsigned(processes)));
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;  // a launcher that ignores SIGINT must not pass that on
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  for (int rank = first_rank; rank < processes; ++rank) {
    auto env = environment_with({{"RANK", std::to_string(rank)},
                                 {"LOCAL_RANK", std::to_string(rank)},
                                 {"WORLD_SIZE", std::to_string(processes)},
                                 {"LOCAL_WORLD_SIZE", std::to_string(processes)},
                                 {"MASTER_ADDR", "127.0.0.1"},
                                 {"MASTER_PORT", std::to_string(port)},
                                 {"OMP_NUM_THREADS", threads}});
    std::vector<std::string> argv{program};
    argv.insert(argv.end(), args.begin(), args.end());
    auto argv_p = pointers(argv);
    auto env_p = pointers(env);
    pid_t pid = 0;
    const int err = posix_spawn(&pid, program.c_str(), nullptr, &attr, argv_p.data(), env_p.data());
    if (err != 0) {
      posix_spawnattr_destroy(&attr);
      signal_all(SIGKILL);
      wait();
      throw std::runtime_error("cannot start process " + std::to_string(rank) + " of " + std::to_string(processes) + " (" +
                               program + "): " + std::strerror(err));
    }
    running_[pid] = rank;
  }
  posix_spawnattr_destroy(&attr);
}

LocalProcesses::~LocalProcesses() {
  if (running_.empty()) return;
  signal_all(SIGTERM);
  const auto kill_at = std::chrono::steady_clock::now() + kStopGrace;
  while (!running_.empty()) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      running_.erase(pid);
      continue;
    }
    if (pid < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() >= kill_at) signal_all(SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void LocalProcesses::signal_all(int signal) {
  for (const auto& [pid, rank] : running_) ::kill(pid, signal);
}

LocalGroupResult LocalProcesses::wait() {
  LocalGroupResult result;
  std::chrono::steady_clock::time_point kill_at{};
  bool stopping = false;
  while (!running_.empty()) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, stopping ? WNOHANG : 0);
    if (pid == 0) {  // the others were told to stop: kill those that take too long
      if (std::chrono::steady_clock::now() >= kill_at) signal_all(SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    const auto it = running_.find(pid);
    if (it == running_.end()) continue;
    const int rank = it->second;
    running_.erase(it);
    const bool failed = !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (failed && result.failure.empty()) {
      result.exit_code = exit_code_of(status);
      result.failure = "process " + std::to_string(rank) + " of " + std::to_string(processes_) + " (pid " +
                       std::to_string(pid) + ") " + describe_status(status);
      if (!running_.empty() && !stopping) {
        signal_all(SIGTERM);
        stopping = true;
        kill_at = std::chrono::steady_clock::now() + kStopGrace;
      }
    }
  }
  return result;
}

LocalGroupResult run_local_group(int processes, const std::string& program, const std::vector<std::string>& args) {
  IgnoreStopSignals ignore;
  LocalProcesses group(processes, 0, program, args, find_free_port());
  return group.wait();
}

TrainResult train_with_local_processes(const TrainConfig& config, const TrainCallbacks& callbacks, int processes,
                                       const std::string& fovea_program) {
  if (processes <= 1) return train(config, callbacks);
  config.validate();
  const int port = find_free_port();
  std::vector<std::string> args{"train"};
  for (const auto& a : train_arguments(config)) args.push_back(a);
  LocalProcesses others(processes, 1, fovea_program, args, port);
  ProcessGroupEnvironment env;
  env.world_size = processes;
  env.master_port = port;
  TrainData data;
  data.group = std::make_shared<ProcessGroup>(env, kTrainingCollectiveTimeout, kTrainingJoinTimeout);
  TrainResult result;
  try {
    result = train(config, callbacks, data);
  } catch (const std::exception& e) {
    // Another process's failure shows here as a failed collective: name it when it is known.
    data.group.reset();
    const auto done = others.wait();
    throw std::runtime_error(std::string(e.what()) + (done.failure.empty() ? "" : "; " + done.failure));
  }
  data.group.reset();
  const auto done = others.wait();
  const bool stopped_together = result.interrupted && done.exit_code == 130;  // `fovea train`'s "interrupted"
  if (done.exit_code != 0 && !stopped_together) throw std::runtime_error(done.failure);
  return result;
}

}  // namespace fovea
