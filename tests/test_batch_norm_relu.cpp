// A block's batch norm and ReLU fused in place (no gradients): the same numbers as
// torch::nn::BatchNorm2d followed by a ReLU, the same running statistics afterwards.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>

#include "core/model/batch_norm_relu.h"

namespace fovea {
namespace {

/// Two batch norms with the same random affine parameters and running statistics.
std::pair<torch::nn::BatchNorm2d, torch::nn::BatchNorm2d> twin_batch_norms(torch::nn::BatchNorm2dOptions options) {
  torch::nn::BatchNorm2d a(options), b(options);
  torch::NoGradGuard no_grad;
  if (options.affine()) {
    a->weight.copy_(torch::rand({options.num_features()}) + 0.5);
    a->bias.copy_(torch::randn({options.num_features()}));
  }
  if (options.track_running_stats()) {
    a->running_mean.copy_(torch::randn({options.num_features()}));
    a->running_var.copy_(torch::rand({options.num_features()}) + 0.5);
  }
  for (const auto& p : a->named_parameters()) b->named_parameters()[p.key()].copy_(p.value());
  for (const auto& p : a->named_buffers()) b->named_buffers()[p.key()].copy_(p.value());
  return {a, b};
}

/// Channels-last input far from zero mean, as a convolution without bias can give.
torch::Tensor conv_output(std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w) {
  return (3 * torch::randn({n, c, h, w}) + 20).contiguous(at::MemoryFormat::ChannelsLast);
}

void expect_close(const torch::Tensor& got, const torch::Tensor& want, const char* what) {
  EXPECT_TRUE(torch::allclose(got, want, 1e-4, 1e-5))
      << what << ": largest difference " << (got - want).abs().max().item<double>();
}

TEST(BatchNormRelu, TrainingMatchesBatchNormThenReluAndMovesTheRunningStatistics) {
  torch::manual_seed(5);
  torch::NoGradGuard no_grad;
  // 16 channels (a whole AVX-512 register), 20 (a ragged tail), 3; rows not a multiple of a chunk.
  for (const auto channels : {16, 20, 3}) {
    auto [fused, reference] = twin_batch_norms(torch::nn::BatchNorm2dOptions(channels));
    fused->train();
    reference->train();
    for (int step = 0; step < 3; ++step) {
      const auto x = conv_output(3, channels, 17, 13);
      const auto want = torch::relu(reference->forward(x));
      auto got = x.clone();
      batch_norm_relu_(got, *fused);
      expect_close(got, want, "output");
      EXPECT_GT(got.eq(0).sum().item<std::int64_t>(), 0) << "the ReLU clipped nothing: the test shows nothing";
    }
    expect_close(fused->running_mean, reference->running_mean, "running mean");
    expect_close(fused->running_var, reference->running_var, "running variance");
    EXPECT_EQ(fused->num_batches_tracked.item<std::int64_t>(), 3);
  }
}

TEST(BatchNormRelu, WithoutMomentumTheRunningStatisticsAreTheCumulativeAverage) {
  torch::manual_seed(6);
  torch::NoGradGuard no_grad;
  auto [fused, reference] = twin_batch_norms(torch::nn::BatchNorm2dOptions(8).momentum(c10::nullopt));
  fused->reset_running_stats();
  reference->reset_running_stats();
  for (int step = 0; step < 4; ++step) {
    const auto x = conv_output(2, 8, 9, 9) * double(step + 1);
    reference->forward(x);
    auto y = x.clone();
    batch_norm_relu_(y, *fused);
  }
  expect_close(fused->running_mean, reference->running_mean, "running mean");
  expect_close(fused->running_var, reference->running_var, "running variance");
}

TEST(BatchNormRelu, EvalModeNormalisesByTheRunningStatistics) {
  torch::manual_seed(7);
  torch::NoGradGuard no_grad;
  for (const bool affine : {true, false}) {
    auto [fused, reference] = twin_batch_norms(torch::nn::BatchNorm2dOptions(12).affine(affine));
    fused->eval();
    reference->eval();
    const auto mean_before = fused->running_mean.clone();
    const auto x = torch::randn({1, 12, 7, 5}).contiguous(at::MemoryFormat::ChannelsLast);
    auto got = x.clone();
    batch_norm_relu_(got, *fused);
    expect_close(got, torch::relu(reference->forward(x)), affine ? "affine" : "not affine");
    EXPECT_TRUE(torch::equal(fused->running_mean, mean_before)) << "eval mode moved the running mean";
  }
}

TEST(BatchNormRelu, BFloat16ActivationsAsCpuAutocastsConvolutionsGiveThem) {
  torch::manual_seed(10);
  torch::NoGradGuard no_grad;
  auto [fused, reference] = twin_batch_norms(torch::nn::BatchNorm2dOptions(24));
  fused->train();
  reference->train();
  const auto x = conv_output(2, 24, 11, 9).to(torch::kBFloat16);
  const auto want = torch::relu(reference->forward(x));
  auto got = x.clone();
  ASSERT_TRUE(batch_norm_relu_applies(got));
  batch_norm_relu_(got, *fused);
  ASSERT_EQ(got.scalar_type(), torch::kBFloat16);
  // One bfloat16 rounding (8 bits) apart at most, where ATen rounds more than once.
  EXPECT_TRUE(torch::allclose(got.to(torch::kFloat), want.to(torch::kFloat), 2e-2, 2e-2))
      << "largest difference " << (got.to(torch::kFloat) - want.to(torch::kFloat)).abs().max().item<double>();
  expect_close(fused->running_mean, reference->running_mean, "running mean");
  expect_close(fused->running_var, reference->running_var, "running variance");
}

TEST(BatchNormRelu, GivesTheSameBitsOnOneThreadAsOnTwo) {
  torch::manual_seed(8);
  torch::NoGradGuard no_grad;
  const auto x = conv_output(4, 16, 40, 40);
  std::vector<torch::Tensor> outputs;
  const int threads = torch::get_num_threads();
  for (const int n : {1, 2}) {
    torch::set_num_threads(n);
    torch::manual_seed(9);
    auto [bn, unused] = twin_batch_norms(torch::nn::BatchNorm2dOptions(16));
    bn->train();
    auto y = x.clone();
    batch_norm_relu_(y, *bn);
    outputs.push_back(y);
  }
  torch::set_num_threads(threads);
  EXPECT_TRUE(torch::equal(outputs[0], outputs[1]));
}

TEST(BatchNormRelu, KeepsNaNSoThatANonFiniteStepIsStillSeen) {
  torch::NoGradGuard no_grad;
  torch::nn::BatchNorm2d bn(4);
  bn->eval();
  for (const auto dtype : {torch::kFloat, torch::kBFloat16}) {
    auto x = torch::randn({2, 4, 3, 3}).contiguous(at::MemoryFormat::ChannelsLast).to(dtype);
    x[1][2][0][1] = std::numeric_limits<float>::quiet_NaN();
    batch_norm_relu_(x, *bn);
    EXPECT_TRUE(std::isnan(x[1][2][0][1].item<float>())) << "a NaN became a number: the ReLU hid it";
    EXPECT_EQ(x.isnan().sum().item<std::int64_t>(), 1);
  }
}

TEST(BatchNormRelu, TakesOnlyWhatItComputesRightAndSaysWhy) {
  torch::nn::BatchNorm2d bn(4);
  auto channels_last = torch::randn({2, 4, 3, 3}).contiguous(at::MemoryFormat::ChannelsLast);
  EXPECT_FALSE(batch_norm_relu_applies(channels_last)) << "gradients are on: the backward needs ATen's batch norm";
  torch::NoGradGuard no_grad;
  EXPECT_TRUE(batch_norm_relu_applies(channels_last));
  EXPECT_FALSE(batch_norm_relu_applies(torch::randn({2, 4, 3, 3}))) << "NCHW";
  EXPECT_FALSE(batch_norm_relu_applies(channels_last.to(torch::kDouble)));
  EXPECT_FALSE(batch_norm_relu_applies(torch::randn({1, 4, 1, 1}).contiguous(at::MemoryFormat::ChannelsLast)))
      << "one value per channel: no batch statistics";
  auto nchw = torch::randn({2, 4, 3, 3});
  EXPECT_THROW(batch_norm_relu_(nchw, *bn), c10::Error);
  auto wrong_width = torch::randn({2, 5, 3, 3}).contiguous(at::MemoryFormat::ChannelsLast);
  EXPECT_THROW(batch_norm_relu_(wrong_width, *bn), c10::Error);
}

}  // namespace
}  // namespace fovea
