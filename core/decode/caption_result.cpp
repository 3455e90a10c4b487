#include "core/decode/caption_result.h"

#include <nlohmann/json.hpp>

namespace fovea {

std::string CaptionResult::text() const {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : " ") + w.word;
  return s;
}

nlohmann::json to_json(const CaptionResult& r) {
  nlohmann::json words = nlohmann::json::array();
  for (const auto& w : r.words) {
    nlohmann::json grid = nlohmann::json::array();
    for (int y = 0; y < r.grid_h; ++y) {
      grid.push_back(std::vector<float>(w.alpha.begin() + y * r.grid_w, w.alpha.begin() + (y + 1) * r.grid_w));
    }
    nlohmann::json jw = {{"word", w.word}, {"log_prob", w.log_prob}, {"beta", w.beta}, {"alpha", grid}};
    if (w.glimpse >= 0) jw["glimpse"] = {w.glimpse / r.grid_w, w.glimpse % r.grid_w};
    words.push_back(jw);
  }
  nlohmann::json j = {{"caption", r.text()}, {"log_prob", r.log_prob}, {"finished", r.finished},
                      {"grid", {r.grid_h, r.grid_w}}, {"beta_gated", r.beta_gated}, {"words", words}};
  if (r.familiarity) {
    j["familiar"] = r.familiarity->familiar();
    j["familiarity_distance"] = r.familiarity->distance;
    j["familiarity_threshold"] = r.familiarity->threshold;
  }
  return j;
}

}  // namespace fovea
