// The fused additive attention gives the scores and gradients of the LibTorch operators it replaces.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/model/additive_attention.h"
#include "core/model/attention_score_rows.h"
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

/// Exponential16: e^2p read in bf16; Rounded: the same rounded e^2p, read as floats.
enum class Form { Reference, Rational, Exponential, Exponential16, Rounded };

/// Σ over steps of a fixed random weighting of the scores, step t using its first B - t rows the
/// way the decoder trims finished captions. Fused (either tanh) or reference, the same graph
/// otherwise.
torch::Tensor unrolled_loss(const Params& p, Form form) {
  const auto projected = torch::matmul(p.annotations, p.w_a.t()) + p.b_a;
  const bool fused = form != Form::Reference;
  const auto collected = fused ? collect_step_gradient(projected) : StepGradientSink{projected, {}};
  AttentionKeys keys = collected.values;
  if (form == Form::Exponential) keys = attention_keys(collected.values);
  if (form == Form::Exponential16 || form == Form::Rounded) keys = attention_keys(collected.values, /*bf16=*/true);
  if (form == Form::Rounded) keys.exponential = keys.exponential.to(torch::kFloat);
  EXPECT_EQ(keys.exponential.defined(), form != Form::Reference && form != Form::Rational);
  if (form == Form::Exponential16) EXPECT_EQ(keys.exponential.scalar_type(), torch::kBFloat16);
  torch::Tensor loss = torch::zeros({});
  for (std::int64_t t = 0; t < p.hs.size(0); ++t) {
    const auto b = p.hs.size(1) - t;
    const auto q = torch::matmul(p.hs[t].narrow(0, 0, b), p.w_h.t());
    const auto e = fused ? additive_attention_scores(keys, q, p.w, p.bias, collected.sink)
                         : additive_attention_scores_reference(projected, q, p.w, p.bias);
    const auto weights = torch::linspace(-1, 1, e.numel()).view(e.sizes()) * (t + 1);
    loss = loss + (torch::softmax(e, 1) * weights).sum() + 0.1 * e.pow(2).sum();
  }
  return loss;
}

std::vector<torch::Tensor> gradients(const Params& p, Form form) {
  auto loss = unrolled_loss(p, form);
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
  const auto reference = gradients(p, Form::Reference);
  for (const auto form : {Form::Rational, Form::Exponential}) {
    SCOPED_TRACE(form == Form::Rational ? "rational tanh" : "exponential form");
    const auto fused = gradients(p, form);
    const char* names[] = {"W_a", "b_a", "h", "W_h", "w", "bias"};
    for (std::size_t i = 0; i < fused.size(); ++i) {
      ASSERT_TRUE(fused[i].defined()) << names[i];
      EXPECT_GT(reference[i].abs().max().item<float>(), 1e-3) << names[i] << ": the check needs a gradient to compare";
      EXPECT_TRUE(torch::allclose(fused[i], reference[i], 1e-4, 1e-5))
          << names[i] << ": max difference " << (fused[i] - reference[i]).abs().max().item<float>();
    }
    // Values identical too (same loss within rounding).
    EXPECT_NEAR(unrolled_loss(p, form).item<float>(), unrolled_loss(p, Form::Reference).item<float>(), 1e-3);
  }
}

// Read in bf16, e^2p gives the scores and gradients of its rounded values read as floats (to the
// reciprocal estimate its rows take: here a tenth of what the rounding moves), and stays within that
// rounding (a relative 2^-9 of e^2p, p moved by under 0.001) of the operators.
TEST(AdditiveAttention, KeysReadInBf16GiveTheirRoundedValuesScores) {
  const auto p = make_params(5, 11, 8, 37, 4, 10);
  {
    torch::NoGradGuard no_grad;
    const auto projected = torch::matmul(p.annotations, p.w_a.t()) + p.b_a;
    const auto rounded_keys = attention_keys(projected, true).exponential;
    ASSERT_EQ(rounded_keys.scalar_type(), torch::kBFloat16);
    EXPECT_TRUE(torch::equal(rounded_keys, attention_keys(projected).exponential.to(torch::kBFloat16)))
        << "e^2p rounded to nearest even, as LibTorch rounds";
  }
  const auto bf16 = gradients(p, Form::Exponential16), rounded = gradients(p, Form::Rounded);
  const auto reference = gradients(p, Form::Reference);
  const char* names[] = {"W_a", "b_a", "h", "W_h", "w", "bias"};
  for (std::size_t i = 0; i < bf16.size(); ++i) {
    const double scale = reference[i].abs().max().item<double>();
    EXPECT_LT((bf16[i] - rounded[i]).abs().max().item<double>(), 2e-3 * scale) << names[i];
    EXPECT_LT((bf16[i] - reference[i]).abs().max().item<double>(), 0.02 * scale) << names[i];
  }
  const float loss = unrolled_loss(p, Form::Rounded).item<float>();
  EXPECT_NEAR(unrolled_loss(p, Form::Exponential16).item<float>(), loss, 1e-4 * std::abs(loss));
}

TEST(AdditiveAttention, TheExponentialFormHoldsUpToItsBoundAndSaturatesBeyondIt) {
  torch::NoGradGuard no_grad;
  const auto p = make_params(4, 9, 6, 37, 1, 11);
  auto projected = torch::matmul(p.annotations, p.w_a.t()) + p.b_a;
  projected = projected / projected.abs().max() * (kExponentialFormBound - 0.5f);  // up to 29.5 in magnitude
  const auto keys = attention_keys(projected);
  ASSERT_TRUE(keys.exponential.defined());
  // Queries from small to far past the ±40 clamp, either sign, so that p + q crosses 0 and saturates.
  const auto q = torch::matmul(p.hs[0], p.w_h.t()) * torch::tensor({1.0f, 10.0f, 60.0f, -60.0f}).view({4, 1});
  const auto expected = additive_attention_scores_reference(projected.to(torch::kDouble), q.to(torch::kDouble),
                                                            p.w.to(torch::kDouble), p.bias.to(torch::kDouble));
  const auto scores = additive_attention_scores(keys, q, p.w, p.bias).to(torch::kDouble);
  // |w|₁ × 1e-7: the form is within about 1e-7 of tanh, absolutely.
  const double tolerance = p.w.abs().sum().item<double>() * 2e-7 + 1e-6;
  EXPECT_LT((scores - expected).abs().max().item<double>(), tolerance);
  // The rational tanh rounds p + q first (half an ulp of 30 is 1e-6).
  const auto rational = additive_attention_scores(projected, q, p.w, p.bias).to(torch::kDouble);
  EXPECT_LT((rational - expected).abs().max().item<double>(), p.w.abs().sum().item<double>() * 2e-6);

  // A NaN query stays NaN in its row's scores, and only there.
  auto q_nan = q.clone();
  q_nan[1][3] = std::numeric_limits<float>::quiet_NaN();
  const auto with_nan = additive_attention_scores(keys, q_nan, p.w, p.bias);
  EXPECT_TRUE(torch::isnan(with_nan[1]).all().item<bool>());
  EXPECT_FALSE(torch::isnan(with_nan.narrow(0, 0, 1)).any().item<bool>());
}

TEST(AdditiveAttention, KeysFallBackToTheRationalTanhOutsideTheBound) {
  const auto projected = torch::randn({2, 5, 19});
  EXPECT_TRUE(attention_keys(projected).exponential.defined());
  auto beyond = projected.clone();
  beyond[1][4][7] = kExponentialFormBound * 1.01f;
  EXPECT_FALSE(attention_keys(beyond).exponential.defined()) << "|p| above the bound";
  beyond[1][4][7] = -std::numeric_limits<float>::infinity();
  EXPECT_FALSE(attention_keys(beyond).exponential.defined()) << "an infinity";
  beyond[1][4][7] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(attention_keys(beyond).exponential.defined()) << "a NaN";
  EXPECT_FALSE(attention_keys(projected.to(torch::kDouble)).exponential.defined()) << "not float";
  // The scores from keys without the form are those of the projection itself.
  const auto q = torch::randn({2, 19}) * 3, w = torch::randn({19}), bias = torch::randn({1});
  const auto keys = attention_keys(beyond);
  EXPECT_TRUE(torch::equal(torch::isnan(additive_attention_scores(keys, q, w, bias)),
                           torch::isnan(additive_attention_scores_reference(beyond, q, w, bias))));
  // Keys whose e^2p has another memory layout than rows of A floats are read as the projection.
  const auto e2p = attention_keys(projected).exponential;
  const AttentionKeys odd(projected, e2p.transpose(1, 2).contiguous().transpose(1, 2));
  EXPECT_TRUE(torch::equal(additive_attention_scores(odd, q, w, bias), additive_attention_scores(projected, q, w, bias)));
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

TEST(AdditiveAttention, ReciprocalRowsMatchTheDivisionOnThisCpu) {
  // The rows refine a reciprocal estimate instead of dividing: the same numbers within a few ulp,
  // an infinite e^2p e^2q still gives tanh = 1 and a NaN stays in its row. Lengths around the
  // vector widths exercise the tails.
  RecordProperty("form", exponential_score_rows_form());
  torch::manual_seed(3);
  for (const std::int64_t A : {1, 7, 8, 15, 16, 17, 37, 512}) {
    const auto ep = torch::exp(torch::randn({A}) * 8), eq = torch::exp(torch::randn({A}) * 8);
    const auto w = torch::randn({A});
    const auto ep64 = ep.to(torch::kDouble), eq64 = eq.to(torch::kDouble), w64 = w.to(torch::kDouble);
    const auto s64 = 2.0 / (ep64 * eq64 + 1.0);
    const double expected = (w64 * (1.0 - s64)).sum().item<double>();
    const float score = exponential_score_row(ep.data_ptr<float>(), eq.data_ptr<float>(), w.data_ptr<float>(), A);
    EXPECT_NEAR(score, expected, 1e-6 * w.abs().sum().item<double>() + 1e-6) << exponential_score_rows_form() << ", A " << A;
    const float de = 0.75f;
    auto grad_p = torch::ones({A}), grad_q = torch::ones({A}), grad_w = torch::ones({A});
    exponential_score_row_backward(ep.data_ptr<float>(), eq.data_ptr<float>(), de, w.data_ptr<float>(),
                                   grad_p.data_ptr<float>(), grad_q.data_ptr<float>(), grad_w.data_ptr<float>(), A);
    const auto g = 1.0 + de * w64 * s64 * (2.0 - s64);
    EXPECT_TRUE(torch::allclose(grad_p.to(torch::kDouble), g, 1e-6, 1e-6)) << A;
    EXPECT_TRUE(torch::allclose(grad_q.to(torch::kDouble), g, 1e-6, 1e-6)) << A;
    EXPECT_TRUE(torch::allclose(grad_w.to(torch::kDouble), 1.0 + de * (1.0 - s64), 1e-6, 1e-6)) << A;
  }
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> ep(20, 1e30f), eq(20, 1e30f), w(20, 1.0f);  // e^2p e^2q overflows: tanh = 1
  ep[3] = inf;
  EXPECT_FLOAT_EQ(exponential_score_row(ep.data(), eq.data(), w.data(), 20), 20.0f);
  std::vector<float> zero(20, 0.0f);  // e^2p = 0: tanh = -1
  EXPECT_FLOAT_EQ(exponential_score_row(zero.data(), eq.data(), w.data(), 20), -20.0f);
  eq[17] = nan;
  EXPECT_TRUE(std::isnan(exponential_score_row(ep.data(), eq.data(), w.data(), 20)));
}

// e^2p in bf16 (a relative 2^-9 already): one image's rows take the reciprocal estimate alone, within
// 1.5 · 2^-12 of 1 / d (AVX2; 2^-14 with AVX-512), so tanh within 3 · 2^-12 of that of the keys
// widened to float. Lengths around the vector widths exercise the tails.
TEST(AdditiveAttention, Bf16KeyRowsStayWithinTheirReciprocalEstimate) {
  RecordProperty("form", exponential_score_rows_form());
  torch::manual_seed(5);
  const double bound = 3.0 / 4096;
  const std::int64_t L = 3;
  for (const std::int64_t A : {1, 7, 8, 15, 16, 17, 37, 512}) {
    const auto ep16 = torch::exp(torch::randn({L, A}) * 3).to(torch::kBFloat16), eq = torch::exp(torch::randn({A}) * 3);
    const auto w = torch::randn({A}), de = torch::tensor({0.75f, -1.5f, 0.25f});
    const auto* bits = reinterpret_cast<const std::uint16_t*>(ep16.data_ptr<at::BFloat16>());
    const auto ep64 = ep16.to(torch::kDouble), eq64 = eq.to(torch::kDouble), w64 = w.to(torch::kDouble);
    const auto de64 = de.to(torch::kDouble).view({L, 1});
    const auto r = 1.0 / (ep64 * eq64 + 1.0), tanh = 1.0 - 2.0 * r;  // (L, A)
    const double w_scale = w.abs().sum().item<double>();

    auto scores = torch::empty({L});
    exponential_scores_bf16(bits, L, eq.data_ptr<float>(), w.data_ptr<float>(), A, scores.data_ptr<float>());
    const auto expected = (tanh * w64).sum(1);
    EXPECT_LT((scores.to(torch::kDouble) - expected).abs().max().item<double>(), bound * w_scale) << "A " << A;

    auto grad_p = torch::ones({L, A}), grad_q = torch::ones({A}), grad_w = torch::ones({A});
    exponential_scores_backward_bf16(bits, L, eq.data_ptr<float>(), de.data_ptr<float>(), w.data_ptr<float>(),
                                     grad_p.data_ptr<float>(), grad_q.data_ptr<float>(), grad_w.data_ptr<float>(), A);
    const auto g = de64 * w64 * (1.0 - tanh * tanh);  // (L, A)
    const auto close = [&](const torch::Tensor& got, const torch::Tensor& want, double scale, const char* name) {
      EXPECT_LT((got.to(torch::kDouble) - want).abs().max().item<double>(), 4 * bound * scale) << name << ", A " << A;
    };
    const double g_scale = (de64.abs() * w64.abs()).max().item<double>();
    close(grad_p, 1.0 + g, g_scale, "grad_p");
    close(grad_q, 1.0 + g.sum(0), L * g_scale, "grad_q");
    close(grad_w, 1.0 + (de64 * tanh).sum(0), de.abs().sum().item<double>(), "grad_w");
    // Without the projection's gradient, the same sums.
    auto q_only = torch::ones({A}), w_only = torch::ones({A});
    exponential_scores_backward_bf16(bits, L, eq.data_ptr<float>(), de.data_ptr<float>(), w.data_ptr<float>(), nullptr,
                                     q_only.data_ptr<float>(), w_only.data_ptr<float>(), A);
    EXPECT_TRUE(torch::equal(q_only, grad_q) && torch::equal(w_only, grad_w)) << A;
  }
  // e^2p e^2q overflowing gives tanh = 1, e^2p = 0 gives -1, and a NaN stays in its row.
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  auto ep = torch::full({2, 20}, 1e30f).to(torch::kBFloat16);
  ep[0][3] = inf;
  ep[1].zero_();
  auto eq = torch::full({20}, 1e30f), w = torch::ones({20}), scores = torch::empty({2});
  const auto* bits = reinterpret_cast<const std::uint16_t*>(ep.data_ptr<at::BFloat16>());
  exponential_scores_bf16(bits, 2, eq.data_ptr<float>(), w.data_ptr<float>(), 20, scores.data_ptr<float>());
  EXPECT_FLOAT_EQ(scores[0].item<float>(), 20.0f);
  EXPECT_FLOAT_EQ(scores[1].item<float>(), -20.0f);
  eq[17] = nan;
  exponential_scores_bf16(bits, 2, eq.data_ptr<float>(), w.data_ptr<float>(), 20, scores.data_ptr<float>());
  EXPECT_TRUE(std::isnan(scores[0].item<float>()) && std::isnan(scores[1].item<float>()));
}
