// The encoder's pretraining on single Fashion-MNIST items within a run: its schedule, that it
// learns, resumes midway and is scored on held-out items, and that --max-steps bounds it too.
#include <gtest/gtest.h>

#include <fstream>
#include <iomanip>
#include <sstream>
#include <nlohmann/json.hpp>

#include "core/model/encoder_file.h"
#include "core/train/encoder_pretraining.h"
#include "core/train/run_log.h"
#include "core/train/trainer.h"
#include "tests/test_support.h"

using namespace fovea;
namespace fs = std::filesystem;

namespace {

/// A tiny run that pretrains its encoder for 30 steps on 24 px canvases.
TrainConfig tiny_pretraining(const fs::path& out) {
  auto config = test::tiny_training(out);
  config.scenes.image_size = config.model.image_size = 48;
  config.pretrain_steps = 30;
  return config;
}

}  // namespace

TEST(EncoderPretraining, LearningRateWarmsUpThenFallsAlongACosineToATwentieth) {
  const double peak = 2e-3;
  EXPECT_DOUBLE_EQ(pretraining_lr(peak, 0, 6000), peak / 200);
  EXPECT_DOUBLE_EQ(pretraining_lr(peak, 199, 6000), peak);
  for (std::int64_t k = 1; k < 200; ++k) EXPECT_GT(pretraining_lr(peak, k, 6000), pretraining_lr(peak, k - 1, 6000));
  for (std::int64_t k = 200; k < 6000; ++k) EXPECT_LE(pretraining_lr(peak, k, 6000), pretraining_lr(peak, k - 1, 6000));
  EXPECT_NEAR(pretraining_lr(peak, 3100, 6001), peak * (0.05 + 0.95 / 2), 1e-12);  // half-way down the cosine
  EXPECT_NEAR(pretraining_lr(peak, 5999, 6000), peak / 20, 1e-12);
  // Short runs warm up over a tenth of their steps (at least one).
  EXPECT_DOUBLE_EQ(pretraining_lr(peak, 0, 10), peak);
  EXPECT_NEAR(pretraining_lr(peak, 9, 10), peak / 20, 1e-12);
  EXPECT_DOUBLE_EQ(pretraining_lr(peak, 4, 50), peak);
}

TEST(Training, PretrainsTheEncoderOnSingleItemsAndResumesMidway) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("pretrain");
  auto config = test::tiny_training(dir / "run");
  config.scenes.image_size = config.model.image_size = 48;  // items 13-19 px on 24 px canvases
  config.pretrain_steps = 200;
  config.max_steps = 0;
  config.epochs = 2;  // four captioning steps after the pretraining
  std::atomic<bool> stop{false};
  TrainCallbacks cb;
  cb.stop = &stop;
  std::int64_t stopped_at = 0;
  cb.on_progress = [&](const TrainProgress& p) {
    EXPECT_EQ(p.step, 0);
    if (p.pretrain_step == 35) stopped_at = p.pretrain_step, stop = true;
  };
  auto interrupted = train(config, cb);
  EXPECT_TRUE(interrupted.interrupted);
  EXPECT_EQ(stopped_at, 35);
  // Resumed, it ends the pretraining and is stopped again after two captioning steps: the
  // held-out score it took at the pretraining's end must come back with the next resume.
  stop = false;
  TrainCallbacks captioning_cb;
  captioning_cb.stop = &stop;
  captioning_cb.on_progress = [&](const TrainProgress& p) {
    if (p.step == 2) stop = true;
  };
  auto stopped_captioning = resume_training(config.out_dir, captioning_cb, make_train_data(config));
  EXPECT_TRUE(stopped_captioning.interrupted);
  EXPECT_EQ(stopped_captioning.steps, 2);
  auto resumed = resume_training(config.out_dir, {}, make_train_data(config));
  EXPECT_FALSE(resumed.interrupted);
  EXPECT_EQ(resumed.steps, 4);

  std::vector<double> accuracy;
  std::int64_t last = 0;
  int held_out_scores = 0;
  for (const auto& line : test::read_metrics(config.out_dir)) {
    if (line["kind"] != "pretrain") continue;
    EXPECT_GT(line["pretrain_step"].get<std::int64_t>(), last) << "a pretraining step logged twice";
    last = line["pretrain_step"];
    accuracy.push_back(line["item_accuracy"]);
    held_out_scores += line.contains("held_out_accuracy");
  }
  // Scored once, at the end, on items of Fashion-MNIST's test half it never trained on.
  EXPECT_EQ(held_out_scores, 1);
  EXPECT_EQ(last, 200);
  ASSERT_GE(accuracy.size(), 4u);
  EXPECT_GT(accuracy.back(), 0.4) << "chance is 0.1";
  EXPECT_GT(accuracy.back(), accuracy.front() + 0.2);
  // The run log reads them back (the GUI's pretraining chart), the schedule's last rate included.
  const auto log = read_run_log(config.out_dir, /*with_samples=*/false);
  ASSERT_EQ(log.pretrain.size(), accuracy.size());
  EXPECT_EQ(log.pretrain.back().pretrain_step, 200);
  EXPECT_EQ(log.pretrain.back().pretrain_steps, 200);
  EXPECT_DOUBLE_EQ(log.pretrain.back().item_accuracy, accuracy.back());
  EXPECT_NEAR(log.pretrain.back().lr, kPretrainLr / 20, 1e-12);
  EXPECT_GT(log.pretrain.back().held_out_accuracy, 0.3) << "chance is 0.1";
  EXPECT_LT(log.pretrain.front().held_out_accuracy, 0) << "only the last record is scored";
  EXPECT_DOUBLE_EQ(resumed.pretrain_held_out_accuracy, log.pretrain.back().held_out_accuracy);
  std::ifstream card(dir / "run/MODEL_CARD.md");
  const std::string card_text((std::istreambuf_iterator<char>(card)), std::istreambuf_iterator<char>());
  std::ostringstream held_out;
  held_out << "held-out single items named right " << std::fixed << std::setprecision(1)
           << 100 * log.pretrain.back().held_out_accuracy << "%";
  EXPECT_NE(card_text.find(held_out.str()), std::string::npos) << card_text;

  auto warm = config;
  warm.out_dir = dir / "warm";
  warm.init_from = best_checkpoint_path(config.out_dir);
  train(warm);
  for (const auto& line : test::read_metrics(warm.out_dir)) EXPECT_NE(line["kind"], "pretrain");
}


TEST(Training, MaxStepsBoundsTheWholeRunPretrainingIncluded) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("max-steps");
  auto config = tiny_pretraining(dir / "run");
  config.pretrain_steps = 100;
  config.max_steps = 20;  // half of it at most for the pretraining, the rest captioning
  const auto r = train(config);
  EXPECT_EQ(r.pretrain_steps, 10);
  EXPECT_EQ(r.steps, 10);
  const auto log = read_run_log(config.out_dir, /*with_samples=*/false);
  ASSERT_FALSE(log.pretrain.empty());
  EXPECT_EQ(log.pretrain.back().pretrain_steps, 10);
  // Resumed with a larger bound, the pretraining is over: the rest of the bound goes to captioning.
  const auto more = resume_training(config.out_dir, {}, make_train_data(config), 0, 30);
  EXPECT_EQ(more.pretrain_steps, 10);
  EXPECT_EQ(more.steps, 20);
}

TEST(EncoderFile, APretrainingIsResumedWrittenAndStartsARunWithItsWeights) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("encoder-file");
  auto config = tiny_pretraining(dir / "pretraining");
  config.pretrain_steps = 300;
  const std::string file = dir / "encoder.pt";
  std::atomic<bool> stop{false};
  TrainCallbacks cb;
  cb.stop = &stop;
  cb.on_progress = [&](const TrainProgress& p) {
    if (p.pretrain_step == 50) stop = true;
  };
  EXPECT_TRUE(pretrain_encoder_to_file(config, file, cb).interrupted);
  EXPECT_FALSE(fs::exists(file)) << "written before the pretraining ended";
  const auto done = pretrain_encoder_to_file(config, file);  // the same call goes on from step 50
  EXPECT_FALSE(done.interrupted);
  EXPECT_EQ(done.pretrain_steps, 300);
  std::int64_t last = 0;
  for (const auto& line : test::read_metrics(config.out_dir)) {
    if (line["kind"] != "pretrain") continue;
    EXPECT_GT(line["pretrain_step"].get<std::int64_t>(), last) << "a pretraining step logged twice";
    last = line["pretrain_step"];
  }
  EXPECT_EQ(last, 300);

  ASSERT_TRUE(is_encoder_file(file));
  const auto info = read_encoder_file_info(file);
  EXPECT_EQ(info.widths, config.model.encoder_widths);
  EXPECT_EQ(info.pretraining.at("steps"), 300);
  EXPECT_DOUBLE_EQ(info.pretraining.at("held_out_accuracy").get<double>(), done.pretrain_held_out_accuracy);
  EXPECT_NE(describe_backbone(file).find("pretrained 300 steps"), std::string::npos) << describe_backbone(file);
  EXPECT_NE(test::error_message([&] { load_checkpoint(file); }).find("is an encoder file"), std::string::npos);

  // A run from the file: at its first checkpoint (stopped before its first step) the CNN and the
  // auxiliary heads are the file's, and they name the validation scenes' objects well above chance
  // (0.1) and above an untrained CNN.
  auto run = test::tiny_training(dir / "run");
  run.scenes.image_size = run.model.image_size = 48;
  run.backbone = file;
  run.trainable_blocks = 2;  // of the tiny CNN's three: the first keeps the file's weights
  run.val_scenes = 64;
  std::atomic<bool> at_once{true};
  TrainCallbacks stop_at_once;
  stop_at_once.stop = &at_once;
  EXPECT_TRUE(train(run, stop_at_once).interrupted);
  auto started = load_checkpoint(last_checkpoint_path(run.out_dir));
  auto pretrained = CaptionModel::create(started.model.config, started.model.vocab, torch::kCPU);
  load_encoder_file(file, pretrained);
  auto untrained = CaptionModel::create(started.model.config, started.model.vocab, torch::kCPU);
  const auto params = started.model.net->named_parameters();
  const auto expected = pretrained.net->named_parameters();
  std::size_t compared = 0;
  for (const auto& p : params) {
    const bool encoder = p.key().rfind("encoder.", 0) == 0 || p.key().rfind("aux_", 0) == 0;
    if (!encoder) continue;
    EXPECT_TRUE(torch::equal(p.value(), expected[p.key()])) << p.key();
    ++compared;
  }
  EXPECT_GE(compared, 2 * run.model.encoder_widths.size());
  const auto data = make_train_data(run);
  const auto from_file = name_objects_with_class_head(started.model.net, started.model.vocab, *data.val, 64, 48, torch::kCPU);
  const auto from_scratch = name_objects_with_class_head(untrained.net, untrained.vocab, *data.val, 64, 48, torch::kCPU);
  EXPECT_GT(from_file.accuracy, 0.25) << "chance is 0.1";
  EXPECT_GT(from_file.accuracy, from_scratch.accuracy + 0.1);

  // Captioning on from there: the blocks below the top trainable_blocks keep the file's weights,
  // the top ones train.
  EXPECT_FALSE(resume_training(run.out_dir, {}, make_train_data(run), 0, 8).interrupted);
  auto trained = load_checkpoint(last_checkpoint_path(run.out_dir));
  EXPECT_EQ(trained.training.at("step"), 8);
  const auto frozen_modules = 3 * (std::int64_t(run.model.encoder_widths.size()) - run.trainable_blocks);
  std::size_t kept = 0, moved = 0;
  for (const auto& p : trained.model.net->named_parameters()) {
    const std::string prefix = "encoder.cnn.";
    if (p.key().rfind(prefix, 0) != 0) continue;
    if (std::stoi(p.key().substr(prefix.size())) < frozen_modules) {
      EXPECT_TRUE(torch::equal(p.value(), expected[p.key()])) << p.key() << " moved in a frozen block";
      ++kept;
    } else {
      EXPECT_FALSE(torch::equal(p.value(), expected[p.key()])) << p.key() << " did not train";
      ++moved;
    }
  }
  EXPECT_EQ(kept, 3u);
  EXPECT_EQ(moved, 6u);

  // A CNN of other blocks cannot start from it: the error names the file and the way out.
  auto other = run;
  other.out_dir = dir / "other";
  other.model.encoder_widths = {8, 16, 16};
  const auto error = test::error_message([&] { train(other); });
  EXPECT_NE(error.find(file), std::string::npos) << error;
  EXPECT_NE(error.find("leave --encoder-widths out"), std::string::npos) << error;
}
