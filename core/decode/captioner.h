#pragma once
/// The inference API the CLI and the GUI share: load a model file, caption images (greedy or
/// beam), score a caption typed by the user (teacher forcing), with α/β/log-p per word.
///
/// Thread-safety: one Captioner must be used by one thread at a time; load one per worker.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/data/image.h"
#include "core/decode/probe.h"
#include "core/model/model_config.h"

namespace fovea {

struct WordAttention {
  std::string word;
  std::vector<float> alpha;  ///< grid_h * grid_w weights, row-major, sum 1
  float beta = 1;            ///< soft-attention gate (1 when off / hard)
  float log_prob = 0;        ///< log p(word | image, previous words)
  long long glimpse = -1;    ///< sampled cell for hard models with sampled glimpses
};

/// How far an image is from the model's training images (core/eval/familiarity.h).
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
  /// With sample_glimpses: the draw's seed (same seed, same image -> same glimpses and caption).
  /// Reseeds LibTorch's process-wide generator. Unset: a fresh draw on every call.
  std::optional<std::uint64_t> seed;
};

class Captioner {
 public:
  /// Loads a checkpoint or shipped model. device: auto|cpu|cuda. Throws naming the file.
  explicit Captioner(const std::string& model_path, const std::string& device = "cpu");
  ~Captioner();
  Captioner(Captioner&&) noexcept;
  Captioner& operator=(Captioner&&) noexcept;

  CaptionResult caption(const RgbImage& image, const CaptionOptions& options = {});
  std::vector<CaptionResult> caption(const std::vector<RgbImage>& images, const CaptionOptions& options = {});

  /// Teacher-forced scoring of a given caption: per word α, β and log-probability, plus <end>'s
  /// log-probability in log_prob. Words outside the vocabulary are scored as <unk>.
  CaptionResult score(const RgbImage& image, const std::string& caption);

  /// Gradient saliency of a given caption: for each word, |d log p(word) / d image| summed over
  /// the colour channels and averaged onto the attention grid (grid_h * grid_w, row-major).
  std::vector<std::vector<float>> saliency(const RgbImage& image, const std::string& caption);

  /// The next word after `prefix` (empty: the first word) with attention forced onto `region`
  /// (image pixels), and with the model's own attention for comparison; see core/decode/probe.h.
  ProbeResult probe(const RgbImage& image, const ProbeRegion& region, const std::string& prefix = {}, int top = 5);

  const ModelConfig& config() const;
  /// Whether the model file carries its training images' statistics (captions then say how
  /// familiar each image is).
  bool checks_familiarity() const;
  /// Model description: attention kind, sizes, vocabulary size and its first 40 words, training
  /// data, steps, time and scores.
  nlohmann::json info() const;
  const std::string& path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The α of a result as JSON: {"words":[{"word","log_prob","beta","alpha":[[..]..]}], ...}, with
/// "familiar", "familiarity_distance" and "familiarity_threshold" when the model checks them.
nlohmann::json to_json(const CaptionResult& r);

}  // namespace fovea
