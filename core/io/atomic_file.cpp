#include "core/io/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <stdexcept>

namespace fovea {

namespace fs = std::filesystem;

void write_file_atomically(const std::string& path, const std::string& bytes) {
  // Errors name `path`, the file the user asked for, and the system's reason; never the temporary.
  const fs::path target(path);
  std::error_code ec;
  if (fs::is_directory(target, ec)) throw std::runtime_error(path + ": is a folder, cannot write a file there");
  if (target.has_parent_path()) {
    fs::create_directories(target.parent_path(), ec);
    if (ec) {
      throw std::runtime_error(path + ": cannot create its folder " + target.parent_path().string() + " (" +
                               ec.message() + ")");
    }
  }
  std::random_device rd;
  const fs::path tmp = target.string() + ".tmp-" + std::to_string(rd());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(path + ": cannot write (" + std::strerror(errno) + ")");
    out.write(bytes.data(), std::streamsize(bytes.size()));
    out.flush();
    if (!out) {
      const std::string reason = std::strerror(errno);
      out.close();
      fs::remove(tmp, ec);
      throw std::runtime_error(path + ": write failed (" + reason + ")");
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    const std::string reason = ec.message();
    fs::remove(tmp, ec);
    throw std::runtime_error(path + ": cannot replace file (" + reason + ")");
  }
}

std::vector<std::string> remove_unfinished_writes(const std::string& folder) {
  static const std::regex temporary(R"(.+\.tmp-[0-9]+)");
  std::vector<std::string> removed;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const auto name = entry.path().filename().string();
    if (!entry.is_regular_file(ec) || !std::regex_match(name, temporary)) continue;
    if (fs::remove(entry.path(), ec)) removed.push_back(name);
  }
  return removed;
}

}  // namespace fovea
