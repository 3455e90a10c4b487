#pragma once
/// Data-parallel training over a process group (core/train/process_group.h): each process takes
/// its share of every batch, the gradients are summed over the processes before clipping, and
/// every replica keeps the first process's weights and batch-norm statistics. A null group is one
/// process, and every function here is then a no-op or the whole batch.
#include <chrono>
#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "core/train/process_group.h"

namespace fovea {

/// How long a training process waits for the others at a collective: the first process
/// validates alone at each epoch's end while the others wait. (A process that dies closes its
/// connections, and the others stop at once.)
inline constexpr std::chrono::minutes kTrainingCollectiveTimeout{30};
/// How long the processes of a training run wait for each other to join.
inline constexpr std::chrono::minutes kTrainingJoinTimeout{10};

/// The rows of a global batch one process trains on.
struct BatchShard {
  std::int64_t begin = 0, size = 0;
};

/// Throws naming both numbers when `global_batch` rows do not divide evenly among `processes`
/// (`--batch` is the global batch at any scale). A launcher checks it before it starts them.
void check_batch_divides(std::int64_t global_batch, std::int64_t processes);

/// Process `group->rank()`'s contiguous share of `global_batch` rows; throws as check_batch_divides.
BatchShard batch_shard(std::int64_t global_batch, const ProcessGroup* group);

/// Sums the defined gradients of `params` over the processes (bucketed all-reduce), then scales
/// them by `scale` (1 / processes averages them).
void all_reduce_gradients(ProcessGroup* group, const std::vector<torch::Tensor>& params, double scale = 1.0);

/// The first process's parameters (TorchScript backbone included) and buffers in every process.
void broadcast_weights(ProcessGroup* group, torch::nn::Module& module, const std::vector<torch::Tensor>& extra = {});

/// The first process's buffers (batch-norm statistics) in every process.
void broadcast_buffers(ProcessGroup* group, torch::nn::Module& module);

}  // namespace fovea
