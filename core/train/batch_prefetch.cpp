#include "core/train/batch_prefetch.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

namespace fovea {

BatchPrefetch::BatchPrefetch(Make make, bool enabled) : make_(std::move(make)), enabled_(enabled) {}

BatchPrefetch::~BatchPrefetch() { cancel(); }

void BatchPrefetch::cancel() {
  if (!pending_.valid()) return;
  try {
    (void)pending_.get();
  } catch (...) {  // a batch nobody asked for: its error is not this caller's
  }
  pending_epoch_ = pending_step_ = -1;
}

Batch BatchPrefetch::take(std::int64_t epoch, std::int64_t step, std::int64_t next_epoch, std::int64_t next_step) {
  Batch batch;
  if (pending_.valid() && pending_epoch_ == epoch && pending_step_ == step) {
    pending_epoch_ = pending_step_ = -1;
    batch = pending_.get();
  } else {
    cancel();
    batch = make_(epoch, step);
  }
  if (enabled_) {
    pending_epoch_ = next_epoch;
    pending_step_ = next_step;
    pending_ = std::async(std::launch::async, make_, next_epoch, next_step);
  }
  return batch;
}

bool prefetch_has_a_core(const torch::Device& device, std::int64_t local_processes) {
  // Every process of a group on this machine runs its step's threads and would run a worker.
  const auto step_threads = std::max<std::int64_t>(1, local_processes) * std::int64_t(at::get_num_threads());
  const auto cores = std::int64_t(std::thread::hardware_concurrency());
  return device.is_cpu() ? cores > step_threads : cores >= std::max<std::int64_t>(2, 2 * local_processes);
}

std::int64_t local_processes() {
  const char* v = std::getenv("LOCAL_WORLD_SIZE");  // set by fovea's launcher and by torchrun
  const auto n = v ? std::atoll(v) : 1;
  return n > 0 ? n : 1;
}

}  // namespace fovea
