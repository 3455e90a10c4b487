#include "core/io/json_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace fovea {

std::string json_error_text(const nlohmann::json::exception& e) {
  std::string what = e.what();
  if (what.rfind("[json.exception.", 0) == 0 && what.find("] ") != std::string::npos) what.erase(0, what.find("] ") + 2);
  return what;
}

nlohmann::json read_json_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw std::runtime_error(path + ": file not found");
  if (std::filesystem::is_directory(path, ec)) throw std::runtime_error(path + ": is a folder, not a JSON file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open for reading (" + std::strerror(errno) + ")");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(path + ": not valid JSON at byte " + std::to_string(e.byte) + " (" + json_error_text(e) + ")");
  }
}

}  // namespace fovea
