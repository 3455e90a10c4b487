// The self-contained web page of a caption (core/render/web_page.h): everything inline, every
// word's alpha in its data, text that cannot break out of the page's markup or script.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "core/data/image_io.h"
#include "core/io/model_name.h"
#include "core/render/gallery_page.h"
#include "core/render/web_page.h"
#include "tests/test_support.h"

using namespace fovea;

namespace {

CaptionResult two_words() {
  CaptionResult c;
  c.grid_h = 2, c.grid_w = 2;
  WordAttention a;
  a.word = "red";
  a.alpha = {0.7f, 0.1f, 0.1f, 0.1f};
  a.log_prob = -0.1f;
  WordAttention b;
  b.word = "</script><b>bag";
  b.alpha = {0.1f, 0.1f, 0.1f, 0.7f};
  c.words = {a, b};
  return c;
}

std::string between(const std::string& text, const std::string& from, const std::string& to) {
  const auto a = text.find(from);
  if (a == std::string::npos) return {};
  const auto b = text.find(to, a + from.size());
  return text.substr(a + from.size(), b - a - from.size());
}

std::vector<unsigned char> from_base64(const std::string& text) {
  const std::string abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::vector<unsigned char> out;
  unsigned bits = 0;
  int n = 0;
  for (char ch : text) {
    const auto v = abc.find(ch);
    if (v == std::string::npos) break;  // '=' padding
    bits = (bits << 6) | unsigned(v);
    if ((n += 6) >= 8) out.push_back(static_cast<unsigned char>((bits >> (n -= 8)) & 0xFF));
  }
  return out;
}

}  // namespace

TEST(WebPage, APhotoIsShrunkAndCompressedOnThePage) {
  // A 3000x2000 photo-like image (texture PNG cannot squeeze): the page holds it at 1024 px on its
  // longer side as a JPEG, a few hundred KB, where the full-size PNG made pages of megabytes.
  if (encode_jpeg(RgbImage(8, 8)).empty()) GTEST_SKIP() << "built without OpenCV: no JPEG encoder";
  RgbImage photo(3000, 2000);
  std::uint32_t state = 12345;
  for (int y = 0; y < photo.height; ++y)
    for (int x = 0; x < photo.width; ++x)
      for (int c = 0; c < 3; ++c) {
        state = state * 1664525u + 1013904223u;
        photo.at(x, y)[c] = static_cast<std::uint8_t>((x / 12 + y / 9) * (c + 1) % 200 + (state >> 28));
      }
  const auto html = web_page(photo, two_words());
  EXPECT_LT(html.size(), 1024u * 1024u);
  const auto jpeg = from_base64(between(html, "src=\"data:image/jpeg;base64,", "\""));
  ASSERT_GT(jpeg.size(), 100u) << "the photo is not a JPEG on the page";
  int width = 0, height = 0;  // from the JPEG's baseline frame header (FF C0: length, precision, height, width)
  for (std::size_t i = 0; i + 8 < jpeg.size(); ++i) {
    if (jpeg[i] == 0xFF && jpeg[i + 1] == 0xC0) {
      height = jpeg[i + 5] << 8 | jpeg[i + 6];
      width = jpeg[i + 7] << 8 | jpeg[i + 8];
      break;
    }
  }
  EXPECT_EQ(width, 1024);
  EXPECT_EQ(height, 683);
}

TEST(WebPage, HoldsTheImageAndEveryWordsAlphaInline) {
  RgbImage image(8, 6, 120);
  WebPageOptions options;
  options.references = {"a red bag", "a bag & a <hat>"};
  const auto html = web_page(image, two_words(), options);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_NE(html.find("src=\"data:image/png;base64,iVBORw0KGgo"), std::string::npos);  // a PNG's signature
  const auto data = nlohmann::json::parse(between(html, "<script type=\"application/json\" id=\"fovea-data\">", "</script>"));
  ASSERT_EQ(data["words"].size(), 2u);
  EXPECT_EQ(data["words"][1]["word"], "</script><b>bag");  // intact in the data ...
  EXPECT_EQ(html.find("</script><b>bag"), std::string::npos);  // ... and no way out of the script
  EXPECT_NEAR(data["words"][0]["alpha"][0].get<double>(), 0.7, 1e-4);
  EXPECT_EQ(data["grid"], nlohmann::json({2, 2}));
  EXPECT_NE(html.find("<li>a bag &amp; a &lt;hat&gt;</li>"), std::string::npos);
}

TEST(WebPage, RefusesAlphaThatDoesNotFitItsGrid) {
  auto caption = two_words();
  caption.words[0].alpha.pop_back();
  EXPECT_THROW(web_page(RgbImage(4, 4), caption), std::invalid_argument);
  EXPECT_THROW(web_page(RgbImage(), two_words()), std::invalid_argument);
}

namespace {

/// Words that break a page whose JSON escapes only "</": "<!--" then "<script" makes the HTML
/// parser read the data block on into the page's own script ("script data double escaped").
CaptionResult hostile_words() {
  auto c = two_words();
  c.words[0].word = "<!-- c";
  c.words[1].word = "<script>x & y\u2028z\u2029";
  return c;
}

std::string data_block(const std::string& html) {
  return between(html, "<script type=\"application/json\" id=\"fovea-data\">", "</script>");
}

/// What headless Chromium's DOM holds once the page's script ran, or "" without Chromium.
std::string rendered(const std::string& html, const test::TempDir& dir) {
  if (std::system("command -v chromium > /dev/null 2>&1") != 0) return {};
  const auto page = dir / "page.html";
  std::ofstream(page) << html;
  const std::string command = "timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run "
                              "--disable-background-networking --disable-component-update --disable-sync --user-data-dir=" +
                              (dir / "profile") + " --virtual-time-budget=5000 --dump-dom file://" + page + " 2>/dev/null";
  std::string dom;
  if (FILE* out = popen(command.c_str(), "r")) {
    char buffer[4096];
    while (const auto got = std::fread(buffer, 1, sizeof buffer, out)) dom.append(buffer, got);
    pclose(out);
  }
  return dom;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(WebPage, MarkupInTheDataCannotTurnThePageIntoScript) {
  // Every page kind embeds its data through the same escaping: the single page (and the notebook's
  // view of it) and the gallery, alone or comparing two models.
  RgbImage image(8, 6, 120);
  GalleryEntry entry{"x<!--<script>.png", image, {hostile_words(), hostile_words()}, {"<!-- c", "<script>x"}};
  GalleryOptions two;
  two.models = {"a<!--", "<script>b"};
  const std::vector<std::string> pages = {web_page(image, hostile_words()), gallery_page({entry}, two)};
  for (const auto& html : pages) {
    const auto block = data_block(html);
    ASSERT_FALSE(block.empty());
    for (const std::string bad : {"<", ">", "&", "\u2028", "\u2029"})
      EXPECT_EQ(block.find(bad), std::string::npos) << "\"" << bad << "\" raw in: " << block;
  }
  const auto single = nlohmann::json::parse(data_block(pages[0]));  // the escapes read back as the words
  EXPECT_EQ(single["words"][0]["word"], "<!-- c");
  EXPECT_EQ(single["words"][1]["word"], "<script>x & y\u2028z\u2029");
  const auto gallery = nlohmann::json::parse(data_block(pages[1]));
  EXPECT_EQ(gallery["items"][0]["name"], "x<!--<script>.png");
  EXPECT_EQ(gallery["items"][0]["refs"], nlohmann::json({"<!-- c", "<script>x"}));
  EXPECT_EQ(gallery["models"][1], "<script>b");

  // In a browser the page's script runs: the single page shows both words as chips.
  test::TempDir dir("web-page-markup");
  const auto dom = rendered(pages[0], dir);
  if (dom.empty()) GTEST_SKIP() << "no chromium: the page was not opened in a browser";
  const auto chips = between(dom, "<div id=\"fovea-chips\" class=\"chips\">", "</div>");
  EXPECT_EQ(count(chips, "<button"), 2u) << dom;
  EXPECT_NE(chips.find("&lt;!-- c"), std::string::npos) << chips;
}

TEST(WebPage, SaysWhatBetaIsOnlyWhereTheModelHasTheGate) {
  CaptionResult gated = two_words();
  CaptionResult plain = two_words();
  plain.beta_gated = false;
  const RgbImage image(8, 8);
  const std::string explained = "the gate, how much of the image";
  EXPECT_NE(web_page(image, gated).find(explained), std::string::npos);
  EXPECT_EQ(web_page(image, plain).find(explained), std::string::npos);
  GalleryEntry entry{"a.png", image, {plain}, {}};
  GalleryOptions options;
  options.models = {"m"};
  EXPECT_EQ(gallery_page({entry}, options).find(explained), std::string::npos);
  entry.captions = {gated};
  EXPECT_NE(gallery_page({entry}, options).find(explained), std::string::npos);
}

TEST(WebPage, ARunsModelIsCalledByItsRun) {
  EXPECT_EQ(model_display_name("runs/scenes-soft/best.ckpt"), "scenes-soft");
  EXPECT_EQ(model_display_name("/data/runs/x/./best.ckpt"), "x");
  EXPECT_EQ(model_display_name("models/fashion-soft.ckpt"), "fashion-soft.ckpt");
}
