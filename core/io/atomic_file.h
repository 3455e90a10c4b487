#pragma once
/// Writing files so that a crash never leaves a half-written one behind.
#include <string>

namespace fovea {

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename.
void write_file_atomically(const std::string& path, const std::string& bytes);

}  // namespace fovea
