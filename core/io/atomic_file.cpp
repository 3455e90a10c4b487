#include "core/io/atomic_file.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <stdexcept>

namespace fovea {

namespace fs = std::filesystem;

void write_file_atomically(const std::string& path, const std::string& bytes) {
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  std::random_device rd;
  const fs::path tmp = target.string() + ".tmp-" + std::to_string(rd());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(tmp.string() + ": cannot open for writing");
    out.write(bytes.data(), std::streamsize(bytes.size()));
    out.flush();
    if (!out) {
      out.close();
      std::error_code ec;
      fs::remove(tmp, ec);
      throw std::runtime_error(tmp.string() + ": write failed (disk full?)");
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error(path + ": cannot replace file (" + ec.message() + ")");
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
