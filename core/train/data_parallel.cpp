#include "core/train/data_parallel.h"

#include <stdexcept>
#include <string>

namespace fovea {

void check_batch_divides(std::int64_t global_batch, std::int64_t processes) {
  if (processes > 1 && global_batch % processes != 0) {
    throw std::invalid_argument("the batch (" + std::to_string(global_batch) + " images) does not divide among " +
                                std::to_string(processes) + " processes: choose a batch that is a multiple of " +
                                std::to_string(processes));
  }
}

BatchShard batch_shard(std::int64_t global_batch, const ProcessGroup* group) {
  if (group == nullptr || group->size() == 1) return {0, global_batch};
  const std::int64_t n = group->size();
  check_batch_divides(global_batch, n);
  const auto size = global_batch / n;
  return {size * group->rank(), size};
}

void all_reduce_gradients(ProcessGroup* group, const std::vector<torch::Tensor>& params, double scale) {
  if (group == nullptr || group->size() == 1) return;
  std::vector<torch::Tensor> grads;
  for (const auto& p : params) {
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  group->all_reduce_sum(grads);
  if (scale != 1.0) {
    torch::NoGradGuard no_grad;
    for (auto& g : grads) g.mul_(scale);
  }
}

namespace {

std::vector<torch::Tensor> non_empty(const std::vector<torch::Tensor>& tensors) {
  std::vector<torch::Tensor> out;
  for (const auto& t : tensors) {
    if (t.defined() && t.numel() > 0) out.push_back(t);
  }
  return out;
}

}  // namespace

void broadcast_weights(ProcessGroup* group, torch::nn::Module& module, const std::vector<torch::Tensor>& extra) {
  if (group == nullptr || group->size() == 1) return;
  torch::NoGradGuard no_grad;
  auto tensors = module.parameters();
  for (const auto& t : extra) tensors.push_back(t);
  for (const auto& b : module.buffers()) tensors.push_back(b);
  group->broadcast(non_empty(tensors));
}

void broadcast_buffers(ProcessGroup* group, torch::nn::Module& module) {
  if (group == nullptr || group->size() == 1) return;
  torch::NoGradGuard no_grad;
  group->broadcast(non_empty(module.buffers()));
}

}  // namespace fovea
