#pragma once
/// The additive attention scores e_ti = w · tanh(W_a a_i + W_h h_t) + b (docs/design.md §1.3) as one fused CPU
/// kernel with a hand-written backward.
///
/// Written with LibTorch operators, a step reads and writes the (b, L, A) tensors of the sum, its
/// tanh, the outer product of the score gradient with w, tanh's backward and the gradient of the
/// narrowed projection (zero-filled at full size every step, then added into the projection's
/// gradient): about a dozen passes over 12.8 MB per step at the benchmark's sizes. The fused
/// kernel makes one pass forward and one backward, and every step's gradient of the projection
/// is added in place into one buffer that is handed to autograd once (core/model/step_gradient_sink.h).
/// Other devices and dtypes run the LibTorch operators.
///
/// Where every |W_a a| is at most kExponentialFormBound, the kernel takes tanh(p + q) as
/// 1 − 2 / (e^2p e^2q + 1), with e^2p computed once per image (attention_keys) and e^2q once per
/// step: a multiply-add and a reciprocal per cell and word instead of a rational function (within
/// about 1e-7 of tanh, absolutely; the rational is within a few ulp, relatively). Those rows are
/// written with intrinsics (core/model/attention_score_rows.h).
#include <torch/torch.h>

namespace fovea {

/// The largest |W_a a| for which attention_keys() gives the exponential form. With q clamped to
/// ±(bound + 10) (beyond it tanh(p + q) is ±1 in float either way), e^2p e^2q stays finite or
/// rounds to 0 or infinity, which the form maps to ∓1 and ±1; e^±2q stays a normal float.
inline constexpr float kExponentialFormBound = 30.0f;

/// What the attention scores read from the annotations: their projection p = W_a a (B, L, A) and,
/// where it applies, e^2p of the same shape (undefined otherwise). A plain projection converts
/// implicitly (the scores then use the rational tanh).
struct AttentionKeys {
  AttentionKeys(torch::Tensor projected) : projected(std::move(projected)) {}  // NOLINT: implicit on purpose
  AttentionKeys(torch::Tensor projected, torch::Tensor exponential)
      : projected(std::move(projected)), exponential(std::move(exponential)) {}
  torch::Tensor projected;
  torch::Tensor exponential;  ///< float, or bf16
};

/// The keys of `projected` with e^2p where the exponential form applies: a CPU float tensor whose
/// entries are all finite and at most kExponentialFormBound in magnitude. e^2p has no gradient:
/// the scores' backward gives the projection's gradient through the sink, as with p alone.
/// With `bf16`, e^2p is rounded to bf16 (a relative 2^-9, as if p moved by at most 0.001): the
/// scores and their backward read half the bytes at every word, for `--precision bf16` training.
AttentionKeys attention_keys(const torch::Tensor& projected, bool bf16 = false);

/// Scores (b, L) for the first b = q.size(0) rows of `keys.projected` (B, L, A; any stride over B,
/// so an expanded projection works), q = W_h h (b, A), w (A) and bias (1). `sink` is the buffer
/// from collect_step_gradient when the projection needs a gradient.
torch::Tensor additive_attention_scores(const AttentionKeys& keys, const torch::Tensor& q, const torch::Tensor& w,
                                        const torch::Tensor& bias, const torch::Tensor& sink = {});

/// The same scores with LibTorch operators: the reference the fused kernel is tested against.
torch::Tensor additive_attention_scores_reference(const torch::Tensor& projected, const torch::Tensor& q,
                                                  const torch::Tensor& w, const torch::Tensor& bias);

}  // namespace fovea
