#pragma once
/// The inference API the CLI and the GUI share: load a model file, caption images (greedy or
/// beam), score a caption typed by the user (teacher forcing), with α/β/log-p per word.
///
/// Thread-safety: one Captioner must be used by one thread at a time; load one per worker. Its
/// random draws (sampled glimpses) come from its own generator, never the process-wide one, so a
/// captioner in one thread does not change another thread's random stream.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/data/image.h"
#include "core/decode/caption_result.h"
#include "core/decode/probe.h"
#include "core/model/model_config.h"

namespace fovea {

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

}  // namespace fovea
