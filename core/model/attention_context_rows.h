#pragma once
/// The attention context's inner loops over bf16 annotations (core/model/attention_context.h), one
/// image at a time, written with AVX-512 intrinsics where the CPU has them.
///
/// Widening bf16 to float one value at a time takes two instructions for every 16 values (a
/// conversion and a shift) beside the multiply-add. Read as 32-bit words, 32 bf16 values give their
/// even-numbered values by one shift and their odd-numbered ones by one mask: the context's sums
/// are kept in that order in registers over all L rows and put back in order once, α's gradient
/// reads the context's gradient reordered the same way once per image. Other CPUs run loops the
/// compiler vectorises. Both multiply and add in float.
#include <cstdint>

namespace fovea {

/// out (D) = Σ_l alpha[l] a[l] over the L rows of D bf16 values (their bits) of one image.
void bf16_context_row(const float* alpha, const std::uint16_t* a, float* out, std::int64_t L, std::int64_t D);

/// grad_alpha[l] = g · a[l] for the same rows and the context's gradient g (D).
void bf16_context_alpha_gradient(const float* g, const std::uint16_t* a, float* grad_alpha, std::int64_t L,
                                 std::int64_t D);

}  // namespace fovea
