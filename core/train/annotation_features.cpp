#include "core/train/annotation_features.h"


#include "core/train/process_group.h"

namespace fovea {

bool encoder_is_fixed(const TrainConfig& config, CaptionModel& model) {
  auto& encoder = *model.net->encoder;
  if (encoder.has_backbone()) return !model.config.backbone_trainable;
  return encoder.blocks() > 0 && frozen_encoder_blocks(config) >= encoder.blocks();
}

std::shared_ptr<AnnotationCache> open_run_annotations(const TrainConfig& config, CaptionModel& model,
                                                      std::shared_ptr<const SceneSource> train, ProcessGroup* group,
                                                      const TrainCallbacks& cb, bool& stopped) {
  stopped = false;
  if (!encoder_is_fixed(config, model)) return nullptr;
  const auto key = annotation_cache_key(model, *train);
  if (key.empty()) return nullptr;  // the built-in scenes: drawn afresh, nothing to keep
  FeatureOptions options;
  options.stop = cb.stop;
  const bool builds = group == nullptr || group->environment().local_rank == 0;
  if (builds) {
    options.on_message = cb.on_message;
    if (cb.on_progress) {
      options.on_progress = [&cb](const FeatureProgress& f) {
        TrainProgress p;
        p.features_done = f.done, p.features_total = f.total;
        p.eta_s = f.eta_s;
        cb.on_progress(p);
      };
    }
  }
  std::shared_ptr<AnnotationCache> cache;
  if (builds) cache = build_annotation_cache(model, train, key, options);
  if (group != nullptr) group->barrier();
  if (!builds) {
    options.stop = nullptr;
    auto opened = std::make_shared<AnnotationCache>(AnnotationCache::open(
        key, train->size(), model.config.grid_h * model.config.grid_w, model.config.annotation_dim));
    if (opened->complete()) cache = build_annotation_cache(model, train, key, options);  // with its repairs
    else cache = opened;
  }
  double incomplete = cache->complete() ? 0 : 1;
  if (group != nullptr) incomplete = group->all_reduce_sum(incomplete);
  stopped = incomplete > 0;
  return stopped ? nullptr : cache;
}

}  // namespace fovea
