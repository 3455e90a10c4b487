// Objectives: the doubly stochastic penalty by hand, and the REINFORCE estimator unbiased
// against the exact gradient of the variational bound on a case small enough to enumerate.
#include <gtest/gtest.h>

#include "core/data/batching.h"
#include "core/train/objectives.h"
#include "tests/test_support.h"

using namespace fovea;

TEST(DoublyStochasticPenalty, MatchesHandComputedValues) {
  // (1-0.5)^2 + (1-1.5)^2 + (1-1)^2 + (1-0)^2 = 0.25 + 0.25 + 0 + 1 = 1.5 ; mean 0.375
  auto alpha_sum = torch::tensor({{0.5f, 1.5f, 1.0f, 0.0f}, {1.0f, 1.0f, 1.0f, 1.0f}});
  auto sum = doubly_stochastic_penalty(alpha_sum, PenaltyReduction::Sum);
  auto mean = doubly_stochastic_penalty(alpha_sum, PenaltyReduction::Mean);
  EXPECT_FLOAT_EQ(sum[0].item<float>(), 1.5f);
  EXPECT_FLOAT_EQ(mean[0].item<float>(), 0.375f);
  EXPECT_FLOAT_EQ(sum[1].item<float>(), 0.0f);
}

TEST(DoublyStochasticPenalty, SoftObjectiveAddsLambdaTimesPenaltyToTheCaptionNll) {
  torch::manual_seed(1);
  auto c = test::tiny_model();
  c.annotation_dim = 4, c.grid_h = 1, c.grid_w = 4, c.vocab_size = 8;
  Decoder dec(c);
  auto [tokens, lengths] = pad_captions({{1, 4, 5, 2}, {1, 6, 2}});
  auto out = dec->forward(torch::randn({2, 4, 4}), tokens, lengths);
  ObjectiveOptions o;
  o.lambda = 0;
  const double nll_only = soft_objective(out, o).loss.item<double>();
  o.lambda = 2.5;
  o.reduction = PenaltyReduction::Sum;
  auto t = soft_objective(out, o);
  const double penalty = doubly_stochastic_penalty(out.alpha_sum, PenaltyReduction::Sum).mean().item<double>();
  EXPECT_NEAR(t.loss.item<double>(), nll_only + 2.5 * penalty, 1e-4);
  // The caption NLL is the sum over its tokens: mean per-token NLL x tokens / captions.
  EXPECT_NEAR(nll_only, t.nll * 5 / 2, 1e-4);
}

namespace {

struct ReinforceCase {
  Decoder dec{nullptr};
  torch::Tensor a;  // (1, 3, 4)
  std::vector<std::int64_t> caption = {Vocabulary::kStart, 4, Vocabulary::kEnd};

  ReinforceCase() {
    torch::manual_seed(11);
    auto c = test::tiny_model(AttentionKind::Hard);
    c.annotation_dim = 4, c.grid_h = 1, c.grid_w = 3, c.vocab_size = 6, c.hidden_dim = 8;
    dec = Decoder(c);
    a = torch::randn({1, 3, 4}) * 2;
  }

  /// Exact L_s = Σ_s p(s|a) log p(y|s,a), enumerating the 3x3 glimpse sequences.
  torch::Tensor exact_bound() {
    auto proj = dec->project_annotations(a);
    auto s0 = dec->initial_state(a);
    auto e0 = dec->embed(torch::tensor({caption[0]}));
    auto e1 = dec->embed(torch::tensor({caption[1]}));
    auto alpha1 = dec->attention(proj, s0.h);
    torch::Tensor total = torch::zeros({});
    for (long i = 0; i < 3; ++i) {
      auto z1 = a.select(1, i);
      auto s1 = dec->lstm_step(dec->word_gates(e0), z1, s0);
      auto lp1 = torch::log_softmax(dec->output_logits(e0, s1.h, z1), 1)[0][caption[1]];
      auto alpha2 = dec->attention(proj, s1.h);
      for (long j = 0; j < 3; ++j) {
        auto z2 = a.select(1, j);
        auto s2 = dec->lstm_step(dec->word_gates(e1), z2, s1);
        auto lp2 = torch::log_softmax(dec->output_logits(e1, s2.h, z2), 1)[0][caption[2]];
        total = total + alpha1[0][i] * alpha2[0][j] * (lp1 + lp2);
      }
    }
    return total;
  }

  torch::Tensor flat_grad() {
    std::vector<torch::Tensor> g;
    for (auto& p : dec->parameters()) g.push_back(p.grad().defined() ? p.grad().flatten().clone() : torch::zeros({p.numel()}));
    return torch::cat(g);
  }

  /// Monte-Carlo gradient of L_s from n sampled glimpse sequences (one batch).
  torch::Tensor estimate(long n, double lambda_r, double baseline) {
    dec->zero_grad();
    auto [tokens, lengths] = pad_captions(std::vector<std::vector<std::int64_t>>(std::size_t(n), caption));
    auto out = dec->forward(a.expand({n, -1, -1}), tokens, lengths, torch::ones({n}, torch::kBool));
    ObjectiveOptions o;
    o.lambda = 0, o.lambda_e = 0, o.lambda_r = lambda_r;
    (-hard_objective(out, o, baseline).loss).backward();  // loss = -L_s
    return flat_grad();
  }
};

double relative_error(const torch::Tensor& est, const torch::Tensor& exact) {
  return ((est - exact).norm() / exact.norm()).item<double>();
}

}  // namespace

TEST(Reinforce, EstimateIsUnbiasedForTheExactBoundGradient) {
  ReinforceCase rc;
  rc.dec->zero_grad();
  rc.exact_bound().backward();
  auto exact = rc.flat_grad();
  ASSERT_GT(exact.norm().item<double>(), 1e-3);

  torch::manual_seed(5);
  // Any constant baseline leaves the estimate unbiased.
  const double err = relative_error(rc.estimate(60000, 1.0, -2.0), exact);
  EXPECT_LT(err, 0.05);
  // Without the REINFORCE term the attention gets no credit: clearly biased.
  const double biased = relative_error(rc.estimate(60000, 0.0, -2.0), exact);
  EXPECT_GT(biased, 4 * err);
  EXPECT_GT(biased, 0.1);
}

TEST(MovingBaseline, StartsAtTheFirstRewardThenAveragesWithDecay) {
  MovingBaseline b;
  b.update(-10);
  EXPECT_DOUBLE_EQ(b.value, -10);
  b.update(-20);
  EXPECT_DOUBLE_EQ(b.value, 0.9 * -10 + 0.1 * -20);
}

TEST(AttentionSupervision, IsTheKlFromAnEvenSpreadOverTheNamedBoxAndPullsAlphaIntoIt) {
  // Two captions, 2 steps each, L = 4 cells; only (caption 0, step 1) and (caption 1, step 0) name an object.
  DecoderOutput out;
  auto logits = torch::zeros({4, 4}, torch::requires_grad());
  out.alphas = torch::softmax(logits, 1);
  out.sequence = torch::tensor({0, 0, 1, 1}, torch::kLong);
  out.step = torch::tensor({0, 1, 0, 1}, torch::kLong);
  auto boxes = torch::zeros({2, 2, 4});
  boxes[0][1][2] = 1;                        // caption 0, word 1: cell 2
  boxes[1][0][0] = 1, boxes[1][0][1] = 1;    // caption 1, word 0: cells 0 and 1
  auto has = torch::tensor({false, true, true, false}, torch::kBool).view({2, 2});
  auto loss = attention_supervision_loss(out, boxes, has);
  // Uniform α: KL = log(1 / 0.25) for the one-cell box, 2 · 0.5 · log(0.5 / 0.25) for the two-cell one.
  const double expected = (std::log(4.0) + std::log(2.0)) / 2;
  EXPECT_NEAR(loss.item<double>(), expected, 1e-6);
  loss.backward();
  auto g = logits.grad();
  EXPECT_LT(g[1][2].item<float>(), 0) << "gradient descent raises alpha in the box";
  EXPECT_GT(g[1][0].item<float>(), 0);
  EXPECT_FLOAT_EQ(g[0].abs().sum().item<float>(), 0) << "unsupervised words get no gradient";
  EXPECT_FLOAT_EQ(g[3].abs().sum().item<float>(), 0);
  // No supervised word at all: zero, not NaN.
  EXPECT_EQ(attention_supervision_loss(out, boxes, torch::zeros({2, 2}, torch::kBool)).item<double>(), 0.0);

  // α spread evenly over the whole box costs nothing; α piled on one of the box's cells (all of its
  // mass still inside) costs more: supervision asks for the whole object.
  DecoderOutput spread, piled;
  for (auto* o : {&spread, &piled}) o->sequence = out.sequence, o->step = out.step;
  spread.alphas = torch::tensor({{.25f, .25f, .25f, .25f}, {0.f, 0.f, 1.f, 0.f}, {.5f, .5f, 0.f, 0.f}, {.25f, .25f, .25f, .25f}});
  piled.alphas = torch::tensor({{.25f, .25f, .25f, .25f}, {0.f, 0.f, 1.f, 0.f}, {.98f, .02f, 0.f, 0.f}, {.25f, .25f, .25f, .25f}});
  EXPECT_NEAR(attention_supervision_loss(spread, boxes, has).item<double>(), 0.0, 1e-6);
  EXPECT_GT(attention_supervision_loss(piled, boxes, has).item<double>(), 0.3);
}

TEST(ObjectClassLoss, ClassifiesEachObjectsAnnotationsAveragedOverItsCells) {
  // One scene, 4 cells, D = 2: a class-0 object on cells 0 and 1, a class-2 object on cell 2.
  torch::manual_seed(5);
  torch::nn::Linear head(2, 11);
  auto annotations = torch::tensor({{1.f, 0.f}, {3.f, 0.f}, {0.f, 5.f}, {7.f, 7.f}}).view({1, 4, 2}).requires_grad_();
  auto cell_class = torch::tensor({1, 1, 3, 0}, torch::kLong).view({1, 4});
  auto loss = object_class_loss(head, annotations, cell_class);

  torch::NoGradGuard no_grad;
  auto pooled = torch::tensor({{2.f, 0.f}, {0.f, 5.f}});  // the mean of cells 0-1, and cell 2
  auto expected = torch::nn::functional::cross_entropy(head(pooled), torch::tensor({1, 3}, torch::kLong));
  EXPECT_NEAR(loss.item<double>(), expected.item<double>(), 1e-5);
  {
    torch::AutoGradMode grad(true);
    loss.backward();
  }
  EXPECT_FLOAT_EQ(annotations.grad()[0][3].abs().sum().item<float>(), 0) << "background cells get no gradient";
  EXPECT_GT(annotations.grad()[0][0].abs().sum().item<float>(), 0);
  // No labelled cell: zero, not NaN.
  EXPECT_EQ(object_class_loss(head, annotations, torch::zeros({1, 4}, torch::kLong)).item<double>(), 0.0);
}
