#pragma once
/// Training the decoder from annotations computed once (core/data/annotation_cache.h): when a
/// run's encoder does not train, each training image's annotation grid is the same at every
/// step, so it is computed once, in batches, and read back from the cache instead of running the
/// CNN again at every step. `fovea train` builds what is missing before its first step;
/// `fovea features` builds it ahead.
#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "core/data/annotation_cache.h"
#include "core/data/scene_source.h"
#include "core/model/show_attend_tell.h"
#include "core/train/train_config.h"
#include "core/train/trainer.h"

namespace fovea {

class ProcessGroup;

/// Whether the encoder of `model` (built for `config`) does not train: a TorchScript backbone
/// that is not fine-tuned, or the built-in CNN with every block frozen.
bool encoder_is_fixed(const TrainConfig& config, CaptionModel& model);

/// What the annotations of `source` depend on: its images (their files and size) and the
/// encoder's content (its file's bytes and its weights). Empty when `source` is not on disk.
std::string annotation_cache_key(const TrainConfig& config, CaptionModel& model, const SceneSource& source);

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

/// Opens the annotation cache of `source` under `key` and computes the entries it lacks (an
/// interrupted build goes on where it stopped), in batches on the model's device with every
/// core. The cache is complete() unless the stop flag ended the build. Damaged entries met later
/// are computed again through the encoder.
std::shared_ptr<AnnotationCache> build_annotation_cache(CaptionModel& model, std::shared_ptr<const SceneSource> source,
                                                        const std::string& key, const FeatureOptions& options);

/// A run's training annotations: null when the run does not train from cached annotations (its
/// encoder trains, or its data are not on disk); else the cache, built where missing (in a group,
/// by the first process of each machine while the others wait). Progress goes to on_progress as
/// TrainProgress::features_*; `stopped` is set when the stop flag ended the build.
std::shared_ptr<AnnotationCache> open_run_annotations(const TrainConfig& config, CaptionModel& model,
                                                      std::shared_ptr<const SceneSource> train, ProcessGroup* group,
                                                      const TrainCallbacks& callbacks, bool& stopped);

}  // namespace fovea
