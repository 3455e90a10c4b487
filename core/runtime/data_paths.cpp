#include "core/runtime/data_paths.h"

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <system_error>
#include <utility>
#include <vector>

namespace fovea {

namespace fs = std::filesystem;

namespace {

/// The roots add_data_root() gave, in order.
std::mutex roots_mutex;
std::vector<fs::path>& extra_roots() {
  static std::vector<fs::path> roots;
  return roots;
}

/// Candidate places of one kind of data, best first.
std::vector<fs::path> candidates(const std::string& installed, const std::string& in_repository) {
  std::vector<fs::path> out;
  {
    std::lock_guard<std::mutex> lock(roots_mutex);
    for (const auto& root : extra_roots()) {
      out.push_back(root / "share" / "fovea" / installed);
      out.push_back(root / in_repository);
    }
  }
  const auto exe = executable_dir();
  if (!exe.empty()) {
    out.push_back(fs::path(exe) / ".." / "share" / "fovea" / installed);
    out.push_back(fs::path(exe) / ".." / ".." / in_repository);  // build/app/ -> the repository
    out.push_back(fs::path(exe) / ".." / in_repository);
  }
  out.push_back(fs::current_path() / in_repository);
  return out;
}

std::string first_existing(const std::vector<fs::path>& paths) {
  std::error_code ec;
  for (const auto& p : paths) {
    if (fs::exists(p, ec)) return fs::weakly_canonical(p, ec).string();
  }
  return {};
}

}  // namespace

void add_data_root(const std::string& root) {
  std::lock_guard<std::mutex> lock(roots_mutex);
  extra_roots().push_back(root);
}

std::string executable_dir() {
  std::error_code ec;
  const auto exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

std::string shipped_model_path(const std::string& file_name) {
  return first_existing(candidates("models/" + file_name, "models/" + file_name));
}

std::vector<ShippedModel> shipped_models() {
  std::vector<ShippedModel> found;
  for (const auto& [name, file] : {std::pair{"Supervised soft attention", "fashion-soft.ckpt"},
                                   std::pair{"Supervised hard attention", "fashion-hard.ckpt"},
                                   std::pair{"Soft attention, the paper's objective alone", "fashion-soft-paper.ckpt"}}) {
    const auto path = shipped_model_path(file);
    if (!path.empty()) found.push_back({name, path});
  }
  return found;
}

std::string default_model_path() {
  if (const char* env = std::getenv("FOVEA_MODEL"); env && *env) return env;
  const auto shipped = shipped_model_path("fashion-soft.ckpt");
  return shipped.empty() ? "models/fashion-soft.ckpt" : shipped;
}

std::string default_encoder_path() {
  const auto shipped = shipped_model_path("fashion-encoder.pt");
  return shipped.empty() ? "models/fashion-encoder.pt" : shipped;
}

std::string samples_dir() { return first_existing(candidates("samples", "resources/samples")); }

}  // namespace fovea
