#pragma once
/// A folder's gallery page from start to end: every image of the folder captioned by one model or
/// two, and the page written (gallery_page.h). `fovea export FOLDER --format html` and
/// fovea-studio's File ▸ Export Gallery both run write_folder_gallery().
#include <functional>
#include <string>
#include <vector>

#include "core/decode/caption_result.h"

namespace fovea {

struct FolderGalleryOptions {
  std::vector<std::string> models;  ///< model files: the first, and optionally one to compare
  std::string device = "cpu";
  CaptionOptions caption;
  std::string style = "spotlight";  ///< the first overlay shown: "spotlight" or "heatmap"
  /// The reference captions of an image (its file name), e.g. ReferenceCaptions::of; none if unset.
  std::function<std::vector<std::string>(const std::string&)> references;
  /// Called after each image with (images done, images in all); returning false stops the export
  /// before the page is written.
  std::function<bool(int, int)> progress;
};

struct FolderGallery {
  int images = 0;                       ///< images on the page
  std::vector<std::string> left_out;    ///< one line per image that could not be read: what went wrong
  bool stopped = false;                 ///< progress() asked to stop: no page was written
};

/// The images (PNG, JPEG, BMP) of `folder`, sorted by name. Throws std::invalid_argument naming the
/// folder when it holds none.
std::vector<std::string> gallery_images(const std::string& folder);

/// Captions every image of `folder` with every model and writes the gallery page to `out`
/// (temporary file + rename). An image that cannot be read is left out and said in the result.
/// Throws naming the folder when no image could be read, and a model file's error as is.
FolderGallery write_folder_gallery(const std::string& folder, const std::string& out, const FolderGalleryOptions& options);

}  // namespace fovea
