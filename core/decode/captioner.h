#pragma once
/// The inference API the CLI and the GUI share: load a model file, caption images (greedy or
/// beam), score a caption typed by the user (teacher forcing), with α/β/log-p per word.
///
/// Thread-safety: one Captioner must be used by one thread at a time; load one per worker. Its
/// random draws (sampled glimpses) come from its own generator, never the process-wide one, so a
/// captioner in one thread does not change another thread's random stream.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/data/image.h"
#include "core/data/scene_source.h"
#include "core/decode/caption_result.h"
#include "core/decode/probe.h"
#include "core/model/model_config.h"

namespace fovea {

struct CaptionModel;

class Captioner {
 public:
  /// Loads a checkpoint or shipped model. device: auto|cpu|cuda. Throws naming the file.
  explicit Captioner(const std::string& model_path, const std::string& device = "cpu");
  /// A captioner of a model in memory, its weights shared (a training run's, to measure it as it
  /// trains); `name` stands for the file in what it reports. The model is left in eval mode.
  Captioner(const CaptionModel& model, const std::string& name);
  ~Captioner();
  Captioner(Captioner&&) noexcept;
  Captioner& operator=(Captioner&&) noexcept;

  CaptionResult caption(const RgbImage& image, const CaptionOptions& options = {});
  std::vector<CaptionResult> caption(const std::vector<RgbImage>& images, const CaptionOptions& options = {});

  /// Whether caption_scenes() reads `source`'s annotations from its cache: the source is on disk
  /// and this model's encoder did not train (a TorchScript backbone not fine-tuned), so the
  /// annotations `fovea features` and training computed are this model's too.
  bool reads_cached_annotations(const SceneSource& source) const;
  /// Captions scenes `indices` of `source`: from its cached annotations (computed first where
  /// missing or stale, said through `message`) when reads_cached_annotations(), else from its
  /// images. The source must be the same object at every call (the cache is kept for it).
  std::vector<CaptionResult> caption_scenes(std::shared_ptr<const SceneSource> source,
                                            const std::vector<std::size_t>& indices, const CaptionOptions& options = {},
                                            const std::function<void(const std::string&)>& message = {});
  /// Images this model's encoder has run on since it was loaded (annotations read from a cache
  /// cost none).
  std::int64_t images_encoded() const;

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
