// The branch-free float functions the fused kernels use (core/model/vector_math.h) against libm
// in double, over the whole float range: tiny, large, infinite and NaN arguments included.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/model/vector_math.h"

using namespace fovea;

namespace {

std::vector<float> arguments() {
  std::vector<float> xs = {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-7f, -1e-7f, 7.9f, -7.9f, 7.91f, -7.91f, 15.0f,
                           -15.0f, 88.0f, -88.0f, 89.0f, -89.0f, 1e30f, -1e30f};
  for (float x = -40.0f; x <= 40.0f; x += 0.01f) xs.push_back(x);
  return xs;
}

}  // namespace

TEST(VectorMath, TanhAndSigmoidAreWithinAFewUlpOfLibm) {
  double worst_tanh = 0, worst_sigmoid = 0;
  for (const float x : arguments()) {
    const double t = std::tanh(double(x)), s = 1.0 / (1.0 + std::exp(-double(x)));
    // Relative error, with the float resolution near 0 as the floor (libm's own tanhf is not closer).
    worst_tanh = std::max(worst_tanh, std::abs(fast_tanh(x) - t) / std::max(std::abs(t), 1e-30));
    worst_sigmoid = std::max(worst_sigmoid, std::abs(sigmoid(x) - s) / std::max(s, 1e-30));
  }
  EXPECT_LT(worst_tanh, 1e-6);
  EXPECT_LT(worst_sigmoid, 1e-6);
  EXPECT_EQ(sigmoid(-80.0f) > 0.0f, true) << "e^-80 is a normal float: the sigmoid keeps it";
}

TEST(VectorMath, InfinitiesSaturateAndNaNStaysNaN) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(fast_tanh(inf), 1.0f);
  EXPECT_EQ(fast_tanh(-inf), -1.0f);
  EXPECT_EQ(sigmoid(inf), 1.0f);
  EXPECT_EQ(sigmoid(-inf), 0.0f);
  EXPECT_TRUE(std::isnan(fast_tanh(nan)));
  EXPECT_TRUE(std::isnan(fast_tanh(-nan)));
  EXPECT_TRUE(std::isnan(sigmoid(nan)));
  EXPECT_TRUE(std::isnan(sigmoid(-nan)));
  EXPECT_EQ(exp_nonpositive(0.0f), 1.0f);
  EXPECT_EQ(exp_nonpositive(-inf), 0.0f);
}
