#include "app/cli/export_gallery.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <vector>

#include "core/data/image_io.h"
#include "core/decode/captioner.h"
#include "core/eval/reference_captions.h"
#include "core/io/model_name.h"
#include "core/render/gallery_page.h"

namespace fovea::cli {

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> images_in(const std::string& folder) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(folder)) {
    auto ext = e.path().extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (e.is_regular_file() && (ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".bmp")) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  if (out.empty()) throw std::invalid_argument(folder + ": no images (PNG, JPEG or BMP files) in this folder");
  return out;
}

}  // namespace

int export_gallery(const std::string& folder, const std::string& out, const CaptionChoices& choices,
                    const std::string& compare, const std::string& style) {
  const auto files = images_in(folder);
  std::vector<Captioner> models;
  models.emplace_back(choices.model, choices.device);
  if (!compare.empty()) models.emplace_back(compare, choices.device);
  GalleryOptions page;
  page.title = "Fovea: " + fs::path(folder).lexically_normal().filename().string();
  if (page.title == "Fovea: " || page.title == "Fovea: .") page.title = "Fovea gallery";
  for (const auto& m : models) page.models.push_back(model_display_name(m.path()));
  if (page.models.size() == 2 && page.models[0] == page.models[1]) {  // same names: say where they lie
    page.models = {fs::path(models[0].path()).string(), fs::path(models[1].path()).string()};
  }
  page.style = style;
  CaptionOptions options = choices.options();
  const auto references = ReferenceCaptions::read_folder(folder);
  std::vector<GalleryEntry> entries;
  int skipped = 0;
  for (const auto& file : files) {
    GalleryEntry e;
    e.name = file.filename().string();
    try {
      e.image = read_image(file.string());
    } catch (const std::exception& error) {  // one broken file does not cost the others their page
      std::cerr << "fovea export: left out " << error.what() << "\n";
      ++skipped;
      continue;
    }
    for (auto& m : models) e.captions.push_back(m.caption(e.image, options));
    e.references = references.of(e.name);
    entries.push_back(std::move(e));
  }
  if (entries.empty()) throw std::invalid_argument(folder + ": none of its " + std::to_string(files.size()) + " images could be read");
  write_gallery_page(out, entries, page);
  std::cout << "wrote " << out << " (a gallery page: " << entries.size() << " images, " << models.size()
            << (models.size() == 1 ? " model" : " models") << ", " << fs::file_size(out) / 1024 << " KiB"
            << (skipped ? ", " + std::to_string(skipped) + " left out" : std::string()) << ")\n";
  return skipped;
}

}  // namespace fovea::cli
