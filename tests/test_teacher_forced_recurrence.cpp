// The device-generic recurrence (core/model/teacher_forced_recurrence.h) against the step-by-step
// path through autograd, in float64 on the CPU (the generic operators CUDA runs too): the same
// outputs and the same gradient for every parameter and for the annotations, soft with and without
// the β gate, hard with some rows drawing glimpses, and with only some outputs in the loss.
#include <gtest/gtest.h>

#include "core/data/batching.h"
#include "core/model/decoder.h"
#include "core/runtime/thread_generator.h"
#include "tests/test_support.h"

using namespace fovea;

namespace {

struct Pass {
  DecoderOutput out;
  std::map<std::string, torch::Tensor> grads;  ///< by parameter name, and "annotations"
};

enum class Loss { Everything, WordsOnly };

Pass run(Decoder& decoder, DecoderImpl::RecurrencePath path, const torch::Tensor& annotations,
         const torch::Tensor& tokens, const torch::Tensor& lengths, const torch::Tensor& sample, Loss loss) {
  decoder->set_recurrence_path(path);
  decoder->zero_grad();
  auto a = annotations.clone().requires_grad_(true);
  Pass p;
  {
    ScopedThreadGenerator generator(11);  // the same glimpses on both paths
    p.out = decoder->forward(a, tokens, lengths, sample);
  }
  const auto& o = p.out;
  auto total = o.token_log_probs.sum();
  if (loss == Loss::Everything) {
    // Weights that differ per cell and step, so that every gradient path carries something.
    const auto cells = torch::arange(o.alphas.size(1), torch::kDouble);
    total = total + (o.alphas * torch::sin(cells + o.step.unsqueeze(1).to(torch::kDouble))).sum() +
            0.3 * o.betas.pow(2).sum() + 0.7 * o.log_p_glimpses.sum() - 0.1 * o.entropy.sum() +
            0.2 * o.alpha_sum.pow(2).sum();
  }
  total.backward();
  for (const auto& item : decoder->named_parameters()) {
    p.grads[item.key()] = item.value().grad().defined() ? item.value().grad().clone() : torch::zeros_like(item.value());
  }
  p.grads["annotations"] = a.grad().clone();
  return p;
}

void expect_same(const Pass& fused, const Pass& reference) {
  const auto close = [](const torch::Tensor& x, const torch::Tensor& y) { return torch::allclose(x, y, 1e-9, 1e-11); };
  EXPECT_TRUE(close(fused.out.token_log_probs, reference.out.token_log_probs));
  EXPECT_TRUE(close(fused.out.alphas, reference.out.alphas));
  EXPECT_TRUE(close(fused.out.betas, reference.out.betas));
  EXPECT_TRUE(torch::equal(fused.out.glimpses, reference.out.glimpses));
  EXPECT_TRUE(close(fused.out.log_p_glimpses, reference.out.log_p_glimpses));
  double largest = 0;
  for (const auto& [name, g] : reference.grads) {
    ASSERT_TRUE(fused.grads.count(name)) << name;
    EXPECT_TRUE(close(fused.grads.at(name), g))
        << name << ": largest difference " << (fused.grads.at(name) - g).abs().max().item<double>() << " of "
        << g.abs().max().item<double>();
    largest = std::max(largest, g.abs().max().item<double>());
  }
  EXPECT_GT(largest, 1e-3) << "the loss reaches the parameters";
}

class DecoderRecurrence : public ::testing::Test {
 protected:
  void SetUp() override { torch::manual_seed(5); }

  void compare(ModelConfig config, bool sampled_rows, Loss loss) {
    config.annotation_dim = 8;
    config.grid_h = 2;
    config.grid_w = 3;
    config.vocab_size = 14;
    Decoder decoder(config);
    decoder->to(torch::kDouble);
    decoder->eval();  // no dropout: its draws are not what is compared
    auto annotations = torch::randn({4, 6, 8}, torch::kDouble);
    // Lengths 3, 5, 1 and 4 words, out of order: the batch is sorted inside, rows leave as they end.
    auto [tokens, lengths] =
        pad_captions({{1, 4, 5, 6, 2}, {1, 6, 7, 8, 9, 10, 2}, {1, 11, 2}, {1, 12, 13, 4, 5, 2}});
    torch::Tensor sample;
    if (sampled_rows) sample = torch::tensor({true, false, true, true});
    const auto reference =
        run(decoder, DecoderImpl::RecurrencePath::StepByStep, annotations, tokens, lengths, sample, loss);
    const auto fused = run(decoder, DecoderImpl::RecurrencePath::Fused, annotations, tokens, lengths, sample, loss);
    expect_same(fused, reference);
  }
};

}  // namespace

TEST_F(DecoderRecurrence, SoftWithTheGateMatchesStepByStep) { compare(test::tiny_model(), false, Loss::Everything); }

TEST_F(DecoderRecurrence, SoftWithoutTheGateAndLearnedStateMatchesStepByStep) {
  auto c = test::tiny_model();
  c.use_beta = false;
  c.init_state = InitState::Learned;
  compare(c, false, Loss::Everything);
}

TEST_F(DecoderRecurrence, OnlyTheWordsInTheLossMatchesStepByStep) { compare(test::tiny_model(), false, Loss::WordsOnly); }

TEST_F(DecoderRecurrence, HardWithSampledRowsMatchesStepByStep) {
  compare(test::tiny_model(AttentionKind::Hard), true, Loss::Everything);
}
