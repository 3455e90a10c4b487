#pragma once
/// Real datasets as SceneSources for training and evaluation: "karpathy:PATH" (a Karpathy
/// split file) or "coco:PATH" (a COCO captions annotation file), images from a folder, pixels
/// through the memory-mapped ImageCache. Scenes from these have no object boxes, so attention
/// grounding is not scored on them. Torch-free.
#include <functional>
#include <memory>
#include <string>

#include "core/data/image_cache.h"
#include "core/data/scene_source.h"

namespace fovea {

/// "fashion-scenes" (built in) or a dataset on disk.
bool is_builtin_dataset(const std::string& dataset);

/// Throws std::invalid_argument explaining the accepted forms when `dataset` is none of them.
void check_dataset_name(const std::string& dataset);

/// One split of a dataset on disk. Karpathy files: train (with restval), val or test. COCO
/// files have no splits: "val" is their first `val_size` images, "train" the rest, "test" or
/// "all" every image. At most `limit` images (0: all).
std::shared_ptr<const SceneSource> open_dataset_split(const std::string& dataset, const std::string& images_dir,
                                                      const std::string& split, const ImageCacheOptions& cache,
                                                      std::size_t limit, std::size_t val_size = 0,
                                                      const std::function<void(const std::string&)>& message = {});

}  // namespace fovea
