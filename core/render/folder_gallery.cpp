#include "core/render/folder_gallery.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <stdexcept>

#include "core/data/image_io.h"
#include "core/decode/captioner.h"
#include "core/io/model_name.h"
#include "core/render/gallery_page.h"

namespace fovea {

namespace fs = std::filesystem;

std::vector<std::string> gallery_images(const std::string& folder) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(folder)) {
    auto ext = e.path().extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (e.is_regular_file() && (ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".bmp")) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  if (out.empty()) throw std::invalid_argument(folder + ": no images (PNG, JPEG or BMP files) in this folder");
  return out;
}

namespace {

/// The page's title and the models' names (their paths when both have the same name).
GalleryOptions page_options(const std::string& folder, const std::vector<Captioner>& models, const std::string& style) {
  GalleryOptions page;
  page.title = "Fovea: " + fs::path(folder).lexically_normal().filename().string();
  if (page.title == "Fovea: " || page.title == "Fovea: .") page.title = "Fovea gallery";
  for (const auto& m : models) page.models.push_back(model_display_name(m.path()));
  if (page.models.size() == 2 && page.models[0] == page.models[1]) {  // same names: say where they lie
    page.models = {fs::path(models[0].path()).string(), fs::path(models[1].path()).string()};
  }
  page.style = style;
  return page;
}

}  // namespace

FolderGallery write_folder_gallery(const std::string& folder, const std::string& out, const FolderGalleryOptions& options) {
  const auto files = gallery_images(folder);
  if (options.models.empty()) throw std::invalid_argument("gallery of " + folder + ": no model given");
  std::vector<Captioner> models;
  for (const auto& m : options.models) models.emplace_back(m, options.device);
  const GalleryOptions page = page_options(folder, models, options.style);
  FolderGallery result;
  std::vector<GalleryEntry> entries;
  for (std::size_t i = 0; i < files.size(); ++i) {
    GalleryEntry e;
    e.name = fs::path(files[i]).filename().string();
    try {
      e.image = read_image(files[i]);
    } catch (const std::exception& error) {  // one broken file does not cost the others their page
      result.left_out.push_back(error.what());
    }
    if (!e.image.empty()) {
      for (auto& m : models) e.captions.push_back(m.caption(e.image, options.caption));
      if (options.references) e.references = options.references(e.name);
      entries.push_back(std::move(e));
    }
    if (options.progress && !options.progress(int(i + 1), int(files.size()))) {
      result.stopped = true;
      return result;
    }
  }
  if (entries.empty()) throw std::invalid_argument(folder + ": none of its " + std::to_string(files.size()) + " images could be read");
  write_gallery_page(out, entries, page);
  result.images = int(entries.size());
  return result;
}

}  // namespace fovea
