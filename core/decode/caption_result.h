#pragma once
/// What captioning gives back, and how it is asked for: value types the CLI, the GUI, the
/// evaluations and the figures share, without the model that produced them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace fovea {

struct WordAttention {
  std::string word;
  std::vector<float> alpha;  ///< grid_h * grid_w weights, row-major, sum 1
  float beta = 1;            ///< soft-attention gate (1 when off / hard)
  float log_prob = 0;        ///< log p(word | image, previous words)
  long long glimpse = -1;    ///< sampled cell for hard models with sampled glimpses
};

/// How far an image is from the model's training images (core/decode/familiarity.h).
struct Familiarity {
  double distance = 0;   ///< Mahalanobis distance of its pooled annotations
  double threshold = 0;  ///< the model's limit (a margin over validation_q99)
  double validation_q99 = 0;  ///< the distance 99% of its validation images stay within
  bool familiar() const { return distance <= threshold; }
};

struct CaptionResult {
  std::vector<WordAttention> words;
  double log_prob = 0;
  bool finished = true;  ///< false when no <end> came within the length limit
  int grid_h = 0, grid_w = 0;
  bool beta_gated = true;  ///< the model's β gates its context (ModelConfig::beta_gated); else every β is 1
  /// Absent when the model file has no statistics of its training images (older files).
  std::optional<Familiarity> familiarity;
  std::string text() const;
};

struct CaptionOptions {
  int beam = 3;             ///< 1 = greedy
  int max_len = 0;          ///< 0 = the model's limit
  bool sample_glimpses = false;  ///< hard models: sampled glimpses instead of the expected α (soft: ignored)
  /// With sample_glimpses: the draw's seed (same seed, same image -> same glimpses and caption, alone
  /// or in a batch: each image of a batch draws from the seed's own stream).
  /// Unset: a fresh draw on every call. Either way the process-wide generator is left alone.
  std::optional<std::uint64_t> seed;
};

/// The α of a result as JSON: {"words":[{"word","log_prob","beta","alpha":[[..]..]}], ...}, with
/// "familiar", "familiarity_distance" and "familiarity_threshold" when the model checks them.
nlohmann::json to_json(const CaptionResult& r);

}  // namespace fovea
