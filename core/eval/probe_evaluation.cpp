#include "core/eval/probe_evaluation.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/decode/probe.h"

namespace fovea {
namespace {

bool has_box(const SceneObject& o) { return o.x1 > o.x0 && o.y1 > o.y0; }

std::string next_word(Captioner& captioner, const Scene& scene, const SceneObject& o, const std::string& colour) {
  ProbeRegion region;
  region.x0 = o.x0;
  region.y0 = o.y0;
  region.x1 = o.x1;
  region.y1 = o.y1;
  const auto r = captioner.probe(scene.image, region, "a " + colour, 1);
  return r.words.empty() ? std::string() : r.words.front().word;
}

void count(ProbeScore& s, bool named) {
  ++s.count;
  if (named) ++s.named;
}

nlohmann::json score_json(const ProbeScore& s) { return {{"count", s.count}, {"rate", s.rate()}}; }

}  // namespace

void accumulate_probes(Captioner& captioner, const Scene& scene, ProbeReport& report) {
  for (const auto& o : scene.objects) {
    if (!has_box(o) || o.noun.empty() || o.colour.empty()) continue;
    const auto said = next_word(captioner, scene, o, o.colour);
    count(report.own_colour, said == o.noun);
    count(report.per_class[o.noun], said == o.noun);
    if (said != o.noun) ++report.confusions[{said, o.noun}];
    // Another object's colour: the first one that differs from this object's.
    const auto other = std::find_if(scene.objects.begin(), scene.objects.end(),
                                    [&](const SceneObject& x) { return !x.colour.empty() && x.colour != o.colour; });
    if (other != scene.objects.end()) count(report.other_colour, next_word(captioner, scene, o, other->colour) == o.noun);
  }
}

nlohmann::json to_json(const ProbeReport& r) {
  nlohmann::json j = score_json(r.own_colour);
  j["other_colour"] = score_json(r.other_colour);
  j["per_class"] = nlohmann::json::object();
  for (const auto& [noun, s] : r.per_class) j["per_class"][noun] = score_json(s);
  std::vector<std::pair<std::int64_t, std::pair<std::string, std::string>>> ranked;
  for (const auto& [key, n] : r.confusions) ranked.push_back({n, key});
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  j["confusions"] = nlohmann::json::array();
  for (const auto& [n, key] : ranked) j["confusions"].push_back({{"said", key.first}, {"object", key.second}, {"count", n}});
  return j;
}

}  // namespace fovea
