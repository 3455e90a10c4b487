// Weights applied at every step: the gradients are those of one torch::linear per step.
#include <gtest/gtest.h>

#include "core/data/batching.h"
#include "core/model/decoder.h"
#include "core/model/step_weight.h"
#include "tests/test_support.h"

using namespace fovea;

namespace {

/// A recurrence of shrinking batches, h_{t+1} = tanh(h_t[:b_t] Wᵀ + u_t), scored at every step;
/// `product` multiplies by W. Returns W's and h_0's gradients.
template <typename Product>
std::pair<torch::Tensor, torch::Tensor> recurrence_gradients(const torch::Tensor& weight, const Product& product) {
  torch::manual_seed(2);
  auto h0 = torch::randn({5, 6}).requires_grad_();
  weight.mutable_grad() = torch::Tensor();
  auto h = h0;
  auto loss = torch::zeros({});
  for (std::int64_t b : {5, 5, 4, 2, 1}) {
    h = torch::tanh(product(h.narrow(0, 0, b)) + torch::randn({b, 6}));
    loss = loss + (h * torch::randn({b, 6})).sum();
  }
  loss.backward();
  return {weight.grad().clone(), h0.grad().clone()};
}

}  // namespace

TEST(StepWeight, GradientsEqualThoseOfOneLinearPerStep) {
  torch::manual_seed(1);
  const auto weight = torch::randn({6, 6}).requires_grad_();
  const auto [w_linear, h_linear] = recurrence_gradients(weight, [&](const torch::Tensor& x) { return torch::linear(x, weight); });
  const StepWeight step(weight);
  const auto [w_steps, h_steps] = recurrence_gradients(weight, [&](const torch::Tensor& x) { return step(x); });
  EXPECT_TRUE(torch::allclose(w_steps, w_linear, 1e-5, 1e-5)) << w_steps - w_linear;
  EXPECT_TRUE(torch::allclose(h_steps, h_linear, 1e-5, 1e-5)) << h_steps - h_linear;
  // Without autograd the product is the plain one.
  torch::NoGradGuard no_grad;
  const auto x = torch::randn({3, 6});
  EXPECT_TRUE(torch::allclose(StepWeight(weight)(x), torch::linear(x, weight), 1e-6, 1e-6));
}

TEST(StepWeight, TheDecodersGradientsEqualThoseOfItsStepsUnrolledOneCaptionAtATime) {
  torch::manual_seed(4);
  auto config = test::tiny_model();
  config.annotation_dim = 8, config.grid_h = 2, config.grid_w = 3, config.vocab_size = 12;
  Decoder decoder(config);
  const auto annotations = torch::randn({3, 6, 8});
  const std::vector<std::vector<std::int64_t>> captions = {{1, 4, 5, 2}, {1, 6, 7, 8, 9, 2}, {1, 10, 2}};
  // A fixed weight per (caption, step) turns the words' log-probabilities into a scalar.
  const auto weight_of = [&](const torch::Tensor& caption, const torch::Tensor& step) {
    return torch::sin(caption.to(torch::kFloat) * 7 + step.to(torch::kFloat) * 3);
  };
  auto gradients = [&] {
    std::vector<torch::Tensor> g;
    for (auto& p : decoder->parameters()) {
      g.push_back(p.grad().defined() ? p.grad().flatten().clone() : torch::zeros({p.numel()}));
      p.mutable_grad() = torch::Tensor();
    }
    return torch::cat(g);
  };

  auto [tokens, lengths] = pad_captions(captions);
  const auto out = decoder->forward(annotations, tokens, lengths);
  (out.token_log_probs * weight_of(out.sequence, out.step)).sum().backward();
  const auto batched = gradients();

  // The same through the public step functions, without step weights, one caption at a time.
  for (std::size_t i = 0; i < captions.size(); ++i) {
    const auto a = annotations.narrow(0, std::int64_t(i), 1);
    const auto projected = decoder->project_annotations(a);
    auto state = decoder->initial_state(a);
    auto loss = torch::zeros({});
    for (std::size_t t = 0; t + 1 < captions[i].size(); ++t) {
      const auto embedded = decoder->embed(torch::tensor({captions[i][t]}));
      const auto r = decoder->attend_and_step(a, projected, decoder->word_gates(embedded), state, {});
      state = r.state;
      const auto log_p = torch::log_softmax(decoder->output_logits(embedded, r.state.h, r.context), 1);
      loss = loss + log_p[0][captions[i][t + 1]] *
                        weight_of(torch::tensor({std::int64_t(i)}), torch::tensor({std::int64_t(t)}))[0];
    }
    loss.backward();
  }
  const auto unrolled = gradients();
  EXPECT_TRUE(torch::allclose(batched, unrolled, 1e-4, 1e-5)) << (batched - unrolled).abs().max();
}
