#pragma once
/// One checkpoint file holds the weights, optimizer state, vocabulary, model config, training
/// config, RNG state and training metadata. Layout:
///   "FOVEACKP" | u32 version | u64 header_len | header JSON | u64 blob_len | torch archive | u32 CRC-32
/// Written to a temporary file and renamed, so a crash never leaves a half-written checkpoint.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/io/checkpoint_header.h"
#include "core/model/show_attend_tell.h"

namespace fovea {

/// Thrown for any unreadable, truncated, corrupt or incompatible checkpoint; the message names
/// the file and the fault.
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

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

/// The layout above for the other files Fovea writes in it (an encoder file, core/io/encoder_file.h):
/// `header` and the archive, written atomically.
void write_fovea_file(const std::string& path, const nlohmann::json& header, torch::serialize::OutputArchive& archive);
struct FoveaFile {
  nlohmann::json header;
  std::string archive;  ///< the raw torch archive
};
/// Reads and checks (magic, version, lengths, checksum) a file in the layout above.
FoveaFile read_fovea_file(const std::string& path);

/// Restores optimizer state and RNG state saved with the checkpoint (for --resume).
void restore_training_state(const LoadedCheckpoint& ckpt, torch::optim::Optimizer& optimizer, torch::Device device);


}  // namespace fovea
