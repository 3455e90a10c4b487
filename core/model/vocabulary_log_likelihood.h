#pragma once
/// log p(target) under the vocabulary softmax of the deep output layer, for all of a batch's words
/// at once: log_softmax(x Wᵀ + b)[target], with its gradient.
///
/// On the CPU in float (no autocast) the bias, the row maximum and the exponential sum take one
/// pass over each row of logits while it is in cache, and the backward writes the logits' gradient
/// in one pass: ATen's addmm, log_softmax, gather and their backward read and write the N × V
/// logits (20 MB at the benchmark's sizes) about ten times. Elsewhere (CUDA, bf16 autocast) it is
/// ATen's composition.
#include "core/runtime/torch_compat.h"

namespace fovea {

/// x: (N, E), weight: (V, E), bias: (V), targets: (N) indices in [0, V). Returns (N).
torch::Tensor vocabulary_log_likelihood(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                                        const torch::Tensor& targets);

}  // namespace fovea
