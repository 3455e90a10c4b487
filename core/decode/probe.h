#pragma once
/// "Look here": the model's next word with its attention forced onto a region the user picks,
/// after the words so far. It tests whether α explains a word: if the model names the object
/// under the region wherever the region goes, what it looks at is what it talks about.
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/model/model_config.h"

namespace fovea {

/// Where attention goes, in the image's pixel coordinates (x1, y1 exclusive). A rectangle: soft
/// models attend uniformly over the area it covers (each cell by its overlap), hard models glimpse
/// the cell that holds most of it. A point (point = true, x0/y0): soft models attend with a
/// Gaussian around it (σ = 0.6 cell), hard models glimpse the cell under it.
struct ProbeRegion {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool point = false;
};

/// "x0,y0,x1,y1" or, for a point, "x,y"; throws std::invalid_argument saying the expected form,
/// or as check_probe_region does.
ProbeRegion parse_probe_region(const std::string& text);

/// Throws std::invalid_argument naming the region when a coordinate is no pixel position (NaN,
/// infinite, beyond a billion) or a rectangle is inverted (x1 < x0, y1 < y0) or empty (x0 = x1,
/// y0 = y1). Every way a region comes in (the command line, fovea-studio, Python) is checked by
/// this, in these words.
void check_probe_region(const ProbeRegion& region);

/// The forced α (grid_h * grid_w, row-major, sum 1) for `region` of a width x height image. The
/// image is stretched onto the grid as the encoder sees it. Throws std::invalid_argument naming
/// the region when it misses the image or covers no area.
std::vector<float> forced_alpha(const ProbeRegion& region, int width, int height, int grid_h, int grid_w,
                                AttentionKind kind);

struct ProbeWord {
  std::string word;
  float p = 0;
};

struct ProbeResult {
  std::vector<std::string> prefix;  ///< the words before (unknown ones as "<unk>")
  std::vector<ProbeWord> words;     ///< the most probable next words with α forced, best first
  std::vector<float> alpha;         ///< the forced α
  std::vector<ProbeWord> own_words; ///< the same with the model's own α, for comparison
  std::vector<float> own_alpha;     ///< the model's own α at that step
  float beta = 1;                   ///< the soft gate at that step (1 for hard models)
  int grid_h = 0, grid_w = 0;
};

/// {"prefix", "words": [{"word", "p"}…], "alpha": [[…]…], "own": {"words", "alpha"}, "beta"}.
nlohmann::json to_json(const ProbeResult& r);

}  // namespace fovea
