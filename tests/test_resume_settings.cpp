// Settings given to a resumed run: those a resume may change are applied and said, the others
// refused by name when they differ from the run's own (never dropped without a word), and a
// last.ckpt of another model than the folder's config.json is not adopted.
#include <gtest/gtest.h>

#include <fstream>

#include "core/model/checkpoint.h"
#include "core/train/resume_settings.h"
#include "core/train/trainer.h"
#include "tests/test_support.h"

using namespace fovea;

TEST(ResumeSettings, ChangesWhatMayChangeAndSaysWhat) {
  TrainConfig run = recommended_train_config();
  run.epochs = 20;
  run.patience = 10;
  std::vector<std::string> applied;
  const auto changed = apply_resume_settings(run, {{"epochs", std::int64_t(30)}, {"on_nonfinite", std::string("skip")},
                                                   {"patience", std::int64_t(10)}},  // the run's own: no change
                                             "runs/a", &applied);
  EXPECT_EQ(changed.epochs, 30);
  EXPECT_EQ(changed.on_nonfinite, "skip");
  EXPECT_EQ(applied, (std::vector<std::string>{"--epochs 30 (was 20)", "--on-nonfinite skip (was stop)"}));
}

TEST(ResumeSettings, RefusesEachSettingThatDefinesTheRunByName) {
  TrainConfig run = recommended_train_config();
  run.lr = 0.001;
  run.batch_size = 64;
  run.out_dir = "runs/a";
  const auto message = test::error_message([&] {
    apply_resume_settings(run, {{"lr", 0.5}, {"batch", std::int64_t(8)}, {"attention", std::string("hard")}, {"epochs", std::int64_t(99)},
                                {"out", std::string("elsewhere")}},
                          "runs/a");
  });
  EXPECT_NE(message.find("runs/a: a resumed run keeps its own settings; cannot change "), std::string::npos) << message;
  for (const char* named : {"--lr 0.5 (the run's: 0.001)", "--batch 8 (the run's: 64)", "--attention hard (the run's: soft)",
                            "--out elsewhere (a resumed run stays in its folder)", "A resume may change --epochs, --max-steps"}) {
    EXPECT_NE(message.find(named), std::string::npos) << named << " in: " << message;
  }
  EXPECT_EQ(message.find("--epochs 99"), std::string::npos) << "epochs may change: " << message;
  // The run's own values, or --out naming its own folder, are no change.
  EXPECT_NO_THROW(apply_resume_settings(run, {{"lr", 0.001}, {"batch", std::int64_t(64)}, {"out", std::string("runs/./a")}}, "runs/a"));
}

TEST(ResumeSettings, AResumedRunRecordsItsChangesAndRefusesACheckpointOfAnotherModel) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("resume-settings");
  auto config = test::tiny_training(dir / "run");
  config.max_steps = 2;
  config.patience = 7;
  train(config);
  std::vector<std::string> said;
  TrainCallbacks callbacks;
  callbacks.on_message = [&](const std::string& m) { said.push_back(m); };
  EXPECT_THROW(resume_training(config.out_dir, callbacks, {}, {{"hidden_dim", std::int64_t(64)}}), std::invalid_argument);
  const auto r = resume_training(config.out_dir, callbacks, {}, {{"max_steps", std::int64_t(4)}, {"patience", std::int64_t(3)}});
  EXPECT_EQ(r.steps, 4);
  EXPECT_NE(std::find(said.begin(), said.end(), "resuming with --max-steps 4 (was 2), --patience 3 (was 7) (recorded in config.json)"),
            said.end());
  const auto recorded = nlohmann::json::parse(std::ifstream(config.out_dir + "/config.json"));
  EXPECT_EQ(recorded["patience"], 3);
  EXPECT_EQ(recorded["max_steps"], 4);

  // A step limit below the step reached is refused, naming that step; config.json keeps its own.
  const auto passed = test::error_message([&] { resume_training(config.out_dir, callbacks, {}, {{"max_steps", std::int64_t(3)}}); });
  EXPECT_NE(passed.find(config.out_dir + ": the run has reached step 4, past --max-steps 3"), std::string::npos) << passed;
  EXPECT_THROW(resume_training(config.out_dir, callbacks, {}, {{"max_steps", std::int64_t(1)}}), ResumeRefused);
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(config.out_dir + "/config.json"))["max_steps"], 4);

  // Another model's last.ckpt copied into the folder: refused, naming what differs.
  auto other = test::tiny_training(dir / "other");
  other.model.hidden_dim = 32;
  other.max_steps = 2;
  train(other);
  std::filesystem::copy_file(last_checkpoint_path(other.out_dir), last_checkpoint_path(config.out_dir),
                             std::filesystem::copy_options::overwrite_existing);
  const auto message = test::error_message([&] { resume_training(config.out_dir); });
  EXPECT_NE(message.find(last_checkpoint_path(config.out_dir) + ": holds another model than the run's config.json (hidden_dim 32 in it, 48 in config.json)"),
            std::string::npos)
      << message;
}
