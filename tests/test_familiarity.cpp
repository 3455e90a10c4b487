// Familiarity statistics: features drawn like the training ones fall inside the limit, features
// of another kind far outside; the statistics survive their trip through a model file's tensors.
#include <gtest/gtest.h>

#include "core/decode/familiarity.h"

using namespace fovea;

TEST(Familiarity, FeaturesLikeTheTrainingOnesAreInsideAndOthersFarOutside) {
  torch::manual_seed(3);
  const auto scale = torch::linspace(0.5, 3.0, 16);  // unequal variances: Mahalanobis, not Euclidean
  const auto train = torch::randn({2000, 16}) * scale + 5;
  const auto val = torch::randn({500, 16}) * scale + 5;
  const auto stats = fit_familiarity(train, val);
  // 16 independent normal coordinates: the distance is chi-distributed with 16 degrees of freedom,
  // whose 99th percentile is sqrt(32.0) = 5.66; 500 validation draws and the shrinkage keep it near.
  EXPECT_NEAR(stats.validation_q99, 5.66, 0.8);
  EXPECT_GT(stats.threshold, stats.validation_q99);

  const auto alike = torch::randn({1000, 16}) * scale + 5;
  const double inside = (familiarity_distances(stats, alike) <= stats.threshold).to(torch::kDouble).mean().item<double>();
  EXPECT_GE(inside, 0.995);
  // A shift of 2 along the narrowest direction is far; the same along the widest is not.
  auto narrow = torch::full({1, 16}, 5.0), wide = torch::full({1, 16}, 5.0);
  narrow[0][0] += 2 * 6;  // 12 standard deviations of 0.5
  wide[0][15] += 2 * 0.5;  // a third of one of 3.0
  EXPECT_GT(familiarity_distances(stats, narrow).item<double>(), stats.threshold);
  EXPECT_LT(familiarity_distances(stats, wide).item<double>(), stats.validation_q99);
  EXPECT_GT(familiarity_distances(stats, torch::zeros({1, 16})).item<double>(), stats.threshold) << "another kind of image";

  const auto back = familiarity_from_tensors(familiarity_tensors(stats));
  EXPECT_DOUBLE_EQ(back.threshold, stats.threshold);
  EXPECT_TRUE(torch::allclose(familiarity_distances(back, alike), familiarity_distances(stats, alike)));
  EXPECT_THROW(fit_familiarity(train.narrow(0, 0, 1), val), std::invalid_argument);
  EXPECT_THROW(familiarity_from_tensors({stats.mean}), std::invalid_argument);
}
