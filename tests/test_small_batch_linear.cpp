// The small-batch linear used while decoding gives torch::linear's numbers.
#include <gtest/gtest.h>

#include "core/model/small_batch_linear.h"

using namespace fovea;

TEST(SmallBatchLinear, MatchesTorchLinearForEveryRowCountWithAndWithoutBias) {
  torch::NoGradGuard no_grad;
  torch::manual_seed(3);
  const auto weight = torch::randn({301, 37});  // K = 37: not a multiple of the kernel's 16 lanes
  const auto bias = torch::randn({301});
  for (std::int64_t rows = 1; rows <= kSmallBatchRows + 2; ++rows) {
    const auto x = torch::randn({rows, 37});
    EXPECT_TRUE(torch::allclose(linear_for_decoding(x, weight, bias), torch::linear(x, weight, bias), 1e-5, 1e-5))
        << rows << " rows";
    EXPECT_TRUE(torch::allclose(linear_for_decoding(x, weight, {}), torch::linear(x, weight), 1e-5, 1e-5)) << rows << " rows";
  }
  // A non-contiguous input (a column slice) is read correctly.
  const auto wide = torch::randn({4, 74});
  const auto x = wide.narrow(1, 10, 37);
  EXPECT_TRUE(torch::allclose(linear_for_decoding(x, weight, bias), torch::linear(x, weight, bias), 1e-5, 1e-5));
}

TEST(SmallBatchLinear, KeepsGradientsWhenAutogradNeedsThem) {
  const auto weight = torch::randn({8, 5}).requires_grad_();
  const auto x = torch::randn({3, 5});
  linear_for_decoding(x, weight, {}).sum().backward();
  ASSERT_TRUE(weight.grad().defined());
  EXPECT_TRUE(torch::allclose(weight.grad(), x.sum(0).expand({8, 5})));
}
