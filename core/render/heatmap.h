#pragma once
/// Attention heatmaps: α on the grid -> colormapped layer blended onto the image. render_overlay is
/// the GUI's overlay (every animation frame); exported figures paint the same style with cairo
/// (core/render/canvas.h).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/data/image.h"

namespace fovea {

/// How α is drawn on the image. Spotlight (the default, as the paper's figures): the image keeps
/// its own colours where α peaks and is darkened elsewhere, so the colours a caption names stay
/// readable. The others blend a colormapped heat layer onto the image.
enum class Colormap { Spotlight, Viridis, Inferno, Jet, Gray };

std::vector<std::string> colormap_names();
/// "spotlight", "viridis", "inferno", "jet", "gray"; throws std::invalid_argument listing the names otherwise.
Colormap parse_colormap(const std::string& name);
std::string to_string(Colormap c);
/// Colour of t in [0, 1] (clamped); for Spotlight the grey of the mask (black to white).
std::array<std::uint8_t, 3> colormap_rgb(Colormap c, float t);

struct OverlayStyle {
  Colormap colormap = Colormap::Spotlight;
  /// Weight of the heat layer in the blend, 0..1; for Spotlight how dark the unattended image gets.
  float opacity = 0.6f;
  bool smooth = true;      ///< bilinear between cell centres; false: one flat block per cell
  bool normalise = true;   ///< scale α by its maximum so the peak gets the top colour
};

/// Blends the heatmap of `alpha` (grid_h * grid_w, row-major) onto `base`, at base's size.
/// Throws std::invalid_argument when alpha's size is not grid_h * grid_w.
RgbImage render_overlay(const RgbImage& base, const std::vector<float>& alpha, int grid_h, int grid_w,
                        const OverlayStyle& style = {});

/// The same into a caller-owned buffer (no allocation once `out` has base's size): the GUI's hot path.
void render_overlay_into(const RgbImage& base, const std::vector<float>& alpha, int grid_h, int grid_w,
                         const OverlayStyle& style, RgbImage& out);

}  // namespace fovea
