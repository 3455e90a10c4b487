// The decoder's products while decoding batches give torch::linear's numbers, and follow the
// weights when they change.
#include <gtest/gtest.h>

#include "core/model/decoding_products.h"
#include "core/model/packed_matrix.h"

using namespace fovea;

TEST(DecodingProducts, MatchTorchLinearForEveryBatchSizeAndFollowTheWeights) {
  torch::NoGradGuard no_grad;
  torch::manual_seed(6);
  torch::nn::Linear layer(37, 45);
  DecodingProducts products;
  for (std::int64_t rows : std::vector<std::int64_t>{1, 5, 9, 16, 32, 33, 100, PackedMatrix::kMaxRows, PackedMatrix::kMaxRows + 1}) {
    const auto x = torch::randn({rows, 37});
    EXPECT_TRUE(torch::allclose(products.linear(layer, x), layer(x), 1e-5, 1e-5)) << rows << " rows";
  }
  // An optimizer step or loaded weights change them in place: the next product uses the new ones.
  const auto x = torch::randn({20, 37});
  const auto before = products.linear(layer, x);
  layer->weight.mul_(-0.5);
  layer->bias.add_(1.0);
  const auto after = products.linear(layer, x);
  EXPECT_TRUE(torch::allclose(after, layer(x), 1e-5, 1e-5));
  EXPECT_FALSE(torch::allclose(after, before, 1e-3, 1e-3));
  // A weight replaced by another tensor (loading a module's state) is packed afresh.
  layer->weight.set_data(torch::randn({45, 37}));
  EXPECT_TRUE(torch::allclose(products.linear(layer, x), layer(x), 1e-5, 1e-5));
}

TEST(DecodingProducts, KeepAutogradWhenTrainingNeedsIt) {
  torch::manual_seed(2);
  torch::nn::Linear layer(8, 6);
  DecodingProducts products;
  const auto x = torch::randn({16, 8});
  products.linear(layer, x).sum().backward();
  ASSERT_TRUE(layer->weight.grad().defined());
  // The product sums the 16 rows in another order than x.sum(0): equal to rounding, not in bits.
  EXPECT_TRUE(torch::allclose(layer->weight.grad(), x.sum(0).expand({6, 8}), 1e-5, 1e-5));
}
