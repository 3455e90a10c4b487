#pragma once
/// The attention's context ẑ = Σ_l α_l a_l (docs/design.md §1.4) as a fused CPU kernel with a hand-written
/// backward.
///
/// ATen's bmm treats each image's (L, D) annotations as a matrix to pack for a one-row product,
/// forward and again for α's gradient: about 1 ms a step at the benchmark's sizes, where reading
/// the 12.8 MB once takes a third of that. Its backward also returns the annotations' gradient at
/// full size for autograd to add up over the steps. Here the forward and the backward each read the
/// annotations once, and the annotations' gradient is added in place into the step gradient sink
/// (core/model/step_gradient_sink.h). Annotations in bf16 that need no gradient (a bf16 run rounds
/// them once, core/train/decoder_pass.h) are read as they are, in half the bytes, accumulated in
/// float. Other devices and dtypes run bmm.
#include <torch/torch.h>

namespace fovea {

/// Context (b, D) for α (b, L) and the first b rows of `annotations` (B, L, D; any stride over B,
/// so beam search's one image expanded over its beams works).
/// `sink` is the buffer from collect_step_gradient when `annotations` needs a gradient.
torch::Tensor attention_context(const torch::Tensor& alpha, const torch::Tensor& annotations,
                                const torch::Tensor& sink = {});

}  // namespace fovea
