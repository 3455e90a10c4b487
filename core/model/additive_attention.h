#pragma once
/// The additive attention scores e_ti = w · tanh(W_a a_i + W_h h_t) + b (SPEC §1) as one fused CPU
/// kernel with a hand-written backward.
///
/// Written with LibTorch operators, a step reads and writes the (b, L, A) tensors of the sum, its
/// tanh, the outer product of the score gradient with w, tanh's backward and the gradient of the
/// narrowed projection (zero-filled at full size every step, then added into the projection's
/// gradient): about a dozen passes over 12.8 MB per step at the benchmark's sizes. The fused
/// kernel makes one pass forward and one backward, and every step's gradient of the projection
/// is added in place into one buffer that is handed to autograd once (core/model/step_gradient_sink.h).
/// Other devices and dtypes run the LibTorch operators.
#include <torch/torch.h>

namespace fovea {

/// Scores (b, L) for the first b = q.size(0) rows of `projected` (B, L, A; any stride over B, so an
/// expanded projection works), q = W_h h (b, A), w (A) and bias (1). `sink` is the buffer from
/// collect_step_gradient when `projected` needs a gradient.
torch::Tensor additive_attention_scores(const torch::Tensor& projected, const torch::Tensor& q, const torch::Tensor& w,
                                        const torch::Tensor& bias, const torch::Tensor& sink = {});

/// The same scores with LibTorch operators: the reference the fused kernel is tested against.
torch::Tensor additive_attention_scores_reference(const torch::Tensor& projected, const torch::Tensor& q,
                                                  const torch::Tensor& w, const torch::Tensor& bias);

}  // namespace fovea
