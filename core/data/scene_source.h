#pragma once
/// The interface every captioning data source implements (built-in scenes, real datasets).
#include <cstddef>
#include <string>
#include <vector>

#include "core/data/image.h"

namespace fovea {

/// A finite, indexable set of captioned images. get() must be safe to call from several
/// threads at once and deterministic: the same index always gives the same scene.
class SceneSource {
 public:
  virtual ~SceneSource() = default;
  virtual std::size_t size() const = 0;
  virtual Scene get(std::size_t index) const = 0;
  /// A short description of the source for model cards and logs.
  virtual std::string describe() const = 0;
  /// The colours its objects' `colour` names, in the order of the auxiliary colour head's classes;
  /// empty for sources without object colours.
  virtual std::vector<std::string> colour_names() const { return {}; }
  /// Scene `index` without its image (id, captions, objects), for batches that need no pixels.
  virtual Scene get_without_image(std::size_t index) const {
    auto s = get(index);
    s.image = RgbImage();
    return s;
  }
  /// What identifies these scenes' images on disk (the files they come from and their size),
  /// changing whenever the images do; empty for sources not stored on disk (the built-in scenes,
  /// drawn afresh). Keys the annotation cache (core/data/annotation_cache.h).
  virtual std::string content_key() const { return {}; }
};

}  // namespace fovea
