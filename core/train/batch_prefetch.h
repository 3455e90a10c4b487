#pragma once
/// The next training batch made on a worker thread while the current step runs (scenes drawn,
/// images decoded, resized and stacked, or annotations read from their cache), where a core is
/// free for it: with the step on a GPU, or on a CPU with more cores than the steps' threads (of all
/// of a group's processes on this machine). Where they already take every core, a worker would
/// only take time from them, and each batch is made when it is asked for.
#include <cstdint>
#include <functional>
#include <future>

#include "core/data/batching.h"

namespace fovea {

class BatchPrefetch {
 public:
  using Make = std::function<Batch(std::int64_t epoch, std::int64_t step)>;
  /// `make` is never called twice at once.
  BatchPrefetch(Make make, bool enabled);
  ~BatchPrefetch();
  BatchPrefetch(const BatchPrefetch&) = delete;
  BatchPrefetch& operator=(const BatchPrefetch&) = delete;

  /// Batch (epoch, step): the one made ahead when it is that one, else made now. Then, where
  /// enabled, starts making (next_epoch, next_step). An error making it is thrown here.
  Batch take(std::int64_t epoch, std::int64_t step, std::int64_t next_epoch, std::int64_t next_step);
  /// Waits for a batch in the making and drops it: before anything `make` reads changes.
  void cancel();
  bool enabled() const { return enabled_; }

 private:
  Make make_;
  bool enabled_;
  std::future<Batch> pending_;
  std::int64_t pending_epoch_ = -1, pending_step_ = -1;
};

/// Whether a batch worker has a core to itself beside a step on `device`, with `local_processes`
/// processes of a group on this machine (each a step and a worker): on the CPU, more cores than
/// their step threads; on a GPU, a core for each process's step and one for its worker.
bool prefetch_has_a_core(const torch::Device& device, std::int64_t local_processes = 1);
/// The processes of this run on this machine: LOCAL_WORLD_SIZE (fovea's launcher, torchrun), else 1.
std::int64_t local_processes();

}  // namespace fovea
