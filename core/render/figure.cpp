#include "core/render/figure.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "core/io/atomic_file.h"
#include "core/render/markup.h"
#include "core/render/canvas.h"
#include "core/render/png_encoder.h"

namespace fovea {
namespace {

constexpr std::array<std::uint8_t, 3> kInk = {20, 20, 20};
constexpr std::array<std::uint8_t, 3> kGrey = {110, 110, 110};
constexpr double kGap = 4;          // points between panels and around the figure
constexpr double kLineSpacing = 1.25;  // baseline to baseline, in font sizes
constexpr double kMaxPixels = 20000;   // per side of a PNG figure

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext;
}

std::string probability_label(const WordAttention& w) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "p=%.2f", std::exp(w.log_prob));
  return buf;
}

/// The largest size up to `size` at which `text` fits into `width` (labels of long words shrink).
double fitting_size(const std::string& text, double size, bool bold, double width) {
  const double w = render::measure_text(text, size, bold).width;
  return w > width ? std::max(3.0, size * width / w) : size;
}

/// Draws the whole figure in points on `cr`; text too unless the SVG writer adds it as <text>.
void draw_figure(cairo_t* cr, const FigureLayout& L, bool with_text) {
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  const render::Surface image = render::image_surface(L.image);
  for (const auto& p : L.panels) {
    render::paint_image(cr, image.get(), p.x, p.y, L.panel_w, L.panel_h);
    if (p.word >= 0)
      render::paint_attention(cr, L.caption.words[std::size_t(p.word)].alpha, L.caption.grid_h, L.caption.grid_w,
                              L.style, p.x, p.y, L.panel_w, L.panel_h);
  }
  if (with_text)
    for (const auto& t : L.texts) render::draw_text(cr, t);
}

std::string svg_colour(const std::array<std::uint8_t, 3>& c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c[0], c[1], c[2]);
  return buf;
}

std::string svg_texts(const FigureLayout& L) {
  std::ostringstream s;
  s << "<g font-family=\"DejaVu Sans, sans-serif\">\n";
  for (const auto& t : L.texts) {
    s << "<text x=\"" << t.x << "\" y=\"" << t.baseline << "\" font-size=\"" << t.size << "\""
      << (t.bold ? " font-weight=\"bold\"" : "") << (t.centred ? " text-anchor=\"middle\"" : "") << " fill=\""
      << svg_colour(t.colour) << "\">" << xml_escape(t.text) << "</text>\n";
  }
  s << "</g>\n";
  return s.str();
}

cairo_status_t append_to_string(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

}  // namespace

double parse_figure_width(const std::string& text) {
  if (text == "column" || text == "single") return kSingleColumnPt;
  if (text == "double" || text == "page") return kDoubleColumnPt;
  static const std::regex length(R"(\s*([0-9]*\.?[0-9]+)\s*(cm|mm|in|pt)\s*)");
  std::smatch m;
  if (!std::regex_match(text, m, length))
    throw std::invalid_argument("figure width '" + text +
                                "': expected column, double, or a length such as 12cm, 90mm, 5in or 400pt");
  const double value = std::stod(m[1]);
  const std::string unit = m[2];
  const double pt = unit == "cm" ? value / 2.54 * 72 : unit == "mm" ? value / 25.4 * 72 : unit == "in" ? value * 72 : value;
  if (pt < 72 || pt > 72 * 40)
    throw std::invalid_argument("figure width '" + text + "' is outside 1 to 40 inches");
  return pt;
}

int FigureLayout::pixel_width() const { return int(std::lround(width * dpi / 72)); }
int FigureLayout::pixel_height() const { return int(std::lround(height * dpi / 72)); }

FigureLayout layout_figure(const RgbImage& image, const CaptionResult& caption, const FigureOptions& options) {
  if (image.empty()) throw std::invalid_argument("figure: empty image");
  if (!(options.dpi >= 10 && options.dpi <= 2400)) throw std::invalid_argument("figure: resolution must be 10 to 2400 dpi");
  for (const auto& w : caption.words)
    if (w.alpha.size() != std::size_t(caption.grid_h) * std::size_t(std::max(0, caption.grid_w)))
      throw std::invalid_argument("figure: the attention of '" + w.word + "' has " + std::to_string(w.alpha.size()) +
                                  " values, the grid is " + std::to_string(caption.grid_h) + "x" +
                                  std::to_string(caption.grid_w));
  FigureLayout L;
  L.width = options.width_pt;
  L.image = image;
  L.caption = caption;
  L.style = options.style;
  L.dpi = options.dpi;
  const int n = int(caption.words.size()) + 1;
  const int fit = std::clamp(int(L.width / 80), 2, 8);
  const int cols = std::min(n, options.columns > 0 ? options.columns : fit);
  const int rows = (n + cols - 1) / cols;
  L.panel_w = (L.width - (cols + 1) * kGap) / cols;
  if (L.panel_w < 16)
    throw std::invalid_argument("figure: " + std::to_string(int(L.width)) + " pt is too narrow for " +
                                std::to_string(cols) + " columns");
  L.panel_h = L.panel_w * image.height / image.width;

  const double label_size = std::clamp(L.panel_w / 9, 6.0, 9.0);
  const double sub_size = label_size * 0.8;
  const double label_h = kGap / 2 + kLineSpacing * label_size + (options.show_probability ? kLineSpacing * sub_size : 0);
  L.title = options.title.empty() ? caption.text() : options.title;
  const double title_size = std::min(10.0, label_size * 1.15);
  double y = kGap;
  if (!L.title.empty()) {
    const double ascent = render::measure_text(L.title, title_size, false).ascent;
    for (const auto& line : render::wrap_text(L.title, title_size, false, L.width - 2 * kGap)) {
      L.texts.push_back({line, title_size, false, kInk, L.width / 2, y + ascent, true});
      y += kLineSpacing * title_size;
    }
  }
  const double top = y;
  L.height = top + rows * (L.panel_h + label_h) + rows * kGap;
  const double label_ascent = render::measure_text("Ag", label_size, true).ascent;
  for (int i = 0; i < n; ++i) {
    FigurePanel p;
    p.word = i - 1;
    p.x = kGap + (i % cols) * (L.panel_w + kGap);
    p.y = top + (i / cols) * (L.panel_h + label_h + kGap);
    if (i == 0) {
      p.label = "(image)";
    } else {
      const WordAttention& w = caption.words[std::size_t(i - 1)];
      p.label = w.word;
      if (options.show_probability) p.sublabel = probability_label(w);
    }
    const double cx = p.x + L.panel_w / 2;
    const double baseline = p.y + L.panel_h + kGap / 2 + label_ascent;
    L.texts.push_back({p.label, fitting_size(p.label, label_size, true, L.panel_w), true, kInk, cx, baseline, true});
    if (!p.sublabel.empty())
      L.texts.push_back({p.sublabel, sub_size, false, kGrey, cx, baseline + kLineSpacing * sub_size, true});
    L.panels.push_back(std::move(p));
  }
  return L;
}

std::vector<std::uint8_t> figure_png(const FigureLayout& L) {
  // The resolution matters to the PNG alone: SVG and PDF stay vector graphics at any size.
  if (std::max(L.width, L.height) * L.dpi / 72 > kMaxPixels) {
    throw std::invalid_argument("figure: " + std::to_string(L.pixel_width()) + "x" + std::to_string(L.pixel_height()) +
                                " pixels at " + std::to_string(int(L.dpi)) + " dpi, above the " +
                                std::to_string(int(kMaxPixels)) + " a side of a PNG: lower the resolution or the width");
  }
  render::Surface surface(cairo_image_surface_create(CAIRO_FORMAT_RGB24, L.pixel_width(), L.pixel_height()));
  render::check(surface.get(), "figure");
  render::Context cr(cairo_create(surface.get()));
  cairo_scale(cr.get(), L.dpi / 72, L.dpi / 72);
  draw_figure(cr.get(), L, true);
  render::check(cr.get(), "figure");
  return render::png_bytes(surface.get());
}

std::string figure_svg(const FigureLayout& L) {
  std::string out;
  {
    render::Surface surface(cairo_svg_surface_create_for_stream(append_to_string, &out, L.width, L.height));
    cairo_svg_surface_set_document_unit(surface.get(), CAIRO_SVG_UNIT_PT);
    render::Context cr(cairo_create(surface.get()));
    // cairo's SVG surface writes text as glyph outlines; the labels go in below as <text>
    // instead, so the words stay searchable and editable.
    draw_figure(cr.get(), L, false);
    render::check(cr.get(), "figure");
    cairo_surface_finish(surface.get());
    render::check(surface.get(), "figure");
  }
  const auto end = out.rfind("</svg>");
  if (end == std::string::npos) throw std::runtime_error("figure: cairo wrote no SVG");
  out.insert(end, svg_texts(L));
  return out;
}

std::vector<std::uint8_t> figure_pdf(const FigureLayout& L) {
  std::string out;
  {
    render::Surface surface(cairo_pdf_surface_create_for_stream(append_to_string, &out, L.width, L.height));
    cairo_pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_TITLE, L.title.c_str());
    cairo_pdf_surface_set_metadata(surface.get(), CAIRO_PDF_METADATA_CREATOR, "Fovea");
    render::Context cr(cairo_create(surface.get()));
    draw_figure(cr.get(), L, true);
    render::check(cr.get(), "figure");
    cairo_surface_finish(surface.get());
    render::check(surface.get(), "figure");
  }
  return std::vector<std::uint8_t>(out.begin(), out.end());
}

void write_figure(const std::string& path, const RgbImage& image, const CaptionResult& caption,
                  const FigureOptions& options) {
  const std::string ext = lower_extension(path);
  if (ext != ".png" && ext != ".svg" && ext != ".pdf")
    throw std::invalid_argument(path + ": unsupported figure format '" + ext + "' (expected .png, .svg or .pdf)");
  std::string bytes;
  try {
    const FigureLayout L = layout_figure(image, caption, options);
    if (ext == ".svg") {
      bytes = figure_svg(L);
    } else {
      const auto data = ext == ".png" ? figure_png(L) : figure_pdf(L);
      bytes.assign(data.begin(), data.end());
    }
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(path + ": " + e.what());
  }
  write_file_atomically(path, bytes);
}

RgbImage animation_frame(const RgbImage& image, const CaptionResult& caption, std::size_t index,
                         const OverlayStyle& style, int size) {
  if (image.empty()) throw std::invalid_argument("animation frame: empty image");
  if (index >= caption.words.size()) throw std::out_of_range("animation frame: no word " + std::to_string(index));
  if (size < 16 || size > 8192) throw std::invalid_argument("animation frame: width must be 16 to 8192 pixels");
  const int h = std::max(8, int(std::lround(double(size) * image.height / image.width)));
  double text_size = std::max(10.0, size / 26.0);
  const int band = int(text_size * 2.4);
  // The caption in one line, shrunk to fit; the current word bold and in colour.
  const auto space = [&](double ts) { return render::measure_text(" ", ts, false).width; };
  const auto line_width = [&](double ts) {
    double w = 0;
    for (std::size_t i = 0; i < caption.words.size(); ++i)
      w += render::measure_text(caption.words[i].word, ts, i == index).width + space(ts);
    return w - space(ts);
  };
  double width = line_width(text_size);
  if (width > size - 8) {
    // 4% to spare: drawn on the image surface, hinted glyphs run wider than the measuring layout
    // says (a 448-pixel frame lost its last letters without it).
    text_size *= 0.96 * (size - 8) / width;
    width = line_width(text_size);
  }
  render::Surface surface(cairo_image_surface_create(CAIRO_FORMAT_RGB24, size, h + band));
  render::check(surface.get(), "animation frame");
  render::Context cr(cairo_create(surface.get()));
  cairo_set_source_rgb(cr.get(), 1, 1, 1);
  cairo_paint(cr.get());
  const render::Surface base = render::image_surface(image);
  render::paint_image(cr.get(), base.get(), 0, 0, size, h);
  render::paint_attention(cr.get(), caption.words[index].alpha, caption.grid_h, caption.grid_w, style, 0, 0, size, h);
  const auto highlight = colormap_rgb(Colormap::Inferno, 0.55f);
  double x = std::max(4.0, (size - width) / 2);
  const double baseline = h + band * 0.65;
  for (std::size_t i = 0; i < caption.words.size(); ++i) {
    const bool current = i == index;
    render::draw_text(cr.get(), {caption.words[i].word, text_size, current, current ? highlight : kGrey, x, baseline, false});
    x += render::measure_text(caption.words[i].word, text_size, current).width + space(text_size);
  }
  render::check(cr.get(), "animation frame");
  return render::surface_pixels(surface.get());
}

std::vector<std::string> write_animation_frames(const std::string& dir, const RgbImage& image,
                                                const CaptionResult& caption, const OverlayStyle& style, int size) {
  std::filesystem::create_directories(dir);
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < caption.words.size(); ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "frame_%03zu.png", i);
    const std::string path = (std::filesystem::path(dir) / name).string();
    const auto bytes = encode_png(animation_frame(image, caption, i, style, size));
    write_file_atomically(path, std::string(bytes.begin(), bytes.end()));
    paths.push_back(path);
  }
  // The frames of an earlier, longer caption would play on after this one's: removed (only files
  // named as frames are, from this caption's last on).
  static const std::regex frame_name(R"(frame_([0-9]{3,})\.png)");
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    std::smatch m;
    const auto name = entry.path().filename().string();
    if (std::regex_match(name, m, frame_name) && std::stoull(m[1]) >= caption.words.size()) std::filesystem::remove(entry.path(), ec);
  }
  return paths;
}

}  // namespace fovea
