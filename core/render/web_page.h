#pragma once
/// A caption's attention as one self-contained web page: the image and every word's α inline (no
/// network, no other file), the caption as chips with p (and β for gated models), a word's α shown
/// over the image on hover or click, the words played in turn, a spotlight or a heat map, and the
/// reference captions when there are some. Opens offline in any browser; shared by `fovea export
/// --format html` and fovea-studio's Export ▸ Web Page.
#include <string>
#include <vector>

#include "core/data/image.h"
#include "core/decode/caption_result.h"

namespace fovea {

struct WebPageOptions {
  std::string title;                    ///< the page's title and heading ("" : the caption)
  std::string model;                    ///< what made the caption, said under it
  /// What the image is, said under the title: a video's frame ("frame 13 of 30 (1.20 s) of
  /// clip.avi"); "" says nothing.
  std::string source;
  std::vector<std::string> references;  ///< the image's reference captions, if known
  std::string style = "spotlight";      ///< the first overlay shown: "spotlight" or "heatmap"
  /// Larger images are shrunk to this many pixels on their longer side on the page: α is a grid of
  /// a few cells a side, and a photo at full size made a page of megabytes.
  int max_side = 1024;
};

/// The page's HTML (UTF-8). Throws std::invalid_argument for a caption whose α does not fit its grid.
std::string web_page(const RgbImage& image, const CaptionResult& caption, const WebPageOptions& options = {});

/// Writes web_page() to `path` (temporary file + rename).
void write_web_page(const std::string& path, const RgbImage& image, const CaptionResult& caption,
                    const WebPageOptions& options = {});

}  // namespace fovea
