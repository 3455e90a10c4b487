#pragma once
/// COCO caption files (references: the annotation format; candidates: the results format). Scoring
/// them is core/eval/caption_scores.h.
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

}  // namespace fovea
