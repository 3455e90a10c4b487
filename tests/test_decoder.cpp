// Decoder: shapes, masks, α a distribution, padding irrelevant, batch order irrelevant.
#include <gtest/gtest.h>

#include "core/data/batching.h"
#include "core/model/decoder.h"
#include "tests/test_support.h"

using namespace fovea;

namespace {

ModelConfig decoder_config(AttentionKind kind = AttentionKind::Soft) {
  auto c = test::tiny_model(kind);
  c.annotation_dim = 8;
  c.grid_h = 2;
  c.grid_w = 3;
  c.vocab_size = 12;
  return c;
}

}  // namespace

class DecoderTest : public ::testing::Test {
 protected:
  void SetUp() override { torch::manual_seed(7); }
  Decoder decoder{decoder_config()};
  torch::Tensor annotations = torch::randn({3, 6, 8});
  // Captions of 2, 4 and 1 words: predicted tokens = words + <end>.
  std::vector<std::vector<std::int64_t>> captions = {{1, 4, 5, 2}, {1, 6, 7, 8, 9, 2}, {1, 10, 2}};
};

TEST_F(DecoderTest, PackedOutputsCoverExactlyTheValidSteps) {
  auto [tokens, lengths] = pad_captions(captions);
  EXPECT_EQ(lengths[0].item<long>(), 3);
  auto out = decoder->forward(annotations, tokens, lengths);
  const long N = 3 + 5 + 2;
  EXPECT_EQ(out.token_log_probs.sizes(), (std::vector<long>{N}));
  EXPECT_TRUE((out.token_log_probs < 0).all().item<bool>()) << "log-probabilities of one word among 12";
  EXPECT_EQ(out.alphas.sizes(), (std::vector<long>{N, 6}));
  EXPECT_EQ(out.alpha_sum.sizes(), (std::vector<long>{3, 6}));
  // Each sequence appears once per valid step and its targets are its own words then <end>.
  for (long b = 0; b < 3; ++b) {
    auto mine = out.sequence.eq(b);
    EXPECT_EQ(mine.sum().item<long>(), lengths[b].item<long>());
    auto targets = out.targets.masked_select(mine);
    auto expected = tokens[b].narrow(0, 1, lengths[b].item<long>());
    EXPECT_TRUE(torch::equal(targets, expected)) << b;
  }
  // α is a distribution over the cells, and alpha_sum adds it over each caption's steps only.
  EXPECT_TRUE(torch::allclose(out.alphas.sum(1), torch::ones({N}), 1e-5, 1e-6));
  EXPECT_TRUE((out.alphas >= 0).all().item<bool>());
  EXPECT_TRUE(torch::allclose(out.alpha_sum.sum(1), lengths.to(torch::kFloat), 1e-5, 1e-5));
  EXPECT_TRUE((out.betas > 0).logical_and(out.betas < 1).all().item<bool>());
}

TEST_F(DecoderTest, PaddingContentAndExtraPaddingChangeNothing) {
  decoder->eval();
  auto [tokens, lengths] = pad_captions(captions);
  auto a = decoder->forward(annotations, tokens, lengths);
  auto garbage = tokens.clone();
  garbage[2][3] = 7;  // past the end of caption 2
  garbage = torch::cat({garbage, torch::full({3, 4}, 9, torch::kLong)}, 1);
  auto b = decoder->forward(annotations, garbage, lengths);
  EXPECT_TRUE(torch::allclose(a.token_log_probs, b.token_log_probs));
  EXPECT_TRUE(torch::allclose(a.alpha_sum, b.alpha_sum));
}

TEST_F(DecoderTest, EachCaptionScoresAsIfAlone) {
  decoder->eval();
  auto [tokens, lengths] = pad_captions(captions);
  auto batch = decoder->forward(annotations, tokens, lengths);
  for (long i = 0; i < 3; ++i) {
    auto [t1, l1] = pad_captions({captions[std::size_t(i)]});
    auto alone = decoder->forward(annotations.narrow(0, i, 1), t1, l1);
    auto mine = batch.sequence.eq(i).nonzero().squeeze(1);
    EXPECT_TRUE(torch::allclose(batch.token_log_probs.index_select(0, mine), alone.token_log_probs, 1e-5, 1e-5)) << i;
    EXPECT_TRUE(torch::allclose(batch.alphas.index_select(0, mine), alone.alphas, 1e-5, 1e-6)) << i;
  }
}

TEST_F(DecoderTest, AnnotationProjectionDependsOnlyOnTheImage) {
  // W_a·a is computed once per image: projecting twice gives the same tensor, and the
  // attention at a step depends on the projection and h only.
  auto p = decoder->project_annotations(annotations);
  EXPECT_EQ(p.sizes(), (std::vector<long>{3, 6, 16}));
  auto h = torch::randn({3, 48});
  auto alpha = decoder->attention(p, h);
  EXPECT_TRUE(torch::allclose(alpha, decoder->attention(decoder->project_annotations(annotations), h)));
  EXPECT_THROW(decoder->project_annotations(torch::randn({3, 6, 5})), c10::Error);
}

TEST(DecoderHard, SampledRowsPickOneCellAndRecordItsLogProbability) {
  torch::manual_seed(3);
  Decoder decoder(decoder_config(AttentionKind::Hard));
  auto annotations = torch::randn({4, 6, 8});
  auto [tokens, lengths] = pad_captions({{1, 4, 2}, {1, 5, 6, 2}, {1, 4, 2}, {1, 7, 2}});
  auto sample = torch::tensor({true, false, true, false});
  auto out = decoder->forward(annotations, tokens, lengths, sample);
  for (long n = 0; n < out.sequence.size(0); ++n) {
    const long seq = out.sequence[n].item<long>();
    const long g = out.glimpses[n].item<long>();
    if (sample[seq].item<bool>()) {
      EXPECT_GE(g, 0);
      EXPECT_LT(g, 6);
    } else {
      EXPECT_EQ(g, -1);
    }
  }
  EXPECT_LT(out.log_p_glimpses[0].item<float>(), 0);
  EXPECT_EQ(out.log_p_glimpses[1].item<float>(), 0);
  EXPECT_TRUE(torch::equal(out.sampled, sample));
}

TEST_F(DecoderTest, DecodingWordGatesComeFromATableThatFollowsTheWeights) {
  auto tokens = torch::tensor(std::vector<std::int64_t>{1, 5, 5, 11}, torch::kLong);
  auto direct = [&] {
    torch::NoGradGuard no_grad;
    return decoder->word_gates(decoder->embed(tokens));
  };
  auto looked_up = [&] {
    torch::NoGradGuard no_grad;
    return decoder->decoding_word_gates(tokens, decoder->embed(tokens));
  };
  EXPECT_TRUE(torch::allclose(looked_up(), direct(), 1e-5, 1e-6));
  // An optimiser step changes the weights in place: the table is rebuilt, not served stale.
  {
    torch::NoGradGuard no_grad;
    for (auto& p : decoder->parameters()) p.add_(0.5);
  }
  EXPECT_TRUE(torch::allclose(looked_up(), direct(), 1e-5, 1e-6));
  // With autograd the gates are computed directly and carry gradients.
  auto g = decoder->decoding_word_gates(tokens, decoder->embed(tokens));
  EXPECT_TRUE(g.requires_grad());
}
