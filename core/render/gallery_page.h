#pragma once
/// A folder's captions and attention as one self-contained web page: every image (a JPEG inline,
/// at most max_side pixels) with its caption as chips under it, a word's α drawn over the image on
/// hover or click, the reference captions when the folder has them, and optionally a second
/// model's caption and α beside the first (`fovea export FOLDER --format html [--compare M]`).
/// α travels as one byte per grid cell (its share of the word's peak), so a page of 100 images
/// stays near a megabyte. Opens offline in any browser; the single-image page is web_page.h.
#include <string>
#include <vector>

#include "core/data/image.h"
#include "core/decode/caption_result.h"

namespace fovea {

struct GalleryEntry {
  std::string name;                     ///< the image's file name, shown under it
  RgbImage image;                       ///< the image (shrunk on the page to GalleryOptions::max_side)
  std::vector<CaptionResult> captions;  ///< one per model, in the order of GalleryOptions::models
  std::vector<std::string> references;  ///< its reference captions, if known
};

struct GalleryOptions {
  std::string title = "Fovea gallery";
  std::vector<std::string> models;  ///< what made each caption (one name per model)
  std::string style = "spotlight";  ///< the first overlay shown: "spotlight" or "heatmap"
  int max_side = 224;               ///< images larger than this are shrunk to it on the page
  int jpeg_quality = 82;
};

/// The page's HTML (UTF-8). Throws std::invalid_argument when an entry has not one caption per
/// model, or a caption's α does not fit its grid.
std::string gallery_page(const std::vector<GalleryEntry>& entries, const GalleryOptions& options);

/// Writes gallery_page() to `path` (temporary file + rename).
void write_gallery_page(const std::string& path, const std::vector<GalleryEntry>& entries, const GalleryOptions& options);

/// `image` inline as a data: URL: a JPEG (a PNG in a build without JPEG encoding).
std::string image_data_url(const RgbImage& image, int jpeg_quality);

}  // namespace fovea
