// A batch's weight gradients made once after its parts' backward: what the parts hand over adds up
// to the gradient each part would have given, in part order whichever thread hands over first;
// nothing is taken outside a scope, for a weight that is not a leaf taking a gradient or for more
// rows than a part's own product runs well; and the backward of the vocabulary, of linear_product
// in bf16 and of a step weight hand theirs over.
#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "core/model/batch_weight_gradients.h"
#include "core/model/bf16_product.h"
#include "core/model/matrix_product.h"
#include "core/model/step_weight.h"
#include "core/model/vocabulary_log_likelihood.h"

using namespace fovea;

namespace {

/// Hands (dy[k], x[k]) over as part k from a thread of its own, the parts' threads started in
/// `order`, each after the one before has handed over; then finishes. Returns the weight's gradient.
torch::Tensor handed_over(const torch::Tensor& weight, const std::vector<torch::Tensor>& dy,
                          const std::vector<torch::Tensor>& x, const std::vector<int>& order, bool bf16) {
  weight.mutable_grad() = torch::Tensor();
  BatchWeightGradients gradients;
  for (int k : order) {
    std::thread part([&, k] {
      BatchWeightGradients::Scope scope(&gradients, k);
      EXPECT_TRUE(BatchWeightGradients::defer(weight, {dy[std::size_t(k)]}, {x[std::size_t(k)]}, bf16));
    });
    part.join();
  }
  EXPECT_FALSE(weight.grad().defined());  // nothing is added before finish()
  gradients.finish();
  return weight.grad();
}

}  // namespace

TEST(BatchWeightGradients, PartsTermsAddUpInPartOrderWhicheverThreadHandsOverFirst) {
  torch::manual_seed(4);
  const auto weight = torch::randn({7, 5}).requires_grad_();
  const std::vector<torch::Tensor> dy{torch::randn({9, 7}), torch::randn({4, 7})};
  const std::vector<torch::Tensor> x{torch::randn({9, 5}), torch::randn({4, 5})};
  const auto expected = dy[0].t().mm(x[0]) + dy[1].t().mm(x[1]);
  const auto in_order = handed_over(weight, dy, x, {0, 1}, false);
  const auto reversed = handed_over(weight, dy, x, {1, 0}, false);
  EXPECT_TRUE(torch::allclose(in_order, expected, 1e-5, 1e-5)) << in_order - expected;
  EXPECT_TRUE(torch::equal(in_order, reversed));  // the same sum, bit for bit
  // In bf16: the product of the rounded rows, with the rows padded to the product's depth block.
  const auto rounded = handed_over(weight, dy, x, {1, 0}, true);
  const auto reference = to_bf16(torch::cat(dy)).to(torch::kDouble).t().mm(to_bf16(torch::cat(x)).to(torch::kDouble));
  EXPECT_LT((rounded.to(torch::kDouble) - reference).abs().max().item<double>(), 1e-4 * reference.abs().max().item<double>());
  // A gradient already there is added to.
  weight.mutable_grad() = torch::ones({7, 5});
  BatchWeightGradients more;
  {
    BatchWeightGradients::Scope scope(&more, 0);
    ASSERT_TRUE(BatchWeightGradients::defer(weight, {dy[0]}, {x[0]}, false));
  }
  more.finish();
  EXPECT_TRUE(torch::allclose(weight.grad(), dy[0].t().mm(x[0]) + 1, 1e-5, 1e-5));
}

TEST(BatchWeightGradients, NothingIsTakenOutsideAScopeForAWeightThatTakesNoGradientOrForDeepRows) {
  const auto weight = torch::randn({3, 2}).requires_grad_();
  const auto dy = torch::randn({4, 3}), x = torch::randn({4, 2});
  EXPECT_FALSE(BatchWeightGradients::defer(weight, {dy}, {x}, false));  // no scope
  BatchWeightGradients gradients;
  {
    BatchWeightGradients::Scope none(nullptr, 0);
    EXPECT_FALSE(BatchWeightGradients::defer(weight, {dy}, {x}, false));
  }
  BatchWeightGradients::Scope scope(&gradients, 0);
  EXPECT_FALSE(BatchWeightGradients::defer(weight * 2, {dy}, {x}, false));                // not a leaf
  EXPECT_FALSE(BatchWeightGradients::defer(torch::randn({3, 2}), {dy}, {x}, false));      // takes no gradient
  EXPECT_FALSE(BatchWeightGradients::defer(weight, {dy}, {torch::randn({4, 3})}, false));  // x does not fit
  EXPECT_FALSE(BatchWeightGradients::defer(weight, {dy, dy}, {x}, false));                // unpaired rows
  // Over 2,048 rows a part's own product runs near full rate: it stays where it is.
  EXPECT_FALSE(BatchWeightGradients::defer(weight, {torch::randn({2049, 3})}, {torch::randn({2049, 2})}, false));
  EXPECT_TRUE(BatchWeightGradients::defer(weight, {torch::randn({2048, 3})}, {torch::randn({2048, 2})}, false));
}

TEST(BatchWeightGradients, TheVocabularyLinearProductAndStepWeightsHandTheirsOver) {
  torch::manual_seed(5);
  const auto x = torch::randn({6, 4});
  const auto targets = torch::tensor({0, 3, 2, 1, 4, 0}, torch::kLong);
  // Each product's weight gradient, computed in its own backward or handed over and finished.
  auto both_ways = [&](const torch::Tensor& weight, const std::function<torch::Tensor()>& loss) {
    std::vector<torch::Tensor> got;
    for (bool deferred : {false, true}) {
      weight.mutable_grad() = torch::Tensor();
      BatchWeightGradients gradients;
      {
        BatchWeightGradients::Scope scope(deferred ? &gradients : nullptr, 0);
        loss().backward();
      }
      EXPECT_EQ(weight.grad().defined(), !deferred);
      gradients.finish();
      got.push_back(weight.grad().clone());
    }
    EXPECT_GT(got[0].abs().max().item<double>(), 0);
    EXPECT_TRUE(torch::allclose(got[1], got[0], 1e-5, 1e-6)) << got[1] - got[0];
  };
  const auto vocabulary = torch::randn({5, 4}).requires_grad_();
  const auto bias = torch::randn({5});
  both_ways(vocabulary, [&] { return vocabulary_log_likelihood(x, vocabulary, bias, targets).sum(); });
  const auto weight = torch::randn({3, 4}).requires_grad_();
  const auto r = torch::randn({6, 3});
  both_ways(weight, [&] {
    Bf16Products bf16(true);  // linear_product's own backward, whatever the CPU
    return (linear_product(x, weight, {}) * r).sum();
  });
  both_ways(weight, [&] {
    const StepWeight step(weight);
    return (step(x.narrow(0, 0, 5)) + step(x.narrow(0, 1, 3)).sum()).sum();
  });
}
