#pragma once
/// Taking away what α points at: the cells that hold most of a word's α, the image with those
/// cells filled with its background, and what that does to the word ("does the word go?"),
/// beside the same removal of as many cells elsewhere (the control). The GUI's "Take it away"
/// and `fovea take-away` run take_away(); `fovea eval --faithfulness` uses the same parts.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/data/image.h"
#include "core/decode/captioner.h"

namespace fovea {

/// "The cells holding most of α": the fewest cells that hold this share of its mass.
inline constexpr double kAttendedMass = 0.9;

/// A word whose kAttendedMass of α spreads over more than this share of the grid looks at no one
/// place (a function word, a relation): taking away what it looks at would remove much of the
/// image and test nothing about the word.
inline constexpr double kSpreadShare = 1.0 / 3.0;

/// Whether kAttendedMass of `alpha` spreads over more than kSpreadShare of its cells.
bool looks_at_no_one_place(const std::vector<float>& alpha);

/// The cells (row-major indices) holding at least `mass` of α, largest first (at least one).
std::vector<int> cells_holding(const std::vector<float>& alpha, double mass = 0.5);

/// `image` with `cells` of its grid_h x grid_w grid (the image stretched onto the grid) filled
/// with the image's background colour: the median of its border pixels.
RgbImage remove_cells(const RgbImage& image, const std::vector<int>& cells, int grid_h, int grid_w);

/// Relative drop of p from `log_before` to `log_after` (log-probabilities): 1 when it vanishes,
/// 0 when unchanged, negative when it rose, down to -1 for a p that doubled or more (so a few
/// tiny probabilities that rose a hundredfold do not outweigh the rest in a mean).
double relative_drop(double log_before, double log_after);

/// A control for removing `attended` from word `word` of `caption`, knowing nothing about the
/// image but its α: as many cells (all the others, when `attended` covers more than half the
/// grid), never attended ones, and where possible none next to an attended cell, where
/// another word of the caption looks (the word whose α peaks highest there, e.g. another
/// object's noun), else as far from the attended cells as the grid allows. `source` receives the
/// other word's index, or -1 for the far cells.
std::vector<int> alpha_control_cells(const CaptionResult& caption, std::size_t word, const std::vector<int>& attended,
                                     int* source = nullptr);

/// What removing the attended cells did, and what the control removal did.
struct Removal {
  std::vector<int> cells;       ///< grid cells filled with the background
  RgbImage image;               ///< the image without them
  double p_word = 0;            ///< p(word) after the same words before it (teacher forcing)
  CaptionResult caption;        ///< the model's own caption of `image`
  bool word_still_said = false; ///< `caption` still holds the word
};

struct TakeAway {
  std::size_t word = 0;      ///< index in the caption
  int grid_h = 0, grid_w = 0;  ///< the attention grid the cells index (row-major)
  std::string text;          ///< the word
  double p_word = 0;         ///< p(word) on the original image (teacher forcing)
  Removal attended;          ///< the cells holding kAttendedMass of its α, removed
  Removal control;           ///< as many cells elsewhere, removed
  int control_source = -1;   ///< the caption word whose α placed the control, -1: far from the attended cells
  std::string control_word;  ///< that word (empty for -1)
  bool spread = false;       ///< its α spreads over more than kSpreadShare of the grid
  /// Why the result says little about a spread word; empty for one that looks at one place.
  std::string spread_note() const;
  double attended_drop() const;  ///< relative drop of p(word) (see relative_drop)
  double control_drop() const;
};

/// Takes away what word `word` of `caption` (the model's caption of `image`, or a scored one)
/// attends to, and a control region; recaptions both with `options`. Throws std::out_of_range
/// for a word index outside the caption.
TakeAway take_away(Captioner& captioner, const RgbImage& image, const CaptionResult& caption, std::size_t word,
                   const CaptionOptions& options = {});

/// {"word", "index", "p", "grid": [h, w], "spread", "attended": {"cells", "p", "drop", "caption", "word_still_said"},
///  "control": {..., "source": the word whose α placed it, or null}}
nlohmann::json to_json(const TakeAway& t);

}  // namespace fovea
