#pragma once
/// The annotated figure papers show: the image, then one attention panel per word with the word
/// under it. One layout in points, drawn by cairo into PNG, SVG and PDF (text in DejaVu Sans:
/// embedded in the PDF, <text> in the SVG), shared by the GUI's export and `fovea export`; plus
/// the word-by-word animation as numbered PNG frames.
#include <cstdint>
#include <string>
#include <vector>

#include "core/data/image.h"
#include "core/decode/caption_result.h"
#include "core/render/heatmap.h"
#include "core/render/text_run.h"

namespace fovea {

/// A journal's single column (8.5 cm) and full text width (17.8 cm), in points (1/72 in).
constexpr double kSingleColumnPt = 8.5 / 2.54 * 72;
constexpr double kDoubleColumnPt = 17.8 / 2.54 * 72;

/// "column" (single column), "double" (full width), or a length with its unit: "12cm", "90mm",
/// "5in", "400pt". Throws std::invalid_argument saying what is accepted otherwise.
double parse_figure_width(const std::string& text);

struct FigureOptions {
  OverlayStyle style;
  double width_pt = kDoubleColumnPt;  ///< the figure's width; panels and labels fit into it
  int columns = 0;                    ///< panels per row; 0: as many as fit at about 80 pt each, up to 8
  bool show_probability = true;       ///< a second label line with p(word)
  std::string title;                  ///< above the panels; empty: the caption
  double dpi = 300;                   ///< PNG resolution: pixels per inch of width_pt
};

struct FigurePanel {
  int word = -1;  ///< index into the caption's words; -1 for the image itself
  std::string label, sublabel;
  double x = 0, y = 0;  ///< top-left corner, in points
};

/// Everything the writers draw: geometry in points, the texts placed, and what the panels show.
struct FigureLayout {
  double width = 0, height = 0;
  double panel_w = 0, panel_h = 0;
  std::string title;
  std::vector<FigurePanel> panels;  ///< panels[0] is the image, then one per word
  std::vector<TextRun> texts;       ///< title lines and panel labels, in points
  RgbImage image;
  CaptionResult caption;
  OverlayStyle style;
  double dpi = 300;

  int pixel_width() const;   ///< the PNG's size at `dpi`
  int pixel_height() const;
};

/// Throws std::invalid_argument for an empty image, a width too narrow for the columns, or a
/// caption whose α does not fit its grid.
FigureLayout layout_figure(const RgbImage& image, const CaptionResult& caption, const FigureOptions& options = {});

std::vector<std::uint8_t> figure_png(const FigureLayout& layout);
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
/// Frames an earlier export of a longer caption left there are removed: `dir` then holds this
/// caption's frames only (other files are left alone).
std::vector<std::string> write_animation_frames(const std::string& dir, const RgbImage& image,
                                                const CaptionResult& caption, const OverlayStyle& style,
                                                int size = 448);

}  // namespace fovea
