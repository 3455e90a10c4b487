#include "core/data/caption_dataset.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/io/json_file.h"

namespace fovea {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void bad_entry(const std::string& path, const std::string& where, const std::exception& e) {
  // nlohmann's messages start with their own code ("[json.exception.type_error.302] "): not the user's.
  std::string what = e.what();
  if (what.rfind("[json.exception.", 0) == 0 && what.find("] ") != std::string::npos) what = what.substr(what.find("] ") + 2);
  throw std::runtime_error(path + ": " + where + ": " + what);
}

/// Image paths that lie outside the images folder, collected while a file is read and refused
/// together: the file's own names ("../../etc/passwd", "/abs/x.jpg") must not reach the rest of
/// the disk. Lexical (symbolic links inside the folder are the user's own and are followed).
class Confinement {
 public:
  Confinement(std::string json_path, std::string images_dir) : json_(std::move(json_path)), dir_(std::move(images_dir)) {
    std::error_code ec;
    if (!dir_.empty() && !fs::is_directory(dir_, ec)) {
      throw std::runtime_error(dir_ + ": not a folder: the images of " + json_ + " cannot be there (--images)");
    }
  }

  /// images_dir / relative, or "" (noted) when `relative` is absolute or climbs out of the folder.
  std::string inside(const fs::path& relative, const std::string& where) {
    if (stays_inside_folder(relative.string())) return (fs::path(dir_) / relative).string();
    if (refused_.size() < 3) refused_.push_back(where + " \"" + relative.string() + "\"");
    ++count_;
    return {};
  }

  /// Throws naming the first refused entries and how many there were.
  void check() const {
    if (count_ == 0) return;
    std::string list;
    for (const auto& r : refused_) list += (list.empty() ? "" : ", ") + r;
    if (count_ > refused_.size()) list += ", ...";
    throw std::runtime_error(json_ + ": " + std::to_string(count_) + " image" + (count_ == 1 ? " names a file" : "s name files") +
                             " outside the images folder " + dir_ + " (" + list +
                             "); image paths must be relative and stay inside that folder");
  }

 private:
  std::string json_, dir_;
  std::vector<std::string> refused_;
  std::size_t count_ = 0;
};

}  // namespace

bool stays_inside_folder(const std::string& relative) {
  const fs::path path(relative);
  const auto normal = path.lexically_normal();
  return !path.has_root_path() && !normal.empty() && *normal.begin() != "..";
}

std::vector<CaptionedImage> read_karpathy_dataset(const std::string& json_path, const std::string& images_dir) {
  const auto j = read_json_file(json_path);
  if (!j.is_object() || !j.contains("images") || !j["images"].is_array()) {
    throw std::runtime_error(json_path + ": not a Karpathy split file (no \"images\" array)");
  }
  std::vector<CaptionedImage> out;
  Confinement confinement(json_path, images_dir);
  std::size_t index = 0;
  for (const auto& e : j["images"]) {
    try {
      CaptionedImage im;
      const auto name = e.at("filename").get<std::string>();
      const auto sub = e.value("filepath", std::string());
      im.path = confinement.inside(fs::path(sub) / name, "images[" + std::to_string(index) + "]");
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
  confinement.check();
  return out;
}

std::vector<CaptionedImage> read_coco_dataset(const std::string& json_path, const std::string& images_dir) {
  const auto j = read_json_file(json_path);
  if (!j.is_object() || !j.contains("images") || !j.contains("annotations")) {
    throw std::runtime_error(json_path + ": not a COCO captions file (needs \"images\" and \"annotations\")");
  }
  std::vector<CaptionedImage> out;
  std::map<std::int64_t, std::size_t> by_id;
  Confinement confinement(json_path, images_dir);
  std::size_t index = 0;
  for (const auto& e : j["images"]) {
    try {
      CaptionedImage im;
      im.id = e.at("id").get<std::int64_t>();
      im.path = confinement.inside(e.at("file_name").get<std::string>(), "images[" + std::to_string(index) + "]");
      im.split = "all";
      by_id[im.id] = out.size();
      out.push_back(std::move(im));
    } catch (const nlohmann::json::exception& ex) {
      bad_entry(json_path, "images[" + std::to_string(index) + "]", ex);
    }
    ++index;
  }
  confinement.check();
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
