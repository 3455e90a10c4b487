#include "core/eval/faithfulness.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

#include "core/data/batching.h"
#include "core/datasets/fashion_mnist.h"

namespace fovea {
namespace {

/// The object a noun at `t` names: the one its colour word names with it, else the first of its class.
const SceneObject* named_object(const Scene& scene, const CaptionResult& c, std::size_t t) {
  const auto& noun = c.words[t].word;
  for (const auto& o : scene.objects)
    if (o.noun == noun && t > 0 && c.words[t - 1].word == o.colour) return &o;
  for (const auto& o : scene.objects)
    if (o.noun == noun) return &o;
  return nullptr;
}

bool is_class_noun(const CaptionResult& c, std::size_t t) {
  const auto& nouns = fashion_class_nouns();
  return std::find(nouns.begin(), nouns.end(), c.words[t].word) != nouns.end() && (t == 0 || c.words[t - 1].word != "the");
}

std::size_t argmax(const std::vector<float>& v) { return std::size_t(std::max_element(v.begin(), v.end()) - v.begin()); }

nlohmann::json score_json(const FaithfulnessScore& s) {
  const double n = std::max<double>(1, double(s.count));
  return {{"count", s.count},
          {"attended_drop", s.mean_attended_drop()},
          {"control_drop", s.mean_control_drop()},
          {"faithful_rate", s.faithful_rate()},
          {"removed_fraction", s.removed_fraction / n},
          {"saliency", {{"peak_agrees", double(s.saliency_peak_agrees) / n},
                        {"in_box", double(s.saliency_in_box) / n},
                        {"chance_in_box", s.box_fraction / n}}}};
}

void add(FaithfulnessScore& s, double attended, double control, double removed, bool agrees, bool in_box, double box) {
  ++s.count;
  s.attended_drop += attended;
  s.control_drop += control;
  s.faithful += attended >= 0.5;
  s.removed_fraction += removed;
  s.saliency_peak_agrees += agrees;
  s.saliency_in_box += in_box;
  s.box_fraction += box;
}

}  // namespace

std::vector<int> control_cells(const Scene& scene, const SceneObject& object, const std::vector<int>& attended,
                               int grid_h, int grid_w) {
  const int W = scene.image.width, H = scene.image.height;
  const auto in_object = object_cells(object, W, H, grid_h, grid_w);
  std::vector<bool> taken(std::size_t(grid_h) * grid_w, false);
  for (int c : attended) taken[std::size_t(c)] = true;
  const auto centre_distance = [&](int cell, double cx, double cy) {
    const double x = (cell % grid_w + 0.5) * W / grid_w, y = (cell / grid_w + 0.5) * H / grid_h;
    return (x - cx) * (x - cx) + (y - cy) * (y - cy);
  };
  std::vector<int> candidates;
  double cx = 0, cy = 0;
  bool nearest = true;  // to another object's centre; else furthest from this object's
  for (const auto& other : scene.objects) {
    if (&other == &object) continue;
    const auto cells = object_cells(other, W, H, grid_h, grid_w);
    for (std::size_t i = 0; i < cells.size(); ++i)
      if (cells[i] && !in_object[i] && !taken[i]) candidates.push_back(int(i));
    if (candidates.size() >= attended.size()) {
      cx = (other.x0 + other.x1) / 2.0, cy = (other.y0 + other.y1) / 2.0;
      break;
    }
    candidates.clear();
  }
  if (candidates.empty()) {
    nearest = false;
    cx = (object.x0 + object.x1) / 2.0, cy = (object.y0 + object.y1) / 2.0;
    for (std::size_t i = 0; i < taken.size(); ++i)
      if (!in_object[i] && !taken[i]) candidates.push_back(int(i));
  }
  std::stable_sort(candidates.begin(), candidates.end(), [&](int a, int b) {
    const double da = centre_distance(a, cx, cy), db = centre_distance(b, cx, cy);
    return nearest ? da < db : da > db;
  });
  candidates.resize(std::min(candidates.size(), attended.size()));
  return candidates;
}

void accumulate_faithfulness(Captioner& captioner, const Scene& scene, const CaptionResult& caption,
                             FaithfulnessReport& report, bool with_saliency) {
  if (scene.objects.empty() || caption.words.empty()) return;
  const std::string text = caption.text();
  const CaptionResult original = captioner.score(scene.image, text);
  if (original.words.size() != caption.words.size()) return;  // a word the tokenizer splits: not comparable
  std::vector<std::vector<float>> saliency;
  const int gh = caption.grid_h, gw = caption.grid_w;
  const double grid = double(gh) * gw;
  for (std::size_t t = 0; t < caption.words.size(); ++t) {
    if (!is_class_noun(caption, t)) continue;
    const SceneObject* object = named_object(scene, caption, t);
    if (!object) continue;  // a noun of a class the scene does not hold: grounding counts those
    const auto& alpha = caption.words[t].alpha;
    const auto attended = cells_holding(alpha, kAttendedMass);
    const auto control = control_cells(scene, *object, attended, gh, gw);
    const double before = original.words[t].log_prob;
    const double attended_drop =
        relative_drop(before, captioner.score(remove_cells(scene.image, attended, gh, gw), text).words[t].log_prob);
    const double control_drop =
        relative_drop(before, captioner.score(remove_cells(scene.image, control, gh, gw), text).words[t].log_prob);
    if (saliency.empty() && with_saliency) saliency = captioner.saliency(scene.image, text);
    const auto box = object_cells(*object, scene.image.width, scene.image.height, gh, gw);
    const std::size_t salient = with_saliency ? argmax(saliency[t]) : argmax(alpha);
    const bool agrees = with_saliency && salient == argmax(alpha);
    const double box_fraction = double(std::count(box.begin(), box.end(), true)) / grid;
    const double removed = double(attended.size()) / grid;
    add(report.all, attended_drop, control_drop, removed, agrees, box[salient], box_fraction);
    add(report.per_class[object->noun], attended_drop, control_drop, removed, agrees, box[salient], box_fraction);
  }
}

nlohmann::json to_json(const FaithfulnessReport& r) {
  nlohmann::json j = score_json(r.all);
  j["kind"] = r.kind;
  nlohmann::json per_class = nlohmann::json::object();
  for (const auto& [noun, s] : r.per_class) per_class[noun] = score_json(s);
  j["per_class"] = per_class;
  return j;
}

}  // namespace fovea
