#pragma once
/// The file layout of every model file Fovea writes (checkpoints, encoder files):
///   "FOVEACKP" | u32 version | u64 header_len | header JSON | u64 blob_len | torch archive | u32 CRC-32
/// written to a temporary file and renamed, so a crash never leaves a half-written file. This
/// layer knows bytes, JSON and torch archives only; what the header and the archive hold is the
/// model's business (core/model/checkpoint.h, core/model/encoder_file.h).
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "core/runtime/torch_compat.h"

namespace fovea {

/// Thrown for any unreadable, truncated, corrupt or incompatible model file; the message names
/// the file and the fault.
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws CheckpointError("path: what").
[[noreturn]] void fovea_file_error(const std::string& path, const std::string& what);

/// Writes `header` and the archive in the layout above, atomically.
void write_fovea_file(const std::string& path, const nlohmann::json& header, torch::serialize::OutputArchive& archive);

struct FoveaFile {
  nlohmann::json header;
  std::string archive;  ///< the raw torch archive
};
/// Reads and checks (kind of file, magic, version, lengths, checksum) a file in the layout above.
/// Any other file is named at once, before it is read whole.
FoveaFile read_fovea_file(const std::string& path);

}  // namespace fovea
