#include "core/eval/grounding.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/data/batching.h"
#include "core/datasets/fashion_mnist.h"
#include "core/datasets/fashion_scenes.h"

namespace fovea {

namespace {

std::vector<bool> box_cells(const SceneObject& o, const Scene& s, int gh, int gw) {
  return object_cells(o, s.image.width, s.image.height, gh, gw);
}

void score(const std::vector<float>& alpha, const std::vector<bool>& in, GroundingScore& g) {
  const auto best = std::size_t(std::max_element(alpha.begin(), alpha.end()) - alpha.begin());
  double mass = 0;
  std::size_t cells = 0;
  for (std::size_t i = 0; i < alpha.size(); ++i) {
    if (in[i]) mass += alpha[i], ++cells;
  }
  g.add(in[best] ? 1.0 : 0.0, mass, double(cells) / double(alpha.size()));
}

void score_glimpse(const WordAttention& w, const std::vector<bool>& in, GroundingScore& g) {
  if (w.glimpse < 0 || std::size_t(w.glimpse) >= in.size()) return;
  const double hit = in[std::size_t(w.glimpse)] ? 1.0 : 0.0;
  g.add(hit, hit, double(std::count(in.begin(), in.end(), true)) / double(in.size()));
}

bool is_colour(const std::string& w) {
  const auto& cs = scene_colours();
  return std::any_of(cs.begin(), cs.end(), [&](const NamedColour& c) { return c.name == w; });
}

/// A class noun at position i. "top" is also a place ("in the top left"): a class noun never
/// follows "the" in the scene grammar, so that use is not a noun.
bool is_class_noun(const std::vector<WordAttention>& words, std::size_t i) {
  const auto& ns = fashion_class_nouns();
  if (std::find(ns.begin(), ns.end(), words[i].word) == ns.end()) return false;
  return i == 0 || words[i - 1].word != "the";
}

}  // namespace

void accumulate_grounding(const Scene& scene, const CaptionResult& caption, GroundingReport& report) {
  const auto& words = caption.words;
  auto find_object = [&](const std::string& word, bool colour) -> const SceneObject* {
    for (const auto& o : scene.objects) {
      if ((colour ? o.colour : o.noun) == word) return &o;
    }
    return nullptr;
  };
  for (std::size_t i = 0; i < words.size(); ++i) {
    const auto& w = words[i].word;
    if (is_colour(w)) {
      if (const auto* o = find_object(w, true)) {
        const auto cells = box_cells(*o, scene, caption.grid_h, caption.grid_w);
        score(words[i].alpha, cells, report.colour);
        score_glimpse(words[i], cells, report.glimpse);
      }
    } else if (is_class_noun(words, i)) {
      ++report.nouns;
      const auto* o = find_object(w, false);
      if (!o) {
        ++report.absent_nouns;
        // Which object was it said of? Colours are unique within a scene.
        const auto* meant = i > 0 ? find_object(words[i - 1].word, true) : nullptr;
        ++report.confusions[{w, meant ? meant->noun : std::string()}];
        continue;
      }
      const auto cells = box_cells(*o, scene, caption.grid_h, caption.grid_w);
      score(words[i].alpha, cells, report.noun);
      score_glimpse(words[i], cells, report.glimpse);
      // The noun phrase: "<colour> <noun>" naming this very object.
      if (i > 0 && words[i - 1].word == o->colour) {
        std::vector<float> mean(words[i].alpha.size());
        for (std::size_t k = 0; k < mean.size(); ++k) mean[k] = 0.5f * (words[i].alpha[k] + words[i - 1].alpha[k]);
        score(mean, cells, report.phrase);
        score(mean, cells, report.per_class[o->noun]);
      }
    }
  }
}

std::vector<NounConfusion> ranked_confusions(const GroundingReport& r) {
  std::vector<NounConfusion> out;
  for (const auto& [said_of, n] : r.confusions) out.push_back({said_of.first, said_of.second, n});
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.count > b.count; });
  return out;
}

nlohmann::json to_json(const GroundingReport& r) {
  auto j = [](const GroundingScore& g) {
    return nlohmann::json{{"count", g.count}, {"pointing", g.pointing()}, {"alpha_in_box", g.precision()}, {"chance", g.chance_level()}};
  };
  nlohmann::json per_class = nlohmann::json::object();
  for (const auto& [k, v] : r.per_class) per_class[k] = j(v);
  nlohmann::json out = {{"noun_phrase", j(r.phrase)}, {"colour", j(r.colour)}, {"noun", j(r.noun)},
                        {"per_class", per_class},     {"nouns", r.nouns},       {"absent_noun_rate", r.absent_noun_rate()}};
  nlohmann::json confusions = nlohmann::json::array();
  for (const auto& c : ranked_confusions(r)) confusions.push_back({{"said", c.said}, {"object", c.object}, {"count", c.count}});
  out["absent_noun_confusions"] = confusions;
  if (r.glimpse.count > 0) {
    out["sampled_glimpse"] = {{"count", r.glimpse.count}, {"in_box", r.glimpse.pointing()}, {"chance", r.glimpse.chance_level()}};
  }
  return out;
}

}  // namespace fovea
