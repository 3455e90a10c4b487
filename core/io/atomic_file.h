#pragma once
/// Writing files so that a crash never leaves a half-written one behind.
#include <string>
#include <vector>

namespace fovea {

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename.
void write_file_atomically(const std::string& path, const std::string& bytes);

/// Removes the temporary files (`NAME.tmp-DIGITS`) that a process killed while writing left in
/// `folder`, and returns their names. A kill -9 during a write cannot be prevented, so a program
/// that takes over a folder (resuming a run) clears them. Only call it when no other process
/// writes to the folder.
std::vector<std::string> remove_unfinished_writes(const std::string& folder);

}  // namespace fovea
