#include "core/train/trainer.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/data/dataset_source.h"
#include "core/datasets/fashion_scenes.h"
#include "core/model/checkpoint.h"
#include "core/train/process_group.h"
#include "core/train/training_session.h"

namespace fovea {

namespace fs = std::filesystem;
TrainData make_train_data(const TrainConfig& c, const std::function<void(const std::string&)>& message) {
  TrainData d;
  if (!is_builtin_dataset(c.dataset)) {
    ImageCacheOptions cache;
    cache.image_size = int(c.model.image_size);
    d.train = open_dataset_split(c.dataset, c.images_dir, "train", cache, c.train_scenes, c.val_scenes, message);
    d.val = open_dataset_split(c.dataset, c.images_dir, "val", cache, c.val_scenes, c.val_scenes, message);
    return d;
  }
  auto opts = c.scenes;
  opts.image_size = int(c.model.image_size);
  d.train = std::make_shared<FashionScenes>("train", c.train_scenes, opts);
  d.val = std::make_shared<FashionScenes>("val", c.val_scenes, opts);
  return d;
}

TrainResult train(const TrainConfig& config, const TrainCallbacks& callbacks, TrainData data) {
  config.validate();
  if (fs::exists(last_checkpoint_path(config.out_dir))) {
    throw std::runtime_error(config.out_dir + ": already holds a run (last.ckpt); resume it (fovea train --resume " +
                             config.out_dir + ", or Resume in fovea-studio's run list) or choose another folder");
  }
  // Every process has looked before the first one writes its first checkpoint.
  if (data.group) data.group->barrier();
  TrainingSession session(config, callbacks, std::move(data));
  session.start_new();
  return session.run();
}

TrainResult pretrain_encoder_to_file(const TrainConfig& config, const std::string& encoder_out,
                                     const TrainCallbacks& callbacks, TrainData data) {
  if (!pretrains_encoder(config)) {
    throw std::invalid_argument("pretraining an encoder needs the built-in scenes, Fovea's own CNN and steps > 0");
  }
  config.validate();
  const auto path = last_checkpoint_path(config.out_dir);
  if (!fs::exists(path)) {
    TrainingSession session(config, callbacks, std::move(data));
    session.start_new();
    return session.run_pretraining_only(encoder_out);
  }
  // Goes on with the run folder's pretraining, to the steps asked for now.
  TrainConfig stored;
  std::int64_t captioning_steps = 0;
  try {
    const auto training = read_checkpoint_header(path).at("training");
    stored = train_config_from_json(training.at("config"));
    captioning_steps = training.value("step", std::int64_t(0));
  } catch (const std::exception& e) {
    throw CheckpointError(path + ": bad training state: " + e.what());
  }
  if (captioning_steps > 0) {
    throw std::invalid_argument(config.out_dir + ": holds a captioning run (step " + std::to_string(captioning_steps) +
                                "), not an encoder pretraining: choose another run folder");
  }
  stored.out_dir = config.out_dir;
  stored.pretrain_steps = config.pretrain_steps;
  stored.max_steps = 0;
  TrainingSession session(stored, callbacks, std::move(data));
  session.start_resumed(load_checkpoint(path, torch::kCPU));
  return session.run_pretraining_only(encoder_out);
}

TrainResult resume_training(const std::string& run_dir, const TrainCallbacks& callbacks, TrainData data,
                            std::int64_t epochs, std::int64_t max_steps) {
  const auto path = last_checkpoint_path(run_dir);
  if (!fs::exists(path)) throw std::runtime_error(run_dir + ": no last.ckpt to resume from (is this a run folder?)");
  auto header = read_checkpoint_header(path);
  if (!header.contains("training") || header["training"].is_null()) {
    throw CheckpointError(path + ": holds weights only, no training state to resume from");
  }
  TrainConfig config;
  try {
    config = train_config_from_json(header["training"].at("config"));
  } catch (const std::exception& e) {
    throw CheckpointError(path + ": bad training state: " + e.what());
  }
  config.out_dir = run_dir;
  if (epochs > 0) config.epochs = epochs;
  if (max_steps > 0) config.max_steps = max_steps;
  TrainingSession session(config, callbacks, std::move(data));
  session.start_resumed(load_checkpoint(path, torch::kCPU));
  return session.run();
}

}  // namespace fovea
