#pragma once
/// Scalar float functions written so that GCC vectorises the loops that call them: branch-free,
/// no calls into libm. Used by the fused CPU kernels (attention scores, vocabulary softmax, LSTM
/// cell), each compiled per instruction set through FOVEA_VECTOR_CLONES.
#include <algorithm>
#include <cstdint>
#include <cstring>

namespace fovea {

/// e^x for -88 <= x <= 88, the caller keeping x there: Cephes' expf (range reduction by ln 2, a
/// degree-5 polynomial, the exponent written into the bits), within one ulp of e^x and
/// branch-free, so the loops that call it vectorise.
inline float exp_bounded(float x) {
  // Adding 1.5 * 2^23 rounds x / ln 2 to the nearest integer n (-127..127), in the low mantissa bits.
  constexpr float kRound = 12582912.0f;
  const float shifted = x * 1.44269504088896341f + kRound;
  const float n = shifted - kRound;
  float r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  const float r2 = r * r;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r2 + r + 1.0f;
  std::uint32_t bits;
  std::memcpy(&bits, &shifted, sizeof bits);
  const std::uint32_t scale_bits = (bits - 0x4B400000u + 127u) << 23;  // 2^n; n = -127 gives 0
  float scale;
  std::memcpy(&scale, &scale_bits, sizeof scale);
  return p * scale;
}

/// e^x for x <= 0 (a logit minus its row's maximum, -|x| for the sigmoid), as exp_bounded. x is
/// first clamped to -88 (e^-88 is 0 in normal floats, and 1e-38 of the row's largest term),
/// comparing bits: for floats <= 0 a larger bit pattern is a smaller number, and an integer
/// minimum vectorises where a float clamp did not. A NaN is clamped too; a NaN logit still
/// reaches the loss (a NaN input row makes the target's logit NaN) or the gradients (a NaN weight
/// row, through d/dx).
inline float exp_nonpositive(float x) {
  constexpr std::uint32_t kFloor = 0xC2B00000u;  // -88.0f
  std::uint32_t xbits;
  std::memcpy(&xbits, &x, sizeof xbits);
  xbits = std::min(xbits, kFloor);  // positive x (rounding) has a smaller pattern: kept
  std::memcpy(&x, &xbits, sizeof x);
  return exp_bounded(x);
}

/// tanh as the rational 13/6 approximation Eigen uses (generic_fast_tanh_float): within a few ulp
/// of std::tanh, branch-free, so the row loops vectorise.
inline float fast_tanh(float x) {
  // |x| clamped on its bits, NaN kept: GCC turns float comparisons into branches in the AVX2 and
  // plain x86-64 clones, which leaves every loop calling this scalar there; integer minima
  // vectorise. Shifted up by 2^23 - 1, a NaN's magnitude (above 0x7F800000) wraps to a negative
  // int32 and passes the signed minimum unchanged: six integer operations where an unsigned
  // minimum, a NaN test and a blend took eight.
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  constexpr std::uint32_t kClampBits = 0x40FCF84Fu;  // 7.90531110763549805f, where the rational reaches 1
  constexpr std::uint32_t kShift = 0x007FFFFFu;
  const auto shifted = static_cast<std::int32_t>((bits & 0x7FFFFFFFu) + kShift);
  const auto clamped = static_cast<std::uint32_t>(std::min(shifted, static_cast<std::int32_t>(kClampBits + kShift)));
  bits = (bits & 0x80000000u) | (clamped - kShift);
  std::memcpy(&x, &bits, sizeof x);
  const float x2 = x * x;
  float p = -2.76076847742355e-16f;
  p = p * x2 + 2.00018790482477e-13f;
  p = p * x2 + -8.60467152213735e-11f;
  p = p * x2 + 5.12229709037114e-08f;
  p = p * x2 + 1.48572235717979e-05f;
  p = p * x2 + 6.37261928875436e-04f;
  p = p * x2 + 4.89352455891786e-03f;
  float q = 1.19825839466702e-06f;
  q = q * x2 + 1.18534705686654e-04f;
  q = q * x2 + 2.26843463243900e-03f;
  q = q * x2 + 4.89352518554385e-03f;
  return x * p / q;
}

/// The logistic function 1 / (1 + e^-x), from e^-|x| so that the exponential never overflows:
/// for x < 0 it is e^x / (1 + e^x), which keeps its relative precision where it is tiny. A NaN
/// stays NaN (the exponential's clamp alone would turn it into 0).
inline float sigmoid(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const float e = exp_nonpositive(-std::abs(x));
  const float s = 1.0f / (1.0f + e);
  const float es = e * s;
  // Picked by bit masks: a ?: on floats becomes a branch in the AVX2 and plain x86-64 clones
  // (GCC moves the product into it, and a float operation under a condition cannot become a
  // vector select), which left the loops calling this scalar.
  std::uint32_t s_bits, es_bits;
  std::memcpy(&s_bits, &s, sizeof s_bits);
  std::memcpy(&es_bits, &es, sizeof es_bits);
  const std::uint32_t negative = 0u - (bits >> 31);                                               // all ones for x < 0
  const std::uint32_t nan = 0u - static_cast<std::uint32_t>((bits & 0x7FFFFFFFu) > 0x7F800000u);  // all ones for NaN
  std::uint32_t y_bits = (es_bits & negative) | (s_bits & ~negative);
  y_bits = (bits & nan) | (y_bits & ~nan);
  float y;
  std::memcpy(&y, &y_bits, sizeof y);
  return y;
}

/// A float rounded to bfloat16's bits (the upper half of a float's, rounded to nearest even as
/// c10::BFloat16 rounds; NaN stays NaN), and back.
inline std::uint16_t bf16_bits(float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  const std::uint32_t rounded = (bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16;
  return v != v ? std::uint16_t(0x7FC0) : std::uint16_t(rounded);
}
inline float from_bf16_bits(std::uint16_t v) {
  const std::uint32_t bits = std::uint32_t(v) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// A stored value as a float: float itself, or bfloat16's bits (for kernels that read either).
inline float load_float(float v) { return v; }
inline float load_float(std::uint16_t v) { return from_bf16_bits(v); }

}  // namespace fovea
