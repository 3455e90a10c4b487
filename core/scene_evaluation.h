#pragma once
/// Scoring a captioning model on scenes with references and object boxes: the coco-caption
/// metrics and attention grounding together. `fovea eval` prints it; the GUI can show it.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/captioner.h"
#include "core/grounding.h"
#include "core/scene_source.h"

namespace fovea {

struct SceneEvaluation {
  std::size_t scenes = 0;
  double bleu[4] = {0, 0, 0, 0};
  double rouge_l = 0, cider = 0;
  GroundingReport grounding;
  std::map<std::int64_t, std::string> captions;                 ///< generated, by scene id
  std::map<std::int64_t, std::vector<std::string>> references;  ///< by scene id
};

/// Captions every scene of `source` (in chunks of `chunk` images) and scores the captions.
SceneEvaluation evaluate_scenes(Captioner& captioner, const SceneSource& source, const CaptionOptions& options,
                                std::size_t chunk = 50);

/// {"Bleu_1".."Bleu_4", "ROUGE_L", "CIDEr", "grounding": {...}}
nlohmann::json to_json(const SceneEvaluation& e);

}  // namespace fovea
