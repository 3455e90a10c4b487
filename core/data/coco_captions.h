#pragma once
/// COCO caption files (references: the annotation format; candidates: the results format) and
/// scoring them with the coco-caption metrics, as `fovea score` and `fovea eval` report them.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace fovea {

/// {"images":[{"id":..}], "annotations":[{"image_id":.., "caption":".."}]} -> captions per image.
std::map<std::int64_t, std::vector<std::string>> read_coco_references(const std::string& path);
/// [{"image_id":.., "caption":".."}] -> one caption per image (a repeated id is an error).
std::map<std::int64_t, std::string> read_coco_results(const std::string& path);

/// Writes captions in the results format (for `fovea score`, pycocoevalcap or a leaderboard),
/// through a temporary file and a rename.
void write_coco_results(const std::string& path, const std::map<std::int64_t, std::string>& results);
/// The references in the annotation format, so a results file can be scored against them later.
void write_coco_references(const std::string& path, const std::map<std::int64_t, std::vector<std::string>>& references);

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
