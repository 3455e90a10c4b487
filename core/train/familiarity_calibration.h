#pragma once
/// Measures a model's training and validation images and keeps their statistics in its model
/// file (core/decode/familiarity.h), so captions can say when an image is unlike them. Training
/// runs do it for best.ckpt when they finish (from the cached annotations when the encoder did not
/// train); `fovea familiarity` does it for older files.
#include <cstddef>
#include <memory>
#include <string>

#include "core/data/scene_source.h"
#include "core/decode/familiarity.h"
#include "core/decode/split_annotations.h"

namespace fovea {

/// Pooled annotations of up to `max_images` training images and of up to `max_images` validation
/// images, fitted as fit_familiarity does.
FamiliarityStats measure_familiarity(SplitAnnotations& train, SplitAnnotations& val, std::size_t max_images = 2000);

/// Rewrites the model file at `path` with `stats` (atomically; everything else in the file kept).
void store_familiarity(const std::string& path, const FamiliarityStats& stats);

/// Measures the model file at `path` on `train` and `val` (its encoder running on their images)
/// and stores the statistics in it. Returns them.
FamiliarityStats store_familiarity(const std::string& path, std::shared_ptr<const SceneSource> train,
                                   std::shared_ptr<const SceneSource> val, std::size_t max_images = 2000);

}  // namespace fovea
