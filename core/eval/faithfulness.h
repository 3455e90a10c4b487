#pragma once
/// Does α explain the word? For every generated noun that names an object in the scene: remove
/// the cells holding most of its α (kAttendedMass, filled with the image's background) and score the same caption
/// again (teacher forcing). If the noun's probability falls, the model needed what it looked at.
/// The same removal of as many cells elsewhere (another object, or the background) is the control.
/// Beside it, gradient saliency: does the cell where log p(noun) is most sensitive to the image
/// agree with α's peak?
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/data/image.h"
#include "core/decode/captioner.h"
#include "core/eval/removal.h"

namespace fovea {

struct FaithfulnessScore {
  std::int64_t count = 0;
  double attended_drop = 0;      ///< Σ relative drop of p(noun) with the attended cells removed (-1..1)
  double control_drop = 0;       ///< Σ the same with the control cells removed
  std::int64_t faithful = 0;     ///< nouns whose p fell by at least half with the attended cells removed
  double removed_fraction = 0;   ///< Σ share of the grid removed (the same for both removals)
  std::int64_t saliency_peak_agrees = 0;  ///< gradient saliency's peak cell is α's peak cell
  std::int64_t saliency_in_box = 0;       ///< ... lies in the named object's box
  double box_fraction = 0;                ///< Σ share of the grid the object's box covers (chance)

  double mean_attended_drop() const { return count ? attended_drop / double(count) : 0; }
  double mean_control_drop() const { return count ? control_drop / double(count) : 0; }
  double faithful_rate() const { return count ? double(faithful) / double(count) : 0; }
};

struct FaithfulnessReport {
  std::string kind;  ///< "soft", "hard, expected α" or "hard, sampled glimpses"
  FaithfulnessScore all;
  std::map<std::string, FaithfulnessScore> per_class;
};

/// As many cells as `attended` holds, away from `object`: on another object of the scene when
/// there is one (the cells of its box nearest its centre), else on the background furthest from
/// `object`; never one of `attended`.
std::vector<int> control_cells(const Scene& scene, const SceneObject& object, const std::vector<int>& attended,
                               int grid_h, int grid_w);

/// Adds the scene's nouns to the report: `caption` is the model's caption of `scene.image`.
/// Without `with_saliency` the removals alone (the saliency figures stay 0): what a training run
/// measures as it validates, its frozen encoder blocks running without autograd.
void accumulate_faithfulness(Captioner& captioner, const Scene& scene, const CaptionResult& caption,
                             FaithfulnessReport& report, bool with_saliency = true);

/// {"kind", "count", "attended_drop", "control_drop", "faithful_rate", "removed_fraction",
///  "saliency": {"peak_agrees", "in_box", "chance"}, "per_class": {...}}
nlohmann::json to_json(const FaithfulnessReport& r);

}  // namespace fovea
