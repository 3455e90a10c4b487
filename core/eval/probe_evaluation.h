#pragma once
/// Does the model name what it is made to look at? For every object with a box: force α onto the
/// box after "a <its colour>" (core/decode/probe.h) and check that the most probable next word is
/// the object's noun. The same with the colour of another object of the scene in the prefix tells
/// whether the noun comes from where the model looks or from the colour word.
#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/data/image.h"
#include "core/decode/captioner.h"

namespace fovea {

struct ProbeScore {
  std::int64_t count = 0;
  std::int64_t named = 0;  ///< the most probable next word was the object's noun
  double rate() const { return count ? double(named) / double(count) : 0; }
};

struct ProbeReport {
  ProbeScore own_colour;    ///< after "a <the object's colour>"
  ProbeScore other_colour;  ///< after "a <another object's colour>" (scenes with two colours)
  std::map<std::string, ProbeScore> per_class;  ///< own colour, by the object's noun
  /// Own colour: how often each wrong word was said for an object ("shirt" for a "coat").
  std::map<std::pair<std::string, std::string>, std::int64_t> confusions;  ///< (said, object) -> count
};

/// Probes every object of `scene` that has a box and adds the outcomes to `report`.
void accumulate_probes(Captioner& captioner, const Scene& scene, ProbeReport& report);

/// {"count", "rate", "other_colour": {"count", "rate"}, "per_class": {noun: {"count", "rate"}},
///  "confusions": [{"said", "object", "count"}...] (most frequent first)}
nlohmann::json to_json(const ProbeReport& r);

}  // namespace fovea
