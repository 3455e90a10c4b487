#include "core/render/page_pieces.h"

namespace fovea::page_pieces {

const char* const kStyle = R"CSS(
.chips button.chip { margin: 0.15em; padding: 0.25em 0.5em; border: 1px solid #aaa; border-radius: 6px; background: #f4f4f4;
  cursor: pointer; display: inline-flex; flex-direction: column; align-items: center; }
.chips button.chip.current { border: 2px solid #2a6fd6; background: #e3edfb; }
.chips button.chip small { color: #666; font-size: 0.8em; }
.sentence { margin: 0.3em 0; font-size: 1.05em; }
.sentence span.current { background: #e3edfb; outline: 1px solid #2a6fd6; border-radius: 3px; }
.note { color: #666; font-size: 0.9em; }
button.play { min-width: 4.5em; }
)CSS";

const char* const kScript = R"JS(
function el(tag, cls, text) { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
function heat(t) {  // viridis, five stops
  const s = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
  const f = Math.min(Math.max(t, 0), 1) * 4, i = Math.min(Math.floor(f), 3), u = f - i;
  return s[i].map((c, k) => c + (s[i + 1][k] - c) * u);
}
function chip(word, p, beta, gated) {
  const b = el('button', 'chip');
  b.append(el('b', '', word), el('small', '', 'p ' + p.toFixed(2) + (gated ? ' \u00b7 \u03b2 ' + beta.toFixed(2) : '')));
  b.title = 'p ' + p.toFixed(2) + ': how probable the model found this word' +
    (gated ? '; \u03b2 ' + beta.toFixed(2) + ': how much of the image it let in for it (0 none, 1 all)' : '');
  return b;
}
function sentence(words) {
  const p = el('p', 'sentence');
  words.forEach((w, i) => { if (i) p.append(' '); p.append(el('span', '', w)); });
  return p;
}
function mark(p, i) { p.querySelectorAll('span').forEach((s, k) => s.classList.toggle('current', k === i)); }
function player(button, step) {
  let timer = null;
  const stop = () => { clearInterval(timer); timer = null; button.textContent = 'Play'; };
  button.addEventListener('click', () => {
    if (timer) return stop();
    button.textContent = 'Pause';
    step();
    timer = setInterval(step, 700);
  });
  return {stop};
}
)JS";

std::string chip_note(bool gated) {
  std::string note = "<p class=\"note\">Under each word: p, how probable the model found it";
  if (gated)
    note += "; \u03b2, the gate, how much of the image it let in for that word: the part of the image "
            "its attention (\u03b1) picked is scaled by \u03b2, from 0 (the word came from the caption so far "
            "alone) to 1 (all of it)";
  return note + ".</p>\n";
}

std::string overlay_choice(const std::string& style) {
  const bool heatmap = style == "heatmap";
  return std::string("<label>Overlay <select id=\"fovea-style\"><option value=\"spotlight\"") + (heatmap ? "" : " selected") +
         ">spotlight</option><option value=\"heatmap\"" + (heatmap ? " selected" : "") + ">heat map</option></select></label>";
}

}  // namespace fovea::page_pieces
