#include "core/render/figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "core/io/atomic_file.h"
#include "core/render/png_encoder.h"
#include "core/render/text_raster.h"

namespace fovea {
namespace {

constexpr std::array<std::uint8_t, 3> kInk = {20, 20, 20};
constexpr std::array<std::uint8_t, 3> kGrey = {110, 110, 110};

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext;
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Helvetica advance widths (1/1000 em) for ASCII 32..126, from the standard AFM metrics.
constexpr short kHelvetica[95] = {
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556,
    556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778,
    722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278,
    278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584};

double helvetica_width(const std::string& s, double size) {
  double w = 0;
  for (unsigned char c : s) w += (c >= 32 && c < 127) ? kHelvetica[c - 32] : 556;
  return w * size / 1000.0;
}

std::string pdf_string(const std::string& s) {
  std::string out = "(";
  for (unsigned char c : s) {
    if (c == '(' || c == ')' || c == '\\') out += '\\';
    out += (c >= 32 && c < 127) ? char(c) : '?';
  }
  return out + ")";
}

std::string probability_label(const WordAttention& w) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "p=%.2f", std::exp(w.log_prob));
  return buf;
}

}  // namespace

FigureLayout layout_figure(const RgbImage& image, const CaptionResult& caption, const FigureOptions& options) {
  if (image.empty()) throw std::invalid_argument("figure: empty image");
  if (options.panel < 16) throw std::invalid_argument("figure: panel size must be at least 16");
  FigureLayout L;
  L.panel_w = options.panel;
  L.panel_h = std::max(8, int(std::lround(double(options.panel) * image.height / image.width)));
  const float label_size = std::max(9.0f, options.panel / 11.0f);
  L.label_h = int(label_size * (options.show_probability ? 2.9f : 1.8f));
  L.title = options.title.empty() ? caption.text() : options.title;
  L.title_h = L.title.empty() ? 0 : int(label_size * 2.4f);
  const int n = int(caption.words.size()) + 1;
  const int cols = options.columns > 0 ? options.columns : std::min(n, 6);
  const int rows = (n + cols - 1) / cols;
  const int gap = std::max(4, options.panel / 20);
  L.width = cols * L.panel_w + (cols + 1) * gap;
  L.height = L.title_h + rows * (L.panel_h + L.label_h) + (rows + 1) * gap;
  const RgbImage base = resize_bilinear(image, L.panel_w, L.panel_h);
  for (int i = 0; i < n; ++i) {
    FigurePanel p;
    p.x = gap + (i % cols) * (L.panel_w + gap);
    p.y = L.title_h + gap + (i / cols) * (L.panel_h + L.label_h + gap);
    if (i == 0) {
      p.image = base;
      p.label = "(image)";
    } else {
      const WordAttention& w = caption.words[i - 1];
      p.image = render_overlay(base, w.alpha, caption.grid_h, caption.grid_w, options.style);
      p.label = w.word;
      if (options.show_probability) p.sublabel = probability_label(w);
    }
    L.panels.push_back(std::move(p));
  }
  return L;
}

RgbImage figure_raster(const FigureLayout& L) {
  RgbImage out(L.width, L.height, 255);
  const float label_size = L.label_h / (L.panels.size() > 1 && !L.panels[1].sublabel.empty() ? 2.9f : 1.8f);
  if (L.title_h > 0) {
    float size = label_size * 1.1f;
    while (size > 6 && text_width(L.title, size) > L.width - 8) size *= 0.9f;
    draw_text(out, L.title, L.width / 2, int(L.title_h * 0.7f), size, kInk, true);
  }
  for (const auto& p : L.panels) {
    for (int y = 0; y < p.image.height; ++y)
      std::copy_n(p.image.at(0, y), std::size_t(p.image.width) * 3, out.at(p.x, p.y + y));
    const int cx = p.x + L.panel_w / 2;
    const int base = p.y + L.panel_h + int(label_size * 1.4f);
    draw_text(out, p.label, cx, base, label_size, kInk, true, true);
    if (!p.sublabel.empty())
      draw_text(out, p.sublabel, cx, base + int(label_size * 1.3f), label_size * 0.8f, kGrey, true);
  }
  return out;
}

std::string figure_svg(const FigureLayout& L) {
  const float label_size = L.label_h / (L.panels.size() > 1 && !L.panels[1].sublabel.empty() ? 2.9f : 1.8f);
  std::ostringstream s;
  s << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"" << L.width
    << "\" height=\"" << L.height << "\" viewBox=\"0 0 " << L.width << " " << L.height << "\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<g font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" text-anchor=\"middle\">\n";
  if (L.title_h > 0)
    s << "<text x=\"" << L.width / 2 << "\" y=\"" << int(L.title_h * 0.7f) << "\" font-size=\"" << label_size * 1.1f
      << "\" fill=\"#141414\">" << xml_escape(L.title) << "</text>\n";
  for (const auto& p : L.panels) {
    s << "<image x=\"" << p.x << "\" y=\"" << p.y << "\" width=\"" << L.panel_w << "\" height=\"" << L.panel_h
      << "\" preserveAspectRatio=\"none\" xlink:href=\"data:image/png;base64," << base64(encode_png(p.image))
      << "\"/>\n";
    const int cx = p.x + L.panel_w / 2;
    const int base = p.y + L.panel_h + int(label_size * 1.4f);
    s << "<text class=\"word\" x=\"" << cx << "\" y=\"" << base << "\" font-size=\"" << label_size
      << "\" font-weight=\"bold\" fill=\"#141414\">" << xml_escape(p.label) << "</text>\n";
    if (!p.sublabel.empty())
      s << "<text x=\"" << cx << "\" y=\"" << base + int(label_size * 1.3f) << "\" font-size=\"" << label_size * 0.8f
        << "\" fill=\"#6e6e6e\">" << xml_escape(p.sublabel) << "</text>\n";
  }
  s << "</g>\n</svg>\n";
  return s.str();
}

std::vector<std::uint8_t> figure_pdf(const FigureLayout& L) {
  const float label_size = L.label_h / (L.panels.size() > 1 && !L.panels[1].sublabel.empty() ? 2.9f : 1.8f);
  const double H = L.height;
  std::vector<std::string> objects;  // objects[k] is object k+1's body (without "k 0 obj")
  std::vector<std::vector<std::uint8_t>> streams;  // binary stream per object (empty: none)
  auto add = [&](std::string body, std::vector<std::uint8_t> stream = {}) {
    objects.push_back(std::move(body));
    streams.push_back(std::move(stream));
    return int(objects.size());
  };
  add("<< /Type /Catalog /Pages 2 0 R >>");
  add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
  add("");  // the page, filled in below
  add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
  add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>");
  std::ostringstream xobjects, content;
  content << "1 1 1 rg 0 0 " << L.width << " " << L.height << " re f\n";
  auto text = [&](const std::string& t, double cx, double baseline, double size, const char* font, double grey) {
    content << grey << " g BT /" << font << " " << size << " Tf " << cx - helvetica_width(t, size) / 2 << " "
            << H - baseline << " Td " << pdf_string(t) << " Tj ET\n";
  };
  if (L.title_h > 0) text(L.title, L.width / 2.0, L.title_h * 0.7, label_size * 1.1, "F1", 0.08);
  for (std::size_t i = 0; i < L.panels.size(); ++i) {
    const auto& p = L.panels[i];
    auto data = deflate_bytes(p.image.pixels.data(), p.image.pixels.size());
    std::ostringstream dict;
    dict << "<< /Type /XObject /Subtype /Image /Width " << p.image.width << " /Height " << p.image.height
         << " /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode /Length " << data.size() << " >>";
    const int id = add(dict.str(), std::move(data));
    xobjects << "/Im" << i << " " << id << " 0 R ";
    content << "q " << L.panel_w << " 0 0 " << L.panel_h << " " << p.x << " " << H - p.y - L.panel_h << " cm /Im" << i
            << " Do Q\n";
    const double cx = p.x + L.panel_w / 2.0;
    const double base = p.y + L.panel_h + label_size * 1.4;
    text(p.label, cx, base, label_size, "F2", 0.08);
    if (!p.sublabel.empty()) text(p.sublabel, cx, base + label_size * 1.3, label_size * 0.8, "F1", 0.43);
  }
  const std::string c = content.str();
  const int content_id = add("<< /Length " + std::to_string(c.size()) + " >>", std::vector<std::uint8_t>(c.begin(), c.end()));
  std::ostringstream page;
  page << "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 " << L.width << " " << L.height
       << "] /Resources << /Font << /F1 4 0 R /F2 5 0 R >> /XObject << " << xobjects.str() << ">> >> /Contents "
       << content_id << " 0 R >>";
  objects[2] = page.str();

  std::vector<std::uint8_t> out;
  auto put = [&](const std::string& s) { out.insert(out.end(), s.begin(), s.end()); };
  put("%PDF-1.4\n%\xE2\xE3\xCF\xD3\n");
  std::vector<std::size_t> offsets;
  for (std::size_t k = 0; k < objects.size(); ++k) {
    offsets.push_back(out.size());
    put(std::to_string(k + 1) + " 0 obj\n" + objects[k] + "\n");
    if (!streams[k].empty()) {
      put("stream\n");
      out.insert(out.end(), streams[k].begin(), streams[k].end());
      put("\nendstream\n");
    }
    put("endobj\n");
  }
  const std::size_t xref = out.size();
  put("xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n");
  for (std::size_t off : offsets) {
    char line[24];
    std::snprintf(line, sizeof line, "%010zu 00000 n \n", off);
    put(line);
  }
  put("trailer\n<< /Size " + std::to_string(objects.size() + 1) + " /Root 1 0 R >>\nstartxref\n" +
      std::to_string(xref) + "\n%%EOF\n");
  return out;
}

void write_figure(const std::string& path, const RgbImage& image, const CaptionResult& caption,
                  const FigureOptions& options) {
  const std::string ext = lower_extension(path);
  if (ext != ".png" && ext != ".svg" && ext != ".pdf")
    throw std::invalid_argument(path + ": unsupported figure format '" + ext + "' (expected .png, .svg or .pdf)");
  const FigureLayout L = layout_figure(image, caption, options);
  if (ext == ".png") {
    const auto bytes = encode_png(figure_raster(L));
    write_file_atomically(path, std::string(bytes.begin(), bytes.end()));
  } else if (ext == ".svg") {
    write_file_atomically(path, figure_svg(L));
  } else {
    const auto bytes = figure_pdf(L);
    write_file_atomically(path, std::string(bytes.begin(), bytes.end()));
  }
}

RgbImage animation_frame(const RgbImage& image, const CaptionResult& caption, std::size_t index,
                         const OverlayStyle& style, int size) {
  if (image.empty()) throw std::invalid_argument("animation frame: empty image");
  if (index >= caption.words.size()) throw std::out_of_range("animation frame: no word " + std::to_string(index));
  const int h = std::max(8, int(std::lround(double(size) * image.height / image.width)));
  const RgbImage overlay =
      render_overlay(resize_bilinear(image, size, h), caption.words[index].alpha, caption.grid_h, caption.grid_w, style);
  float text_size = std::max(10.0f, size / 26.0f);
  const int band = int(text_size * 2.4f);
  RgbImage out(size, h + band, 255);
  for (int y = 0; y < h; ++y) std::copy_n(overlay.at(0, y), std::size_t(size) * 3, out.at(0, y));
  // The caption in one line, shrunk to fit; the current word bold and in colour.
  auto line_width = [&](float ts) {
    int w = 0;
    for (std::size_t i = 0; i < caption.words.size(); ++i)
      w += text_width(caption.words[i].word, ts, i == index) + text_width(" ", ts);
    return w;
  };
  while (text_size > 6 && line_width(text_size) > size - 8) text_size *= 0.9f;
  int x = std::max(4, (size - line_width(text_size)) / 2);
  const int baseline = h + int(band * 0.65f);
  const auto highlight = colormap_rgb(Colormap::Inferno, 0.55f);
  for (std::size_t i = 0; i < caption.words.size(); ++i) {
    const bool current = i == index;
    draw_text(out, caption.words[i].word, x, baseline, text_size, current ? highlight : kGrey, false, current);
    x += text_width(caption.words[i].word, text_size, current) + text_width(" ", text_size);
  }
  return out;
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
  return paths;
}

}  // namespace fovea
