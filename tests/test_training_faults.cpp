// Faults a run meets and survives or reports: a hard-attention run whose numbers diverge is
// caught like a soft one (stop, skip, rollback; no stack trace), a metrics file that cannot be
// written for a while loses only those lines and says so, and settings that are not finite are
// refused. Tiny fp32 runs whose learning rates are absurd on purpose.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/train/nonfinite.h"
#include "core/train/run_log.h"
#include "core/train/train_settings.h"
#include "core/train/trainer.h"
#include "tests/test_support.h"
#include "tests/training_support.h"

using namespace fovea;
namespace fs = std::filesystem;

TEST(TrainingFaults, AHardRunThatDivergesStopsWithTheSoftRunsMessage) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("hard-diverges");
  auto config = test::tiny_training(dir / "run", AttentionKind::Hard);
  config.lr = 1e20;
  config.max_steps = 40;
  std::string message;
  try {
    train(config);
    FAIL() << "the hard run finished with a learning rate of 1e20";
  } catch (const TrainingDiverged& e) {
    message = e.what();
  }
  EXPECT_EQ(message.find("frame #"), std::string::npos) << message;
  EXPECT_EQ(message.find("multinomial"), std::string::npos) << message;
  EXPECT_NE(message.find("; the run stopped"), std::string::npos) << message;
  EXPECT_NE(message.find("--lr"), std::string::npos) << message;
  const auto events = test::events_of(config.out_dir);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["action"], "stop");
  EXPECT_LE(events[0]["failed_step"].get<std::int64_t>(), 3);
  EXPECT_TRUE(test::weights_finite(last_checkpoint_path(config.out_dir)));
}

TEST(TrainingFaults, AHardRunSkipsOrRollsBackAsTheSoftOneDoes) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("hard-policies");
  {
    SCOPED_TRACE("skip");
    test::expect_skips_then_stop(test::overflowing_run(dir / "skip", AttentionKind::Hard, "skip"));
  }
  const auto rollback = test::overflowing_run(dir / "rollback", AttentionKind::Hard, "rollback");
  const auto result = train(rollback);
  EXPECT_EQ(result.steps, 40);
  const auto events = test::events_of(rollback.out_dir);
  ASSERT_GE(events.size(), 1u);
  EXPECT_EQ(events.front()["action"], "rollback");
  EXPECT_TRUE(test::weights_finite(last_checkpoint_path(rollback.out_dir)));
}

TEST(TrainingFaults, AMetricsFileThatCannotBeWrittenLosesOnlyThoseLinesAndIsReopened) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("metrics-unwritable");
  auto config = test::tiny_training(dir / "run");
  config.max_steps = 40;
  // Until step 10 metrics.jsonl is /dev/full: every write fails with "No space left on device".
  fs::create_directories(config.out_dir);
  const auto metrics = metrics_path(config.out_dir);
  fs::create_symlink("/dev/full", metrics);
  std::vector<std::string> said;
  TrainCallbacks cb;
  cb.on_message = [&](const std::string& m) { said.push_back(m); };
  cb.on_record = [&](const TrainRecord& r) {
    if (r.step == 10) {
      fs::remove(metrics);
      std::ofstream(metrics).flush();
    }
  };
  const auto result = train(config, cb);
  EXPECT_EQ(result.steps, 40);
  const auto count = [&](const std::string& text) {
    return std::count_if(said.begin(), said.end(), [&](const std::string& m) { return m.find(text) != std::string::npos; });
  };
  EXPECT_EQ(count("warning: cannot write " + metrics + " (No space left on device)"), 1);
  EXPECT_EQ(count("metrics.jsonl is written again"), 1);
  const auto log = read_run_log(config.out_dir);
  ASSERT_FALSE(log.train.empty());
  EXPECT_GT(log.train.front().step, 10);  // the lines of steps 1 and 10 were lost, and said to be
  EXPECT_EQ(log.train.back().step, 40);
  EXPECT_FALSE(log.val.empty());
}

TEST(TrainingFaults, SettingsThatAreNotFiniteAreRefusedByName) {
  for (const char* key : {"lr", "lambda", "aux_weight"}) {
    for (const char* text : {"inf", "nan", "-inf"}) {
      const auto message = test::error_message([&] { parse_setting(train_setting(key), text); });
      EXPECT_NE(message.find(key), std::string::npos) << key << " " << text << ": " << message;
      EXPECT_NE(message.find("finite"), std::string::npos) << key << " " << text << ": " << message;
    }
  }
}
