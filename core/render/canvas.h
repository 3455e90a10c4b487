#pragma once
/// Drawing on cairo with text by pango, shared by the figure writers (PNG, SVG, PDF) and the
/// animation frames: images, attention heat (vector where the surface allows), labels in
/// DejaVu Sans measured the same way on every surface, and PNG encoding.
#include <cairo.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/data/image.h"
#include "core/render/heatmap.h"
#include "core/render/text_run.h"

namespace fovea::render {

struct SurfaceDeleter {
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
struct ContextDeleter {
  void operator()(cairo_t* c) const { cairo_destroy(c); }
};
using Surface = std::unique_ptr<cairo_surface_t, SurfaceDeleter>;
using Context = std::unique_ptr<cairo_t, ContextDeleter>;

/// An RGB24 image surface holding a copy of `image`.
Surface image_surface(const RgbImage& image);
/// The pixels of an RGB24/ARGB32 image surface (alpha dropped).
RgbImage surface_pixels(cairo_surface_t* surface);
/// The PNG file bytes of an image surface; throws std::runtime_error on a cairo error.
std::vector<std::uint8_t> png_bytes(cairo_surface_t* surface);
/// Throws std::runtime_error naming `what` when the surface or context is in an error state.
void check(cairo_surface_t* surface, const std::string& what);
void check(cairo_t* cr, const std::string& what);

/// Paints `image` scaled into the rectangle (smooth downscaling).
void paint_image(cairo_t* cr, cairo_surface_t* image, double x, double y, double w, double h);

/// Paints the attention `alpha` (grid_h * grid_w, row-major) over the rectangle as `style` says,
/// on top of what is already there (the image), as render_overlay() does: the smooth style as
/// mesh patches between cell centres, bilinear in α (vector shading in PDF; a colormap's colours
/// are interpolated between the centres), the blocky one as one crisp block per cell. Throws std::invalid_argument when alpha's size is not grid_h * grid_w.
void paint_attention(cairo_t* cr, const std::vector<float>& alpha, int grid_h, int grid_w, const OverlayStyle& style,
                     double x, double y, double w, double h);

/// Width and height (ascent + descent) of one line of `text`; the same on every surface.
struct TextExtent {
  double width = 0, ascent = 0, descent = 0;
};
TextExtent measure_text(const std::string& text, double size, bool bold);

/// Breaks `text` into lines no wider than `width` (at word boundaries) as pango would draw them.
std::vector<std::string> wrap_text(const std::string& text, double size, bool bold, double width);

/// Draws one run with pango (DejaVu Sans).
void draw_text(cairo_t* cr, const TextRun& run);

}  // namespace fovea::render
