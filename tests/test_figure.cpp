// Heatmap overlays and exported figures: the heat lands on the attended cell; PNG, SVG and PDF
// hold one panel per word with the words as text, and draw what the GUI's overlay draws.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "core/data/image_io.h"
#include "core/render/figure.h"
#include "core/render/heatmap.h"
#include "core/render/png_encoder.h"
#include "tests/test_support.h"

using namespace fovea;

namespace {

/// A 3-word caption on a 4x4 grid; word i attends (almost) only to cell 5*i.
CaptionResult three_words() {
  CaptionResult c;
  c.grid_h = c.grid_w = 4;
  const char* words[] = {"red", "sneaker", "left"};
  for (int i = 0; i < 3; ++i) {
    WordAttention w;
    w.word = words[i];
    w.alpha.assign(16, 0.01f / 15);
    w.alpha[std::size_t(5 * i)] = 0.99f;
    w.log_prob = std::log(0.5f);
    c.words.push_back(w);
  }
  return c;
}

RgbImage grey(int w, int h) { return RgbImage(w, h, 128); }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

}  // namespace

TEST(Heatmap, TheHeatLandsOnTheAttendedCell) {
  OverlayStyle style;
  style.colormap = Colormap::Viridis;
  style.opacity = 1.0f;
  style.smooth = false;
  const auto c = three_words();
  const auto out = render_overlay(grey(64, 64), c.words[1].alpha, 4, 4, style);  // word 1 attends cell 5 = (row 1, col 1)
  const auto top = colormap_rgb(style.colormap, 1.0f), bottom = colormap_rgb(style.colormap, 0.0f);
  for (int ch = 0; ch < 3; ++ch) {
    EXPECT_NEAR(out.at(24, 24)[ch], top[ch], 2) << "centre of the attended cell";
    EXPECT_NEAR(out.at(56, 56)[ch], bottom[ch], 3) << "far cell";
  }
  style.opacity = 0;
  const auto plain = render_overlay(grey(64, 64), c.words[1].alpha, 4, 4, style);
  EXPECT_EQ(plain.pixels, grey(64, 64).pixels) << "opacity 0 leaves the image as it was";
}

TEST(Heatmap, TheDefaultSpotlightKeepsTheAttendedColoursAndDarkensTheRest) {
  const auto c = three_words();
  RgbImage red(64, 64);
  for (int i = 0; i < 64 * 64; ++i) red.pixels[std::size_t(3 * i)] = 200, red.pixels[std::size_t(3 * i + 1)] = 40, red.pixels[std::size_t(3 * i + 2)] = 30;
  OverlayStyle style;  // the default
  ASSERT_EQ(style.colormap, Colormap::Spotlight);
  style.smooth = false;
  const auto out = render_overlay(red, c.words[1].alpha, 4, 4, style);  // word 1 attends cell 5 = (row 1, col 1)
  const auto* attended = out.at(24, 24);
  EXPECT_NEAR(attended[0], 200, 1);  // its own colour, not a colormap's
  EXPECT_NEAR(attended[1], 40, 1);
  EXPECT_NEAR(attended[2], 30, 1);
  const auto* far = out.at(56, 56);
  EXPECT_NEAR(far[0], 200 * (1 - style.opacity), 2);  // darkened, still red
  EXPECT_GT(far[0], 3 * far[1]);
  EXPECT_EQ(parse_colormap("spotlight"), Colormap::Spotlight);
}

TEST(Heatmap, SmoothUpsamplingPeaksAtTheCellCentreAndRejectsAMismatchedGrid) {
  OverlayStyle style;
  style.opacity = 1.0f;
  style.colormap = Colormap::Gray;
  const auto c = three_words();
  const auto out = render_overlay(grey(64, 64), c.words[0].alpha, 4, 4, style);  // cell 0
  EXPECT_GT(out.at(8, 8)[0], out.at(16, 16)[0]);
  EXPECT_GT(out.at(16, 16)[0], out.at(30, 30)[0]);
  EXPECT_THROW(render_overlay(grey(64, 64), c.words[0].alpha, 3, 3, style), std::invalid_argument);
  EXPECT_THROW(parse_colormap("rainbow"), std::invalid_argument);
}

TEST(Figure, LayoutHasTheImageThenOnePanelPerWordWithinTheChosenWidth) {
  const auto L = layout_figure(grey(100, 50), three_words());
  ASSERT_EQ(L.panels.size(), 4u);
  EXPECT_EQ(L.panels[0].word, -1);
  EXPECT_EQ(L.panels[1].label, "red");
  EXPECT_EQ(L.panels[3].label, "left");
  EXPECT_EQ(L.panels[1].sublabel, "p=0.50");
  EXPECT_NEAR(L.panel_h, L.panel_w / 2, 1e-9) << "panels keep the image's aspect ratio";
  EXPECT_EQ(L.title, "red sneaker left");
  EXPECT_NEAR(L.width, kDoubleColumnPt, 1e-9) << "the default is a paper's full text width";
  for (const auto& p : L.panels) EXPECT_LE(p.x + L.panel_w, L.width) << p.label;
  for (const auto& t : L.texts) EXPECT_LE(t.baseline, L.height) << t.text;

  FigureOptions narrow;
  narrow.width_pt = parse_figure_width("column");
  const auto N = layout_figure(grey(100, 50), three_words(), narrow);
  EXPECT_NEAR(N.width, 8.5 / 2.54 * 72, 0.01);
  EXPECT_LT(N.panels[2].y, N.panels[3].y) << "a single column wraps the four panels into rows";
  EXPECT_NEAR(parse_figure_width("12cm"), 12 / 2.54 * 72, 1e-9);
  EXPECT_NEAR(parse_figure_width("90mm"), 9 / 2.54 * 72, 1e-9);
  EXPECT_NEAR(parse_figure_width("5in"), 360, 1e-9);
  EXPECT_NEAR(parse_figure_width("400pt"), 400, 1e-9);
  EXPECT_NE(test::error_message([] { parse_figure_width("14"); }).find("12cm"), std::string::npos) << "says what it takes";
  EXPECT_THROW(parse_figure_width("0.1cm"), std::invalid_argument);
  FigureOptions tight;
  tight.width_pt = 80;
  tight.columns = 8;
  EXPECT_THROW(layout_figure(grey(10, 10), three_words(), tight), std::invalid_argument);
}

TEST(Figure, PngSvgAndPdfShowTheSameWordsAsText) {
  if (!image_io_available()) GTEST_SKIP() << "built without OpenCV";
  test::TempDir dir("figure");
  const auto c = three_words();
  FigureOptions o;
  o.dpi = 150;
  write_figure(dir / "f.png", grey(80, 80), c, o);
  write_figure(dir / "f.svg", grey(80, 80), c, o);
  write_figure(dir / "f.pdf", grey(80, 80), c, o);
  const auto L = layout_figure(grey(80, 80), c, o);
  const RgbImage png = read_image(dir / "f.png");
  EXPECT_EQ(png.width, int(std::lround(kDoubleColumnPt * 150 / 72))) << "the width at the chosen resolution";
  EXPECT_EQ(png.height, L.pixel_height());

  // SVG: the labels are <text> nodes, one per panel in bold.
  const std::string svg = slurp(dir / "f.svg");
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_EQ(count(svg, "font-weight=\"bold\""), 4);
  for (const char* w : {">red</text>", ">sneaker</text>", ">left</text>", ">(image)</text>"})
    EXPECT_NE(svg.find(w), std::string::npos) << w;

  // PDF: the words come back out as text, in an embedded font.
  const std::string pdf = slurp(dir / "f.pdf");
  EXPECT_EQ(pdf.rfind("%PDF-", 0), 0u);
  EXPECT_NE(pdf.find("/FontFile"), std::string::npos) << "the font is embedded";
  EXPECT_NE(pdf.find("DejaVuSans"), std::string::npos);
  EXPECT_NE(pdf.find("/ShadingType"), std::string::npos) << "smooth attention is vector shading";
  if (std::system("command -v pdftotext > /dev/null") == 0) {
    ASSERT_EQ(std::system(("pdftotext -layout " + (dir / "f.pdf") + " " + (dir / "f.txt")).c_str()), 0);
    const std::string text = slurp(dir / "f.txt");
    for (const char* w : {"red", "sneaker", "left", "(image)", "p=0.50"}) EXPECT_NE(text.find(w), std::string::npos) << w;
  }

  EXPECT_NE(test::error_message([&] { write_figure(dir / "f.gif", grey(8, 8), c); }).find("f.gif"), std::string::npos);
}

TEST(Figure, TheResolutionLimitsThePngAloneAndItsErrorNamesTheFile) {
  test::TempDir dir("figure-large");
  FigureOptions poster;
  poster.width_pt = parse_figure_width("40in");
  poster.dpi = 2400;  // 96000 pixels wide
  const auto message = test::error_message([&] { write_figure(dir / "poster.png", grey(80, 80), three_words(), poster); });
  EXPECT_EQ(message.rfind(dir / "poster.png: figure: 96000x", 0), 0u) << message;
  EXPECT_NE(message.find("lower the resolution or the width"), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(dir / "poster.png"));
  write_figure(dir / "poster.svg", grey(80, 80), three_words(), poster);
  write_figure(dir / "poster.pdf", grey(80, 80), three_words(), poster);
  EXPECT_EQ(slurp(dir / "poster.pdf").rfind("%PDF-", 0), 0u);
  EXPECT_NE(slurp(dir / "poster.svg").find(">sneaker</text>"), std::string::npos);
}

TEST(Figure, PanelsPaintWhatTheOverlayPaints) {
  // The figure's attention (cairo) and the GUI's overlay (render_overlay) agree pixel for pixel,
  // up to rounding, for the smooth and the blocky style: frames are the panel at a known size.
  RgbImage photo(64, 64);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) photo.at(x, y)[0] = std::uint8_t(3 * x), photo.at(x, y)[1] = std::uint8_t(3 * y), photo.at(x, y)[2] = 90;
  const auto c = three_words();
  for (const Colormap map : {Colormap::Spotlight, Colormap::Viridis}) {
    for (const bool smooth : {true, false}) {
      OverlayStyle style;
      style.colormap = map;
      style.smooth = smooth;
      const RgbImage frame = animation_frame(photo, c, 1, style, 64);
      const RgbImage overlay = render_overlay(photo, c.words[1].alpha, 4, 4, style);
      double diff = 0;
      for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 64; ++x)
          for (int ch = 0; ch < 3; ++ch) diff += std::abs(int(frame.at(x, y)[ch]) - int(overlay.at(x, y)[ch]));
      EXPECT_LT(diff / (64 * 64 * 3), 3.0) << to_string(map) << (smooth ? " smooth" : " blocky");
    }
  }
}

TEST(Figure, AnimationFramesOnePerWord) {
  if (!image_io_available()) GTEST_SKIP() << "built without OpenCV";
  test::TempDir dir("frames");
  const auto paths = write_animation_frames(dir / "frames", grey(40, 40), three_words(), {}, 120);
  ASSERT_EQ(paths.size(), 3u);
  const auto f1 = read_image(paths[1]);
  EXPECT_EQ(f1.width, 120);
  EXPECT_GT(f1.height, 120) << "the caption band below the image";
  EXPECT_NE(read_image(paths[0]).pixels, f1.pixels) << "each frame shows its own word's attention";
}

TEST(Figure, AnotherExportIntoTheFramesFolderLeavesOnlyItsOwnFrames) {
  if (!image_io_available()) GTEST_SKIP() << "built without OpenCV";
  test::TempDir dir("frames-again");
  write_animation_frames(dir / "frames", grey(40, 40), three_words(), {}, 60);
  std::ofstream(dir / "frames/notes.txt") << "the user's own file";
  auto two = three_words();
  two.words.pop_back();
  const auto paths = write_animation_frames(dir / "frames", grey(40, 40), two, {}, 60);
  ASSERT_EQ(paths.size(), 2u);
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir / "frames")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"frame_000.png", "frame_001.png", "notes.txt"})) << "a frame of the earlier caption left";
}

TEST(PngEncoder, RoundTripsThroughADecoder) {
  if (!image_io_available()) GTEST_SKIP() << "built without OpenCV";
  test::TempDir dir("png");
  RgbImage img(7, 5);
  for (std::size_t i = 0; i < img.pixels.size(); ++i) img.pixels[i] = std::uint8_t(i * 37);
  const auto bytes = encode_png(img);
  std::ofstream(dir / "x.png", std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  EXPECT_EQ(read_image(dir / "x.png").pixels, img.pixels);
}
