#pragma once
/// A trained convolution of the built-in CNN under `--precision bf16`: its forward in bfloat16, its
/// backward in float.
///
/// oneDNN 2.6's bf16 convolution backward on channels-last activations ran 10× slower than the
/// float one on a Xeon with AMX (1 s against 90 ms for a 128-channel block of the recipe's batch),
/// while the bf16 forward was faster than the float one. Here the forward multiplies in bf16 and
/// returns bf16 (batch norm and ReLU after it run faster in bf16 too), and the backward computes
/// both gradients in float from the saved input and weight: never slower than fp32's.
#include <torch/torch.h>

namespace fovea {

/// conv2d(x, weight) without bias, bf16 forward and float backward as above. `x`: (B, C, H, W),
/// float or bf16, CPU; returns bf16. Runs with CPU autocast excluded (it chose the dtypes).
torch::Tensor bf16_convolution(const torch::Tensor& x, const torch::Tensor& weight, torch::IntArrayRef stride,
                               torch::IntArrayRef padding);

}  // namespace fovea
