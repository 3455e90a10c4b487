#include "core/render/gallery_page.h"

#include <nlohmann/json.hpp>

#include <algorithm>
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
// the image by the browser's smooth scaling), and follows the overlay style. With two models a word
// chosen in one caption is shown in the other too where it says that word. Plain JavaScript; el(),
// heat(), chip(), sentence(), mark() and player() are page_pieces.h's.
constexpr const char* kGalleryScript = R"JS(
const data = JSON.parse(document.getElementById('fovea-data').textContent);
const gallery = document.getElementById('fovea-gallery');
const styleChoice = document.getElementById('fovea-style');
const cards = [];  // per card: per model {canvas, img, c, word, selected, show}
function bytesOf(c) {
  if (!c.bytes) { const s = atob(c.a); c.bytes = new Uint8Array(s.length); for (let i = 0; i < s.length; ++i) c.bytes[i] = s.charCodeAt(i); }
  return c.bytes;
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
// The same word in another caption: its occurrence nearest position w, or -1.
function sameWord(c, word, w) {
  let best = -1;
  c.words.forEach(([other], k) => { if (other.toLowerCase() === word.toLowerCase() && (best < 0 || Math.abs(k - w) < Math.abs(best - w))) best = k; });
  return best;
}
// Shows word w of model m and the same word in the card's other models; `hold` keeps it chosen.
function link(cols, m, w, hold) {
  const word = w < 0 ? '' : cols[m].c.words[w][0];
  cols.forEach((s, k) => {
    const shown = k === m ? w : (w < 0 ? -1 : sameWord(s.c, word, w));
    if (hold) s.selected = shown;
    s.show(shown);
    if (k !== m) s.missing.textContent = w >= 0 && shown < 0 ? '\u201c' + word + '\u201d is not in this caption' : '';
  });
}
data.items.forEach((item, i) => {
  const card = el('figure', 'card'); card.dataset.item = i;
  const row = el('div', 'models'), cols = [];
  const play = el('button', 'play', 'Play');
  let step = -1;
  const playing = player(play, () => {
    const longest = Math.max(...cols.map(s => s.c.words.length));
    step = (step + 1) % Math.max(longest, 1);
    cols.forEach(s => { s.selected = Math.min(step, s.c.words.length - 1); s.show(s.selected); s.missing.textContent = ''; });
  });
  item.captions.forEach((c, m) => {
    const col = el('div', 'model'), view = el('div', 'view'), img = el('img'), canvas = el('canvas');
    img.src = item.image; img.alt = item.name;
    view.append(img, canvas);
    const chips = el('div', 'chips'); chips.dataset.model = m;
    const said = sentence(c.words.map(w => w[0]));
    const s = {canvas, img, c, word: -1, selected: -1, missing: el('div', 'note missing')};
    s.show = (w) => { s.word = w; draw(canvas, img, c, w); chips.querySelectorAll('button').forEach((b, k) => b.classList.toggle('current', k === w)); mark(said, w); };
    c.words.forEach(([word, p, beta], w) => {
      const b = chip(word, p, beta, c.gated);
      b.addEventListener('mouseenter', () => link(cols, m, w, false));
      b.addEventListener('mouseleave', () => cols.forEach(o => { o.show(o.selected); o.missing.textContent = ''; }));
      b.addEventListener('click', () => { playing.stop(); link(cols, m, s.selected === w ? -1 : w, true); });
      chips.append(b);
    });
    cols.push(s);
    if (data.models.length > 1) col.append(el('div', 'who', data.models[m]));
    col.append(view, said, chips, s.missing);
    row.append(col);
  });
  cards.push(cols);
  const foot = el('div', 'foot');
  foot.append(play, el('span', 'name', item.name));
  card.append(row, foot);
  if (item.refs.length) { const ul = el('ul', 'refs'); item.refs.forEach(r => ul.append(el('li', '', r))); card.append(ul); }
  gallery.append(card);
});
styleChoice.addEventListener('change', () => cards.flat().forEach(s => draw(s.canvas, s.img, s.c, s.word)));
// A link may open at a word: gallery.html#item=3&word=2 (counting from 1) shows that image's word 2
// of the first model, and the same word in the other's caption.
const item = parseInt((location.hash.match(/item=(\d+)/) || [])[1] || '0', 10) - 1;
const word = parseInt((location.hash.match(/word=(\d+)/) || [])[1] || '0', 10) - 1;
if (item >= 0 && word >= 0 && cards[item]) {
  const cols = cards[item], loaded = cols.map(s => s.img.complete ? null : new Promise(r => s.img.addEventListener('load', r)));
  Promise.all(loaded).then(() => link(cols, 0, Math.min(word, cols[0].c.words.length - 1), true));
  if (item > 0) gallery.children[item].scrollIntoView();
}
// How much of the window's width the cards leave empty, for tools that check the layout.
function measure() {
  const right = Math.max(...Array.from(gallery.children, c => c.getBoundingClientRect().right));
  document.body.dataset.unusedWidth = Math.round(document.documentElement.clientWidth - right);
}
document.body.dataset.cards = gallery.children.length;
document.body.dataset.builtMs = Math.round(performance.now());
window.addEventListener('resize', measure);
window.addEventListener('load', () => { measure(); document.body.dataset.loadedMs = Math.round(performance.now()); });
)JS";

// Cards fill the window's width in as many columns as fit (wider ones for two models).
constexpr const char* kGalleryStyle = R"CSS(
body { font-family: "DejaVu Sans", sans-serif; margin: 1.5em; color: #222; }
#fovea-gallery { display: grid; grid-template-columns: repeat(auto-fill, minmax(18em, 1fr)); gap: 1em; }
#fovea-gallery.compare { grid-template-columns: repeat(auto-fill, minmax(34em, 1fr)); }
.card { margin: 0; padding: 0.6em; border: 1px solid #ddd; border-radius: 8px; }
.models { display: flex; gap: 0.8em; }
.model { flex: 1; min-width: 0; }
.view { position: relative; width: 100%; }
.view img, .view canvas { width: 100%; display: block; image-rendering: auto; }
.view canvas { position: absolute; left: 0; top: 0; height: 100%; pointer-events: none; }
.chips button.chip { font-size: 0.85em; }
.who { font-weight: bold; font-size: 0.9em; margin-bottom: 0.3em; }
.foot { display: flex; gap: 0.6em; align-items: center; margin-top: 0.3em; }
.name { color: #666; font-size: 0.85em; }
.refs { color: #444; font-size: 0.85em; padding-left: 1.2em; margin: 0.3em 0 0; }
)CSS";

bool any_gated(const std::vector<GalleryEntry>& entries) {
  for (const auto& e : entries)
    for (const auto& c : e.captions)
      if (c.beta_gated) return true;
  return false;
}

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
                     "</title>\n<style>" + page_pieces::kStyle + kGalleryStyle + "</style>\n</head>\n<body>\n<h1>" + title + "</h1>\n";
  html += "<p>" + page_pieces::overlay_choice(options.style) + " <span class=\"note\">" + std::to_string(entries.size()) +
          (entries.size() == 1 ? " image" : " images");
  if (!options.models.empty()) {
    std::string names;
    for (const auto& m : options.models) names += (names.empty() ? "" : " and ") + m;
    html += ", captions by " + xml_escape(names);
  }
  html += ". Hover or click a word to see where the model looked (its attention, \u03b1)";
  if (options.models.size() > 1) html += ", in both captions where both say it";
  html += "; Play steps through a card's caption; a link ending in #item=N&amp;word=M opens at word M of image N.</span></p>\n";
  html += page_pieces::chip_note(any_gated(entries));
  html += std::string("<div id=\"fovea-gallery\"") + (options.models.size() > 1 ? " class=\"compare\"" : "") + "></div>\n";
  html += "<script type=\"application/json\" id=\"fovea-data\">" + script_safe(data.dump()) + "</script>\n";
  html += std::string("<script>") + page_pieces::kScript + kGalleryScript + "</script>\n</body>\n</html>\n";
  return html;
}

void write_gallery_page(const std::string& path, const std::vector<GalleryEntry>& entries, const GalleryOptions& options) {
  write_file_atomically(path, gallery_page(entries, options));
}

}  // namespace fovea
