#include "app/cli/export_gallery.h"

#include <filesystem>
#include <iostream>

#include "core/eval/reference_captions.h"
#include "core/render/folder_gallery.h"

namespace fovea::cli {

int export_gallery(const std::string& folder, const std::string& out, const CaptionChoices& choices,
                    const std::string& compare, const std::string& style) {
  gallery_images(folder);  // a folder without images is said before any model loads
  FolderGalleryOptions options;
  options.models = {choices.model};
  if (!compare.empty()) options.models.push_back(compare);
  options.device = choices.device;
  options.caption = choices.options();
  options.style = style;
  const auto references = ReferenceCaptions::read_folder(folder);
  options.references = [&](const std::string& name) { return references.of(name); };
  const FolderGallery written = write_folder_gallery(folder, out, options);
  for (const auto& error : written.left_out) std::cerr << "fovea export: left out " << error << "\n";
  const auto skipped = written.left_out.size();
  std::cout << "wrote " << out << " (a gallery page: " << written.images << " images, " << options.models.size()
            << (options.models.size() == 1 ? " model" : " models") << ", " << std::filesystem::file_size(out) / 1024 << " KiB"
            << (skipped ? ", " + std::to_string(skipped) + " left out" : std::string()) << ")\n";
  return int(skipped);
}

}  // namespace fovea::cli
