#include "core/train/trainer.h"

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>

#include "core/data/dataset_source.h"
#include "core/datasets/fashion_scenes.h"
#include "core/io/atomic_file.h"
#include "core/model/checkpoint.h"
#include "core/train/process_group.h"
#include "core/train/resume_settings.h"
#include "core/train/run_lock.h"
#include "core/train/training_session.h"

namespace fovea {

namespace fs = std::filesystem;

namespace {

/// The run folder's lock, taken by the process that writes the folder (the only one, or the
/// first of a group), held until the run ends.
std::unique_ptr<RunLock> lock_run_folder(const std::string& dir, const TrainData& data) {
  if (data.group && data.group->rank() != 0) return nullptr;
  return std::make_unique<RunLock>(dir);
}

/// The run's config.json, or nothing when it is missing or unreadable (the checkpoint's own
/// config then stands alone).
std::optional<TrainConfig> read_folder_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  try {
    return train_config_from_json(nlohmann::json::parse(in));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

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
  const auto lock = lock_run_folder(config.out_dir, data);
  if (lock) {  // a run killed before its first checkpoint may have left an unfinished write
    for (const auto& name : remove_unfinished_writes(config.out_dir)) {
      if (callbacks.on_message) callbacks.on_message("removed " + name + ", left unfinished by an earlier run in " + config.out_dir);
    }
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
  const auto lock = lock_run_folder(config.out_dir, data);
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
  std::map<std::string, SettingValue> given;
  if (epochs > 0) given["epochs"] = epochs;
  if (max_steps > 0) given["max_steps"] = max_steps;
  return resume_training(run_dir, callbacks, std::move(data), given);
}

TrainResult resume_training(const std::string& run_dir, const TrainCallbacks& callbacks, TrainData data,
                            const std::map<std::string, SettingValue>& given) {
  const auto path = last_checkpoint_path(run_dir);
  const auto folder_config_path = (fs::path(run_dir) / "config.json").string();
  if (!fs::exists(path) && !fs::exists(folder_config_path)) {
    throw std::runtime_error(run_dir + ": no last.ckpt to resume from (is this a run folder?)");
  }
  const auto lock = lock_run_folder(run_dir, data);
  if (!fs::exists(path)) {
    // A run killed before its first checkpoint: its config.json (and perhaps an unfinished
    // checkpoint write) but nothing to go on from.
    const auto removed = remove_unfinished_writes(run_dir);
    throw std::runtime_error(run_dir + ": the run there stopped before its first checkpoint (no last.ckpt" +
                             (removed.empty() ? std::string() : ", only the unfinished " + removed.front() + ", now removed") +
                             "): nothing to resume; start it again (fovea train --out " + run_dir + " ...)");
  }
  auto header = read_checkpoint_header(path);
  if (!header.contains("training") || header["training"].is_null()) {
    throw CheckpointError(path + ": holds weights only, no training state to resume from");
  }
  TrainConfig stored;
  try {
    stored = train_config_from_json(header["training"].at("config"));
  } catch (const std::exception& e) {
    throw CheckpointError(path + ": bad training state: " + e.what());
  }
  if (const auto folder_config = read_folder_config(folder_config_path)) check_checkpoint_matches_run(path, stored, *folder_config);
  std::vector<std::string> changes;
  TrainConfig config = apply_resume_settings(stored, given, run_dir, &changes);
  check_steps_not_passed(config, header["training"].value("step", std::int64_t(0)),
                         header["training"].value("pretrain_step", std::int64_t(0)), run_dir);
  config.out_dir = run_dir;
  if (!changes.empty() && callbacks.on_message && (!data.group || data.group->rank() == 0)) {
    std::string said;
    for (const auto& c : changes) said += (said.empty() ? "" : ", ") + c;
    callbacks.on_message("resuming with " + said + " (recorded in config.json)");
  }
  TrainingSession session(config, callbacks, std::move(data));
  session.start_resumed(load_checkpoint(path, torch::kCPU));
  return session.run();
}

}  // namespace fovea
