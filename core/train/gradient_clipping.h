#pragma once
/// Gradient norm clipping that also takes a gradient given as a weight's rows (a sparse tensor:
/// the word embedding's, core/model/word_gradient_rows.h). torch::nn::utils::clip_grad_norm_ counts
/// such a gradient in the norm but its scaling does not reach it (LibTorch 1.13 scales a copy of
/// the sparse tensor's header), and it writes every gradient even when nothing is clipped.
#include <torch/torch.h>

#include <vector>

namespace fovea {

/// The L2 norm of all of `parameters`' gradients together, as torch::nn::utils::clip_grad_norm_
/// computes it; if above `max_norm`, every gradient (dense, or a sparse one's values) is scaled by
/// max_norm / (norm + 1e-6). Returns the norm before clipping (NaN or ∞ if a gradient holds one).
double clip_gradient_norm(const std::vector<torch::Tensor>& parameters, double max_norm);

}  // namespace fovea
