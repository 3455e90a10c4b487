#pragma once
/// A split's annotations as a model computes them, computed once (core/data/annotation_cache.h)
/// when the model's encoder does not train and the split is on disk: training reads them at every
/// step, validation, the familiarity statistics at a run's end and `fovea eval` read them too, so
/// after `fovea features` neither `fovea train` nor `fovea eval` runs the CNN on any image. An
/// entry whose image changed since it was computed is computed again; one process builds a cache
/// at a time, a second waits for it and then reads what it built.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/data/annotation_cache.h"
#include "core/data/scene_source.h"
#include "core/model/show_attend_tell.h"

namespace fovea {

/// What the annotations of `source` depend on: its images (their files and size) and the
/// encoder's content (its TorchScript bytes and its weights), the image size and the grid. Empty
/// when `source` is not on disk (the built-in scenes, drawn afresh).
std::string annotation_cache_key(CaptionModel& model, const SceneSource& source);

struct FeatureProgress {
  std::int64_t done = 0, total = 0;  ///< entries in the cache, of all
  double images_per_s = 0, eta_s = 0;
};

struct FeatureOptions {
  std::int64_t batch = 32;  ///< images through the encoder at once
  std::string cache_dir;    ///< empty: the image cache's folder
  std::function<void(const FeatureProgress&)> on_progress;
  std::function<void(const std::string&)> on_message;
  const std::atomic<bool>* stop = nullptr;  ///< set: stop after the current batch (what is done stays)
};

/// Opens the annotation cache of `source` under `key` and computes the entries it lacks or whose
/// image changed since (an interrupted build goes on where it stopped; the message says how many
/// and why), in batches on the model's device with every core, holding the cache's lock (a second
/// process waits, saying for whom). The cache is complete() unless the stop flag ended the build.
/// Damaged entries met later are computed again through the encoder.
std::shared_ptr<AnnotationCache> build_annotation_cache(CaptionModel& model, std::shared_ptr<const SceneSource> source,
                                                        const std::string& key, const FeatureOptions& options);

/// Checks every entry of `source`'s cached images and of `cache` against its CRC-32 and computes
/// the damaged ones again, each named through options.on_message; returns how many were repaired.
std::size_t repair_annotation_cache(CaptionModel& model, std::shared_ptr<const SceneSource> source, AnnotationCache& cache,
                                    const FeatureOptions& options);

/// The annotations of one split for one model: read from its cache (built on first use where
/// missing or stale) when `cached`, else computed from the images at every read.
class SplitAnnotations {
 public:
  SplitAnnotations(CaptionModel& model, std::shared_ptr<const SceneSource> source, bool cached,
                   FeatureOptions options = {});
  /// Whether reads come from the cache.
  bool cached() const { return cached_; }
  /// Annotations (B, L, D) of scenes `indices`, float on the model's device.
  torch::Tensor read(const std::vector<std::size_t>& indices);
  const SceneSource& source() const { return *source_; }

 private:
  CaptionModel& model_;
  std::shared_ptr<const SceneSource> source_;
  bool cached_;
  FeatureOptions options_;
  std::shared_ptr<AnnotationCache> cache_;
};

/// Annotations (B, L, D) of scenes `indices` of `source` computed by the model's encoder (in eval
/// mode), on the CPU.
torch::Tensor encode_scenes(CaptionModel& model, const SceneSource& source, const std::vector<std::size_t>& indices);

}  // namespace fovea
