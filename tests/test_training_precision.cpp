// `--precision auto` on the CPU: a run times its step in fp32 and in bf16 before it starts, trains
// in the faster, and the timing leaves no trace in what it trains; a resumed run keeps the choice.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/model/checkpoint.h"
#include "core/runtime/runtime.h"
#include "core/train/precision_trial.h"
#include "core/train/trainer.h"
#include "tests/test_support.h"

using namespace fovea;
namespace fs = std::filesystem;

namespace {

nlohmann::json training_state(const std::string& run) {
  return read_checkpoint_header(last_checkpoint_path(run)).at("training");
}

}  // namespace

TEST(TrainingPrecision, TheFasterIsBf16OnlyWhereItSavesAtLeastFivePercent) {
  EXPECT_EQ(faster_precision({0.40, 0.30}), "bf16");
  EXPECT_EQ(faster_precision({0.40, 0.38}), "bf16");   // exactly 95%
  EXPECT_EQ(faster_precision({0.40, 0.39}), "fp32");   // too close to give up full precision
  EXPECT_EQ(faster_precision({0.33, 0.44}), "fp32");
  EXPECT_EQ(faster_precision({0.0, 0.0}), "fp32");     // not timed
  EXPECT_NE(describe(PrecisionTrial{0.319, 0.409}).find("0.319 s in fp32 and 0.409 s in bf16"), std::string::npos);
}

// Explicit precisions are what they say; auto is fp32 wherever a run does not time it (CUDA).
TEST(TrainingPrecision, ExplicitPrecisionsAndAutoOffTheCpu) {
  TrainConfig defaults;
  defaults.out_dir = "run";
  EXPECT_EQ(defaults.precision, "auto");
  EXPECT_NO_THROW(defaults.validate());
  EXPECT_EQ(resolve_precision("auto", torch::Device(torch::kCUDA)), "fp32");
  EXPECT_EQ(resolve_precision("fp32", torch::kCPU), "fp32");
  if (cpu_has_native_bf16()) EXPECT_EQ(resolve_precision("bf16", torch::kCPU), "bf16");
  const auto message = test::error_message([] { resolve_precision("bf16", torch::Device(torch::kCUDA)); });
  EXPECT_NE(message.find("CPU autocast"), std::string::npos) << message;
}

// bf16 asked for on a CPU without bf16 products (here: oneDNN capped below them, as on an AVX2
// machine) is a clear error before anything trains, not oneDNN's own words in mid-run.
TEST(TrainingPrecision, Bf16OnACpuWithoutBf16ProductsSaysSo) {
  const char* was = std::getenv("DNNL_MAX_CPU_ISA");
  const std::string before = was != nullptr ? was : "";
  ::setenv("DNNL_MAX_CPU_ISA", "AVX2", 1);
  const auto message = test::error_message([] { resolve_precision("bf16", torch::kCPU); });
  const auto fp32 = resolve_precision("fp32", torch::kCPU);
  if (was != nullptr) {
    ::setenv("DNNL_MAX_CPU_ISA", before.c_str(), 1);
  } else {
    ::unsetenv("DNNL_MAX_CPU_ISA");
  }
  EXPECT_NE(message.find("needs a CPU with bf16 products"), std::string::npos) << message;
  EXPECT_NE(message.find("train with fp32"), std::string::npos) << message;
  EXPECT_EQ(fp32, "fp32");
}

// A hard-attention run (dropout, sampled glimpses, the REINFORCE baseline: everything a step draws
// or updates besides the weights) with auto trains exactly the weights the same run with the
// precision auto chose trains, and says why it chose it: on a CPU with bf16 products the times of
// both (fp32 or bf16, as this CPU times them), elsewhere fp32 untimed.
TEST(TrainingPrecision, AutoTimesBothAndTrainsWhatTheChosenPrecisionTrains) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("auto_precision");
  auto config = test::tiny_training(dir / "auto", AttentionKind::Hard);
  config.precision = "auto";
  config.max_steps = 6;
  std::vector<std::string> said;
  TrainCallbacks cb;
  cb.on_message = [&](const std::string& m) { said.push_back(m); };
  const auto result = train(config, cb);

  const auto state = training_state(config.out_dir);
  const auto trial = precision_trial_from_json(state.at("precision_trial"));
  const std::string chosen = state.at("precision");
  EXPECT_EQ(result.precision, chosen);
  std::ifstream card(dir / "auto/MODEL_CARD.md");
  const std::string card_text((std::istreambuf_iterator<char>(card)), std::istreambuf_iterator<char>());
  EXPECT_NE(card_text.find("- Precision: " + chosen), std::string::npos) << card_text;
  const bool timed = cpu_has_native_bf16();
  EXPECT_EQ(trial.timed(), timed) << state.dump();
  if (timed) {
    EXPECT_EQ(chosen, faster_precision(trial));
    EXPECT_NE(card_text.find(describe(trial)), std::string::npos) << card_text;
  } else {
    EXPECT_EQ(chosen, "fp32");
  }
  const std::string why = timed ? "precision " + chosen + " (auto: a step took" : "precision fp32 (auto: this CPU has no bf16";
  const auto said_choice =
      std::find_if(said.begin(), said.end(), [&](const std::string& m) { return m.find(why) != std::string::npos; });
  EXPECT_NE(said_choice, said.end()) << "no message saying \"" << why << "\"";

  auto explicit_config = config;
  explicit_config.precision = chosen;
  explicit_config.out_dir = dir / "explicit";
  train(explicit_config);
  EXPECT_EQ(training_state(explicit_config.out_dir).at("precision"), chosen);
  EXPECT_FALSE(precision_trial_from_json(training_state(explicit_config.out_dir).at("precision_trial")).timed());
  const auto a = load_checkpoint(last_checkpoint_path(config.out_dir));
  const auto b = load_checkpoint(last_checkpoint_path(explicit_config.out_dir));
  const auto pa = a.model.net->named_parameters(), pb = b.model.net->named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (const auto& p : pa) EXPECT_TRUE(torch::equal(p.value(), pb[p.key()])) << p.key();
  const auto ba = a.model.net->named_buffers(), bb = b.model.net->named_buffers();
  for (const auto& p : ba) EXPECT_TRUE(torch::equal(p.value(), bb[p.key()])) << p.key();
  EXPECT_DOUBLE_EQ(double(training_state(config.out_dir).at("baseline")),
                   double(training_state(explicit_config.out_dir).at("baseline")));
}

// Resumed, an auto run goes on in the precision it chose, without timing again.
TEST(TrainingPrecision, AResumedAutoRunKeepsItsChoice) {
  FOVEA_REQUIRE_FASHION_MNIST();
  test::TempDir dir("auto_resume");
  auto config = test::tiny_training(dir / "run");
  config.precision = "auto";
  config.max_steps = 2;
  train(config);
  const auto before = training_state(config.out_dir);
  std::vector<std::string> said;
  TrainCallbacks cb;
  cb.on_message = [&](const std::string& m) { said.push_back(m); };
  const auto r = resume_training(config.out_dir, cb, make_train_data(config), 0, 4);
  EXPECT_EQ(r.steps, 4);
  const auto after = training_state(config.out_dir);
  EXPECT_EQ(after.at("precision"), before.at("precision"));
  EXPECT_EQ(after.at("precision_trial"), before.at("precision_trial"));
  for (const auto& m : said) EXPECT_EQ(m.find("timing a step"), std::string::npos) << m;
  const std::string why = cpu_has_native_bf16() ? " (auto, as chosen when the run started)" : " (auto: this CPU has no bf16";
  const auto kept = std::find_if(said.begin(), said.end(), [&](const std::string& m) {
    return m.find("precision " + before.at("precision").get<std::string>() + why) != std::string::npos;
  });
  EXPECT_NE(kept, said.end()) << "no message saying the precision and" << why;
}
