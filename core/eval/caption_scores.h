#pragma once
/// Scoring captions against references with the coco-caption metrics (corpus BLEU-1..4, ROUGE-L,
/// CIDEr-D; core/eval/caption_metrics.h), as `fovea score` and `fovea eval` report them.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace fovea {

struct ImageScores {
  std::int64_t image_id = 0;
  double bleu[4] = {0, 0, 0, 0};
  double rouge_l = 0, cider = 0;
};

struct CaptionScores {
  double bleu[4] = {0, 0, 0, 0};  ///< corpus BLEU-1..4
  double rouge_l = 0, cider = 0;  ///< means over images
  std::vector<ImageScores> per_image;
};

/// Tokenises (PTB-style) and scores. Every result must have references and every referenced
/// image a result; otherwise throws listing the offending ids.
CaptionScores score_captions(const std::map<std::int64_t, std::vector<std::string>>& references,
                             const std::map<std::int64_t, std::string>& results);

/// {"Bleu_1".."Bleu_4", "ROUGE_L", "CIDEr"} — the toolkit's key names.
nlohmann::json to_json(const CaptionScores& s);
nlohmann::json per_image_json(const CaptionScores& s);

}  // namespace fovea
