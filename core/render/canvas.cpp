#include "core/render/canvas.h"

#include <pango/pangocairo.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace fovea::render {
namespace {

constexpr const char* kFontFamily = "DejaVu Sans";

struct LayoutDeleter {
  void operator()(PangoLayout* l) const { g_object_unref(l); }
};
using Layout = std::unique_ptr<PangoLayout, LayoutDeleter>;

/// Unhinted metrics, so text measures the same on an image, an SVG and a PDF surface and the
/// one layout holds in every format.
void use_linear_metrics(PangoContext* context) {
  cairo_font_options_t* options = cairo_font_options_create();
  cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE);
  pango_cairo_context_set_font_options(context, options);
  cairo_font_options_destroy(options);
}

void set_font(PangoLayout* layout, double size, bool bold) {
  PangoFontDescription* font = pango_font_description_new();
  pango_font_description_set_family(font, kFontFamily);
  pango_font_description_set_weight(font, bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
  pango_font_description_set_absolute_size(font, size * PANGO_SCALE);  // user units, whatever the resolution
  pango_layout_set_font_description(layout, font);
  pango_font_description_free(font);
}

/// A layout on a private context for measuring (the thread's default cairo font map).
Layout measuring_layout(const std::string& text, double size, bool bold) {
  PangoContext* context = pango_font_map_create_context(pango_cairo_font_map_get_default());
  use_linear_metrics(context);
  Layout layout(pango_layout_new(context));
  g_object_unref(context);
  set_font(layout.get(), size, bold);
  pango_layout_set_text(layout.get(), text.c_str(), int(text.size()));
  return layout;
}

cairo_status_t append_bytes(void* closure, const unsigned char* data, unsigned int length) {
  auto* out = static_cast<std::vector<std::uint8_t>*>(closure);
  out->insert(out->end(), data, data + length);
  return CAIRO_STATUS_SUCCESS;
}

struct Rgba {
  double r, g, b, a;
};

/// The colour painted over the image where α (scaled to 0..1) is `v`; see render_overlay_into.
Rgba heat_colour(const OverlayStyle& style, float v) {
  const double o = std::clamp(style.opacity, 0.0f, 1.0f);
  if (style.colormap == Colormap::Spotlight) return {0, 0, 0, o * (1.0 - std::clamp(v, 0.0f, 1.0f))};
  const auto c = colormap_rgb(style.colormap, v);
  return {c[0] / 255.0, c[1] / 255.0, c[2] / 255.0, o};
}

/// α scaled as render_overlay scales it: by its maximum when normalising.
std::vector<float> scaled_alpha(const std::vector<float>& alpha, bool normalise) {
  float peak = 0;
  for (float a : alpha) peak = std::max(peak, a);
  const float scale = normalise && peak > 0 ? 1.0f / peak : 1.0f;
  std::vector<float> v(alpha.size());
  for (std::size_t i = 0; i < alpha.size(); ++i) v[i] = std::min(1.0f, alpha[i] * scale);
  return v;
}

/// Breakpoints along one axis of n cells over `length`: the edges and every cell centre.
std::vector<double> breakpoints(int n, double length) {
  std::vector<double> knots = {0.0};
  for (int c = 0; c < n; ++c) knots.push_back((c + 0.5) * length / n);
  knots.push_back(length);
  return knots;
}

/// Bilinear α between cell centres, clamped at the border (align_corners = false).
float value_at(const std::vector<float>& v, int gh, int gw, double fx, double fy) {
  const double x = std::clamp(fx * gw - 0.5, 0.0, double(gw - 1));
  const double y = std::clamp(fy * gh - 0.5, 0.0, double(gh - 1));
  const int x0 = std::min(gw - 1, int(x)), y0 = std::min(gh - 1, int(y));
  const int x1 = std::min(gw - 1, x0 + 1), y1 = std::min(gh - 1, y0 + 1);
  const double wx = x - x0, wy = y - y0;
  const auto at = [&](int r, int c) { return double(v[std::size_t(r) * gw + c]); };
  const double top = at(y0, x0) + (at(y0, x1) - at(y0, x0)) * wx;
  const double bottom = at(y1, x0) + (at(y1, x1) - at(y1, x0)) * wx;
  return float(top + (bottom - top) * wy);
}

void paint_blocks(cairo_t* cr, const std::vector<float>& v, int gh, int gw, const OverlayStyle& style, double x,
                  double y, double w, double h) {
  Surface cells(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, gw, gh));
  cairo_surface_flush(cells.get());
  unsigned char* data = cairo_image_surface_get_data(cells.get());
  const int stride = cairo_image_surface_get_stride(cells.get());
  for (int r = 0; r < gh; ++r) {
    auto* row = reinterpret_cast<std::uint32_t*>(data + std::size_t(r) * stride);
    for (int c = 0; c < gw; ++c) {
      const Rgba k = heat_colour(style, v[std::size_t(r) * gw + c]);
      const auto byte = [&](double channel) { return std::uint32_t(std::lround(channel * k.a * 255)); };  // premultiplied
      row[c] = std::uint32_t(std::lround(k.a * 255)) << 24 | byte(k.r) << 16 | byte(k.g) << 8 | byte(k.b);
    }
  }
  cairo_surface_mark_dirty(cells.get());
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_scale(cr, w / gw, h / gh);
  cairo_set_source_surface(cr, cells.get(), 0, 0);
  cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
  cairo_rectangle(cr, 0, 0, gw, gh);
  cairo_fill(cr);
  cairo_restore(cr);
}

/// The smooth heat as mesh patches over a lattice of the cell centres (and the edges), each interval
/// split in `parts`: bilinear in α within a patch, as render_overlay interpolates. Blocks of the
/// lattice whose colours a single bilinear patch reproduces (within kTolerance) become one patch,
/// so the far, flat part of the attention costs a few patches instead of hundreds.
class SmoothHeat {
 public:
  SmoothHeat(const std::vector<float>& v, int gh, int gw, const OverlayStyle& style, double x, double y, double w,
             double h)
      : x_(x), y_(y) {
    const bool linear = style.colormap == Colormap::Spotlight || style.colormap == Colormap::Gray;
    const int parts = linear ? 1 : 2;  // a colormap is not linear in α: sample it between the centres
    xs_ = subdivide(breakpoints(gw, w), parts);
    ys_ = subdivide(breakpoints(gh, h), parts);
    colour_.resize(xs_.size() * ys_.size());
    for (std::size_t j = 0; j < ys_.size(); ++j)
      for (std::size_t i = 0; i < xs_.size(); ++i)
        colour_[j * xs_.size() + i] = heat_colour(style, value_at(v, gh, gw, xs_[i] / w, ys_[j] / h));
  }

  cairo_pattern_t* mesh() {
    cairo_pattern_t* mesh = cairo_pattern_create_mesh();
    emit(mesh, 0, xs_.size() - 1, 0, ys_.size() - 1);
    return mesh;
  }

 private:
  static constexpr double kTolerance = 2.0 / 255;

  static std::vector<double> subdivide(const std::vector<double>& knots, int parts) {
    std::vector<double> out;
    for (std::size_t k = 0; k + 1 < knots.size(); ++k) {
      if (knots[k + 1] <= knots[k]) continue;
      for (int p = 0; p < parts; ++p) out.push_back(knots[k] + (knots[k + 1] - knots[k]) * p / parts);
    }
    out.push_back(knots.back());
    return out;
  }

  const Rgba& at(std::size_t i, std::size_t j) const { return colour_[j * xs_.size() + i]; }

  bool one_patch_fits(std::size_t i0, std::size_t i1, std::size_t j0, std::size_t j1) const {
    const Rgba &a = at(i0, j0), &b = at(i1, j0), &c = at(i1, j1), &d = at(i0, j1);
    for (std::size_t j = j0; j <= j1; ++j) {
      const double v = (ys_[j] - ys_[j0]) / (ys_[j1] - ys_[j0]);
      for (std::size_t i = i0; i <= i1; ++i) {
        const double u = (xs_[i] - xs_[i0]) / (xs_[i1] - xs_[i0]);
        const auto lerp = [&](double p, double q, double r, double s) {
          return (p * (1 - u) + q * u) * (1 - v) + (s * (1 - u) + r * u) * v;
        };
        const Rgba& k = at(i, j);
        if (std::abs(lerp(a.r, b.r, c.r, d.r) - k.r) > kTolerance || std::abs(lerp(a.g, b.g, c.g, d.g) - k.g) > kTolerance ||
            std::abs(lerp(a.b, b.b, c.b, d.b) - k.b) > kTolerance || std::abs(lerp(a.a, b.a, c.a, d.a) - k.a) > kTolerance)
          return false;
      }
    }
    return true;
  }

  void emit(cairo_pattern_t* mesh, std::size_t i0, std::size_t i1, std::size_t j0, std::size_t j1) const {
    if ((i1 - i0 > 1 || j1 - j0 > 1) && !one_patch_fits(i0, i1, j0, j1)) {
      if (i1 - i0 >= j1 - j0) {
        const std::size_t mid = (i0 + i1) / 2;
        emit(mesh, i0, mid, j0, j1);
        emit(mesh, mid, i1, j0, j1);
      } else {
        const std::size_t mid = (j0 + j1) / 2;
        emit(mesh, i0, i1, j0, mid);
        emit(mesh, i0, i1, mid, j1);
      }
      return;
    }
    cairo_mesh_pattern_begin_patch(mesh);
    cairo_mesh_pattern_move_to(mesh, x_ + xs_[i0], y_ + ys_[j0]);
    cairo_mesh_pattern_line_to(mesh, x_ + xs_[i1], y_ + ys_[j0]);
    cairo_mesh_pattern_line_to(mesh, x_ + xs_[i1], y_ + ys_[j1]);
    cairo_mesh_pattern_line_to(mesh, x_ + xs_[i0], y_ + ys_[j1]);
    const Rgba* corners[4] = {&at(i0, j0), &at(i1, j0), &at(i1, j1), &at(i0, j1)};
    for (unsigned k = 0; k < 4; ++k)
      cairo_mesh_pattern_set_corner_color_rgba(mesh, k, corners[k]->r, corners[k]->g, corners[k]->b, corners[k]->a);
    cairo_mesh_pattern_end_patch(mesh);
  }

  double x_, y_;
  std::vector<double> xs_, ys_;
  std::vector<Rgba> colour_;
};

void paint_smooth(cairo_t* cr, const std::vector<float>& v, int gh, int gw, const OverlayStyle& style, double x,
                  double y, double w, double h) {
  cairo_pattern_t* mesh = SmoothHeat(v, gh, gw, style, x, y, w, h).mesh();
  cairo_save(cr);
  cairo_set_source(cr, mesh);
  cairo_rectangle(cr, x, y, w, h);
  cairo_fill(cr);
  cairo_restore(cr);
  cairo_pattern_destroy(mesh);
}

}  // namespace

Surface image_surface(const RgbImage& image) {
  if (image.empty()) throw std::invalid_argument("cannot draw an empty image");
  Surface s(cairo_image_surface_create(CAIRO_FORMAT_RGB24, image.width, image.height));
  check(s.get(), "image surface");
  cairo_surface_flush(s.get());
  unsigned char* data = cairo_image_surface_get_data(s.get());
  const int stride = cairo_image_surface_get_stride(s.get());
  for (int y = 0; y < image.height; ++y) {
    auto* row = reinterpret_cast<std::uint32_t*>(data + std::size_t(y) * stride);
    const std::uint8_t* p = image.at(0, y);
    for (int x = 0; x < image.width; ++x, p += 3) row[x] = 0xff000000u | p[0] << 16 | p[1] << 8 | p[2];
  }
  cairo_surface_mark_dirty(s.get());
  return s;
}

RgbImage surface_pixels(cairo_surface_t* surface) {
  cairo_surface_flush(surface);
  const int w = cairo_image_surface_get_width(surface), h = cairo_image_surface_get_height(surface);
  const unsigned char* data = cairo_image_surface_get_data(surface);
  const int stride = cairo_image_surface_get_stride(surface);
  RgbImage out(w, h);
  for (int y = 0; y < h; ++y) {
    const auto* row = reinterpret_cast<const std::uint32_t*>(data + std::size_t(y) * stride);
    std::uint8_t* p = out.at(0, y);
    for (int x = 0; x < w; ++x, p += 3) {
      p[0] = std::uint8_t(row[x] >> 16);
      p[1] = std::uint8_t(row[x] >> 8);
      p[2] = std::uint8_t(row[x]);
    }
  }
  return out;
}

std::vector<std::uint8_t> png_bytes(cairo_surface_t* surface) {
  std::vector<std::uint8_t> out;
  const cairo_status_t status = cairo_surface_write_to_png_stream(surface, append_bytes, &out);
  if (status != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cannot encode PNG: ") + cairo_status_to_string(status));
  return out;
}

void check(cairo_surface_t* surface, const std::string& what) {
  const cairo_status_t status = cairo_surface_status(surface);
  if (status != CAIRO_STATUS_SUCCESS) throw std::runtime_error(what + ": " + cairo_status_to_string(status));
}

void check(cairo_t* cr, const std::string& what) {
  const cairo_status_t status = cairo_status(cr);
  if (status != CAIRO_STATUS_SUCCESS) throw std::runtime_error(what + ": " + cairo_status_to_string(status));
}

void paint_image(cairo_t* cr, cairo_surface_t* image, double x, double y, double w, double h) {
  const int iw = cairo_image_surface_get_width(image), ih = cairo_image_surface_get_height(image);
  cairo_save(cr);
  cairo_translate(cr, x, y);
  cairo_scale(cr, w / iw, h / ih);
  cairo_set_source_surface(cr, image, 0, 0);
  cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
  // On a raster target, pad so the edges are not blended with transparency.
  if (cairo_surface_get_type(cairo_get_target(cr)) == CAIRO_SURFACE_TYPE_IMAGE)
    cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD);
  cairo_rectangle(cr, 0, 0, iw, ih);
  cairo_fill(cr);
  cairo_restore(cr);
}

void paint_attention(cairo_t* cr, const std::vector<float>& alpha, int grid_h, int grid_w, const OverlayStyle& style,
                     double x, double y, double w, double h) {
  if (grid_h <= 0 || grid_w <= 0 || alpha.size() != std::size_t(grid_h) * grid_w)
    throw std::invalid_argument("attention has " + std::to_string(alpha.size()) + " values, grid is " +
                                std::to_string(grid_h) + "x" + std::to_string(grid_w));
  if (style.opacity <= 0) return;
  const auto v = scaled_alpha(alpha, style.normalise);
  if (style.smooth)
    paint_smooth(cr, v, grid_h, grid_w, style, x, y, w, h);
  else
    paint_blocks(cr, v, grid_h, grid_w, style, x, y, w, h);
}

TextExtent measure_text(const std::string& text, double size, bool bold) {
  const Layout layout = measuring_layout(text, size, bold);
  PangoRectangle logical;
  pango_layout_get_extents(layout.get(), nullptr, &logical);
  TextExtent e;
  e.width = double(logical.width) / PANGO_SCALE;
  e.ascent = double(pango_layout_get_baseline(layout.get())) / PANGO_SCALE;
  e.descent = double(logical.height) / PANGO_SCALE - e.ascent;
  return e;
}

std::vector<std::string> wrap_text(const std::string& text, double size, bool bold, double width) {
  const Layout layout = measuring_layout(text, size, bold);
  pango_layout_set_width(layout.get(), int(width * PANGO_SCALE));
  pango_layout_set_wrap(layout.get(), PANGO_WRAP_WORD_CHAR);
  std::vector<std::string> lines;
  const char* base = pango_layout_get_text(layout.get());
  for (int i = 0; i < pango_layout_get_line_count(layout.get()); ++i) {
    const PangoLayoutLine* line = pango_layout_get_line_readonly(layout.get(), i);
    std::string s(base + line->start_index, std::size_t(line->length));
    while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
    if (!s.empty()) lines.push_back(s);
  }
  return lines;
}

void draw_text(cairo_t* cr, const TextRun& run) {
  Layout layout(pango_cairo_create_layout(cr));
  use_linear_metrics(pango_layout_get_context(layout.get()));
  pango_layout_context_changed(layout.get());
  set_font(layout.get(), run.size, run.bold);
  pango_layout_set_text(layout.get(), run.text.c_str(), int(run.text.size()));
  PangoRectangle logical;
  pango_layout_get_extents(layout.get(), nullptr, &logical);
  const double width = double(logical.width) / PANGO_SCALE;
  const double ascent = double(pango_layout_get_baseline(layout.get())) / PANGO_SCALE;
  cairo_save(cr);
  cairo_set_source_rgb(cr, run.colour[0] / 255.0, run.colour[1] / 255.0, run.colour[2] / 255.0);
  cairo_move_to(cr, run.centred ? run.x - width / 2 : run.x, run.baseline - ascent);
  pango_cairo_show_layout(cr, layout.get());
  cairo_restore(cr);
}

}  // namespace fovea::render
