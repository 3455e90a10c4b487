#pragma once
/// The rows of the additive attention scores in the exponential form, tanh(p + q) = 1 − 2 / (e^2p
/// e^2q + 1) (core/model/additive_attention.h), written with AVX-512 and AVX2 intrinsics.
///
/// Written as plain loops, the compiler divides: a vector division takes 10 to 16 cycles on
/// current cores, and it bounded both the forward and the backward of the scores, which were then
/// a sixth of a bf16 training step. Here 2 / d is a reciprocal estimate refined by one Newton step
/// (two fused multiply-adds), within an ulp or two of the division. d is clamped to 2^126 first,
/// NaN kept: an infinite e^2p e^2q then gives tanh = 1, as the division does. CPUs without AVX2
/// and FMA, and builds for other targets, run the plain loops.
///
/// A bf16 training step keeps e^2p in bf16 (half the bytes to stream at every word), and its rows
/// take the reciprocal estimate alone: within 2^-14 (AVX-512) or 1.5 · 2^-12 (AVX2) of 1 / d,
/// where rounding e^2p to bf16 already moves d by up to 2^-9. Without the Newton step and with
/// 1 − tanh² = 4 (r − r²) for r = 1 / d, a cell of the backward takes half the arithmetic. Those
/// functions take one image's L rows at a time. The AVX-512 form of the bf16 rows also needs
/// AVX-512 BW and VL (every AVX-512 CPU but the Xeon Phi).
#include <cstdint>

namespace fovea {

/// Σ_a w[a] tanh(p[a] + q[a]) over A, from ep = e^2p and eq = e^2q.
float exponential_score_row(const float* ep, const float* eq, const float* w, std::int64_t A);

/// One (row, cell) of the backward: with s = 2 / (ep eq + 1) (so tanh = 1 − s and
/// 1 − tanh² = s (2 − s)), g = de · w ⊙ s (2 − s) is added into grad_p (when not null) and grad_q,
/// de · (1 − s) into grad_w.
void exponential_score_row_backward(const float* ep, const float* eq, float de, const float* w, float* grad_p,
                                    float* grad_q, float* grad_w, std::int64_t A);

/// One image's scores from e^2p in bf16 (the bits of L rows of A, one after the other):
/// out[l] = Σ_a w[a] tanh(p[l][a] + q[a]).
void exponential_scores_bf16(const std::uint16_t* ep, std::int64_t L, const float* eq, const float* w, std::int64_t A,
                             float* out);

/// Their backward for the scores' gradients de (L): g[l] = de[l] · w ⊙ (1 − tanh²) is added into
/// row l of grad_p (L × A, when not null), Σ_l g[l] into grad_q (A), Σ_l de[l] tanh into grad_w (A).
void exponential_scores_backward_bf16(const std::uint16_t* ep, std::int64_t L, const float* eq, const float* de,
                                      const float* w, float* grad_p, float* grad_q, float* grad_w, std::int64_t A);

/// Which form runs on this CPU: "AVX-512", "AVX2" or "plain" (for benchmarks and tests).
const char* exponential_score_rows_form();

}  // namespace fovea
