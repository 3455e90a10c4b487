#include "core/io/model_name.h"

#include <filesystem>

namespace fovea {

std::string model_display_name(const std::string& path) {
  const auto p = std::filesystem::path(path).lexically_normal();
  const auto file = p.filename().string();
  if (file != "best.ckpt" && file != "last.ckpt") return file;
  // A relative "best.ckpt" lies in the current folder: name that folder.
  const auto folder = std::filesystem::absolute(p).parent_path().filename().string();
  return folder.empty() ? file : folder;
}

}  // namespace fovea
