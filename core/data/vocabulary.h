#pragma once
/// Word <-> index mapping with the special tokens <pad> <start> <end> <unk>.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace fovea {

class Vocabulary {
 public:
  static constexpr std::int64_t kPad = 0, kStart = 1, kEnd = 2, kUnk = 3;

  Vocabulary();
  /// Builds from tokenised captions, keeping words seen at least `min_count` times, most
  /// frequent first (ties alphabetical), after the four special tokens.
  static Vocabulary build(const std::vector<std::vector<std::string>>& captions, int min_count);
  explicit Vocabulary(std::vector<std::string> words);  ///< words[0..3] must be the special tokens

  std::int64_t size() const { return std::int64_t(words_.size()); }
  std::int64_t index(const std::string& word) const;  ///< kUnk when unknown
  const std::string& word(std::int64_t index) const;
  const std::vector<std::string>& words() const { return words_; }

  /// <start> w1 .. wn <end>
  std::vector<std::int64_t> encode(const std::vector<std::string>& tokens) const;
  /// Words up to (not including) <end>, skipping <start>/<pad>.
  std::vector<std::string> decode(const std::vector<std::int64_t>& ids) const;

  nlohmann::json to_json() const;
  static Vocabulary from_json(const nlohmann::json& j);

 private:
  std::vector<std::string> words_;
  std::unordered_map<std::string, std::int64_t> index_;
};

}  // namespace fovea
