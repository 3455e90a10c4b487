// The self-contained web page of a caption (core/render/web_page.h): everything inline, every
// word's alpha in its data, text that cannot break out of the page's markup or script.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/render/web_page.h"

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

}  // namespace

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
