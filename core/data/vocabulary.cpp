#include "core/data/vocabulary.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace fovea {

namespace {
const std::vector<std::string> kSpecials = {"<pad>", "<start>", "<end>", "<unk>"};
}

Vocabulary::Vocabulary() : Vocabulary(kSpecials) {}

Vocabulary::Vocabulary(std::vector<std::string> words) : words_(std::move(words)) {
  for (std::size_t i = 0; i < kSpecials.size(); ++i) {
    if (i >= words_.size() || words_[i] != kSpecials[i]) {
      throw std::invalid_argument("vocabulary must start with <pad> <start> <end> <unk>");
    }
  }
  for (std::size_t i = 0; i < words_.size(); ++i) {
    if (!index_.emplace(words_[i], std::int64_t(i)).second) {
      throw std::invalid_argument("vocabulary lists '" + words_[i] + "' twice");
    }
  }
}

Vocabulary Vocabulary::build(const std::vector<std::vector<std::string>>& captions, int min_count) {
  std::map<std::string, std::int64_t> counts;
  for (const auto& c : captions) {
    for (const auto& w : c) ++counts[w];
  }
  std::vector<std::pair<std::string, std::int64_t>> kept;
  for (const auto& [w, n] : counts) {
    if (n >= min_count && std::find(kSpecials.begin(), kSpecials.end(), w) == kSpecials.end()) kept.emplace_back(w, n);
  }
  std::stable_sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> words = kSpecials;
  for (const auto& [w, n] : kept) words.push_back(w);
  return Vocabulary(std::move(words));
}

std::int64_t Vocabulary::index(const std::string& word) const {
  auto it = index_.find(word);
  return it == index_.end() ? kUnk : it->second;
}

const std::string& Vocabulary::word(std::int64_t i) const {
  if (i < 0 || i >= size()) throw std::out_of_range("word index " + std::to_string(i) + " outside the vocabulary");
  return words_[std::size_t(i)];
}

std::vector<std::int64_t> Vocabulary::encode(const std::vector<std::string>& tokens) const {
  std::vector<std::int64_t> ids;
  ids.reserve(tokens.size() + 2);
  ids.push_back(kStart);
  for (const auto& t : tokens) ids.push_back(index(t));
  ids.push_back(kEnd);
  return ids;
}

std::vector<std::string> Vocabulary::decode(const std::vector<std::int64_t>& ids) const {
  std::vector<std::string> out;
  for (auto i : ids) {
    if (i == kEnd) break;
    if (i == kStart || i == kPad) continue;
    out.push_back(word(i));
  }
  return out;
}

nlohmann::json Vocabulary::to_json() const { return words_; }

Vocabulary Vocabulary::from_json(const nlohmann::json& j) {
  if (!j.is_array()) throw std::invalid_argument("vocabulary must be a JSON array of words");
  return Vocabulary(j.get<std::vector<std::string>>());
}

}  // namespace fovea
