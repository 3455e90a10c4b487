#include "core/eval/caption_scores.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/data/tokenizer.h"
#include "core/eval/caption_metrics.h"

namespace fovea {

namespace {

std::string list_ids(const std::vector<std::int64_t>& ids) {
  std::string s;
  for (std::size_t i = 0; i < ids.size() && i < 20; ++i) s += (i ? ", " : "") + std::to_string(ids[i]);
  if (ids.size() > 20) s += " and " + std::to_string(ids.size() - 20) + " more";
  return s;
}

}  // namespace

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

}  // namespace fovea
