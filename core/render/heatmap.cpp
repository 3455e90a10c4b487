#include "core/render/heatmap.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/runtime/enum_names.h"

namespace fovea {
namespace {

using Rgb = std::array<std::uint8_t, 3>;

// Control points sampled from matplotlib's colormaps (9 evenly spaced stops).
constexpr Rgb kViridis[] = {{68, 1, 84},    {71, 44, 122},  {59, 81, 139},  {44, 113, 142}, {33, 144, 141},
                            {39, 173, 129}, {92, 200, 99},  {170, 220, 50}, {253, 231, 37}};
constexpr Rgb kInferno[] = {{0, 0, 4},      {31, 12, 72},   {85, 15, 109},  {136, 34, 106}, {186, 54, 85},
                            {227, 89, 51},  {249, 140, 10}, {249, 201, 50}, {252, 255, 164}};
constexpr Rgb kJet[] = {{0, 0, 128},   {0, 0, 255},   {0, 128, 255}, {0, 255, 255}, {128, 255, 128},
                        {255, 255, 0}, {255, 128, 0}, {255, 0, 0},   {128, 0, 0}};

struct Lut {
  std::array<Rgb, 256> colour;
  explicit Lut(Colormap c) {
    for (int i = 0; i < 256; ++i) {
      const float t = i / 255.0f;
      if (c == Colormap::Gray || c == Colormap::Spotlight) {
        colour[i] = {std::uint8_t(i), std::uint8_t(i), std::uint8_t(i)};
        continue;
      }
      const Rgb* stops = c == Colormap::Viridis ? kViridis : c == Colormap::Inferno ? kInferno : kJet;
      const float x = t * 8;
      const int k = std::min(7, int(x));
      const float f = x - k;
      for (int ch = 0; ch < 3; ++ch)
        colour[i][ch] = std::uint8_t(std::lround(stops[k][ch] * (1 - f) + stops[k + 1][ch] * f));
    }
  }
};

const Lut& lut(Colormap c) {
  static const Lut viridis(Colormap::Viridis), inferno(Colormap::Inferno), jet(Colormap::Jet), gray(Colormap::Gray);
  switch (c) {
    case Colormap::Spotlight: return gray;
    case Colormap::Viridis: return viridis;
    case Colormap::Inferno: return inferno;
    case Colormap::Jet: return jet;
    case Colormap::Gray: return gray;
  }
  return viridis;
}

// For output coordinate i of n, the two source samples (of m cells) and the weight of the second,
// with cell centres aligned (like align_corners=false).
struct Tap {
  int a, b;
  float w;
};

std::vector<Tap> taps(int n, int m, bool smooth) {
  std::vector<Tap> t(n);
  for (int i = 0; i < n; ++i) {
    if (!smooth) {
      const int c = std::min(m - 1, int(std::int64_t(i) * m / n));
      t[i] = {c, c, 0};
      continue;
    }
    float x = (i + 0.5f) * m / n - 0.5f;
    x = std::clamp(x, 0.0f, float(m - 1));
    const int a = std::min(m - 1, int(x));
    t[i] = {a, std::min(m - 1, a + 1), x - a};
  }
  return t;
}

}  // namespace

std::vector<std::string> colormap_names() { return {"spotlight", "viridis", "inferno", "jet", "gray"}; }

namespace {
/// "grey" is read too, and written "gray".
constexpr EnumName<Colormap> kColormapNames[] = {{Colormap::Spotlight, "spotlight"}, {Colormap::Viridis, "viridis"},
                                                 {Colormap::Inferno, "inferno"},     {Colormap::Jet, "jet"},
                                                 {Colormap::Gray, "gray"},           {Colormap::Gray, "grey"}};
}  // namespace

Colormap parse_colormap(const std::string& name) {
  if (const auto* c = enum_named(kColormapNames, name)) return *c;
  throw std::invalid_argument("unknown colormap '" + name + "' (expected spotlight, viridis, inferno, jet or gray)");
}

std::string to_string(Colormap c) { return name_of(kColormapNames, c, "viridis"); }

std::array<std::uint8_t, 3> colormap_rgb(Colormap c, float t) {
  const int i = int(std::lround(std::clamp(t, 0.0f, 1.0f) * 255));
  return lut(c).colour[i];
}

void render_overlay_into(const RgbImage& base, const std::vector<float>& alpha, int grid_h, int grid_w,
                         const OverlayStyle& style, RgbImage& out) {
  if (grid_h <= 0 || grid_w <= 0 || alpha.size() != std::size_t(grid_h) * grid_w)
    throw std::invalid_argument("render_overlay: alpha has " + std::to_string(alpha.size()) + " values, grid is " +
                                std::to_string(grid_h) + "x" + std::to_string(grid_w));
  if (base.empty()) throw std::invalid_argument("render_overlay: empty image");
  if (out.width != base.width || out.height != base.height) out = RgbImage(base.width, base.height);
  float peak = 0;
  for (float a : alpha) peak = std::max(peak, a);
  const float scale = style.normalise && peak > 0 ? 255.0f / peak : 255.0f;
  const auto& colours = lut(style.colormap).colour;
  const int o = int(std::lround(std::clamp(style.opacity, 0.0f, 1.0f) * 256));
  const bool spotlight = style.colormap == Colormap::Spotlight;
  const auto tx = taps(base.width, grid_w, style.smooth);
  const auto ty = taps(base.height, grid_h, style.smooth);
  std::vector<float> row(grid_w);
  for (int y = 0; y < base.height; ++y) {
    const Tap& r = ty[y];
    const float* a0 = alpha.data() + std::size_t(r.a) * grid_w;
    const float* a1 = alpha.data() + std::size_t(r.b) * grid_w;
    for (int c = 0; c < grid_w; ++c) row[c] = (a0[c] + (a1[c] - a0[c]) * r.w) * scale;
    const std::uint8_t* src = base.at(0, y);
    std::uint8_t* dst = out.at(0, y);
    for (int x = 0; x < base.width; ++x) {
      const Tap& c = tx[x];
      const float v = row[c.a] + (row[c.b] - row[c.a]) * c.w;
      const int idx = std::clamp(int(v + 0.5f), 0, 255);
      if (spotlight) {  // the image's own colours, dimmed by how little α there is
        const int keep = 256 - o * (255 - idx) / 255;
        for (int ch = 0; ch < 3; ++ch) dst[x * 3 + ch] = std::uint8_t((src[x * 3 + ch] * keep) >> 8);
        continue;
      }
      const Rgb& heat = colours[idx];
      for (int ch = 0; ch < 3; ++ch) dst[x * 3 + ch] = std::uint8_t((src[x * 3 + ch] * (256 - o) + heat[ch] * o) >> 8);
    }
  }
}

RgbImage render_overlay(const RgbImage& base, const std::vector<float>& alpha, int grid_h, int grid_w,
                        const OverlayStyle& style) {
  RgbImage out;
  render_overlay_into(base, alpha, grid_h, grid_w, style, out);
  return out;
}

}  // namespace fovea
