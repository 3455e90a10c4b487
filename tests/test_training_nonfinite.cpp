// Training that fails loudly: a non-finite loss or gradient stops the run (or is skipped, or
// rolled back) at the step it happens, no checkpoint ever holds non-finite weights, and a loss
// growing by orders of magnitude is reported. Tiny fp32 runs whose learning rates are absurd on
// purpose: their overflow is the same on every CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/model/checkpoint.h"
#include "core/train/nonfinite.h"
#include "core/train/run_log.h"
#include "core/train/trainer.h"
#include "tests/test_support.h"
#include "tests/training_support.h"

using namespace fovea;
namespace fs = std::filesystem;


TEST(TrainingNonFinite, AHugeLearningRateStopsAtTheFirstNonFiniteStepAndKeepsAFiniteCheckpoint) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("nonfinite-stop");
  auto config = test::tiny_training(dir / "run");
  config.lr = 1e20;
  config.max_steps = 40;
  std::vector<TrainEvent> heard;
  TrainCallbacks cb;
  cb.on_event = [&](const TrainEvent& e) { heard.push_back(e); };
  std::string message;
  try {
    train(config, cb);
    FAIL() << "the run finished with a learning rate of 1e20";
  } catch (const TrainingDiverged& e) {
    message = e.what();
  }
  // The first step moves every weight by ~1e20; the second overflows.
  const auto events = test::events_of(config.out_dir);
  ASSERT_EQ(events.size(), 1u);
  const auto step = events[0]["failed_step"].get<std::int64_t>();
  EXPECT_GE(step, 2);
  EXPECT_LE(step, 3);
  EXPECT_EQ(events[0]["action"], "stop");
  EXPECT_NE(message.find("step " + std::to_string(step) + ": the "), std::string::npos) << message;
  EXPECT_NE(message.find("--lr"), std::string::npos) << message;
  EXPECT_NE(message.find("--on-nonfinite rollback"), std::string::npos) << message;
  ASSERT_EQ(heard.size(), 1u);
  EXPECT_EQ(heard[0].action, "stop");
  // No record with a non-finite value, no best.ckpt; last.ckpt is from before the divergence.
  for (const auto& m : test::read_metrics(config.out_dir)) {
    if (m["kind"] == "train") EXPECT_TRUE(m["loss"].is_number()) << m.dump();
  }
  EXPECT_FALSE(fs::exists(best_checkpoint_path(config.out_dir)));
  ASSERT_TRUE(fs::exists(last_checkpoint_path(config.out_dir)));
  EXPECT_TRUE(test::weights_finite(last_checkpoint_path(config.out_dir)));
}

TEST(TrainingNonFinite, RollbackHalvesTheLearningRateUntilTheRunCompletes) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("nonfinite-rollback");
  const auto config = test::overflowing_run(dir / "run", AttentionKind::Soft, "rollback");
  const auto result = train(config, {}, make_train_data(config));
  EXPECT_EQ(result.steps, 40);
  const auto events = test::events_of(config.out_dir);
  ASSERT_GE(events.size(), 1u);
  double scale = 1;
  std::int64_t rollbacks = 0;
  for (const auto& e : events) {
    if (e["action"] != "rollback") continue;
    ++rollbacks;
    EXPECT_DOUBLE_EQ(e["lr_scale"].get<double>(), scale / 2) << e.dump();
    scale /= 2;
    EXPECT_LE(e["step"].get<std::int64_t>(), e["failed_step"].get<std::int64_t>());
  }
  EXPECT_GE(rollbacks, 1);
  EXPECT_LE(rollbacks, kMaxRollbacks);
  // The records after the last rollback train at the halved rate, and the steps run in order.
  const auto log = read_run_log(config.out_dir);
  ASSERT_FALSE(log.train.empty());
  EXPECT_DOUBLE_EQ(log.train.back().lr, config.lr * scale);
  for (std::size_t i = 1; i < log.train.size(); ++i) EXPECT_LT(log.train[i - 1].step, log.train[i].step);
  EXPECT_EQ(std::int64_t(log.events.size()), std::int64_t(events.size()));
  EXPECT_TRUE(test::weights_finite(last_checkpoint_path(config.out_dir)));
  // The halved rate is part of the run's state: a resumed run keeps it.
  const auto header = read_checkpoint_header(last_checkpoint_path(config.out_dir));
  EXPECT_DOUBLE_EQ(header["training"]["lr_scale"].get<double>(), scale);
}

TEST(TrainingNonFinite, SkipLeavesTheWeightsAndStopsOnceEveryStepIsNonFinite) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("nonfinite-skip");
  test::expect_skips_then_stop(test::overflowing_run(dir / "run", AttentionKind::Soft, "skip"));
}

TEST(TrainingNonFinite, AnExplodingLossIsReportedBeforeItBecomesNaN) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("nonfinite-spike");
  auto config = test::tiny_training(dir / "run");
  config.lr = 2e3;  // the loss grows by orders of magnitude and stays finite for 20 steps
  config.max_steps = 20;
  std::vector<std::string> said;
  TrainCallbacks cb;
  cb.on_message = [&](const std::string& m) { said.push_back(m); };
  train(config, cb);
  const auto warned = std::count_if(said.begin(), said.end(), [](const std::string& m) {
    return m.rfind("warning: step ", 0) == 0 && m.find("running average") != std::string::npos;
  });
  EXPECT_GE(warned, 1);
  const auto events = test::events_of(config.out_dir);
  ASSERT_GE(events.size(), 1u);
  EXPECT_EQ(events[0]["what"], "loss_spike");
}

TEST(TrainingNonFinite, TheSpikeDetectorWarnsOncePerSpike) {
  LossSpikeDetector d;
  for (double loss : {40.0, 30.0, 20.0, 10.0, 8.0, 6.0}) EXPECT_FALSE(d.observe(loss));
  EXPECT_TRUE(d.observe(5000));   // over 100 times the running average
  EXPECT_FALSE(d.observe(9000));  // the same spike
  EXPECT_FALSE(d.observe(5));     // back down: re-armed
  EXPECT_TRUE(d.observe(1e5));
  EXPECT_FALSE(d.observe(std::nan("")));
}

TEST(TrainingNonFinite, EventsKeepTheirNonFiniteValueThroughJson) {
  TrainEvent e;
  e.step = 4;
  e.failed_step = 7;
  e.what = "nonfinite";
  e.quantity = "gradient norm";
  e.value = HUGE_VAL;
  e.action = "rollback";
  e.lr_scale = 0.5;
  const auto back = train_event_from_json(nlohmann::json::parse(to_json(e).dump()));
  EXPECT_TRUE(std::isinf(back.value));
  EXPECT_EQ(back.failed_step, 7);
  EXPECT_EQ(back.quantity, "gradient norm");
  e.value = std::nan("");
  EXPECT_TRUE(std::isnan(train_event_from_json(nlohmann::json::parse(to_json(e).dump())).value));
}
