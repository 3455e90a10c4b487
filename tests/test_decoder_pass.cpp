// The decoder pass in parts: two parts at once compute the whole batch's loss and gradients (the
// same as one part, up to float rounding), and repeat themselves exactly from the same seed
// however their threads interleave; dropout keeps 1 - p of its input from either generator. A
// profile started by the caller records every part (what `fovea bench --profile` writes).
#include <gtest/gtest.h>
#include <torch/csrc/autograd/profiler_legacy.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "core/data/batching.h"
#include "core/runtime/runtime.h"
#include "core/train/decoder_pass.h"
#include "core/runtime/thread_generator.h"
#include "tests/test_support.h"

using namespace fovea;

namespace {

ModelConfig pass_config(AttentionKind kind, double dropout) {
  auto c = test::tiny_model(kind);
  c.annotation_dim = 8;
  c.grid_h = 2;
  c.grid_w = 3;
  c.vocab_size = 14;
  c.dropout = dropout;
  return c;
}

/// Six captions of 1 to 6 words, boxes on some of their words.
struct PassBatch {
  DecoderPassInput in;
  PassBatch() {
    std::vector<std::vector<std::int64_t>> captions;
    for (int n = 1; n <= 6; ++n) {
      std::vector<std::int64_t> c = {Vocabulary::kStart};
      for (int w = 0; w < n; ++w) c.push_back(4 + (n * 3 + w) % 10);
      c.push_back(Vocabulary::kEnd);
      captions.push_back(c);
    }
    std::tie(in.tokens, in.lengths) = pad_captions(captions);
    in.annotations = torch::randn({6, 6, 8});
    const auto T = in.tokens.size(1) - 1;
    in.word_boxes = torch::rand({6, T, 6}) > 0.5;
    in.word_has_box = torch::rand({6, T}) > 0.3;
    in.annotations.requires_grad_(true);
  }
};

struct PassRun {
  DecoderPassResult result;
  std::vector<torch::Tensor> grads;
};

PassRun run(Decoder& dec, const DecoderPassInput& in, const DecoderPassOptions& o, MovingBaseline* baseline = nullptr) {
  for (auto& p : dec->parameters()) p.mutable_grad() = torch::Tensor();
  PassRun r;
  r.result = decoder_pass(dec, in, o, baseline);
  for (auto& p : dec->parameters()) r.grads.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
  return r;
}

}  // namespace

TEST(DecoderPass, TwoPartsGiveTheWholeBatchsLossAndGradients) {
  torch::manual_seed(3);
  Decoder dec(pass_config(AttentionKind::Soft, 0.0));  // no dropout: both runs see the same network
  PassBatch b;
  DecoderPassOptions o;
  o.supervision_weight = 0.7;
  o.parts = 1;
  const auto whole = run(dec, b.in, o);
  o.parts = 2;
  const auto halves = run(dec, b.in, o);
  EXPECT_EQ(whole.result.parts, 1);
  EXPECT_EQ(halves.result.parts, 2);
  EXPECT_NEAR(halves.result.terms.objective, whole.result.terms.objective, 1e-5);
  EXPECT_NEAR(halves.result.terms.nll, whole.result.terms.nll, 1e-5);
  EXPECT_NEAR(halves.result.terms.penalty, whole.result.terms.penalty, 1e-5);
  EXPECT_EQ(halves.result.terms.tokens, whole.result.terms.tokens);
  EXPECT_GT(whole.result.supervision, 0);
  EXPECT_NEAR(halves.result.supervision, whole.result.supervision, 1e-5);
  ASSERT_EQ(halves.grads.size(), whole.grads.size());
  double largest = 0;
  for (std::size_t i = 0; i < whole.grads.size(); ++i) {
    // Dense, as the optimizer takes them: the parts' word embedding rows were made dense again.
    EXPECT_FALSE(halves.grads[i].is_sparse()) << "parameter " << i;
    EXPECT_TRUE(torch::allclose(halves.grads[i], whole.grads[i], 1e-4, 1e-6)) << "parameter " << i;
    largest = std::max(largest, whole.grads[i].abs().max().item<double>());
  }
  EXPECT_GT(largest, 1e-3);  // the gradients compared are not all zero
  ASSERT_TRUE(whole.result.annotations_grad.defined());
  EXPECT_EQ(halves.result.annotations_grad.sizes(), b.in.annotations.sizes());
  EXPECT_TRUE(torch::allclose(halves.result.annotations_grad, whole.result.annotations_grad, 1e-4, 1e-6));
  EXPECT_GT(whole.result.annotations_grad.abs().sum({1, 2}).min().item<double>(), 0);  // every caption got its own

  // Asked for rows, the word embedding's gradient stays the rows the batch read, adding up to the same.
  o.word_gradient_rows = true;
  const auto rows = run(dec, b.in, o);
  int sparse = 0;
  for (std::size_t i = 0; i < whole.grads.size(); ++i) {
    sparse += rows.grads[i].is_sparse();
    const auto dense = rows.grads[i].is_sparse() ? rows.grads[i].to_dense() : rows.grads[i];
    EXPECT_TRUE(torch::allclose(dense, halves.grads[i], 1e-6, 1e-7)) << "parameter " << i;
  }
  EXPECT_EQ(sparse, 1);
}

TEST(DecoderPass, AProfileRecordsEveryPartsThreadAndFoveasOwnKernels) {
  torch::manual_seed(6);
  Decoder dec(pass_config(AttentionKind::Soft, 0.0));
  PassBatch b;
  DecoderPassOptions o;
  o.parts = 2;
  std::stringstream trace;
  {
    torch::autograd::profiler::RecordProfile profile(trace);
    run(dec, b.in, o);
  }
  std::set<std::int64_t> threads;
  std::set<std::string> names;
  for (const auto& event : nlohmann::json::parse(trace.str())) {
    if (event.value("ph", "") != "X") continue;
    threads.insert(event.at("tid").get<std::int64_t>());
    names.insert(event.at("name").get<std::string>());
  }
  EXPECT_EQ(threads.size(), 2u);  // the calling thread's part and the worker's
  EXPECT_EQ(names.count("fovea::lstm_cell"), 1u);
  EXPECT_EQ(names.count("fovea::attention_context"), 1u);
}

TEST(DecoderPass, PartsTakeBf16AnnotationsAndHandBackTheirGradientInBf16) {
  if (!cpu_has_native_bf16()) GTEST_SKIP() << "no native bf16 products on this CPU (or oneDNN is capped below them)";
  // What `fovea train --precision bf16` hands the pass when it trains the encoder: its annotations
  // in bfloat16. The decoder runs in float with its products in bf16, in one part or several.
  torch::manual_seed(4);
  Decoder dec(pass_config(AttentionKind::Soft, 0.0));
  PassBatch b;
  const auto float_annotations = b.in.annotations.detach();
  b.in.annotations = float_annotations.to(torch::kBFloat16).requires_grad_(true);
  DecoderPassOptions o;
  o.bf16 = true;
  for (int parts : {1, 2}) {
    o.parts = parts;
    const auto r = run(dec, b.in, o);
    EXPECT_EQ(r.result.parts, parts);
    ASSERT_TRUE(r.result.annotations_grad.defined());
    EXPECT_EQ(r.result.annotations_grad.scalar_type(), torch::kBFloat16);
    EXPECT_TRUE(std::isfinite(r.result.terms.objective));
    EXPECT_GT(r.result.annotations_grad.to(torch::kFloat).abs().sum().item<double>(), 0);
  }
}

TEST(DecoderPass, Bf16RunsRoundAnnotationsWithoutAGradientOnce) {
  // Annotations that need no gradient (a corpus's cache, a frozen encoder) are rounded to bf16 once
  // by a bf16 run, and its products and the attention's context read them so: float annotations
  // give what the same annotations handed over in bf16 give, soft and hard, in one part or two.
  for (const auto kind : {AttentionKind::Soft, AttentionKind::Hard}) {
    torch::manual_seed(7);
    Decoder dec(pass_config(kind, 0.0));
    PassBatch b;
    b.in.annotations = b.in.annotations.detach();
    if (kind == AttentionKind::Hard) b.in.sample = torch::tensor({true, false, true, true, false, true});
    auto rounded = b.in;
    rounded.annotations = b.in.annotations.to(torch::kBFloat16);
    ASSERT_FALSE(torch::equal(rounded.annotations.to(torch::kFloat), b.in.annotations));  // rounding changes them
    DecoderPassOptions o;
    o.bf16 = true;
    o.hard = kind == AttentionKind::Hard;
    MovingBaseline baseline;
    for (int parts : {1, 2}) {
      o.parts = parts;
      torch::manual_seed(8);
      const auto from_float = run(dec, b.in, o, &baseline);
      torch::manual_seed(8);
      const auto from_bf16 = run(dec, rounded, o, &baseline);
      EXPECT_FALSE(from_float.result.annotations_grad.defined());
      EXPECT_NEAR(from_float.result.terms.objective, from_bf16.result.terms.objective,
                  1e-6 * std::abs(from_bf16.result.terms.objective));
      for (std::size_t i = 0; i < from_float.grads.size(); ++i) {
        EXPECT_TRUE(torch::allclose(from_float.grads[i], from_bf16.grads[i], 1e-5, 1e-7)) << "parameter " << i << ", parts " << parts;
      }
    }
  }
}

TEST(DecoderPass, PartsWithDropoutAndGlimpsesRepeatThemselvesFromTheSameSeed) {
  torch::manual_seed(5);
  Decoder dec(pass_config(AttentionKind::Hard, 0.5));
  dec->train();
  PassBatch b;
  b.in.sample = torch::tensor({true, false, true, true, false, true});
  DecoderPassOptions o;
  o.hard = true;
  o.parts = 2;
  std::vector<PassRun> runs;
  for (int i = 0; i < 3; ++i) {
    torch::manual_seed(i < 2 ? 9 : 10);
    MovingBaseline baseline;
    runs.push_back(run(dec, b.in, o, &baseline));
    EXPECT_TRUE(baseline.initialised);  // the first sampled batch starts the baseline
    EXPECT_EQ(runs.back().result.terms.sampled, 4);
  }
  for (std::size_t i = 0; i < runs[0].grads.size(); ++i) {
    EXPECT_TRUE(torch::equal(runs[0].grads[i], runs[1].grads[i])) << "parameter " << i;
  }
  EXPECT_EQ(runs[0].result.terms.objective, runs[1].result.terms.objective);
  // Another seed draws other masks and glimpses: the check above can tell runs apart.
  bool differs = false;
  for (std::size_t i = 0; i < runs[0].grads.size(); ++i) differs = differs || !torch::equal(runs[0].grads[i], runs[2].grads[i]);
  EXPECT_TRUE(differs);
}

TEST(DecoderPass, PartsFollowTheThreadsWithAtLeastSixteenCaptionsEach) {
  EXPECT_EQ(decoder_pass_parts(64, torch::kCUDA), 1);
  const int threads = at::get_num_threads();
  at::set_num_threads(2);
  EXPECT_EQ(decoder_pass_parts(64, torch::kCPU), 2);
  EXPECT_EQ(decoder_pass_parts(31, torch::kCPU), 1);
  at::set_num_threads(1);
  EXPECT_EQ(decoder_pass_parts(64, torch::kCPU), 1);
  at::set_num_threads(threads);
}

TEST(DecoderPass, DropoutKeepsOneMinusPAndScalesWhatItKeeps) {
  const auto x = torch::ones({400, 250});  // 100000 draws: the kept share is within 0.8% of 1 - p at 5 sigma
  for (const double p : {0.1, 0.5, 0.75}) {
    for (const bool own_generator : {false, true}) {
      torch::manual_seed(21);
      std::optional<ScopedThreadGenerator> part;
      if (own_generator) part.emplace(77);
      const auto y = fovea::dropout(x, p, /*training=*/true);
      const auto kept = y.ne(0);
      EXPECT_NEAR(kept.to(torch::kDouble).mean().item<double>(), 1.0 - p, 5 * std::sqrt(p * (1 - p) / 1e5)) << p;
      EXPECT_TRUE(torch::allclose(y.masked_select(kept), torch::full({1}, 1.0 / (1.0 - p)))) << p;
      // The same generator state draws the same mask; the next draw another one.
      torch::manual_seed(21);
      std::optional<ScopedThreadGenerator> again;
      if (own_generator) again.emplace(77);
      EXPECT_TRUE(torch::equal(fovea::dropout(x, p, true), y)) << p;
      EXPECT_FALSE(torch::equal(fovea::dropout(x, p, true), y)) << p;
    }
  }
  EXPECT_TRUE(torch::equal(fovea::dropout(x, 0.5, /*training=*/false), x));
}
