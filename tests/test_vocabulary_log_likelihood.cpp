// log_softmax(x Wᵀ + b)[target] fused on the CPU: the same values and gradients as ATen's
// linear, log_softmax and gather.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "core/model/vocabulary_log_likelihood.h"

namespace fovea {
namespace {

torch::Tensor composed(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b, const torch::Tensor& t) {
  return torch::log_softmax(torch::nn::functional::linear(x, w, b), 1).gather(1, t.unsqueeze(1)).squeeze(1);
}

void expect_close(const torch::Tensor& got, const torch::Tensor& want, double rtol, double atol,
                  const std::string& what) {
  ASSERT_TRUE(got.defined()) << what;
  EXPECT_TRUE(torch::allclose(got, want, rtol, atol))
      << what << ": largest difference " << (got - want).abs().max().item<double>() << " of "
      << want.abs().max().item<double>();
}

TEST(VocabularyLogLikelihood, MatchesLogSoftmaxOfTheLinearLayerAndItsGradients) {
  torch::manual_seed(11);
  // 1003 words: a tail after the vector lanes; logits spread over tens so that the exponentials
  // span many orders of magnitude.
  for (const std::int64_t V : {1003, 16, 5}) {
    const std::int64_t N = 37, E = 19;
    auto x = (3 * torch::randn({N, E})).requires_grad_();
    auto w = torch::randn({V, E}).requires_grad_();
    auto b = torch::randn({V}).requires_grad_();
    const auto t = torch::randint(V, {N}, torch::kLong);
    const auto g = torch::randn({N});  // a weight per token, as the objectives give

    const auto got = vocabulary_log_likelihood(x, w, b, t);
    const auto want = composed(x, w, b, t);
    const std::string at = " (V " + std::to_string(V) + ")";
    expect_close(got, want, 1e-5, 1e-4, "log p" + at);
    EXPECT_TRUE((got <= 0).all().item<bool>());
    const auto gg = torch::autograd::grad({(got * g).sum()}, {x, w, b});
    const auto gw = torch::autograd::grad({(want * g).sum()}, {x, w, b});
    expect_close(gg[0], gw[0], 1e-4, 1e-4, "d/dx" + at);
    expect_close(gg[1], gw[1], 1e-4, 1e-4, "d/dW" + at);
    expect_close(gg[2], gw[2], 1e-4, 1e-4, "d/db" + at);
  }
}

TEST(VocabularyLogLikelihood, OneDominantWordAndWordsFarBelowIt) {
  torch::NoGradGuard no_grad;
  const auto x = torch::ones({2, 1});
  // Row logits 0, -30, -100, -200 and 300 (after the bias): e^(logit - max) from 1 down to 0.
  const auto w = torch::zeros({5, 1});
  const auto b = torch::tensor({0.0f, -30.0f, -100.0f, -200.0f, 300.0f});
  const auto t = torch::tensor({4, 1}, torch::kLong);
  const auto got = vocabulary_log_likelihood(x, w, b, t);
  expect_close(got, composed(x, w, b, t), 1e-6, 1e-4, "log p");
  EXPECT_NEAR(got[0].item<double>(), 0.0, 1e-6);
  EXPECT_NEAR(got[1].item<double>(), -330.0, 1e-3);
  // Logits 1e15 apart (a diverging run): finite, as ATen's, so the loss spike is reported.
  const auto far = torch::tensor({0.0f, -1e15f, 5.0f, -1e15f, 1e15f});
  const auto huge = vocabulary_log_likelihood(x, w, far, torch::tensor({2, 4}, torch::kLong));
  EXPECT_TRUE(torch::isfinite(huge).all().item<bool>()) << huge;
  expect_close(huge, composed(x, w, far, torch::tensor({2, 4}, torch::kLong)), 1e-6, 1e-4, "log p, far apart");
}

TEST(VocabularyLogLikelihood, DifferentiatesOnlyWhatNeedsIt) {
  torch::manual_seed(12);
  auto x = torch::randn({6, 4}).requires_grad_();
  const auto w = torch::randn({9, 4}), b = torch::randn({9});
  const auto t = torch::randint(9, {6}, torch::kLong);
  const auto dx = torch::autograd::grad({vocabulary_log_likelihood(x, w, b, t).sum()}, {x})[0];
  expect_close(dx, torch::autograd::grad({composed(x, w, b, t).sum()}, {x})[0], 1e-4, 1e-5, "d/dx");
}

TEST(VocabularyLogLikelihood, RefusesTargetsOutsideTheVocabularyAndMismatchedShapes) {
  const auto x = torch::randn({3, 4}), w = torch::randn({7, 4}), b = torch::randn({7});
  EXPECT_THROW(vocabulary_log_likelihood(x, w, b, torch::tensor({0, 7, 1}, torch::kLong)), c10::Error);
  EXPECT_THROW(vocabulary_log_likelihood(x, w, b, torch::tensor({0, -1, 1}, torch::kLong)), c10::Error);
  EXPECT_THROW(vocabulary_log_likelihood(x, w, torch::randn({6}), torch::tensor({0, 1, 1}, torch::kLong)), c10::Error);
  EXPECT_THROW(vocabulary_log_likelihood(x, torch::randn({7, 5}), b, torch::tensor({0, 1, 1}, torch::kLong)),
               c10::Error);
  EXPECT_EQ(vocabulary_log_likelihood(torch::randn({0, 4}), w, b, torch::zeros({0}, torch::kLong)).numel(), 0);
}

}  // namespace
}  // namespace fovea
