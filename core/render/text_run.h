#pragma once
/// One line of text placed on a figure or frame: what core/render/canvas.h draws with pango and
/// the SVG writer emits as a <text> node, so every format shows the same words at the same place.
#include <array>
#include <cstdint>
#include <string>

namespace fovea {

struct TextRun {
  std::string text;
  double size = 8;  ///< font size in user units (points for figures, pixels for frames)
  bool bold = false;
  std::array<std::uint8_t, 3> colour = {20, 20, 20};
  double x = 0;         ///< left edge, or centre when `centred`
  double baseline = 0;  ///< y of the baseline
  bool centred = true;
};

}  // namespace fovea
