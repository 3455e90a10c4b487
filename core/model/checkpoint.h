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
  /// The file holds its TorchScript backbone (false: none, or found by path for an older file).
  bool backbone_embedded = false;
};

/// What a model file says of the TorchScript backbone it embeds: its file's name at training
/// time ("file"), "bytes", "digest" (core/io/crc32.h's content_digest) and the annotation "grid"
/// it gives (h, w, D). Null for the built-in CNN.
nlohmann::json describe_embedded_backbone(const ModelConfig& config);

/// Loads and checks a checkpoint; the model is put on `device` in eval mode. A TorchScript
/// backbone comes from the file itself; files written before they embedded it name its path,
/// found as given when absolute, else beside the file, then in the current folder.
/// `backbone_file`: where the backbone of a file that does not embed it is read (none: searched).
LoadedCheckpoint load_checkpoint(const std::string& path, torch::Device device = torch::kCPU,
                                 const std::string& backbone_file = {});

/// The tensors of SaveOptions::extra saved under these names, in order; throws CheckpointError
/// naming the file and the first one missing.
std::vector<torch::Tensor> read_checkpoint_extra(const LoadedCheckpoint& ckpt, const std::vector<std::string>& names,
                                                 torch::Device device = torch::kCPU);

/// Restores optimizer state and RNG state saved with the checkpoint (for --resume).
void restore_training_state(const LoadedCheckpoint& ckpt, torch::optim::Optimizer& optimizer, torch::Device device);


}  // namespace fovea
