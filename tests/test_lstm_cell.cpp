// The fused LSTM update gives LibTorch's values and gradients (computed in double as the truth),
// over steps of shrinking batches the way the decoder runs them, with saturated gates, either
// output unused, and NaN kept.
#include <gtest/gtest.h>

#include <cmath>

#include "core/model/lstm_cell.h"

using namespace fovea;

namespace {

struct Inputs {
  torch::Tensor word, context, hidden, c0;  ///< (T, B, 4n) ×3 and (B, n), leaves
};

Inputs make_inputs(std::int64_t T, std::int64_t B, std::int64_t n, double scale) {
  Inputs in;
  in.word = (torch::randn({T, B, 4 * n}) * scale).requires_grad_();
  in.context = (torch::randn({T, B, 4 * n}) * scale).requires_grad_();
  in.hidden = (torch::randn({T, B, 4 * n}) * scale).requires_grad_();
  in.c0 = torch::randn({B, n}).requires_grad_();
  return in;
}

/// T steps, step t on the first B - t rows; a fixed weighting of every h and of the last c.
/// Returns the loss and the gradients of the four inputs (in their dtype).
std::vector<torch::Tensor> unrolled(const Inputs& in, bool fused, torch::ScalarType dtype) {
  auto cast = [&](const torch::Tensor& t) { return t.to(dtype); };
  const auto T = in.word.size(0), B = in.word.size(1);
  auto c = cast(in.c0);
  torch::Tensor loss = torch::zeros({}, c.options());
  for (std::int64_t t = 0; t < T; ++t) {
    const auto b = B - t;
    const auto w = cast(in.word[t]).narrow(0, 0, b), x = cast(in.context[t]).narrow(0, 0, b),
               h = cast(in.hidden[t]).narrow(0, 0, b);
    const auto cp = c.narrow(0, 0, b);
    const auto s = fused ? lstm_cell(w, x, h, cp) : lstm_cell_reference(w, x, h, cp);
    const auto weights = torch::linspace(-1, 1, s.h.numel(), c.options()).view(s.h.sizes()) * double(t + 1);
    loss = loss + (s.h * weights).sum();
    c = s.c;
  }
  loss = loss + 0.5 * c.pow(2).sum();
  auto grads = torch::autograd::grad({loss}, {in.word, in.context, in.hidden, in.c0});
  grads.insert(grads.begin(), loss);
  return grads;
}

}  // namespace

TEST(LstmCell, MatchesLibTorchValuesAndGradientsOverShrinkingSteps) {
  torch::manual_seed(3);
  for (const double scale : {1.0, 12.0}) {         // 12: many gates saturated, tanh(c) near ±1
    const auto in = make_inputs(4, 7, 37, scale);  // n not a multiple of the vector lanes
    const auto fused = unrolled(in, true, torch::kFloat);
    const auto truth = unrolled(in, false, torch::kDouble);
    const char* names[] = {"loss", "word", "context", "hidden", "c0"};
    for (std::size_t k = 0; k < fused.size(); ++k) {
      EXPECT_GT(truth[k].abs().max().item<double>(), 1e-3) << names[k] << ": nothing to compare";
      const double err = (fused[k].to(torch::kDouble) - truth[k]).abs().max().item<double>();
      EXPECT_LT(err, 1e-4 * (1.0 + truth[k].abs().max().item<double>())) << names[k] << " at scale " << scale;
    }
    // The three pre-activations are summed: the same gradient for each.
    EXPECT_TRUE(torch::equal(fused[1], fused[2]) && torch::equal(fused[2], fused[3]));
  }
}

TEST(LstmCell, WithoutGradientsGivesTheSameNumbers) {
  torch::manual_seed(4);
  const auto w = torch::randn({5, 4 * 19}) * 3, x = torch::randn({5, 4 * 19}), h = torch::randn({5, 4 * 19});
  const auto c = torch::randn({5, 19}).requires_grad_();
  const auto with_grad = lstm_cell(w, x, h, c);
  ASSERT_TRUE(with_grad.h.requires_grad());
  torch::NoGradGuard no_grad;
  const auto without = lstm_cell(w, x, h, c);
  EXPECT_FALSE(without.h.requires_grad());
  EXPECT_TRUE(torch::equal(without.h, with_grad.h.detach()));
  EXPECT_TRUE(torch::equal(without.c, with_grad.c.detach()));
  // A state expanded from one row (a learned initial state) and gates that are views.
  const auto one = torch::randn({19}).unsqueeze(0).expand({5, -1});
  const auto wide = torch::randn({5, 8 * 19});
  const auto s = lstm_cell(wide.narrow(1, 0, 4 * 19), x, h, one);
  const auto r = lstm_cell_reference(wide.narrow(1, 0, 4 * 19), x, h, one);
  EXPECT_TRUE(torch::allclose(s.h, r.h, 1e-5, 1e-6) && torch::allclose(s.c, r.c, 1e-5, 1e-6));
}

TEST(LstmCell, EitherOutputAloneGetsItsGradient) {
  torch::manual_seed(6);
  for (const bool use_h : {true, false}) {
    const auto w = torch::randn({3, 4 * 21}).requires_grad_(), c = torch::randn({3, 21}).requires_grad_();
    const auto x = torch::randn({3, 4 * 21}), h = torch::randn({3, 4 * 21});
    auto grads_of = [&](bool fused) {
      const auto s = fused ? lstm_cell(w, x, h, c) : lstm_cell_reference(w, x, h, c);
      return torch::autograd::grad({(use_h ? s.h : s.c).pow(2).sum()}, {w, c});
    };
    const auto fused = grads_of(true), reference = grads_of(false);
    for (std::size_t k = 0; k < 2; ++k) {
      EXPECT_TRUE(torch::allclose(fused[k], reference[k], 1e-4, 1e-5)) << (use_h ? "h" : "c") << " input " << k;
    }
    // Only c reaches the loss: the output gate's quarter of the gradient is zero.
    if (!use_h) EXPECT_EQ(fused[0].narrow(1, 3 * 21, 21).abs().max().item<float>(), 0.0f);
  }
}

TEST(LstmCell, NaNInAnyGateReachesTheOutput) {
  const std::int64_t n = 17;
  for (std::int64_t gate = 0; gate < 4; ++gate) {
    auto w = torch::zeros({2, 4 * n});
    w[1][gate * n + 5] = std::nanf("");
    const auto s = lstm_cell(w, torch::zeros_like(w), torch::zeros_like(w), torch::ones({2, n}));
    EXPECT_TRUE(std::isnan(s.h[1][5].item<float>())) << "gate " << gate;
    EXPECT_FALSE(torch::isnan(s.h[0]).any().item<bool>()) << "gate " << gate;
  }
}
