// fovea familiarity: measure a model's training and validation images and keep their statistics
// in the model file, so its captions say when an image is unlike them (model files written by
// training runs already have them).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "app/cli/commands.h"
#include "core/model/checkpoint.h"
#include "core/train/familiarity_calibration.h"
#include "core/train/train_config.h"
#include "core/train/trainer.h"

namespace fovea::cli {

namespace {
struct FamiliarityArgs {
  std::string model;
  std::size_t images = 2000;
};
}  // namespace

Runner add_familiarity_command(CLI::App& app) {
  auto a = std::make_shared<FamiliarityArgs>();
  app.add_option("model", a->model, "Model file to measure and rewrite (best.ckpt or a shipped model)")->required();
  app.add_option("--images", a->images, "Training and validation images to measure, each")
      ->check(CLI::Range(std::size_t(2), std::size_t(100000)))
      ->capture_default_str();
  return [a]() -> int {
    const auto ckpt = load_checkpoint(a->model);
    if (!ckpt.training.is_object() || !ckpt.training.contains("config"))
      throw CheckpointError(a->model + ": does not say what it was trained on (no training config)");
    const TrainConfig config = train_config_from_json(ckpt.training["config"]);
    const TrainData data = make_train_data(config, [](const std::string& m) { std::printf("%s\n", m.c_str()); });
    const auto stats = store_familiarity(a->model, data.train, data.val, a->images);
    std::printf("%s: 99%% of validation images within distance %.2f; captions of images further than %.2f are "
                "marked unfamiliar\n",
                a->model.c_str(), stats.validation_q99, stats.threshold);
    return 0;
  };
}

}  // namespace fovea::cli
