#include "core/data/caption_dataset.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace fovea {

namespace fs = std::filesystem;

namespace {

nlohmann::json parse_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(path + ": not valid JSON at byte " + std::to_string(e.byte) + ": " + e.what());
  }
}

[[noreturn]] void bad_entry(const std::string& path, const std::string& where, const std::exception& e) {
  throw std::runtime_error(path + ": " + where + ": " + e.what());
}

}  // namespace

std::vector<CaptionedImage> read_karpathy_dataset(const std::string& json_path, const std::string& images_dir) {
  const auto j = parse_file(json_path);
  if (!j.is_object() || !j.contains("images") || !j["images"].is_array()) {
    throw std::runtime_error(json_path + ": not a Karpathy split file (no \"images\" array)");
  }
  std::vector<CaptionedImage> out;
  std::size_t index = 0;
  for (const auto& e : j["images"]) {
    try {
      CaptionedImage im;
      const auto name = e.at("filename").get<std::string>();
      const auto sub = e.value("filepath", std::string());
      im.path = (fs::path(images_dir) / sub / name).string();
      im.id = e.contains("cocoid") ? e["cocoid"].get<std::int64_t>() : e.value("imgid", std::int64_t(index));
      im.split = e.at("split").get<std::string>();
      if (im.split == "restval") im.split = "train";
      for (const auto& s : e.at("sentences")) im.captions.push_back(s.at("raw").get<std::string>());
      out.push_back(std::move(im));
    } catch (const nlohmann::json::exception& ex) {
      bad_entry(json_path, "images[" + std::to_string(index) + "]", ex);
    }
    ++index;
  }
  return out;
}

std::vector<CaptionedImage> read_coco_dataset(const std::string& json_path, const std::string& images_dir) {
  const auto j = parse_file(json_path);
  if (!j.is_object() || !j.contains("images") || !j.contains("annotations")) {
    throw std::runtime_error(json_path + ": not a COCO captions file (needs \"images\" and \"annotations\")");
  }
  std::vector<CaptionedImage> out;
  std::map<std::int64_t, std::size_t> by_id;
  std::size_t index = 0;
  for (const auto& e : j["images"]) {
    try {
      CaptionedImage im;
      im.id = e.at("id").get<std::int64_t>();
      im.path = (fs::path(images_dir) / e.at("file_name").get<std::string>()).string();
      im.split = "all";
      by_id[im.id] = out.size();
      out.push_back(std::move(im));
    } catch (const nlohmann::json::exception& ex) {
      bad_entry(json_path, "images[" + std::to_string(index) + "]", ex);
    }
    ++index;
  }
  index = 0;
  for (const auto& a : j["annotations"]) {
    try {
      const auto id = a.at("image_id").get<std::int64_t>();
      auto it = by_id.find(id);
      if (it == by_id.end()) {
        throw std::runtime_error("image_id " + std::to_string(id) + " is not in \"images\"");
      }
      out[it->second].captions.push_back(a.at("caption").get<std::string>());
    } catch (const std::exception& ex) {
      bad_entry(json_path, "annotations[" + std::to_string(index) + "]", ex);
    }
    ++index;
  }
  return out;
}

std::vector<CaptionedImage> select_split(const std::vector<CaptionedImage>& images, const std::string& split) {
  std::vector<CaptionedImage> out;
  for (const auto& im : images) {
    if (split == "all" || im.split == split) out.push_back(im);
  }
  return out;
}

}  // namespace fovea
