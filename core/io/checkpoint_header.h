#pragma once
/// Reading a checkpoint's JSON header (model and training config, vocabulary, metadata) without
/// its weights; torch-free so run browsers can describe runs cheaply.
#include <string>

#include <nlohmann/json.hpp>

namespace fovea {

/// Reads only the header (config, vocabulary size, training metadata), without the weights: the
/// file's lengths are checked, its checksum only by the load that reads the weights. Throws
/// CheckpointError (a std::runtime_error) naming the file when it is not a checkpoint or is cut short.
nlohmann::json read_checkpoint_header(const std::string& path);

}  // namespace fovea
