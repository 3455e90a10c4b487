#pragma once
/// Scoring a captioning model on scenes with references and object boxes: the coco-caption
/// metrics and attention grounding together. `fovea eval` prints it; the GUI can show it.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/data/scene_source.h"
#include "core/decode/captioner.h"
#include "core/eval/faithfulness.h"
#include "core/eval/grounding.h"
#include "core/eval/probe_evaluation.h"

namespace fovea {

/// Why faithfulness that was asked for has no figures (no noun was tested).
inline constexpr const char* kFaithfulnessUnmeasured =
    "cannot be measured here: no captioned noun names an object with a box in its scene (this data has no object boxes?)";

struct SceneEvaluation {
  std::size_t scenes = 0;
  double bleu[4] = {0, 0, 0, 0};
  double rouge_l = 0, cider = 0;
  GroundingReport grounding;  ///< over the scenes with object boxes
  bool has_boxes = false;     ///< some scene came with object boxes (the built-in scenes do)
  bool has_faithfulness = false;  ///< asked for; in JSON "measured": false (no rates) when no noun was tested
  FaithfulnessReport faithfulness;  ///< with `faithfulness` asked for, over the scenes with boxes
  bool has_probes = false;  ///< asked for
  ProbeReport probes;       ///< with `probes` asked for: every object with a box, probed
  std::map<std::int64_t, std::string> captions;                 ///< generated, by scene id
  std::map<std::int64_t, std::vector<std::string>> references;  ///< by scene id
};

/// Captions a chunk of scenes, one result each: what evaluate_scenes() scores. `indices` are the
/// scenes' places in the source; `scenes` hold their images unless the evaluation was told its
/// captions come from cached annotations.
using CaptionScenes =
    std::function<std::vector<CaptionResult>(const std::vector<std::size_t>& indices, const std::vector<Scene>& scenes)>;

/// Called with each scene and its caption after it is scored (faithfulness hooks in here).
using EachCaptionedScene = std::function<void(const Scene&, const CaptionResult&)>;

/// Captions every scene of `source` with `caption` (in chunks of `chunk` scenes) and scores the
/// captions; grounding counts the scenes with object boxes only. Without `read_images` the scenes
/// handed to `caption` and `each` have no pixels (their annotations are cached).
SceneEvaluation evaluate_scenes(const CaptionScenes& caption, const SceneSource& source, std::size_t chunk = 50,
                                const EachCaptionedScene& each = {}, bool read_images = true);

/// evaluate_scenes() with a model file's captions (`fovea eval`), from the split's cached
/// annotations where the model's encoder did not train (Captioner::caption_scenes); with
/// `faithfulness`, also the removal test of core/eval/faithfulness.h on the scenes with object
/// boxes; with `probes`, the probe of every object with a box (core/eval/probe_evaluation.h).
SceneEvaluation evaluate_scenes(Captioner& captioner, std::shared_ptr<const SceneSource> source,
                                const CaptionOptions& options, std::size_t chunk = 50, bool faithfulness = false,
                                bool probes = false, const std::function<void(const std::string&)>& message = {});

/// {"Bleu_1".."Bleu_4", "ROUGE_L", "CIDEr", "grounding": {...}}
nlohmann::json to_json(const SceneEvaluation& e);

}  // namespace fovea
