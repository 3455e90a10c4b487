#pragma once
/// Training in several processes (data parallel) on torch.distributed's engine: the launcher's
/// environment (torchrun's variables, which `fovea train --processes N` sets too), a c10d process
/// group (Gloo) joined over a TCPStore, and the collective operations a training step needs.
/// One process needs none of it.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/types.h>

namespace fovea {

/// Where this process stands in a group, as torchrun describes it.
struct ProcessGroupEnvironment {
  int rank = 0;        ///< RANK: 0 .. world_size - 1; rank 0 writes the run (and serves the store, unless torchrun's agent does)
  int world_size = 1;  ///< WORLD_SIZE: processes in the group, on every node
  int local_rank = 0;  ///< LOCAL_RANK: rank among this node's processes (its GPU on CUDA builds)
  std::string master_addr = "127.0.0.1";  ///< MASTER_ADDR: the host of rank 0's store
  int master_port = 29500;                ///< MASTER_PORT: its port
  /// TORCHELASTIC_USE_AGENT_STORE=True (torchrun's static rendezvous, `--master_port P`):
  /// torchrun's agent already serves the store at MASTER_ADDR:MASTER_PORT, so every rank, rank 0
  /// included, connects to it as a client.
  bool agent_store = false;
  /// TORCHELASTIC_RESTART_COUNT: which attempt this is. The agent's store outlives a restart, so
  /// each attempt keeps its keys under its own prefix, as PyTorch's own workers do.
  int restart_count = 0;
};

/// Reads RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_USE_AGENT_STORE and
/// TORCHELASTIC_RESTART_COUNT through `getenv`. Unset
/// WORLD_SIZE (not launched as a group): nullopt. Throws naming the variable when one is missing,
/// not a number, or out of range (RANK >= WORLD_SIZE, say).
std::optional<ProcessGroupEnvironment> process_group_environment(
    const std::function<const char*(const char*)>& getenv = [](const char* name) { return std::getenv(name); });

/// A TCP port on this machine that was free a moment ago (for MASTER_PORT).
int find_free_port();

/// A c10d Gloo process group. Every collective waits at most `timeout` for the other processes;
/// past it, or when one of them dies, it throws instead of hanging.
class ProcessGroup {
 public:
  /// Joins the group: rank 0 serves the TCPStore at master_addr:master_port, the others connect
  /// to it (all of them connect when torchrun's agent serves it: env.agent_store). Throws naming
  /// the address when the group does not form within `join_timeout` (0: `timeout`). `say`, when
  /// given, hears once when the others have not joined after a minute (FOVEA_STALL_WARNING_S).
  explicit ProcessGroup(const ProcessGroupEnvironment& env, std::chrono::milliseconds timeout = std::chrono::minutes(5),
                        std::chrono::milliseconds join_timeout = std::chrono::milliseconds(0),
                        const std::function<void(const std::string&)>& say = {});
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return env_.rank; }
  int size() const { return env_.world_size; }
  const ProcessGroupEnvironment& environment() const { return env_; }

  /// `root`'s values in every process, in place (CPU tensors), in buckets as all_reduce_sum.
  void broadcast(const std::vector<torch::Tensor>& tensors, int root = 0,
                 std::size_t bucket_bytes = std::size_t(25) << 20);
  /// `root`'s text in every process.
  std::string broadcast(const std::string& text, int root = 0);
  /// The sum over the processes, in place. Tensors of one dtype travel flattened together, in
  /// buckets of at most `bucket_bytes`: one collective per bucket, not per tensor.
  void all_reduce_sum(const std::vector<torch::Tensor>& tensors, std::size_t bucket_bytes = std::size_t(25) << 20);
  /// The sum of `value` over the processes.
  double all_reduce_sum(double value);
  /// Returns when every process has called it.
  void barrier();
  /// Where to say that a collective has waited over a minute for the others (core/train/stall_watch.h).
  void on_stall(std::function<void(const std::string&)> say);

 private:
  struct Impl;
  ProcessGroupEnvironment env_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fovea
