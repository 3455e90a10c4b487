// A trained convolution under --precision bf16: its forward in bf16, its backward in bf16 or float
// (whichever the CPU runs faster). Both backwards give the gradients a float convolution gives,
// within what rounding the operands to bf16 moves them.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "core/model/bf16_convolution.h"
#include "core/runtime/runtime.h"

namespace fovea {
namespace {

/// |a − b| over the largest |b|: differences that count against the gradient's own scale.
double relative_difference(const torch::Tensor& a, const torch::Tensor& b) {
  return (a - b).abs().max().item<double>() / b.abs().max().item<double>();
}

struct Case {
  std::int64_t stride;
  ConvolutionBackward backward;
};

class Bf16ConvolutionBackward : public ::testing::TestWithParam<Case> {};

TEST_P(Bf16ConvolutionBackward, GivesTheFloatGradientsWithinBf16Rounding) {
  // oneDNN 2.6 has no bf16 convolution without bf16 products (it throws), as a bf16 run needs them.
  if (!cpu_has_native_bf16()) GTEST_SKIP() << "no native bf16 products on this CPU (or oneDNN is capped below them)";
  const auto [stride, backward] = GetParam();
  torch::manual_seed(21);
  // Channels-last, as the encoder's blocks lay out their activations; odd sizes for the tails.
  const auto x = torch::randn({2, 8, 11, 9}).contiguous(torch::MemoryFormat::ChannelsLast).requires_grad_();
  const auto weight = torch::randn({12, 8, 3, 3}).mul_(0.2).requires_grad_();
  const std::int64_t strides[] = {stride, stride}, padding[] = {1, 1};
  const auto y = bf16_convolution(x, weight, strides, padding, backward);
  ASSERT_EQ(y.scalar_type(), torch::kBFloat16);
  const auto g = torch::randn(y.sizes()).to(torch::kBFloat16);
  y.backward(g);
  ASSERT_EQ(x.grad().scalar_type(), torch::kFloat);
  ASSERT_EQ(weight.grad().scalar_type(), torch::kFloat);

  // The float convolution of the rounded operands the forward multiplied.
  const auto xr = x.detach().to(torch::kBFloat16).to(torch::kFloat).requires_grad_();
  const auto wr = weight.detach().to(torch::kBFloat16).to(torch::kFloat).requires_grad_();
  const auto want = torch::conv2d(xr, wr, {}, strides, padding);
  EXPECT_LT(relative_difference(y.to(torch::kFloat), want), 1e-2);
  want.backward(g.to(torch::kFloat));
  // Rounding x, the weight and the incoming gradient to bf16 moves each by a relative 2^-9; x's
  // gradient sums 108 such products and the weight's up to 198, and stay within a few 2^-9 of the
  // gradient's scale.
  EXPECT_LT(relative_difference(x.grad(), xr.grad()), 2e-2);
  EXPECT_LT(relative_difference(weight.grad(), wr.grad()), 2e-2);
  // And they are gradients, not zeros or another convolution's: far from the sign-flipped ones.
  EXPECT_GT(relative_difference(-weight.grad(), wr.grad()), 1.5);
}

INSTANTIATE_TEST_SUITE_P(EachBackward, Bf16ConvolutionBackward,
                         ::testing::Values(Case{1, ConvolutionBackward::Bf16}, Case{1, ConvolutionBackward::Float},
                                           Case{2, ConvolutionBackward::Bf16}, Case{2, ConvolutionBackward::Float}));

}  // namespace
}  // namespace fovea
