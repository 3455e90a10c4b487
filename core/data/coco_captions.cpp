#include "core/data/coco_captions.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "core/data/tokenizer.h"
#include "core/io/atomic_file.h"
#include "core/io/json_file.h"

namespace fovea {

std::map<std::int64_t, std::vector<std::string>> read_coco_references(const std::string& path) {
  const auto j = read_json_file(path);
  if (!j.is_object() || !j.contains("annotations") || !j["annotations"].is_array()) {
    throw std::runtime_error(path + ": expected a COCO captions annotation file (an object with an \"annotations\" array)");
  }
  std::map<std::int64_t, std::vector<std::string>> refs;
  if (j.contains("images") && j["images"].is_array()) {
    for (const auto& im : j["images"]) {
      if (!im.contains("id") || !im["id"].is_number_integer()) throw std::runtime_error(path + ": an image has no integer \"id\"");
      refs[im["id"].get<std::int64_t>()];
    }
  }
  std::size_t k = 0;
  for (const auto& a : j["annotations"]) {
    if (!a.is_object() || !a.contains("image_id") || !a["image_id"].is_number_integer() || !a.contains("caption") ||
        !a["caption"].is_string()) {
      throw std::runtime_error(path + ": annotation " + std::to_string(k) + " needs an integer \"image_id\" and a string \"caption\"");
    }
    refs[a["image_id"].get<std::int64_t>()].push_back(a["caption"].get<std::string>());
    ++k;
  }
  return refs;
}

std::map<std::int64_t, std::string> read_coco_results(const std::string& path) {
  const auto j = read_json_file(path);
  if (!j.is_array()) throw std::runtime_error(path + ": expected a COCO results file (an array of {image_id, caption})");
  std::map<std::int64_t, std::string> out;
  std::size_t k = 0;
  for (const auto& r : j) {
    if (!r.is_object() || !r.contains("image_id") || !r["image_id"].is_number_integer() || !r.contains("caption") ||
        !r["caption"].is_string()) {
      throw std::runtime_error(path + ": result " + std::to_string(k) + " needs an integer \"image_id\" and a string \"caption\"");
    }
    const auto id = r["image_id"].get<std::int64_t>();
    if (!out.emplace(id, r["caption"].get<std::string>()).second) {
      throw std::runtime_error(path + ": image " + std::to_string(id) + " has more than one result");
    }
    ++k;
  }
  return out;
}

void write_coco_results(const std::string& path, const std::map<std::int64_t, std::string>& results) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [id, caption] : results) out.push_back({{"image_id", id}, {"caption", caption}});
  write_file_atomically(path, out.dump(1) + "\n");
}

void write_coco_references(const std::string& path, const std::map<std::int64_t, std::vector<std::string>>& references) {
  nlohmann::json images = nlohmann::json::array(), annotations = nlohmann::json::array();
  std::int64_t next = 1;
  for (const auto& [id, captions] : references) {
    images.push_back({{"id", id}});
    for (const auto& c : captions) annotations.push_back({{"image_id", id}, {"id", next++}, {"caption", c}});
  }
  write_file_atomically(path, nlohmann::json({{"images", images}, {"annotations", annotations}}).dump(1) + "\n");
}

}  // namespace fovea
