// The moving average of a model's weights: its arithmetic, swapping it in and out, and its state.
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/weight_average.h"
#include "tests/test_support.h"

using namespace fovea;

namespace {

WeightAverage::NamedTensors one_tensor(const torch::Tensor& t) { return {{"w", t}}; }

}  // namespace

TEST(WeightAverage, FirstUpdateCopiesThenAveragesOverAboutATenthOfTheStepsUpToTheDecay) {
  auto w = torch::zeros({2});
  WeightAverage average(one_tensor(w), 0.5);
  EXPECT_FALSE(average.started());
  average.update();  // copies: 0
  w.fill_(10);
  average.update();  // d = min(0.5, 2/11) = 2/11: 0 * 2/11 + 10 * 9/11
  EXPECT_NEAR(average.state()[0].second[0].item<double>(), 90.0 / 11.0, 1e-5);
  for (int k = 0; k < 20; ++k) average.update();  // d reaches the decay 0.5 at the 8th update
  w.fill_(0);
  const double before = average.state()[0].second[1].item<double>();
  average.update();
  EXPECT_NEAR(average.state()[0].second[1].item<double>(), 0.5 * before, 1e-5);
  EXPECT_EQ(average.updates(), 23);
}

TEST(WeightAverage, SwapPutsTheAverageInPlaceAndTheScopeGivesTheWeightsBack) {
  auto w = torch::full({3}, 1.0);
  WeightAverage average(one_tensor(w), 0.9);
  {
    AveragedWeights nothing_yet(&average);  // not started: the weights stay
    EXPECT_TRUE(torch::equal(w, torch::full({3}, 1.0)));
  }
  average.update();
  w.fill_(4);
  try {
    AveragedWeights averaged(&average);
    EXPECT_TRUE(torch::allclose(w, torch::full({3}, 1.0)));  // the average of the one update
    throw std::runtime_error("validation failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_TRUE(torch::equal(w, torch::full({3}, 4.0))) << "left by an exception, the scope restores the weights";
  EXPECT_TRUE(torch::allclose(average.state()[0].second, torch::full({3}, 1.0)));
}

TEST(WeightAverage, StateLoadsBackAndAMismatchNamesTheTensor) {
  auto w = torch::arange(4.0);
  WeightAverage a(one_tensor(w), 0.9);
  a.update();
  w.mul_(3);
  a.update();
  WeightAverage b(one_tensor(w), 0.9);
  b.load(a.state(), a.updates());
  EXPECT_EQ(b.updates(), 2);
  EXPECT_TRUE(torch::equal(b.state()[0].second, a.state()[0].second));
  w.add_(1);
  a.update(), b.update();
  EXPECT_TRUE(torch::equal(b.state()[0].second, a.state()[0].second)) << "a loaded average goes on as the original";

  EXPECT_NE(test::error_message([&] { b.load({{"w", torch::zeros({5})}}, 1); }).find("'w' has shape [5]"),
            std::string::npos);
  EXPECT_NE(test::error_message([&] { b.load({{"v", torch::zeros({4})}}, 1); }).find("'w' is missing"),
            std::string::npos);
  EXPECT_THROW(WeightAverage(one_tensor(w), 1.0), std::invalid_argument);
}

TEST(WeightAverage, AveragesWhatTrainsButNotTheFrozenItemClassifier) {
  auto config = test::tiny_model();
  config.item_classifier = true;
  config.vocab_size = 12;
  ShowAttendTell net(config);
  bool batch_norm = false, decoder = false;
  for (const auto& [name, t] : averaged_state(*net)) {
    EXPECT_NE(name.rfind("item_classifier.", 0), 0u) << name;
    EXPECT_TRUE(t.is_floating_point()) << name;
    batch_norm |= name.find("running_mean") != std::string::npos;
    decoder |= name.rfind("decoder.", 0) == 0;
  }
  EXPECT_TRUE(batch_norm);
  EXPECT_TRUE(decoder);
}
