#include "core/render/gallery_page.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/data/image_io.h"
#include "core/data/image_tensor.h"
#include "core/io/atomic_file.h"
#include "core/render/markup.h"
#include "core/render/png_encoder.h"

namespace fovea {

namespace {

double rounded_to_thousandths(double v) { return std::round(v * 1000) / 1000; }

/// One caption: {"text", "grid", "gated", "words": [[word, p, beta]...], "a": base64 of one byte per
/// cell and word (α / the word's peak * 255), words one after another}.
nlohmann::json caption_data(const CaptionResult& c) {
  nlohmann::json words = nlohmann::json::array();
  std::vector<std::uint8_t> bytes;
  const std::size_t cells = std::size_t(c.grid_h) * std::size_t(c.grid_w);
  for (const auto& w : c.words) {
    if (w.alpha.size() != cells)
      throw std::invalid_argument("gallery page: the attention of \"" + w.word + "\" does not fit its " +
                                  std::to_string(c.grid_h) + "x" + std::to_string(c.grid_w) + " grid");
    words.push_back({w.word, rounded_to_thousandths(std::exp(double(w.log_prob))), rounded_to_thousandths(w.beta)});
    const float peak = std::max(*std::max_element(w.alpha.begin(), w.alpha.end()), 1e-12f);
    for (const float a : w.alpha) bytes.push_back(std::uint8_t(std::lround(std::clamp(a / peak, 0.0f, 1.0f) * 255)));
  }
  return {{"text", c.text()}, {"grid", {c.grid_h, c.grid_w}}, {"gated", c.beta_gated}, {"words", words}, {"a", base64(bytes)}};
}

// Builds the cards from the data, draws a word's α over its image (the byte grid stretched over
// the image by the browser's smooth scaling), and follows the overlay style. Plain JavaScript.
constexpr const char* kGalleryScript = R"JS(
const data = JSON.parse(document.getElementById('fovea-data').textContent);
const gallery = document.getElementById('fovea-gallery');
const styleChoice = document.getElementById('fovea-style');
const shown = [];  // per card and model: [canvas, caption, word index]
function bytesOf(c) {
  if (!c.bytes) { const s = atob(c.a); c.bytes = new Uint8Array(s.length); for (let i = 0; i < s.length; ++i) c.bytes[i] = s.charCodeAt(i); }
  return c.bytes;
}
function heat(t) {  // viridis, five stops
  const s = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
  const f = Math.min(Math.max(t, 0), 1) * 4, i = Math.min(Math.floor(f), 3), u = f - i;
  return s[i].map((c, k) => c + (s[i + 1][k] - c) * u);
}
function draw(canvas, img, c, w) {
  canvas.width = img.naturalWidth || img.width; canvas.height = img.naturalHeight || img.height;
  const ctx = canvas.getContext('2d');
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  canvas.dataset.word = w;
  if (w < 0) { canvas.dataset.ink = 0; return; }
  const [gh, gw] = c.grid, n = gh * gw, bytes = bytesOf(c), small = document.createElement('canvas');
  small.width = gw; small.height = gh;
  const cells = small.getContext('2d').createImageData(gw, gh), p = cells.data;
  const spotlight = styleChoice.value === 'spotlight';
  let ink = 0;
  for (let k = 0; k < n; ++k) {
    const t = bytes[w * n + k] / 255, rgb = spotlight ? [0, 0, 0] : heat(t);
    p[4 * k] = rgb[0]; p[4 * k + 1] = rgb[1]; p[4 * k + 2] = rgb[2];
    p[4 * k + 3] = spotlight ? 204 * (1 - t) : 150;
    ink += bytes[w * n + k] * (k + 1);
  }
  small.getContext('2d').putImageData(cells, 0, 0);
  ctx.imageSmoothingEnabled = true;
  ctx.drawImage(small, 0, 0, canvas.width, canvas.height);
  canvas.dataset.ink = ink;
}
function el(tag, cls, text) { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
data.items.forEach((item, i) => {
  const card = el('figure', 'card'); card.dataset.item = i;
  const row = el('div', 'models');
  item.captions.forEach((c, m) => {
    const col = el('div', 'model'), view = el('div', 'view'), img = el('img'), canvas = el('canvas');
    img.src = item.image; img.alt = item.name;
    view.append(img, canvas);
    const chips = el('div', 'chips'); chips.dataset.model = m;
    let selected = -1;
    const state = [canvas, c, -1, img];
    const show = (w) => { state[2] = w; draw(canvas, img, c, w); chips.querySelectorAll('button').forEach((b, k) => b.classList.toggle('current', k === w)); };
    c.words.forEach(([word, p, beta], w) => {
      const b = el('button'); b.append(el('b', '', word), el('small', '', 'p ' + p.toFixed(2) + (c.gated ? ' \u00b7 \u03b2 ' + beta.toFixed(2) : '')));
      b.addEventListener('mouseenter', () => show(w));
      b.addEventListener('mouseleave', () => show(selected));
      b.addEventListener('click', () => { selected = selected === w ? -1 : w; show(selected); });
      chips.append(b);
    });
    state.show = show;
    shown.push(state);
    if (data.models.length > 1) col.append(el('div', 'who', data.models[m]));
    col.append(view, chips);
    row.append(col);
  });
  card.append(row, el('div', 'name', item.name));
  if (item.refs.length) { const ul = el('ul', 'refs'); item.refs.forEach(r => ul.append(el('li', '', r))); card.append(ul); }
  gallery.append(card);
});
styleChoice.addEventListener('change', () => shown.forEach(s => draw(s[0], s[3], s[1], s[2])));
// A link may open at a word: gallery.html#item=3&word=2 (counting from 1) shows that image's word 2.
const item = parseInt((location.hash.match(/item=(\d+)/) || [])[1] || '0', 10) - 1;
const word = parseInt((location.hash.match(/word=(\d+)/) || [])[1] || '0', 10) - 1;
if (item >= 0 && word >= 0) {
  const cards = shown.filter((s, k) => Math.floor(k / Math.max(1, data.models.length)) === item);
  cards.forEach(s => { const img = s[3]; const go = () => s.show(Math.min(word, s[1].words.length - 1)); if (img.complete) go(); else img.addEventListener('load', go); });
  if (item > 0 && gallery.children[item]) gallery.children[item].scrollIntoView();
}
document.body.dataset.cards = gallery.children.length;
document.body.dataset.builtMs = Math.round(performance.now());
window.addEventListener('load', () => { document.body.dataset.loadedMs = Math.round(performance.now()); });
)JS";

constexpr const char* kGalleryStyle = R"CSS(
body { font-family: "DejaVu Sans", sans-serif; margin: 1.5em; color: #222; }
#fovea-gallery { display: flex; flex-wrap: wrap; gap: 1em; }
.card { margin: 0; padding: 0.6em; border: 1px solid #ddd; border-radius: 8px; max-width: 30em; }
.models { display: flex; gap: 0.8em; }
.model { flex: 1; min-width: 12em; }
.view { position: relative; width: 100%; }
.view img, .view canvas { width: 100%; display: block; image-rendering: auto; }
.view canvas { position: absolute; left: 0; top: 0; height: 100%; pointer-events: none; }
.chips button { margin: 0.15em; padding: 0.2em 0.45em; border: 1px solid #aaa; border-radius: 6px; background: #f4f4f4;
  cursor: pointer; display: inline-flex; flex-direction: column; align-items: center; font-size: 0.85em; }
.chips button.current { border: 2px solid #2a6fd6; background: #e3edfb; }
.chips small { color: #666; font-size: 0.8em; }
.who { font-weight: bold; font-size: 0.9em; margin-bottom: 0.3em; }
.name { color: #666; font-size: 0.85em; margin-top: 0.3em; }
.refs { color: #444; font-size: 0.85em; padding-left: 1.2em; margin: 0.3em 0 0; }
.note { color: #666; font-size: 0.9em; }
)CSS";

}  // namespace

std::string image_data_url(const RgbImage& image, int jpeg_quality) {
  const auto jpeg = encode_jpeg(image, jpeg_quality);
  if (!jpeg.empty()) return "data:image/jpeg;base64," + base64(jpeg);
  return "data:image/png;base64," + base64(encode_png(image));
}

std::string gallery_page(const std::vector<GalleryEntry>& entries, const GalleryOptions& options) {
  nlohmann::json items = nlohmann::json::array();
  for (const auto& e : entries) {
    if (e.captions.size() != std::max<std::size_t>(options.models.size(), 1))
      throw std::invalid_argument("gallery page: " + e.name + " has " + std::to_string(e.captions.size()) +
                                  " captions for " + std::to_string(options.models.size()) + " models");
    if (e.image.empty()) throw std::invalid_argument("gallery page: the image " + e.name + " is empty");
    const RgbImage shown = shrink_to(e.image, options.max_side);
    nlohmann::json captions = nlohmann::json::array();
    for (const auto& c : e.captions) captions.push_back(caption_data(c));
    items.push_back({{"name", e.name}, {"image", image_data_url(shown, options.jpeg_quality)}, {"refs", e.references},
                     {"captions", captions}});
  }
  const nlohmann::json data = {{"models", options.models}, {"items", items}};
  const std::string title = xml_escape(options.title);
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + title +
                     "</title>\n<style>" + kGalleryStyle + "</style>\n</head>\n<body>\n<h1>" + title + "</h1>\n";
  html += "<p><label>Overlay <select id=\"fovea-style\"><option value=\"spotlight\"" +
          std::string(options.style == "heatmap" ? "" : " selected") + ">spotlight</option><option value=\"heatmap\"" +
          std::string(options.style == "heatmap" ? " selected" : "") + ">heat map</option></select></label> <span class=\"note\">" +
          std::to_string(entries.size()) + (entries.size() == 1 ? " image" : " images");
  if (!options.models.empty()) {
    std::string names;
    for (const auto& m : options.models) names += (names.empty() ? "" : " and ") + m;
    html += ", captions by " + xml_escape(names);
  }
  html += ". Hover or click a word to see where the model looked (its attention, \u03b1); a link ending in "
          "#item=N&amp;word=M opens at word M of image N.</span></p>\n<div id=\"fovea-gallery\"></div>\n";
  html += "<script type=\"application/json\" id=\"fovea-data\">" + script_safe(data.dump()) + "</script>\n";
  html += std::string("<script>") + kGalleryScript + "</script>\n</body>\n</html>\n";
  return html;
}

void write_gallery_page(const std::string& path, const std::vector<GalleryEntry>& entries, const GalleryOptions& options) {
  write_file_atomically(path, gallery_page(entries, options));
}

}  // namespace fovea
