#pragma once
/// What a `--backbone` file is, read from its header alone (torch-free: the New run dialog shows it).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fovea {

/// An encoder file's blocks and how it was trained (core/model/encoder_file.h).
struct EncoderFileInfo {
  std::vector<std::int64_t> widths, strides;  ///< the built-in CNN's blocks
  bool centred_cells = true;
  std::int64_t image_size = 0;  ///< the side of the images it was trained for
  nlohmann::json pretraining;   ///< steps, held_out_accuracy, items, precision, elapsed_s, seed
};

/// Whether `path` is an encoder file: false for a TorchScript module and for anything unreadable.
bool is_encoder_file(const std::string& path);

/// The encoder file's header; throws CheckpointError naming the file when it is not one.
EncoderFileInfo read_encoder_file_info(const std::string& path);

/// Empty when a built-in CNN of these blocks can start from the encoder file `path` described by
/// `info`; else the error, naming the file, both CNNs and the way out.
std::string encoder_file_mismatch(const std::string& path, const EncoderFileInfo& info,
                                  const std::vector<std::int64_t>& widths, const std::vector<std::int64_t>& strides,
                                  bool centred_cells);

/// What a run with `--backbone path` starts from, in a line: the untrained built-in CNN (empty
/// path), an encoder file's blocks and pretraining, or a TorchScript CNN; names a missing or
/// unreadable file instead of throwing.
std::string describe_backbone(const std::string& path);

}  // namespace fovea
