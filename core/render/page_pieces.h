#pragma once
/// What the single-image web page (web_page.h) and the gallery page (gallery_page.h) share, so
/// both look and behave alike: the caption's chips with p and β and what those mean, the caption
/// as a sentence marking the shown word, Play, the heat colours, and the overlay's choice.
#include <string>

namespace fovea::page_pieces {

/// CSS of the chips (buttons of class "chip" in an element of class "chips"), the sentence
/// (class "sentence"), Play (class "play") and notes (class "note").
extern const char* const kStyle;

/// JavaScript functions: el(tag, cls, text); heat(t) (viridis, t in [0, 1]); chip(word, p, beta,
/// gated) a chip button; sentence(words) a <p> of the words and mark(p, i) marking word i (-1:
/// none); player(button, step) calls step() every 700 ms from a click on `button` to the next, and
/// returns {stop}.
extern const char* const kScript;

/// A note saying what p and (when `gated`) β under each word mean.
std::string chip_note(bool gated);

/// The overlay's <select id="fovea-style"> with `style` ("spotlight" or "heatmap") chosen.
std::string overlay_choice(const std::string& style);

}  // namespace fovea::page_pieces
