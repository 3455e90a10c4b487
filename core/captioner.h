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

#include "core/class_head_score.h"
#include "core/image.h"
#include "core/model_config.h"

namespace fovea {

class SceneSource;

struct WordAttention {
  std::string word;
  std::vector<float> alpha;  ///< grid_h * grid_w weights, row-major, sum 1
  float beta = 1;            ///< soft-attention gate (1 when off / hard)
  float log_prob = 0;        ///< log p(word | image, previous words)
  long long glimpse = -1;    ///< sampled cell for hard models with sampled glimpses
};

struct CaptionResult {
  std::vector<WordAttention> words;
  double log_prob = 0;
  bool finished = true;  ///< false when no <end> came within the length limit
  int grid_h = 0, grid_w = 0;
  std::string text() const;
};

struct CaptionOptions {
  int beam = 3;             ///< 1 = greedy
  int max_len = 0;          ///< 0 = the model's limit
  bool sample_glimpses = false;  ///< hard models: sampled glimpses instead of the expected α
  /// With sample_glimpses: the draw's seed (same seed, same image -> same glimpses and caption).
  /// Reseeds LibTorch's process-wide generator. Unset: a fresh draw on every call.
  std::optional<std::uint64_t> seed;
  /// Class nouns recognised in the image and its mirror (DecodeOptions::mirrored_tokens; expected
  /// α only). Unset: on for models trained with mirrored items (`fovea train --mirror-items`).
  std::optional<bool> mirror_nouns;
  /// Class nouns also read from cut-outs: each object of a plain-background image named alone by
  /// the model's item classifier (DecodeOptions::cut_out_tokens; expected α only). Unset: on for
  /// models that have one (`fovea train` keeps its pretrained encoder's copy).
  std::optional<bool> cut_out_nouns;
  /// The cut-outs' weight against the decoder's own split (DecodeOptions::cut_out_weight); unset: its default.
  std::optional<double> cut_out_weight;
  /// Px each cut-out is also shifted by, along both diagonals (CutOutViews::shift; 0: centred and
  /// mirrored only); unset: its default.
  std::optional<int> cut_out_shift;
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

  const ModelConfig& config() const;
  /// Whether captions recognise class nouns in the mirror too when CaptionOptions leaves it unset:
  /// the model was trained with mirrored items and its vocabulary has the Fashion-MNIST nouns.
  bool mirrors_nouns_by_default() const;
  /// Whether captions made with these options recognise class nouns in the mirror too: never with
  /// sampled glimpses; else options.mirror_nouns, or the model's default when it is unset.
  bool reads_mirror(const CaptionOptions& options) const;
  /// Whether the model has a filled item classifier and the Fashion-MNIST nouns, so that captions
  /// read class nouns from cut-outs too when CaptionOptions leaves it unset.
  bool cuts_out_nouns_by_default() const;
  /// Whether captions made with these options read class nouns from cut-outs: never with sampled
  /// glimpses; else options.cut_out_nouns, or the model's default when it is unset.
  bool reads_cut_outs(const CaptionOptions& options) const;
  /// Names the objects of the first `count` scenes of `source` (images of image_size px; single
  /// items may come on smaller canvases) with the encoder's auxiliary class head on each object's
  /// pooled annotations: how well the encoder tells the classes apart, apart from the decoder.
  ClassHeadScore name_objects_with_class_head(const SceneSource& source, std::size_t count, std::int64_t image_size);
  /// Model description: attention kind, sizes, vocabulary size, training data and scores, and
  /// whether captions read class nouns in the mirror too by default ("mirror_nouns").
  nlohmann::json info() const;
  const std::string& path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The α of a result as JSON: {"words":[{"word","log_prob","beta","alpha":[[..]..]}], ...}.
nlohmann::json to_json(const CaptionResult& r);

}  // namespace fovea
