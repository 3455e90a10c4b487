#pragma once
/// A convolution block's batch norm and ReLU in one pass over the convolution's output, in place,
/// for blocks that run without gradients: a run's frozen encoder blocks, every block while
/// captioning or recalibrating batch-norm statistics. ATen's batch norm and ReLU pass over the
/// tensor several times and write two new ones; here the statistics take one read and the
/// normalisation one read and write.
#include "core/runtime/torch_compat.h"

namespace fovea {

/// Whether batch_norm_relu_ can take `x`: a float or bfloat16 (CPU autocast's convolutions) CPU
/// tensor (N, C, H, W) laid out channels-last with more than one value per channel, while
/// gradients are off.
bool batch_norm_relu_applies(const torch::Tensor& x);

/// x <- max(0, bn(x)) in place, as bn.forward(x) followed by a ReLU would compute it (to rounding;
/// in float, bfloat16 values rounded once at the end).
/// In training mode the batch's statistics normalise and bn's running mean, variance and batch
/// count move as bn.forward would move them (its momentum, or the cumulative average when it has
/// none); in eval mode the running statistics normalise. Throws unless batch_norm_relu_applies(x).
void batch_norm_relu_(torch::Tensor& x, torch::nn::BatchNorm2dImpl& bn);

}  // namespace fovea
