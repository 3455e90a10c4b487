// Self-critical training: CIDEr-D with fixed document frequencies, captions sampled from the
// model, the advantages over either baseline, and tiny models whose sampled captions earn more as
// they train (fp32, the same numerics on every CPU).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "core/data/tokenizer.h"
#include "core/decode/caption_sampling.h"
#include "core/eval/caption_metrics.h"
#include "core/model/checkpoint.h"
#include "core/runtime/runtime.h"
#include "core/train/run_log.h"
#include "core/train/self_critical.h"
#include "core/train/trainer.h"
#include "tests/test_support.h"
#include "tests/training_support.h"

using namespace fovea;

namespace {

std::vector<Tokens> tokens_of(const std::vector<std::string>& captions) {
  std::vector<Tokens> out;
  for (const auto& c : captions) out.push_back(tokenize(c));
  return out;
}

/// The sampled-reward means of a run's first and last `n` training records.
std::pair<double, double> first_and_last_rewards(const std::string& run, std::size_t n) {
  std::vector<double> rewards;
  for (const auto& j : test::read_metrics(run)) {
    if (j.value("kind", "") == "train") rewards.push_back(j.at("sample_reward").get<double>());
  }
  EXPECT_GE(rewards.size(), 2 * n);
  double first = 0, last = 0;
  for (std::size_t i = 0; i < n && i < rewards.size(); ++i) first += rewards[i] / double(n), last += rewards[rewards.size() - 1 - i] / double(n);
  return {first, last};
}

}  // namespace

/// A tiny soft model trained with cross-entropy: it captions its scenes, most of them well.
class SelfCritical : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<test::TempDir>("self-critical");
    config_ = test::tiny_training(*dir_ / "xe");
    config_.max_steps = 150;
    train(config_);
  }
  static void TearDownTestSuite() { dir_.reset(); }
  static std::string checkpoint() { return last_checkpoint_path(config_.out_dir); }

  static std::unique_ptr<test::TempDir> dir_;
  static TrainConfig config_;
};
std::unique_ptr<test::TempDir> SelfCritical::dir_;
TrainConfig SelfCritical::config_;

TEST(CiderD, ScoresAsTheToolkitWhenItsCorpusIsTheEvaluatedReferences) {
  const std::vector<std::vector<Tokens>> refs = {tokens_of({"a red bag on the left", "a red bag"}),
                                                 tokens_of({"a blue shoe", "a blue shoe on the right"}),
                                                 tokens_of({"a green shirt", "a shirt that is green"})};
  const std::vector<Tokens> candidates = tokens_of({"a red bag", "a blue bag", "a green shirt on the left"});
  const auto toolkit = cider_d(candidates, refs);
  const CiderD scorer(refs);
  for (std::size_t i = 0; i < candidates.size(); ++i) EXPECT_DOUBLE_EQ(scorer.score({candidates[i]}, refs[i])[0], toolkit[i]);
  // Scored with the batch's own references, an image's score depends on which images share its
  // batch; with the corpus's document frequencies it does not.
  const std::vector<Tokens> two(candidates.begin(), candidates.begin() + 2);
  const std::vector<std::vector<Tokens>> two_refs(refs.begin(), refs.begin() + 2);
  EXPECT_NE(cider_d(two, two_refs)[0], toolkit[0]);
  EXPECT_DOUBLE_EQ(scorer.score({candidates[0]}, refs[0])[0], scorer.score(candidates, refs[0])[0]);
}

TEST_F(SelfCritical, SamplesAreDrawnFromTheModelReproduciblyAndWellFormed) {
  auto model = load_checkpoint(checkpoint()).model;
  auto data = make_train_data(config_);
  const auto scene = data.train->get(0);
  torch::NoGradGuard no_grad;
  const auto annotations = model.net->encode(images_to_tensor({&scene.image}, model.config.image_size));
  const auto a = sample_captions(*model.net, annotations, 16, 3), b = sample_captions(*model.net, annotations, 16, 3);
  const auto c = sample_captions(*model.net, annotations, 16, 4);
  ASSERT_EQ(a.size(), 16u);
  bool differs = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].tokens, b[i].tokens) << "the same seed draws the same captions";
    differs |= a[i].tokens != c[i].tokens;
    EXPECT_LE(std::int64_t(a[i].tokens.size()), model.config.max_caption_len);
    EXPECT_TRUE(a[i].finished || std::int64_t(a[i].tokens.size()) == model.config.max_caption_len);
    for (auto t : a[i].tokens) EXPECT_TRUE(t >= 4 && t < model.vocab.size()) << "a special token was sampled: " << t;
  }
  EXPECT_TRUE(differs) << "another seed, other captions: these are samples, not the greedy caption";
}

TEST_F(SelfCritical, EachBaselineGivesTheAdvantagesItPromises) {
  auto model = load_checkpoint(checkpoint()).model;
  auto data = make_train_data(config_);
  std::vector<Scene> scenes;
  std::vector<const RgbImage*> images;
  for (std::size_t i = 0; i < 8; ++i) scenes.push_back(data.train->get(i));
  for (const auto& s : scenes) images.push_back(&s.image);
  const SelfCriticalReward reward(*data.train);
  torch::NoGradGuard no_grad;
  const auto annotations = model.net->encode(images_to_tensor(images, model.config.image_size));
  constexpr int K = kSelfCriticalSamples;

  // The other samples' mean: each image's advantages sum to zero.
  const auto others = self_critical_rows(*model.net, model.vocab, annotations, scenes, reward, "samples", 5);
  ASSERT_EQ(others.advantages.size(0), 8 * K);
  EXPECT_NEAR(others.figures.mean_advantage(), 0.0, 1e-6);
  for (int i = 0; i < 8; ++i) EXPECT_NEAR(others.advantages.narrow(0, i * K, K).sum().item<double>(), 0.0, 1e-4) << i;
  EXPECT_GT(others.figures.advantage_sq, 0.0) << "the samples differ, so their rewards do";
  const double rms = std::sqrt((others.advantages * others.advantages).mean().item<double>());
  EXPECT_NEAR(others.figures.rms_advantage(), rms, 1e-6);

  // The greedy caption's reward: the baseline is what greedy decoding scores.
  const auto greedy = self_critical_rows(*model.net, model.vocab, annotations, scenes, reward, "greedy", 5);
  DecodeOptions decode;
  decode.beam = 1;
  const auto captions = greedy_decode(*model.net, annotations, decode);
  double greedy_reward = 0;
  for (int i = 0; i < 8; ++i) {
    Tokens words;
    for (auto t : captions[std::size_t(i)].tokens()) words.push_back(model.vocab.word(t));
    std::vector<Tokens> refs;
    for (const auto& c : scenes[std::size_t(i)].captions) refs.push_back(tokenize(c));
    greedy_reward += reward.score({words}, refs)[0] / 8;
  }
  EXPECT_NEAR(greedy.figures.mean_baseline(), greedy_reward, 1e-9);
  EXPECT_EQ(greedy.figures.mean_reward(), others.figures.mean_reward()) << "the same seed, the same samples";
  // <end> is part of a finished sample: its length counts it.
  for (std::int64_t r = 0; r < greedy.lengths.size(0); ++r) {
    const auto length = greedy.lengths[r].item<std::int64_t>();
    const bool ended = greedy.tokens[r][length].item<std::int64_t>() == Vocabulary::kEnd;
    EXPECT_TRUE(ended || length == model.config.max_caption_len) << "row " << r;
  }
}

// From the cross-entropy model, self-critical steps raise the sampled captions' CIDEr-D, and at
// the start the samples score about what the greedy caption does.
TEST_F(SelfCritical, ATinySoftModelEarnsMoreRewardAsItTrains) {
  auto sc = config_;
  sc.out_dir = *dir_ / "sc-soft";
  sc.init_from = checkpoint();
  sc.self_critical = "greedy";
  sc.lr = 2e-3;
  sc.max_steps = 120;
  sc.trainable_blocks = 0;  // the encoder as it is, its blocks running without autograd
  train(sc);
  const auto records = test::read_metrics(sc.out_dir);
  const auto& first = records.front();
  const auto& validation = records.back();
  ASSERT_EQ(validation.value("kind", ""), "val");
  EXPECT_EQ(validation.value("metric", ""), "CIDEr-D") << "a self-critical run keeps the model its metric ranks best";
  EXPECT_TRUE(validation.contains("pointing") && validation.contains("faithful_rate")) << validation.dump();
  ASSERT_EQ(first.value("kind", ""), "train");
  std::printf("first step: sampled reward %.3f, greedy baseline %.3f, advantage %.3f, %.1f words, %.0f%% ended\n",
              first.at("sample_reward").get<double>(), first.at("baseline_reward").get<double>(),
              first.at("advantage").get<double>(), first.at("sample_length").get<double>(),
              100 * first.at("end_rate").get<double>());
  // Sampled near its greedy caption, a sharp model's samples score about what that caption does.
  EXPECT_LT(std::abs(first.at("advantage").get<double>()), 0.25 * first.at("baseline_reward").get<double>());
  const auto [before, after] = first_and_last_rewards(sc.out_dir, 3);
  std::printf("sampled reward: first records %.3f, last records %.3f\n", before, after);
  EXPECT_GT(after, before + 0.2);
}

// In bf16 the encoder's annotations come out of CPU autocast in bf16; the samples are drawn and
// scored from them in float, and the steps train (bf16 products: skipped on CPUs without them).
TEST_F(SelfCritical, TrainsInBf16) {
  if (!cpu_has_native_bf16()) GTEST_SKIP() << "no native bf16 products on this CPU (or oneDNN is capped below them)";
  auto sc = config_;
  sc.out_dir = *dir_ / "sc-bf16";
  sc.init_from = checkpoint();
  sc.self_critical = "samples";
  sc.precision = "bf16";
  sc.lr = 2e-3;
  sc.max_steps = 60;
  train(sc);
  const auto records = test::read_metrics(sc.out_dir);
  ASSERT_TRUE(records.front().contains("sample_reward"));
  const auto [before, after] = first_and_last_rewards(sc.out_dir, 3);
  std::printf("bf16, samples baseline: sampled reward %.3f -> %.3f\n", before, after);
  EXPECT_GT(after, before + 0.2);
}

TEST_F(SelfCritical, ATinyHardModelEarnsMoreRewardWithItsGlimpsesTraining) {
  auto hard = config_;
  hard.out_dir = *dir_ / "xe-hard";
  hard.model.attention = AttentionKind::Hard;
  hard.init_from = checkpoint();  // a hard model warm-started from the soft one, as the shipped one
  hard.max_steps = 20;
  train(hard);
  auto sc = hard;
  sc.out_dir = *dir_ / "sc-hard";
  sc.init_from = last_checkpoint_path(hard.out_dir);
  sc.self_critical = "samples";
  sc.lr = 2e-3;
  sc.max_steps = 120;
  train(sc);
  const auto records = test::read_metrics(sc.out_dir);
  ASSERT_TRUE(records.front().contains("reward")) << "the glimpses' REINFORCE term is logged beside the caption reward";
  const auto [before, after] = first_and_last_rewards(sc.out_dir, 3);
  std::printf("hard, samples baseline: sampled reward %.3f -> %.3f\n", before, after);
  EXPECT_GT(after, before + 0.2);
}
