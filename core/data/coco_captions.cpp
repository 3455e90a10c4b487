#include "core/data/coco_captions.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "core/data/tokenizer.h"
#include "core/eval/caption_metrics.h"
#include "core/io/atomic_file.h"

namespace fovea {

namespace {

nlohmann::json read_json(const std::string& path) {
  if (!std::filesystem::exists(path)) throw std::runtime_error(path + ": file not found");
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open for reading");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(path + ": invalid JSON at byte " + std::to_string(e.byte) + " (" + e.what() + ")");
  }
}

std::string list_ids(const std::vector<std::int64_t>& ids) {
  std::string s;
  for (std::size_t i = 0; i < ids.size() && i < 20; ++i) s += (i ? ", " : "") + std::to_string(ids[i]);
  if (ids.size() > 20) s += " and " + std::to_string(ids.size() - 20) + " more";
  return s;
}

}  // namespace

std::map<std::int64_t, std::vector<std::string>> read_coco_references(const std::string& path) {
  const auto j = read_json(path);
  if (!j.is_object() || !j.contains("annotations") || !j["annotations"].is_array()) {
    throw std::runtime_error(path + ": expected a COCO captions annotation file (an object with an \"annotations\" array)");
  }
  std::map<std::int64_t, std::vector<std::string>> refs;
  if (j.contains("images") && j["images"].is_array()) {
    for (const auto& im : j["images"]) {
      if (!im.contains("id") || !im["id"].is_number_integer()) throw std::runtime_error(path + ": an image has no integer \"id\"");
      refs[im["id"].get<std::int64_t>()];
    }
  }
  std::size_t k = 0;
  for (const auto& a : j["annotations"]) {
    if (!a.is_object() || !a.contains("image_id") || !a["image_id"].is_number_integer() || !a.contains("caption") ||
        !a["caption"].is_string()) {
      throw std::runtime_error(path + ": annotation " + std::to_string(k) + " needs an integer \"image_id\" and a string \"caption\"");
    }
    refs[a["image_id"].get<std::int64_t>()].push_back(a["caption"].get<std::string>());
    ++k;
  }
  return refs;
}

std::map<std::int64_t, std::string> read_coco_results(const std::string& path) {
  const auto j = read_json(path);
  if (!j.is_array()) throw std::runtime_error(path + ": expected a COCO results file (an array of {image_id, caption})");
  std::map<std::int64_t, std::string> out;
  std::size_t k = 0;
  for (const auto& r : j) {
    if (!r.is_object() || !r.contains("image_id") || !r["image_id"].is_number_integer() || !r.contains("caption") ||
        !r["caption"].is_string()) {
      throw std::runtime_error(path + ": result " + std::to_string(k) + " needs an integer \"image_id\" and a string \"caption\"");
    }
    const auto id = r["image_id"].get<std::int64_t>();
    if (!out.emplace(id, r["caption"].get<std::string>()).second) {
      throw std::runtime_error(path + ": image " + std::to_string(id) + " has more than one result");
    }
    ++k;
  }
  return out;
}

CaptionScores score_captions(const std::map<std::int64_t, std::vector<std::string>>& references,
                             const std::map<std::int64_t, std::string>& results) {
  std::vector<std::int64_t> no_refs, no_result, ids;
  for (const auto& [id, c] : results) {
    auto it = references.find(id);
    if (it == references.end() || it->second.empty()) no_refs.push_back(id);
  }
  for (const auto& [id, caps] : references) {
    if (!results.count(id)) no_result.push_back(id);
  }
  if (!no_refs.empty() || !no_result.empty()) {
    std::string msg = "results and references do not cover the same images:";
    if (!no_refs.empty()) msg += " results for images without references: " + list_ids(no_refs) + ";";
    if (!no_result.empty()) msg += " referenced images without a result: " + list_ids(no_result) + ";";
    throw std::invalid_argument(msg);
  }
  std::vector<Tokens> cands;
  std::vector<std::vector<Tokens>> refs;
  for (const auto& [id, c] : results) {
    ids.push_back(id);
    cands.push_back(tokenize(c));
    std::vector<Tokens> r;
    for (const auto& s : references.at(id)) r.push_back(tokenize(s));
    refs.push_back(std::move(r));
  }
  CaptionScores s;
  const auto bleu = corpus_bleu(cands, refs);
  for (int n = 0; n < 4; ++n) s.bleu[n] = bleu[std::size_t(n)];
  const auto rouge = rouge_l(cands, refs);
  const auto cider = cider_d(cands, refs);
  s.rouge_l = mean(rouge);
  s.cider = mean(cider);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    ImageScores im;
    im.image_id = ids[i];
    const auto b = corpus_bleu({cands[i]}, {refs[i]});
    for (int n = 0; n < 4; ++n) im.bleu[n] = b[std::size_t(n)];
    im.rouge_l = rouge[i];
    im.cider = cider[i];
    s.per_image.push_back(im);
  }
  return s;
}

nlohmann::json to_json(const CaptionScores& s) {
  return {{"Bleu_1", s.bleu[0]}, {"Bleu_2", s.bleu[1]}, {"Bleu_3", s.bleu[2]},
          {"Bleu_4", s.bleu[3]}, {"ROUGE_L", s.rouge_l}, {"CIDEr", s.cider}};
}

nlohmann::json per_image_json(const CaptionScores& s) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& im : s.per_image) {
    a.push_back({{"image_id", im.image_id}, {"Bleu_1", im.bleu[0]}, {"Bleu_2", im.bleu[1]}, {"Bleu_3", im.bleu[2]},
                 {"Bleu_4", im.bleu[3]}, {"ROUGE_L", im.rouge_l}, {"CIDEr", im.cider}});
  }
  return a;
}

void write_coco_results(const std::string& path, const std::map<std::int64_t, std::string>& results) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [id, caption] : results) out.push_back({{"image_id", id}, {"caption", caption}});
  write_file_atomically(path, out.dump(1) + "\n");
}

void write_coco_references(const std::string& path, const std::map<std::int64_t, std::vector<std::string>>& references) {
  nlohmann::json images = nlohmann::json::array(), annotations = nlohmann::json::array();
  std::int64_t next = 1;
  for (const auto& [id, captions] : references) {
    images.push_back({{"id", id}});
    for (const auto& c : captions) annotations.push_back({{"image_id", id}, {"id", next++}, {"caption", c}});
  }
  write_file_atomically(path, nlohmann::json({{"images", images}, {"annotations", annotations}}).dump(1) + "\n");
}

}  // namespace fovea
