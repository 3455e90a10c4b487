#pragma once
/// One checkpoint file holds the weights, optimizer state, vocabulary, model config, training
/// config, RNG state and training metadata, in the layout of core/io/fovea_file.h.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/io/checkpoint_header.h"
#include "core/io/fovea_file.h"
#include "core/model/show_attend_tell.h"

namespace fovea {

struct SaveOptions {
  torch::optim::Optimizer* optimizer = nullptr;  ///< nullptr: weights only (for inference)
  nlohmann::json training = nullptr;             ///< train config + progress; null for weights only
  bool rng_state = true;
  /// Further tensors to keep with the weights, each under "extra/" + name.
  std::vector<std::pair<std::string, torch::Tensor>> extra;
};

void save_checkpoint(const std::string& path, CaptionModel& model, const SaveOptions& options = {});

struct LoadedCheckpoint {
  CaptionModel model;
  nlohmann::json training;  ///< null when the file holds weights only
  bool has_optimizer = false;
  std::string path;
  std::string archive;  ///< the raw torch archive, for restore_training_state()
};

/// Loads and checks a checkpoint; the model is put on `device` in eval mode.
LoadedCheckpoint load_checkpoint(const std::string& path, torch::Device device = torch::kCPU);

/// The tensors of SaveOptions::extra saved under these names, in order; throws CheckpointError
/// naming the file and the first one missing.
std::vector<torch::Tensor> read_checkpoint_extra(const LoadedCheckpoint& ckpt, const std::vector<std::string>& names,
                                                 torch::Device device = torch::kCPU);

/// Restores optimizer state and RNG state saved with the checkpoint (for --resume).
void restore_training_state(const LoadedCheckpoint& ckpt, torch::optim::Optimizer& optimizer, torch::Device device);


}  // namespace fovea
