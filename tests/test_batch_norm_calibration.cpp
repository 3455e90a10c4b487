// Precise batch-norm statistics: recalibration replaces stale running averages by the plain
// average over the batches it is shown, and leaves the module as it found it.
#include <gtest/gtest.h>

#include "core/train/batch_norm_calibration.h"

using namespace fovea;

TEST(BatchNormCalibration, RunningStatisticsBecomeTheAverageOverTheBatchesShown) {
  torch::manual_seed(3);
  torch::nn::Sequential net(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 4, 3).bias(false)),
                            torch::nn::BatchNorm2d(4), torch::nn::ReLU());
  auto bn = net->ptr(1)->as<torch::nn::BatchNorm2dImpl>();
  // Stale statistics, as left by an exponential average over earlier weights.
  bn->running_mean.fill_(5.0);
  bn->running_var.fill_(100.0);
  // Batches of different scale and offset: an exponential average would weight the last most.
  std::vector<torch::Tensor> batches{torch::randn({8, 3, 10, 10}), 3 * torch::randn({8, 3, 10, 10}) + 1,
                                     0.5 * torch::randn({8, 3, 10, 10}) - 2};
  net->train();
  std::vector<int> seen;
  const int layers = recalibrate_batch_norm(*net, 3, [&](int b) {
    seen.push_back(b);
    net->forward(batches[std::size_t(b)]);
  });
  EXPECT_EQ(layers, 1);
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2}));

  torch::NoGradGuard no_grad;
  auto conv = net->ptr(0)->as<torch::nn::Conv2dImpl>();
  torch::Tensor mean = torch::zeros({4}), var = torch::zeros({4});
  for (const auto& x : batches) {
    auto y = conv->forward(x).transpose(0, 1).flatten(1);  // (channels, values)
    mean += y.mean(1) / 3.0;
    var += y.var(1, /*unbiased=*/true) / 3.0;
  }
  EXPECT_TRUE(torch::allclose(bn->running_mean, mean, 1e-4, 1e-5)) << bn->running_mean << mean;
  EXPECT_TRUE(torch::allclose(bn->running_var, var, 1e-4, 1e-5)) << bn->running_var << var;
  // Momentum and training flags are as before.
  ASSERT_TRUE(bn->options.momentum().has_value());
  EXPECT_DOUBLE_EQ(*bn->options.momentum(), 0.1);
  EXPECT_TRUE(net->is_training());
  EXPECT_TRUE(bn->is_training());
}

TEST(BatchNormCalibration, LeavesAModuleInEvalModeInEvalModeAndSkipsOnesWithoutBatchNorm) {
  torch::nn::Sequential net(torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 2, 1)), torch::nn::BatchNorm2d(2));
  net->eval();
  recalibrate_batch_norm(*net, 1, [&](int) { net->forward(torch::randn({2, 3, 4, 4})); });
  EXPECT_FALSE(net->is_training());
  EXPECT_FALSE(net->ptr(1)->is_training());

  torch::nn::Sequential plain(torch::nn::Linear(3, 3));
  int calls = 0;
  EXPECT_EQ(recalibrate_batch_norm(*plain, 5, [&](int) { ++calls; }), 0);
  EXPECT_EQ(calls, 0);
}
