#pragma once
/// Attention grounding on scenes with known object boxes (docs/design.md §5.4): does α point at what each
/// word names? Pointing accuracy (the argmax cell lies in the named object's box, dilated by half
/// a cell), attention precision (α mass inside the box) and chance (the box's share of cells),
/// per noun phrase ("red sneaker", α averaged over both words), per colour word and per noun.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/data/image.h"
#include "core/decode/caption_result.h"

namespace fovea {

struct GroundingScore {
  std::int64_t count = 0;
  double hits = 0;    ///< argmax cell inside the box
  double mass = 0;    ///< Σ α inside the box
  double chance = 0;  ///< share of cells inside the box
  void add(double hit, double in_box_mass, double box_share) {
    ++count, hits += hit, mass += in_box_mass, chance += box_share;
  }
  double pointing() const { return count ? hits / double(count) : 0; }
  double precision() const { return count ? mass / double(count) : 0; }
  double chance_level() const { return count ? chance / double(count) : 0; }
};

struct GroundingReport {
  GroundingScore phrase, colour, noun;
  /// Hard models with sampled glimpses: is the sampled cell of each colour word and noun inside
  /// the box of the object it names (pointing = hit rate; no count without sampled glimpses).
  GroundingScore glimpse;
  std::map<std::string, GroundingScore> per_class;  ///< noun phrases by the noun's class
  std::int64_t nouns = 0;          ///< generated words that are class nouns
  std::int64_t absent_nouns = 0;   ///< ... naming a class that is not in the scene
  /// Absent nouns by (noun said, class of the object its colour word names; "" when the colour
  /// names no object either): "shirt" said of a pullover counts under {"shirt", "pullover"}.
  std::map<std::pair<std::string, std::string>, std::int64_t> confusions;
  double absent_noun_rate() const { return nouns ? double(absent_nouns) / double(nouns) : 0; }
};

struct NounConfusion {
  std::string said, object;  ///< object: "" when the colour word names no object either
  std::int64_t count = 0;
};
/// The report's confusions, most frequent first.
std::vector<NounConfusion> ranked_confusions(const GroundingReport& r);

/// Adds one captioned scene to the report. The scene's boxes are in its image's pixels.
void accumulate_grounding(const Scene& scene, const CaptionResult& caption, GroundingReport& report);

nlohmann::json to_json(const GroundingReport& r);

}  // namespace fovea
