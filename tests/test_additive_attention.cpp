// The fused additive attention gives the scores and gradients of the LibTorch operators it replaces.
#include <gtest/gtest.h>

#include "core/model/additive_attention.h"
#include "core/model/step_gradient_sink.h"

using namespace fovea;

namespace {

struct Params {
  torch::Tensor annotations, w_a, b_a, hs, w_h, w, bias;
};

/// A projection W_a a + b_a of (B, L, D) annotations and per-step queries W_h h_t, sized so that A is
/// not a multiple of the kernel's 16 lanes.
Params make_params(std::int64_t B, std::int64_t L, std::int64_t D, std::int64_t A, std::int64_t steps, std::int64_t n) {
  torch::manual_seed(7);
  Params p;
  p.annotations = torch::randn({B, L, D});
  p.w_a = (torch::randn({A, D}) * 0.3).requires_grad_();
  p.b_a = (torch::randn({A}) * 0.1).requires_grad_();
  p.hs = torch::randn({steps, B, n}).requires_grad_();
  p.w_h = (torch::randn({A, n}) * 0.3).requires_grad_();
  p.w = torch::randn({A}).requires_grad_();
  p.bias = torch::randn({1}).requires_grad_();
  return p;
}

/// Σ over steps of a fixed random weighting of the scores, step t using its first B - t rows the
/// way the decoder trims finished captions. Fused or reference, the same graph otherwise.
torch::Tensor unrolled_loss(const Params& p, bool fused) {
  const auto projected = torch::matmul(p.annotations, p.w_a.t()) + p.b_a;
  const auto collected = fused ? collect_step_gradient(projected) : StepGradientSink{projected, {}};
  torch::Tensor loss = torch::zeros({});
  for (std::int64_t t = 0; t < p.hs.size(0); ++t) {
    const auto b = p.hs.size(1) - t;
    const auto q = torch::matmul(p.hs[t].narrow(0, 0, b), p.w_h.t());
    const auto e = fused ? additive_attention_scores(collected.values, q, p.w, p.bias, collected.sink)
                         : additive_attention_scores_reference(projected, q, p.w, p.bias);
    const auto weights = torch::linspace(-1, 1, e.numel()).view(e.sizes()) * (t + 1);
    loss = loss + (torch::softmax(e, 1) * weights).sum() + 0.1 * e.pow(2).sum();
  }
  return loss;
}

std::vector<torch::Tensor> gradients(const Params& p, bool fused) {
  auto loss = unrolled_loss(p, fused);
  return torch::autograd::grad({loss}, {p.w_a, p.b_a, p.hs, p.w_h, p.w, p.bias});
}

}  // namespace

TEST(AdditiveAttention, FusedScoresMatchTheOperatorsIncludingAnExpandedProjection) {
  torch::NoGradGuard no_grad;
  const auto p = make_params(6, 13, 9, 37, 1, 11);
  const auto projected = torch::matmul(p.annotations, p.w_a.t()) + p.b_a;
  const auto q = torch::matmul(p.hs[0].narrow(0, 0, 4), p.w_h.t());  // b = 4 of B = 6 rows
  const auto fused = additive_attention_scores(projected, q, p.w, p.bias);
  ASSERT_EQ(fused.sizes(), (std::vector<std::int64_t>{4, 13}));
  EXPECT_TRUE(torch::allclose(fused, additive_attention_scores_reference(projected, q, p.w, p.bias), 1e-5, 1e-5));

  // Beam search expands one image's projection over the beams (row stride 0).
  const auto one = projected.narrow(0, 2, 1).expand({5, -1, -1});
  const auto q5 = torch::matmul(p.hs[0].narrow(0, 0, 5), p.w_h.t());
  EXPECT_TRUE(torch::allclose(additive_attention_scores(one, q5, p.w, p.bias),
                              additive_attention_scores_reference(one.contiguous(), q5, p.w, p.bias), 1e-5, 1e-5));
  // Large pre-activations saturate like tanh does.
  const auto big = additive_attention_scores(projected * 50, q * 50, p.w, p.bias);
  EXPECT_TRUE(torch::allclose(big, additive_attention_scores_reference(projected * 50, q * 50, p.w, p.bias), 1e-4, 1e-4));
}

TEST(AdditiveAttention, FusedGradientsMatchTheOperatorsOverAnUnrolledCaption) {
  const auto p = make_params(5, 11, 8, 37, 4, 10);
  const auto fused = gradients(p, true);
  const auto reference = gradients(p, false);
  const char* names[] = {"W_a", "b_a", "h", "W_h", "w", "bias"};
  for (std::size_t i = 0; i < fused.size(); ++i) {
    ASSERT_TRUE(fused[i].defined()) << names[i];
    EXPECT_GT(reference[i].abs().max().item<float>(), 1e-3) << names[i] << ": the check needs a gradient to compare";
    EXPECT_TRUE(torch::allclose(fused[i], reference[i], 1e-4, 1e-5))
        << names[i] << ": max difference " << (fused[i] - reference[i]).abs().max().item<float>();
  }
  // Values identical too (same loss within rounding).
  EXPECT_NEAR(unrolled_loss(p, true).item<float>(), unrolled_loss(p, false).item<float>(), 1e-3);
}

TEST(AdditiveAttention, AProjectionNeedingAGradientWithoutASinkStillGetsIt) {
  const auto p = make_params(3, 7, 5, 20, 1, 6);
  auto project = [&] { return torch::matmul(p.annotations, p.w_a.t()) + p.b_a; };
  const auto q = torch::matmul(p.hs[0], p.w_h.t()).detach();
  auto g = torch::autograd::grad({additive_attention_scores(project(), q, p.w, p.bias).pow(2).sum()}, {p.w_a})[0];
  auto r = torch::autograd::grad({additive_attention_scores_reference(project(), q, p.w, p.bias).pow(2).sum()}, {p.w_a})[0];
  EXPECT_GT(r.abs().max().item<float>(), 1e-3);
  EXPECT_TRUE(torch::allclose(g, r, 1e-4, 1e-5));
}
