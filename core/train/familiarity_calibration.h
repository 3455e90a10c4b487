#pragma once
/// Measures a model's training and validation images and keeps their statistics in its model
/// file (core/decode/familiarity.h), so captions can say when an image is unlike them. Training
/// runs do it for best.ckpt when they finish; `fovea familiarity` does it for older files.
#include <cstddef>
#include <functional>
#include <string>

#include "core/data/scene_source.h"
#include "core/decode/familiarity.h"
#include "core/model/show_attend_tell.h"

namespace fovea {

/// Pooled annotations of up to `max_images` training images and of up to `max_images` validation
/// images, fitted as fit_familiarity does.
FamiliarityStats measure_familiarity(CaptionModel& model, const SceneSource& train, const SceneSource& val,
                                     std::size_t max_images = 2000);

/// Rewrites the model file at `path` with the statistics measured on `train` and `val` (atomically;
/// everything else in the file kept). Returns them.
FamiliarityStats store_familiarity(const std::string& path, const SceneSource& train, const SceneSource& val,
                                   std::size_t max_images = 2000);

}  // namespace fovea
