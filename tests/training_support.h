#pragma once
// Shared by the training tests: whether a tiny run learned its scenes.
#include <gtest/gtest.h>
#include <filesystem>
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
#include "core/train/nonfinite.h"
#include "core/train/objectives.h"
#include "core/train/run_log.h"
#include "core/train/trainer.h"
#include "tests/test_support.h"

namespace fovea::test {

namespace fs = std::filesystem;

/// Share of training scenes whose greedy caption is exactly one of their references.
inline double training_captions_right(const std::string& ckpt_path, const TrainConfig& config) {
  auto ckpt = load_checkpoint(ckpt_path);
  auto data = make_train_data(config);
  std::vector<Scene> scenes;
  std::vector<const RgbImage*> images;
  for (std::size_t i = 0; i < data.train->size(); ++i) scenes.push_back(data.train->get(i));
  for (const auto& s : scenes) images.push_back(&s.image);
  DecodeOptions greedy;
  greedy.beam = 1;
  auto decoded = decode_images(*ckpt.model.net, images_to_tensor(images, config.model.image_size), greedy);
  int right = 0;
  for (std::size_t i = 0; i < scenes.size(); ++i) {
    const auto words = join_tokens(ckpt.model.vocab.decode(decoded[i].tokens()));
    for (const auto& ref : scenes[i].captions) {
      if (join_tokens(tokenize(ref)) == words) {
        ++right;
        break;
      }
    }
  }
  return double(right) / double(scenes.size());
}

/// A tiny soft run trained `steps` steps in `dir`/run: its settings, to train or resume it again.
inline TrainConfig trained_tiny_run(const TempDir& dir, std::int64_t steps = 2) {
  auto config = tiny_training(dir / "run");
  config.max_steps = steps;
  train(config);
  return config;
}

inline void expect_learned(const TrainConfig& config, const TrainResult& r) {
  auto m = test::read_metrics(config.out_dir);
  ASSERT_GE(m.size(), 3u);
  const double first = m.front()["nll"], last = m[m.size() - 2]["nll"];
  EXPECT_LT(last, 0.35 * first) << "NLL per token went from " << first << " to " << last;
  EXPECT_EQ(r.steps, config.max_steps);
  EXPECT_GE(training_captions_right(best_checkpoint_path(config.out_dir), config), 0.75);
}

/// `config` run again in `out_dir` and "killed" at step `kill_at`, as a crash leaves it: last.ckpt
/// from step `checkpoint_at` (an epoch's end), metrics.jsonl with lines past it and a half-written
/// last line; then resumed to the end.
inline TrainResult crash_and_resume(TrainConfig config, const std::string& out_dir, std::int64_t checkpoint_at,
                             std::int64_t kill_at) {
  config.out_dir = out_dir;
  const auto kept = out_dir + ".at_checkpoint";
  std::atomic<bool> stop{false};
  TrainCallbacks cb;
  cb.stop = &stop;
  cb.on_progress = [&](const TrainProgress& p) {
    if (p.step == checkpoint_at + 2) fs::copy_file(last_checkpoint_path(out_dir), kept);
    if (p.step == kill_at) stop = true;
  };
  EXPECT_TRUE(train(config, cb).interrupted);
  fs::copy_file(kept, last_checkpoint_path(out_dir), fs::copy_options::overwrite_existing);
  std::ofstream(metrics_path(out_dir), std::ios::app) << "{\"step\": " << kill_at + 1 << ", \"kind\": \"tra";  // cut mid-line
  return resume_training(out_dir, {}, make_train_data(config));
}


/// A tiny run whose learning rate makes it overflow, meeting that with `policy`. "skip": every
/// step after the first overflows (skipping cannot help), in one epoch of 60 steps without
/// validation in between. "rollback": it overflows within a few steps and no longer does a few
/// halvings of its rate later, in one epoch of 40 steps (each rollback goes back to step 0).
inline TrainConfig overflowing_run(const std::string& out_dir, AttentionKind kind, const std::string& policy) {
  auto config = tiny_training(out_dir, kind);
  const bool skip = policy == "skip";
  config.on_nonfinite = policy;
  config.lr = skip ? 1e20 : 1e6;
  config.train_scenes = skip ? 960 : 640;
  config.max_steps = skip ? 60 : 40;
  return config;
}

/// Whether every weight of a checkpoint is finite.
inline bool weights_finite(const std::string& checkpoint) {
  const auto ckpt = load_checkpoint(checkpoint);
  for (const auto& p : ckpt.model.net->parameters()) {
    if (!torch::isfinite(p).all().item<bool>()) return false;
  }
  return true;
}

/// The events a run logged (non-finite steps, loss spikes), in order.
inline std::vector<nlohmann::json> events_of(const std::string& run) {
  std::vector<nlohmann::json> out;
  for (const auto& m : test::read_metrics(run)) {
    if (m.value("kind", "") == "event") out.push_back(m);
  }
  return out;
}

/// Trains `config`, an overflowing_run that skips: it skips kMaxSkipsInARow steps, says so and stops,
/// its last checkpoint finite.
inline void expect_skips_then_stop(const TrainConfig& config) {
  const auto message = error_message([&] { train(config); });
  EXPECT_NE(message.find(std::to_string(kMaxSkipsInARow) + " steps in a row"), std::string::npos) << message;
  const auto events = events_of(config.out_dir);
  ASSERT_EQ(std::int64_t(events.size()), kMaxSkipsInARow + 1);
  for (std::int64_t i = 0; i < kMaxSkipsInARow; ++i) EXPECT_EQ(events[std::size_t(i)]["action"], "skip");
  EXPECT_EQ(events.back()["action"], "stop");
  EXPECT_TRUE(weights_finite(last_checkpoint_path(config.out_dir)));
}

}  // namespace fovea::test
