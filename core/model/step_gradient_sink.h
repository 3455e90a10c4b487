#pragma once
/// A tensor that every step of a training forward reads in part (the annotations, their projection
/// W_a a), with its gradient collected in one buffer.
///
/// Through autograd, each step's backward would return a gradient of the narrowed tensor, which
/// autograd zero-fills at full size and adds into the total: two passes over the whole tensor per
/// step (12.8 MB at the benchmark's sizes). The steps' fused backward passes instead add their
/// share in place into `sink`, and autograd hands the buffer on, once, after every step's backward
/// has run. A thread reuses its sink's buffer at its next step when nothing holds it any more.
#include <torch/torch.h>

namespace fovea {

struct StepGradientSink {
  torch::Tensor values;  ///< what the steps read: the same numbers, contiguous
  torch::Tensor sink;    ///< zeros of the same shape; undefined when no gradient is needed here
};

/// Wraps `t` for a training forward. Without autograd, when `t` needs no gradient, or on other
/// devices and dtypes than CPU float, returns `t` itself and no sink: the steps then use LibTorch's
/// operators.
StepGradientSink collect_step_gradient(const torch::Tensor& t);

}  // namespace fovea
