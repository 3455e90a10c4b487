#include "launch/local_processes.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <thread>

#include "core/train/process_group.h"
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
  if (WIFSIGNALED(status)) {
    const char* name = ::strsignal(WTERMSIG(status));
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + (name != nullptr ? " (" + std::string(name) + ")" : "");
  }
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

int exit_code_of(int status) { return WIFSIGNALED(status) ? kProcessDiedExitCode : WEXITSTATUS(status); }

/// The last SIGINT, SIGTERM or SIGHUP this process received while a group runs (0: none since taken).
volatile std::sig_atomic_t g_received = 0;
extern "C" void forward_stop_signal(int signal) { g_received = signal; }

/// While alive, SIGINT, SIGTERM and SIGHUP are recorded rather than acted on: the launcher passes them on
/// to the processes of the group (a terminal's Ctrl-C reaches them itself; a `kill` of the
/// launcher's pid alone does not) and waits for them to stop.
struct ForwardStopSignals {
  struct sigaction old_int {}, old_term {}, old_hup {};
  ForwardStopSignals() {
    g_received = 0;
    struct sigaction record {};
    record.sa_handler = forward_stop_signal;
    sigemptyset(&record.sa_mask);
    sigaction(SIGINT, &record, &old_int);
    sigaction(SIGTERM, &record, &old_term);
    sigaction(SIGHUP, &record, &old_hup);
  }
  ~ForwardStopSignals() {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    sigaction(SIGHUP, &old_hup, nullptr);
  }
};

/// Starts `program` in a child that dies with the calling thread: fork, then only
/// async-signal-safe calls before exec (this process may run other threads). A failed exec is
/// reported through a close-on-exec pipe: returns -1 with *error set then.
pid_t start_child(const std::string& program, char* const* argv, char* const* envp, int* error) {
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    *error = errno;
    return -1;
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(report[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(128 + SIGTERM);  // the launcher died before prctl
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(SIGINT, &dfl, nullptr);  // a launcher that records them must not pass that on
    ::sigaction(SIGTERM, &dfl, nullptr);
    ::sigaction(SIGHUP, &dfl, nullptr);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execve(program.c_str(), argv, envp);
    const int e = errno;
    [[maybe_unused]] const auto n = ::write(report[1], &e, sizeof e);
    ::_exit(127);
  }
  ::close(report[1]);
  if (pid < 0) {
    *error = errno;
    ::close(report[0]);
    return -1;
  }
  int e = 0;
  ssize_t n;
  do n = ::read(report[0], &e, sizeof e); while (n < 0 && errno == EINTR);
  ::close(report[0]);
  if (n == ssize_t(sizeof e)) {  // exec failed: the child has exited
    ::waitpid(pid, nullptr, 0);
    *error = e;
    return -1;
  }
  return pid;
}

}  // namespace

LocalProcesses::LocalProcesses(int processes, int first_rank, const std::string& program,
                               const std::vector<std::string>& args, int port)
    : processes_(processes) {
  if (processes < 1) throw std::invalid_argument("--processes must be at least 1, got " + std::to_string(processes));
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const char* omp = std::getenv("OMP_NUM_THREADS");
  const std::string threads = omp != nullptr && *omp != '\0' ? omp : std::to_string(std::max(1u, cores / unsigned(processes)));
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
    int err = 0;
    const pid_t pid = start_child(program, argv_p.data(), env_p.data(), &err);
    if (pid < 0) {
      signal_all(SIGKILL);
      wait();
      throw std::runtime_error("cannot start process " + std::to_string(rank) + " of " + std::to_string(processes) + " (" +
                               program + "): " + std::strerror(err));
    }
    running_[pid] = rank;
  }
}

LocalProcesses::~LocalProcesses() {
  if (running_.empty()) return;
  signal_all(SIGTERM);
  const auto kill_at = std::chrono::steady_clock::now() + kStopGrace;
  while (!running_.empty()) {
    int status = 0;
    pid_t pid = 0;
    for (const auto& [child, rank] : running_) {
      pid = ::waitpid(child, &status, WNOHANG);
      if (pid != 0) break;
    }
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
    if (const int received = g_received; received != 0) {
      g_received = 0;
      signal_all(received);
    }
    // Every process of this group (not another's) that ended since the last look.
    struct Ended {
      pid_t pid;
      int rank, status;
    };
    std::vector<Ended> ended;
    for (auto it = running_.begin(); it != running_.end();) {
      int status = 0;
      const pid_t pid = ::waitpid(it->first, &status, WNOHANG);
      if (pid == it->first || (pid < 0 && errno == ECHILD)) {
        if (pid == it->first) ended.push_back({pid, it->second, status});
        it = running_.erase(it);
      } else {
        ++it;
      }
    }
    // When several ended together, the cause comes first: a process killed or crashed, then one
    // that failed, before one that died of SIGPIPE writing to a peer already gone.
    const auto rank_of_cause = [](int status) {
      if (WIFSIGNALED(status)) return WTERMSIG(status) == SIGPIPE ? 2 : 0;
      return WEXITSTATUS(status) != 0 ? 1 : 3;
    };
    std::stable_sort(ended.begin(), ended.end(),
                     [&](const Ended& x, const Ended& y) { return rank_of_cause(x.status) < rank_of_cause(y.status); });
    for (const auto& e : ended) {
      const bool failed = !(WIFEXITED(e.status) && WEXITSTATUS(e.status) == 0);
      if (!failed || !result.failure.empty()) continue;
      result.exit_code = exit_code_of(e.status);
      result.failure = "process " + std::to_string(e.rank) + " of " + std::to_string(processes_) + " (pid " +
                       std::to_string(e.pid) + ") " + describe_status(e.status);
      if (!running_.empty() && !stopping) {
        signal_all(SIGTERM);
        stopping = true;
        kill_at = std::chrono::steady_clock::now() + kStopGrace;
      }
    }
    if (ended.empty() && !running_.empty()) {  // none ended: kill those told to stop that take too long
      if (stopping && std::chrono::steady_clock::now() >= kill_at) signal_all(SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  return result;
}

LocalGroupResult run_local_group(int processes, const std::string& program, const std::vector<std::string>& args) {
  ForwardStopSignals forward;
  LocalProcesses group(processes, 0, program, args, find_free_port());
  return group.wait();
}

void FoveaToolLauncher::start(const TrainConfig& config, int processes, int port) {
  std::vector<std::string> args{"train"};
  for (const auto& a : train_arguments(config)) args.push_back(a);
  others_ = std::make_unique<LocalProcesses>(processes, 1, program_, args, port);
}

GroupOutcome FoveaToolLauncher::wait() {
  GroupOutcome outcome;
  if (!others_) return outcome;
  const auto done = others_->wait();
  others_.reset();
  outcome.ok = done.exit_code == 0;
  outcome.stopped_when_asked = done.exit_code == 130;  // `fovea train`'s "interrupted"
  outcome.failure = done.failure;
  return outcome;
}

}  // namespace fovea
