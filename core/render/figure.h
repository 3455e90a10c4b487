#pragma once
/// The annotated figure papers show: the image, then one small heatmap panel per word with the
/// word under it. One layout, three writers (PNG, SVG, PDF), shared by the GUI's export and
/// `fovea export`; plus the word-by-word animation as numbered PNG frames.
#include <cstdint>
#include <string>
#include <vector>

#include "core/data/image.h"
#include "core/decode/captioner.h"
#include "core/render/heatmap.h"

namespace fovea {

struct FigureOptions {
  OverlayStyle style;
  int panel = 160;              ///< panel width in pixels (PNG) or points (SVG, PDF)
  int columns = 0;              ///< panels per row; 0: up to 6
  bool show_probability = true;  ///< a second label line with p(word)
  std::string title;            ///< above the panels; empty: the caption
};

struct FigurePanel {
  RgbImage image;  ///< the original image (first panel) or its overlay for one word
  std::string label, sublabel;
  int x = 0, y = 0;  ///< top-left corner of the image, in figure units
};

struct FigureLayout {
  int width = 0, height = 0;
  int panel_w = 0, panel_h = 0, label_h = 0, title_h = 0;
  std::string title;
  std::vector<FigurePanel> panels;  ///< panels[0] is the image, then one per word
};

/// Throws std::invalid_argument for an empty image or a caption whose α does not fit its grid.
FigureLayout layout_figure(const RgbImage& image, const CaptionResult& caption, const FigureOptions& options = {});

RgbImage figure_raster(const FigureLayout& layout);
std::string figure_svg(const FigureLayout& layout);
std::vector<std::uint8_t> figure_pdf(const FigureLayout& layout);

/// Writes the figure as PNG, SVG or PDF by the extension of `path` (temporary file + rename).
/// Throws std::invalid_argument naming the path for any other extension.
void write_figure(const std::string& path, const RgbImage& image, const CaptionResult& caption,
                  const FigureOptions& options = {});

/// One frame of the word-by-word animation: the overlay of word `index` at `size` pixels wide,
/// with the caption below and that word highlighted.
RgbImage animation_frame(const RgbImage& image, const CaptionResult& caption, std::size_t index,
                         const OverlayStyle& style, int size = 448);

/// Writes frame_000.png, frame_001.png, ... (one per word) into `dir` (created); returns the paths.
std::vector<std::string> write_animation_frames(const std::string& dir, const RgbImage& image,
                                                const CaptionResult& caption, const OverlayStyle& style,
                                                int size = 448);

}  // namespace fovea
