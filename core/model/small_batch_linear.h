#pragma once
/// y = x Wᵀ + b for a handful of rows: beam search's k hypotheses, one caption at a time.
///
/// A general GEMM is built for many rows; with 5 it reads each weight once but runs far below
/// the memory's speed (measured here: 8 GB/s for 5 × 512 by 512 × 8192, where the weights stream at
/// 20+ GB/s). This kernel streams each weight row once through registers holding every input
/// row's partial sums. Used only without autograd, on CPU float tensors with at most
/// kSmallBatchRows rows; everything else goes to torch::linear.
#include <torch/torch.h>

namespace fovea {

constexpr std::int64_t kSmallBatchRows = 8;

/// torch::linear(x, weight, bias), by the small-batch kernel when it applies.
torch::Tensor linear_for_decoding(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias);

/// The same through a module.
inline torch::Tensor linear_for_decoding(const torch::nn::Linear& layer, const torch::Tensor& x) {
  return linear_for_decoding(x, layer->weight, layer->bias);
}

}  // namespace fovea
