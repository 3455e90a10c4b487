// Gradient clipping: the norm and the scaling of torch::nn::utils::clip_grad_norm_, with a
// gradient given as rows (the word embedding's, sparse) counted and scaled as its dense form.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/train/gradient_clipping.h"

using namespace fovea;

namespace {

struct Weights {
  torch::Tensor dense = torch::zeros({6, 5}).requires_grad_(true);
  torch::Tensor rows = torch::zeros({10, 4}).requires_grad_(true);
  torch::Tensor without = torch::zeros({3}).requires_grad_(true);  // no gradient
  std::vector<torch::Tensor> all() const { return {dense, rows, without}; }
};

/// Gradients of norm ~`scale` * 6: a dense one and one of rows 2, 7 and 2 again (not coalesced).
void give_gradients(Weights& w, double scale) {
  torch::manual_seed(9);
  w.dense.mutable_grad() = torch::randn({6, 5}) * scale;
  const auto index = torch::tensor({std::int64_t(2), std::int64_t(7), std::int64_t(2)}, torch::kLong).view({1, -1});
  w.rows.mutable_grad() = torch::sparse_coo_tensor(index, torch::randn({3, 4}) * scale, {10, 4});
}

}  // namespace

TEST(GradientClipping, ScalesEveryGradientAsTorchDoesIncludingRows) {
  Weights ours, torchs;
  give_gradients(ours, 10.0);
  give_gradients(torchs, 10.0);
  torchs.rows.mutable_grad() = torchs.rows.grad().to_dense();  // what torch's clipping scales
  const double norm = clip_gradient_norm(ours.all(), 5.0);
  const double expected = torch::nn::utils::clip_grad_norm_(torchs.all(), 5.0);
  EXPECT_GT(expected, 20.0);  // clipped: a factor of ~1/10
  EXPECT_NEAR(norm, expected, 1e-4 * expected);
  EXPECT_TRUE(torch::allclose(ours.dense.grad(), torchs.dense.grad(), 1e-6, 1e-7));
  ASSERT_TRUE(ours.rows.grad().is_sparse());
  EXPECT_TRUE(torch::allclose(ours.rows.grad().to_dense(), torchs.rows.grad(), 1e-6, 1e-7));
  const double after = std::sqrt(ours.dense.grad().pow(2).sum().item<double>() +
                                 ours.rows.grad().to_dense().pow(2).sum().item<double>());
  EXPECT_NEAR(after, 5.0, 1e-3);
  EXPECT_FALSE(ours.without.grad().defined());
}

TEST(GradientClipping, LeavesGradientsBelowTheLimitAsTheyAreAndReportsNonFinite) {
  Weights w;
  give_gradients(w, 0.01);
  const auto dense = w.dense.grad().clone();
  const auto rows = w.rows.grad().to_dense();
  const double norm = clip_gradient_norm(w.all(), 5.0);
  EXPECT_GT(norm, 0.01);
  EXPECT_LT(norm, 5.0);
  EXPECT_TRUE(torch::equal(w.dense.grad(), dense));
  EXPECT_TRUE(torch::equal(w.rows.grad().to_dense(), rows));

  w.dense.mutable_grad()[0][0] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(clip_gradient_norm(w.all(), 5.0)));
  w.dense.mutable_grad()[0][0] = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(std::isfinite(clip_gradient_norm(w.all(), 5.0)));
  EXPECT_EQ(clip_gradient_norm({torch::zeros({2}).requires_grad_(true)}, 5.0), 0.0);
}
