// bf16 training products: the product rounds its operands to bf16 and multiplies them exactly
// (float accumulation), whatever the operands' layouts; a weight laid out once gives the same
// numbers as the plain product at every row count; a weight's bf16 forms are made once per version
// of it, shared between threads and dropped with it; a scope switches the decoder's products; and a
// training pass in bf16 parts, side by side, gives fp32's objective and gradients within bf16's
// rounding, run after run.
#include <gtest/gtest.h>

#include "core/model/bf16_product.h"
#include "core/model/bf16_weights.h"
#include "core/model/decoder.h"
#include "core/model/matrix_product.h"
#include "core/model/step_weight.h"
#include "core/runtime/runtime.h"
#include "core/train/decoder_pass.h"

using namespace fovea;

namespace {

/// What the product should give: the operands rounded to bf16, multiplied in double.
torch::Tensor rounded_reference(const torch::Tensor& a, const torch::Tensor& b) {
  return torch::mm(to_bf16(a).to(torch::kDouble), to_bf16(b).to(torch::kDouble));
}

/// Largest |x − ref| relative to the reference's largest magnitude.
double error_from_reference(const torch::Tensor& x, const torch::Tensor& ref) {
  return (x.to(torch::kDouble) - ref.to(torch::kDouble)).abs().max().item<double>() /
         ref.abs().max().item<double>();
}

}  // namespace

TEST(Bf16Product, MultipliesTheRoundedOperandsInEveryLayout) {
  torch::manual_seed(1);
  for (auto [M, K, N] : {std::array<std::int64_t, 3>{1, 7, 5}, {16, 512, 2048}, {37, 300, 129}, {260, 64, 1000},
                           {300, 261, 40}}) {  // a depth rounded up to 32s (300, 261) and one that is not
    const auto a = torch::randn({M, K}), b = torch::randn({K, N});
    const auto ref = rounded_reference(a, b);
    // a and b as they lie, each transposed (a view), and already in bf16.
    for (const auto& x : {a, a.t().contiguous().t(), to_bf16(a)}) {
      for (const auto& y : {b, b.t().contiguous().t(), to_bf16(b)}) {
        const auto c = bf16_matrix_product(x, y);
        EXPECT_EQ(c.scalar_type(), torch::kFloat);
        ASSERT_EQ(c.sizes(), (std::vector<std::int64_t>{M, N}));
        // Float accumulation of exact bf16 products: float's rounding, not bf16's (2^-8).
        EXPECT_LT(error_from_reference(c, ref), 1e-5) << M << "x" << K << "x" << N;
      }
    }
  }
  // Far from float: the unrounded product differs by bf16's rounding, so the rounding happened.
  const auto a = torch::randn({64, 256}), b = torch::randn({256, 64});
  const auto exact = torch::mm(a.to(torch::kDouble), b.to(torch::kDouble));
  const double off = error_from_reference(bf16_matrix_product(a, b), exact);
  EXPECT_GT(off, 1e-4);
  EXPECT_LT(off, 3e-2);
}

TEST(Bf16Product, EmptyProductsAreZeroAndShapesAreChecked) {
  EXPECT_EQ(bf16_matrix_product(torch::randn({0, 4}), torch::randn({4, 3})).sizes(), (std::vector<std::int64_t>{0, 3}));
  EXPECT_EQ(bf16_matrix_product(torch::randn({2, 0}), torch::randn({0, 3})).sum().item<float>(), 0.0f);
  EXPECT_THROW(bf16_matrix_product(torch::randn({2, 4}), torch::randn({5, 3})), c10::Error);
}

TEST(Bf16Product, AWeightLaidOutOnceGivesThePlainProductAtEveryRowCount) {
  torch::manual_seed(2);
  const auto w = torch::randn({2048, 512});  // an LSTM gate weight, (out, in)
  const Bf16Matrix forward(w.t(), 16), backward(w, 16);
  for (std::int64_t rows : {1, 3, 8, 15, 16, 17, 32, 64, 200}) {
    const auto x = torch::randn({rows, 512}), dy = torch::randn({rows, 2048});
    EXPECT_LT(error_from_reference(forward.multiply(x), rounded_reference(x, w.t())), 1e-5) << rows;
    EXPECT_LT(error_from_reference(backward.multiply(dy), rounded_reference(dy, w)), 1e-5) << rows;
  }
  EXPECT_EQ(forward.multiply(torch::randn({0, 512})).sizes(), (std::vector<std::int64_t>{0, 2048}));
}

TEST(Bf16Product, AWeightsFormsAreMadeOncePerVersionSharedAndDroppedWithIt) {
  torch::manual_seed(4);
  auto w = torch::randn({96, 40});
  const auto before = shared_bf16_forms();
  const auto plain = shared_bf16(w);
  EXPECT_TRUE(shared_bf16(w).is_same(plain));
  EXPECT_TRUE(torch::equal(plain, to_bf16(w)));
  torch::Tensor from_other_thread;
  std::thread([&] { from_other_thread = shared_bf16(w); }).join();
  EXPECT_TRUE(from_other_thread.is_same(plain));  // a part on another thread takes the same copy
  const auto x = torch::randn({16, 40});
  const auto laid_out = shared_bf16_matrix(w, /*transposed=*/true, 16);
  EXPECT_EQ(shared_bf16_matrix(w, true, 16).get(), laid_out.get());
  EXPECT_LT(error_from_reference(laid_out->multiply(x), rounded_reference(x, w.t())), 1e-5);

  {
    torch::NoGradGuard no_grad;
    w.mul_(-2.0f);  // an optimizer step: a new version of the weight
  }
  const auto updated = shared_bf16(w);
  EXPECT_FALSE(updated.is_same(plain));
  EXPECT_TRUE(torch::equal(updated, to_bf16(w)));
  EXPECT_LT(error_from_reference(shared_bf16_matrix(w, true, 16)->multiply(x), rounded_reference(x, w.t())), 1e-5);

  EXPECT_EQ(shared_bf16_forms(), before + 2);
  w = torch::Tensor();  // the weight is gone: so are its forms
  EXPECT_EQ(shared_bf16_forms(), before);
}

TEST(Bf16Product, AScopeSwitchesTheTrainingProductsOnItsThreadOnly) {
  torch::manual_seed(3);
  const auto a = torch::randn({40, 96}), b = torch::randn({96, 24});
  const auto float_product = matrix_product(a, b);
  EXPECT_FALSE(Bf16Products::active());
  {
    Bf16Products outer(true);
    {
      Bf16Products inner(false);  // nested: stays on
      EXPECT_TRUE(Bf16Products::active());
    }
    EXPECT_TRUE(Bf16Products::active());
    EXPECT_TRUE(torch::equal(matrix_product(a, b), bf16_matrix_product(a, b)));
    EXPECT_FALSE(torch::equal(matrix_product(a, b), float_product));
    bool other_thread = true;
    std::thread([&] { other_thread = Bf16Products::active(); }).join();
    EXPECT_FALSE(other_thread);
  }
  EXPECT_FALSE(Bf16Products::active());
  EXPECT_TRUE(torch::equal(matrix_product(a, b), float_product));
}

TEST(Bf16Product, ATrainingPassInBf16PartsMatchesFp32WithinItsRounding) {
  if (!cpu_has_native_bf16()) GTEST_SKIP() << "no native bf16 products on this CPU (or oneDNN is capped below them)";
  torch::manual_seed(4);
  ModelConfig config;
  config.vocab_size = 60, config.embed_dim = 32, config.hidden_dim = 48, config.attention_dim = 40;
  config.annotation_dim = 24, config.dropout = 0.0;
  Decoder dec(config);
  const std::int64_t B = 40, L = 9;
  DecoderPassInput in;
  in.annotations = torch::randn({B, L, 24});
  in.lengths = torch::randint(3, 12, {B}, torch::kLong);
  in.tokens = torch::randint(4, 60, {B, 13}, torch::kLong);
  in.tokens.select(1, 0).fill_(1);
  const auto pass = [&](bool bf16) {
    for (auto& p : dec->parameters()) p.mutable_grad() = torch::Tensor();
    DecoderPassOptions o;
    o.bf16 = bf16;
    o.parts = 2;
    MovingBaseline baseline;
    const auto r = decoder_pass(dec, in, o, &baseline);
    std::vector<torch::Tensor> grads;
    for (auto& p : dec->parameters()) grads.push_back(p.grad().defined() ? p.grad().flatten() : torch::zeros({p.numel()}));
    return std::make_pair(r.terms.objective, torch::cat(grads));
  };
  const auto [fp32_objective, fp32_grad] = pass(false);
  // Side by side in two parts, again and again: the products' kernels are made and run from two
  // threads at once without harm, and every pass gives the same numbers.
  const auto [objective, grad] = pass(true);
  for (int i = 0; i < 20; ++i) {
    const auto again = pass(true);
    ASSERT_EQ(again.first, objective);
    ASSERT_TRUE(torch::equal(again.second, grad));
  }
  EXPECT_NE(objective, fp32_objective);  // the products did round
  EXPECT_NEAR(objective, fp32_objective, 0.01 * std::abs(fp32_objective));
  const double cosine = (grad * fp32_grad).sum().item<double>() / (grad.norm() * fp32_grad.norm()).item<double>();
  EXPECT_GT(cosine, 0.995);
}
