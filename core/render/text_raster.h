#pragma once
/// Text drawn into RgbImage (figure labels, animation frames). Uses OpenCV's Hershey font;
/// builds without OpenCV throw std::runtime_error.
#include <array>
#include <cstdint>
#include <string>

#include "core/data/image.h"

namespace fovea {

/// Width in pixels of `text` at a cap height of about `size_px`.
int text_width(const std::string& text, float size_px, bool bold = false);

/// Draws `text` with its baseline at y; x is the left edge, or the centre when `centred`.
void draw_text(RgbImage& image, const std::string& text, int x, int baseline_y, float size_px,
               std::array<std::uint8_t, 3> colour, bool centred = false, bool bold = false);

}  // namespace fovea
