#pragma once
/// A training run's folder as the run writes it: config.json, metrics.jsonl and samples.jsonl
/// (appended a line at a time, each flushed), the fixed validation images of the caption
/// snapshots, last.ckpt and best.ckpt. Reading a folder back is core/train/run_log.h.
///
/// Only the first process of a group writes: in the others every call does nothing. A log line
/// that cannot be written is said once (with the reason) and the file is opened again at the next
/// line, so a disk that fills up or a file made read-only for a while loses only those lines.
#include <cstdint>
#include <fstream>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include "core/data/scene_source.h"
#include "core/model/show_attend_tell.h"
#include "core/train/train_config.h"

namespace fovea {

class RunFolder {
 public:
  RunFolder(std::string dir, bool writes, std::function<void(const std::string&)> message);

  const std::string& dir() const { return dir_; }
  /// Whether this process writes the folder (the first of a group, or the only one).
  bool writes() const { return writes_; }

  /// A new run: creates the folder, empties the logs and writes config.json.
  void create(const TrainConfig& config);
  /// A resumed run: removes what the interrupted run did not finish writing, cuts the logs back
  /// to the checkpoint's steps (what it logged after them is trained again) and writes config.json.
  void reopen(const TrainConfig& config, std::int64_t step, std::int64_t pretrain_step);
  /// Opens the logs for appending (once the run starts).
  void open_logs();
  /// After a rollback: the logs cut back to the checkpoint's steps, open again.
  void cut_logs_back(std::int64_t step, std::int64_t pretrain_step);

  void append_metrics(const nlohmann::json& line) { append(metrics_, line); }
  void append_samples(const nlohmann::json& line) { append(samples_, line); }

  /// The first `count` validation images as PNG files (samples/val_K.png), those not there yet.
  void write_sample_images(const SceneSource& val, std::size_t count);
  /// "samples/val_K.png": the snapshot image K, relative to the folder.
  static std::string sample_image_name(std::size_t k);

  /// last.ckpt: weights, optimiser, random state and `training` (the run state), to resume from.
  void save_last(CaptionModel& model, torch::optim::Optimizer& optimizer, const nlohmann::json& training);
  /// best.ckpt: the weights and `training`, for inference.
  void save_best(CaptionModel& model, const nlohmann::json& training);

 private:
  struct Log {
    std::string path, name;
    std::ofstream out;
    bool failing = false;  ///< the last line could not be written: reopen before the next
  };
  void append(Log& log, const nlohmann::json& line);

  std::string dir_;
  bool writes_;
  std::function<void(const std::string&)> message_;
  Log metrics_, samples_;
};

}  // namespace fovea
