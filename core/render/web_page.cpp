#include "core/render/web_page.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <stdexcept>

#include "core/data/image_io.h"
#include "core/data/image_tensor.h"
#include "core/io/atomic_file.h"
#include "core/render/markup.h"
#include "core/render/page_pieces.h"
#include "core/render/png_encoder.h"

namespace fovea {

namespace {

/// The page's data as JSON, safe inside a <script> element (markup.h's script_safe).
std::string page_data(const CaptionResult& caption) {
  nlohmann::json words = nlohmann::json::array();
  for (const auto& w : caption.words) {
    std::vector<double> alpha;  // three digits are more than a screen shows
    for (const float a : w.alpha) alpha.push_back(std::round(double(a) * 1e4) / 1e4);
    words.push_back({{"word", w.word}, {"p", std::exp(double(w.log_prob))}, {"beta", w.beta}, {"alpha", alpha}});
  }
  return script_safe(nlohmann::json({{"grid", {caption.grid_h, caption.grid_w}},
                                     {"beta_gated", caption.beta_gated},
                                     {"words", words}})
                         .dump());
}

// The page's behaviour: draws the image and the current word's α over it (bilinear, as the
// figures do), the chips, playing, and the overlay style. Plain JavaScript, no library.
constexpr const char* kScript = R"JS(
const data = JSON.parse(document.getElementById('fovea-data').textContent);
const img = document.getElementById('fovea-image');
const canvas = document.getElementById('fovea-view');
const chips = document.getElementById('fovea-chips');
const styleChoice = document.getElementById('fovea-style');
const playButton = document.getElementById('fovea-play');
let current = -1, selected = -1;
const [gh, gw] = data.grid;
function alphaAt(a, x, y) {  // bilinear, cell centres at (i + 0.5) / n
  const fx = Math.min(Math.max(x * gw - 0.5, 0), gw - 1), fy = Math.min(Math.max(y * gh - 0.5, 0), gh - 1);
  const x0 = Math.floor(fx), y0 = Math.floor(fy), x1 = Math.min(x0 + 1, gw - 1), y1 = Math.min(y0 + 1, gh - 1);
  const tx = fx - x0, ty = fy - y0;
  const top = a[y0 * gw + x0] * (1 - tx) + a[y0 * gw + x1] * tx;
  const bottom = a[y1 * gw + x0] * (1 - tx) + a[y1 * gw + x1] * tx;
  return top * (1 - ty) + bottom * ty;
}
function draw() {
  const ctx = canvas.getContext('2d');
  canvas.width = img.naturalWidth;
  canvas.height = img.naturalHeight;
  ctx.drawImage(img, 0, 0);
  canvas.dataset.word = current;
  if (current < 0) return;
  const a = data.words[current].alpha, peak = Math.max(...a) || 1;
  const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height), p = pixels.data;
  const spotlight = styleChoice.value === 'spotlight';
  for (let y = 0; y < canvas.height; ++y) {
    for (let x = 0; x < canvas.width; ++x) {
      const t = alphaAt(a, (x + 0.5) / canvas.width, (y + 0.5) / canvas.height) / peak, o = 4 * (y * canvas.width + x);
      if (spotlight) {
        const k = 0.2 + 0.8 * t;
        p[o] *= k; p[o + 1] *= k; p[o + 2] *= k;
      } else {
        const c = heat(t);
        for (let k = 0; k < 3; ++k) p[o + k] = 0.4 * p[o + k] + 0.6 * c[k];
      }
    }
  }
  ctx.putImageData(pixels, 0, 0);
  let ink = 0;  // what the overlay left on the picture, for tools that check the page
  for (let o = 0; o < p.length; o += 4) ink += p[o] + p[o + 1] + p[o + 2];
  canvas.dataset.ink = ink;
}
function show(i) {
  current = i;
  chips.querySelectorAll('button').forEach((b, k) => b.classList.toggle('current', k === i));
  document.getElementById('fovea-word').textContent = i < 0 ? '' :
    'word ' + (i + 1) + ': ' + data.words[i].word + ' \u00b7 p ' + data.words[i].p.toFixed(2) +
    (data.beta_gated ? ' \u00b7 \u03b2 ' + data.words[i].beta.toFixed(2) : '');
  draw();
}
data.words.forEach((w, i) => {
  const b = chip(w.word, w.p, w.beta, data.beta_gated);
  b.addEventListener('mouseenter', () => show(i));           // hover previews the word
  b.addEventListener('mouseleave', () => show(selected));    // leaving shows the chosen one again
  b.addEventListener('click', () => { playing.stop(); selected = i; show(i); });
  chips.appendChild(b);
});
const playing = player(playButton, () => { selected = (selected + 1) % data.words.length; show(selected); });
styleChoice.addEventListener('change', draw);
// A link may name the word to show first: page.html#word=3 (counting from 1).
const asked = parseInt((location.hash.match(/word=(\d+)/) || [])[1] || '1', 10) - 1;
selected = data.words.length ? Math.min(Math.max(asked, 0), data.words.length - 1) : -1;
if (img.complete) show(selected); else img.addEventListener('load', () => show(selected));
)JS";

constexpr const char* kStyle = R"CSS(
body { font-family: "DejaVu Sans", sans-serif; margin: 1.5em; color: #222; max-width: 60em; }
#fovea-view { image-rendering: auto; width: min(32em, 100%); border: 1px solid #ccc; }
)CSS";

/// The image as a data URL: at most `max_side` px on its longer side; PNG while that stays small
/// (scenes and figures stay crisp), else JPEG (photos).
std::string page_image(const RgbImage& image, int max_side) {
  const RgbImage shown = shrink_to(image, max_side);
  const auto png = encode_png(shown);
  if (png.size() <= 256 * 1024) return "data:image/png;base64," + base64(png);
  const auto jpeg = encode_jpeg(shown, 90);
  return jpeg.empty() ? "data:image/png;base64," + base64(png) : "data:image/jpeg;base64," + base64(jpeg);
}

}  // namespace

std::string web_page(const RgbImage& image, const CaptionResult& caption, const WebPageOptions& options) {
  if (image.width <= 0 || image.height <= 0) throw std::invalid_argument("web page: the image is empty");
  for (const auto& w : caption.words) {
    if (int(w.alpha.size()) != caption.grid_h * caption.grid_w) {
      throw std::invalid_argument("web page: the attention of \"" + w.word + "\" does not fit its " +
                                  std::to_string(caption.grid_h) + "x" + std::to_string(caption.grid_w) + " grid");
    }
  }
  const std::string title = options.title.empty() ? caption.text() : options.title;
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + xml_escape(title) +
                     "</title>\n<style>" + kStyle + page_pieces::kStyle + "</style>\n</head>\n<body>\n<h1>" + xml_escape(title) + "</h1>\n";
  if (!options.source.empty()) html += "<p class=\"source\">" + xml_escape(options.source) + "</p>\n";
  html += "<p><canvas id=\"fovea-view\"></canvas><img id=\"fovea-image\" hidden alt=\"\" src=\"" +
          page_image(image, options.max_side) + "\"></p>\n";
  html += "<div id=\"fovea-chips\" class=\"chips\"></div>\n<p><button id=\"fovea-play\" class=\"play\">Play</button> " +
          page_pieces::overlay_choice(options.style) + " <span id=\"fovea-word\"></span></p>\n";
  if (!options.model.empty()) html += "<p class=\"note\">Caption by " + xml_escape(options.model) + ".</p>\n";
  if (!options.references.empty()) {
    html += "<h2>Reference captions</h2>\n<ul>\n";
    for (const auto& r : options.references) html += "<li>" + xml_escape(r) + "</li>\n";
    html += "</ul>\n";
  }
  html += page_pieces::chip_note(caption.beta_gated);
  html += "<p class=\"note\">Hover or click a word to see where the model looked (its attention, \u03b1); Play "
          "steps through the caption; a link ending in #word=N opens at word N.</p>\n";
  html += "<script type=\"application/json\" id=\"fovea-data\">" + page_data(caption) + "</script>\n";
  html += std::string("<script>") + page_pieces::kScript + kScript + "</script>\n</body>\n</html>\n";
  return html;
}

void write_web_page(const std::string& path, const RgbImage& image, const CaptionResult& caption,
                    const WebPageOptions& options) {
  write_file_atomically(path, web_page(image, caption, options));
}

}  // namespace fovea
