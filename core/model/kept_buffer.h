#pragma once
/// A buffer a thread keeps from one training step to the next.
///
/// Tensors of several MB made anew at every step (a step's gradient sink, a part's annotations) come
/// from fresh pages that the kernel clears on first touch: milliseconds a step for a part. A thread
/// keeps the last one instead and hands it out again once nothing else holds it (its use counts
/// say so: a retained graph or a gradient kept elsewhere gets a new one).
#include <torch/torch.h>

namespace fovea {

/// `kept` when it has these sizes and options and only `kept` holds it (its values are stale);
/// else a new uninitialised tensor, which `kept` then holds.
inline torch::Tensor kept_buffer(torch::Tensor& kept, at::IntArrayRef sizes, const at::TensorOptions& options) {
  const bool reusable = kept.defined() && kept.sizes() == sizes && kept.scalar_type() == options.dtype() &&
                        kept.device() == options.device() && kept.use_count() == 1 &&
                        kept.storage().use_count() == 1;
  if (!reusable) kept = torch::empty(sizes, options);
  return kept;
}

}  // namespace fovea
