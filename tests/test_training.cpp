// End-to-end training on a tiny scene set: soft and hard models learn their captions; a run
// interrupted after its last checkpoint resumes to the very same weights and metrics.
#include <gtest/gtest.h>

#include <fstream>
#include <iomanip>
#include <numeric>
#include <random>
#include <sstream>
#include <thread>
#include <nlohmann/json.hpp>

#include "core/data/batching.h"
#include "core/data/image_tensor.h"
#include "core/data/tokenizer.h"
#include "core/decode/captioner.h"
#include "core/decode/decoding.h"
#include "core/eval/removal.h"
#include "core/eval/scene_evaluation.h"
#include "core/model/checkpoint.h"
#include "core/runtime/runtime.h"
#include "core/train/batch_norm_calibration.h"
#include "core/train/encoder_pretraining.h"
#include "core/train/objectives.h"
#include "core/train/run_log.h"
#include "core/train/trainer.h"
#include "tests/test_support.h"
#include "tests/training_support.h"

using namespace fovea;
namespace fs = std::filesystem;


TEST(Training, TinySoftModelLearnsItsScenes) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("soft");
  auto config = test::tiny_training(dir / "run");
  auto r = train(config);
  test::expect_learned(config, r);
  EXPECT_TRUE(fs::exists(dir / "run/MODEL_CARD.md"));
  auto m = test::read_metrics(config.out_dir);
  for (const char* key : {"step", "epoch", "loss", "nll", "penalty", "lr", "grad_norm", "tokens_per_s"}) {
    EXPECT_TRUE(m.front().contains(key)) << key;
  }
  EXPECT_GT(r.best_bleu4, 0.3);

  // The model file knows its training images: scenes like them are familiar, noise is not.
  Captioner captioner(r.best_checkpoint, "cpu");
  ASSERT_TRUE(captioner.checks_familiarity());
  auto data = make_train_data(config);
  int familiar = 0;
  for (std::size_t i = 0; i < data.train->size(); ++i) {
    const auto c = captioner.caption(data.train->get(i).image);
    ASSERT_TRUE(c.familiarity.has_value());
    familiar += c.familiarity->familiar();
  }
  EXPECT_GE(familiar, int(data.train->size()) - 1) << "of " << data.train->size() << " training scenes";
  RgbImage noise(32, 32);
  std::mt19937 rng(7);
  for (auto& v : noise.pixels) v = std::uint8_t(rng() & 0xff);
  const auto n = captioner.caption(noise);
  ASSERT_TRUE(n.familiarity.has_value());
  EXPECT_FALSE(n.familiarity->familiar()) << "noise at distance " << n.familiarity->distance << ", limit "
                                          << n.familiarity->threshold;
  EXPECT_EQ(to_json(n).value("familiar", true), false);
  EXPECT_FALSE(Captioner(r.last_checkpoint, "cpu").checks_familiarity()) << "only the model file is measured";
}

TEST(Training, TinyHardModelLearnsItsScenesWithReinforce) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("hard");
  auto config = test::tiny_training(dir / "run", AttentionKind::Hard);
  config.max_steps = 1000;
  config.attention_supervision = 0;  // REINFORCE alone must learn (the paper's objective)
  config.aux_weight = 0;
  auto r = train(config);
  test::expect_learned(config, r);
  auto m = test::read_metrics(config.out_dir);
  for (const char* key : {"baseline", "reward", "reward_var", "entropy"}) EXPECT_TRUE(m.front().contains(key)) << key;
  // The baseline tracks the reward (log p(y|s,a)), which rises as the model learns.
  const auto& late = m[m.size() - 2];
  EXPECT_GT(late["reward"].get<double>(), m.front()["reward"].get<double>());
  EXPECT_LT(std::abs(late["baseline"].get<double>() - late["reward"].get<double>()), 2.0);
}

TEST(Training, ResumeAfterACrashReproducesTheUninterruptedRun) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("resume");
  auto config = test::tiny_training(dir / "straight", AttentionKind::Hard);  // hard: RNG state matters
  config.max_steps = 40;
  config.train_scenes = 48;  // 3 batches per epoch: a checkpoint every 3 steps, the crash mid-epoch
  train(config);

  // The same run, "killed" at step 17: its last checkpoint is from step 15 and metrics.jsonl
  // holds lines past it that must be dropped.
  const auto crashed = dir / "crashed";
  EXPECT_EQ(test::crash_and_resume(config, crashed, 15, 17).steps, 40);

  auto a = load_checkpoint(last_checkpoint_path(config.out_dir));
  auto b = load_checkpoint(last_checkpoint_path(crashed));
  for (const auto& p : a.model.net->named_parameters()) {
    EXPECT_TRUE(torch::equal(p.value(), b.model.net->named_parameters()[p.key()])) << p.key();
  }
  auto ma = test::read_metrics(config.out_dir), mb = test::read_metrics(crashed);
  ASSERT_EQ(ma.size(), mb.size());
  for (std::size_t i = 0; i < ma.size(); ++i) {
    EXPECT_EQ(ma[i]["step"], mb[i]["step"]);
    if (ma[i]["kind"] == "train") {
      EXPECT_DOUBLE_EQ(ma[i]["loss"].get<double>(), mb[i]["loss"].get<double>()) << "line " << i;
      EXPECT_DOUBLE_EQ(ma[i]["baseline"].get<double>(), mb[i]["baseline"].get<double>()) << "line " << i;
    }
  }
}

TEST(Training, FreshScenesChangeTheScenesOfLaterEpochsOnly) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("fresh");
  auto fixed = test::tiny_training(dir / "fixed");
  fixed.max_steps = 30;  // fifteen epochs of two steps, logged at steps 1, 10, 20 and 30
  auto fresh = fixed;
  fresh.out_dir = dir / "fresh";
  fresh.scenes.fresh_every_epoch = true;
  train(fixed);
  train(fresh);
  auto losses = [](const std::string& run) {
    std::vector<double> out;
    for (const auto& m : test::read_metrics(run)) {
      if (m["kind"] == "train") out.push_back(m["loss"].get<double>());
    }
    return out;
  };
  const auto a = losses(fixed.out_dir), b = losses(fresh.out_dir);
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(b.size(), 4u);
  // Epoch 0 shows both runs the same scenes in the same order; later epochs show the fresh run new ones.
  EXPECT_DOUBLE_EQ(a[0], b[0]);
  for (std::size_t i = 1; i < 4; ++i) EXPECT_NE(a[i], b[i]) << "record " << i;
}

TEST(Training, RefusesToOverwriteARunAndExplainsBadSettings) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("refuse");
  auto config = test::trained_tiny_run(dir);
  const auto again = test::error_message([&] { train(config); });  // the same folder again
  EXPECT_NE(again.find("--resume"), std::string::npos) << again;
  config.lr = -1;
  EXPECT_NE(test::error_message([&] { config.validate(); }).find("lr must be > 0"), std::string::npos);
  config.lr = -1;
  EXPECT_THROW(train(config), std::invalid_argument);
  EXPECT_THROW(resume_training(dir / "nothing-here"), std::runtime_error);
}

TEST(Training, AResumeOfARunKilledBeforeItsFirstCheckpointSaysSoAndClearsItsLeftovers) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("no-first-checkpoint");
  auto config = test::trained_tiny_run(dir);
  // As a kill inside the first checkpoint write leaves the folder: config.json and a temporary.
  std::filesystem::rename(last_checkpoint_path(config.out_dir), config.out_dir + "/last.ckpt.tmp-4242");
  const auto message = test::error_message([&] { resume_training(config.out_dir); });
  EXPECT_EQ(message, config.out_dir + ": the run there stopped before its first checkpoint (no last.ckpt, only the unfinished "
                                      "last.ckpt.tmp-4242, now removed): nothing to resume; start it again (fovea train --out " +
                         config.out_dir + " ...)");
  EXPECT_FALSE(std::filesystem::exists(config.out_dir + "/last.ckpt.tmp-4242"));
  // Started again in the same folder, the new run clears what the old one left unfinished.
  std::ofstream(config.out_dir + "/best.ckpt.tmp-77") << "half";
  std::vector<std::string> said;
  TrainCallbacks callbacks;
  callbacks.on_message = [&](const std::string& m) { said.push_back(m); };
  train(config, callbacks);
  EXPECT_FALSE(std::filesystem::exists(config.out_dir + "/best.ckpt.tmp-77"));
  EXPECT_NE(std::find_if(said.begin(), said.end(), [](const std::string& m) { return m.rfind("removed best.ckpt.tmp-77", 0) == 0; }),
            said.end());
}

TEST(Training, HardRunWarmStartsFromASoftCheckpoint) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("init-from");
  auto soft = test::tiny_training(dir / "soft");
  soft.max_steps = 5;
  train(soft);
  auto hard = test::tiny_training(dir / "hard", AttentionKind::Hard);
  hard.max_steps = 1;
  hard.lr = 1e-12;  // one step that cannot move the weights measurably
  hard.init_from = best_checkpoint_path(soft.out_dir);
  train(hard);
  auto a = load_checkpoint(best_checkpoint_path(soft.out_dir));
  auto b = load_checkpoint(last_checkpoint_path(hard.out_dir));
  EXPECT_EQ(b.model.config.attention, AttentionKind::Hard);
  for (const auto& p : a.model.net->named_parameters()) {
    EXPECT_TRUE(torch::allclose(p.value(), b.model.net->named_parameters()[p.key()], 1e-6, 1e-8)) << p.key();
  }
  auto wider = test::tiny_training(dir / "wider");
  wider.model.hidden_dim = 64;
  wider.init_from = best_checkpoint_path(soft.out_dir);
  const auto mismatch = test::error_message([&] { train(wider); });
  EXPECT_NE(mismatch.find("architecture differs"), std::string::npos) << mismatch;
}

