// The fused context Σ α_l a_l gives the values and gradients of the bmm it replaces, over steps of
// shrinking batches the way the decoder runs them, with the annotations' gradient collected in
// one buffer; annotations stored in bf16 are read as they are, giving what their float values give.
#include <gtest/gtest.h>

#include "core/model/attention_context.h"
#include "core/model/step_gradient_sink.h"

using namespace fovea;

namespace {

/// Σ over steps of a fixed weighting of the contexts; step t uses the first B - t rows.
/// Returns the gradients of the annotations and of every step's α logits.
std::vector<torch::Tensor> unrolled_gradients(const torch::Tensor& annotations, const torch::Tensor& logits, bool fused) {
  const auto collected = fused ? collect_step_gradient(annotations) : StepGradientSink{annotations, {}};
  torch::Tensor loss = torch::zeros({});
  for (std::int64_t t = 0; t < logits.size(0); ++t) {
    const auto b = annotations.size(0) - t;
    const auto alpha = torch::softmax(logits[t].narrow(0, 0, b), 1);
    const auto context = fused ? attention_context(alpha, collected.values, collected.sink)
                               : torch::bmm(alpha.unsqueeze(1), annotations.narrow(0, 0, b)).squeeze(1);
    const auto weights = torch::linspace(-1, 1, context.numel()).view(context.sizes()) * (t + 1);
    loss = loss + (context * weights).sum() + 0.1 * context.pow(2).sum();
  }
  // The annotations are also read outside the steps, as the decoder's projection reads them.
  loss = loss + annotations.mean(1).pow(2).sum();
  return torch::autograd::grad({loss}, {annotations, logits});
}

}  // namespace

TEST(AttentionContext, MatchesBmmWithAndWithoutGradients) {
  torch::manual_seed(5);
  const auto annotations = torch::randn({6, 13, 37});  // D not a multiple of the kernel's lanes
  const auto alpha = torch::softmax(torch::randn({4, 13}), 1);
  {
    torch::NoGradGuard no_grad;
    const auto fused = attention_context(alpha, annotations);
    ASSERT_EQ(fused.sizes(), (std::vector<std::int64_t>{4, 37}));
    EXPECT_TRUE(torch::allclose(fused, torch::bmm(alpha.unsqueeze(1), annotations.narrow(0, 0, 4)).squeeze(1), 1e-5, 1e-5));
    // Beam search: one image expanded over the beams (row stride 0).
    const auto one = annotations.narrow(0, 2, 1).expand({4, -1, -1});
    EXPECT_TRUE(torch::allclose(attention_context(alpha, one), torch::bmm(alpha.unsqueeze(1), one.contiguous()).squeeze(1),
                                1e-5, 1e-5));
  }
  const auto logits = torch::randn({4, 6, 13}).requires_grad_();
  const auto a = annotations.clone().requires_grad_();
  const auto fused = unrolled_gradients(a, logits, true);
  const auto reference = unrolled_gradients(a, logits, false);
  const char* names[] = {"annotations", "alpha logits"};
  for (std::size_t i = 0; i < fused.size(); ++i) {
    EXPECT_GT(reference[i].abs().max().item<float>(), 1e-3) << names[i] << ": the check needs a gradient to compare";
    EXPECT_TRUE(torch::allclose(fused[i], reference[i], 1e-4, 1e-5)) << names[i] << "\n"
                                                                     << (fused[i] - reference[i]).abs().max();
  }
  // Annotations that need no gradient (a frozen encoder's, the benchmark's): no sink, α's gradient alone.
  EXPECT_FALSE(collect_step_gradient(annotations).sink.defined());
  const auto weights = torch::linspace(-1, 1, 6 * 37).view({6, 37});
  const auto fused_context = attention_context(torch::softmax(logits[0], 1), annotations);
  const auto bmm_context = torch::bmm(torch::softmax(logits[0], 1).unsqueeze(1), annotations).squeeze(1);
  const auto from_fused = torch::autograd::grad({(fused_context * weights).sum()}, {logits})[0];
  const auto from_bmm = torch::autograd::grad({(bmm_context * weights).sum()}, {logits})[0];
  EXPECT_GT(from_bmm.abs().max().item<float>(), 1e-3);
  EXPECT_TRUE(torch::allclose(from_fused, from_bmm, 1e-4, 1e-5)) << (from_fused - from_bmm).abs().max();
}

TEST(AttentionContext, Bf16AnnotationsGiveWhatTheirFloatValuesGive) {
  torch::manual_seed(6);
  // D: one block of 32 and a tail; eight blocks, one more and a tail; the benchmark's 512.
  for (const std::int64_t D : {37, 300, 512}) {
    const auto stored = torch::randn({5, 13, D}).to(torch::kBFloat16);
    const auto widened = stored.to(torch::kFloat);
    const auto logits = torch::randn({3, 13}).requires_grad_();
    const auto from_stored = attention_context(torch::softmax(logits, 1), stored);
    const auto from_float = attention_context(torch::softmax(logits, 1), widened);
    EXPECT_EQ(from_stored.scalar_type(), torch::kFloat);
    EXPECT_TRUE(torch::allclose(from_stored, from_float, 1e-6, 1e-6)) << D << ": " << (from_stored - from_float).abs().max();
    const auto weights = torch::linspace(-1, 1, 3 * D).view({3, D});
    const auto g_stored = torch::autograd::grad({(from_stored * weights).sum()}, {logits})[0];
    const auto g_float = torch::autograd::grad({(from_float * weights).sum()}, {logits})[0];
    EXPECT_GT(g_float.abs().max().item<float>(), 1e-3);
    // α's gradient sums D products in another order: float rounding over D terms.
    EXPECT_TRUE(torch::allclose(g_stored, g_float, 1e-5, 1e-5)) << D << ": " << (g_stored - g_float).abs().max();
  }
}

TEST(AttentionContext, NamesMismatchedShapes) {
  EXPECT_THROW(attention_context(torch::rand({3, 5}), torch::rand({2, 5, 4})), c10::Error);
  EXPECT_THROW(attention_context(torch::rand({2, 6}), torch::rand({2, 5, 4})), c10::Error);
}
