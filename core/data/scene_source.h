#pragma once
/// The interface every captioning data source implements (built-in scenes, real datasets).
#include <cstddef>
#include <cstdint>
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
  /// The CRC-32 of scene `index`'s pixels as stored (core/data/image_cache.h): what the
  /// annotations computed from them are keyed by, so a changed image is computed again. 0 for
  /// sources not stored on disk.
  virtual std::uint32_t image_crc(std::size_t index) const { return 0; }
  /// Checks every stored image against its CRC-32 and repairs the damaged ones from their files
  /// (each named through the source's messages); returns how many. 0 for sources not on disk.
  virtual std::size_t repair_damaged_images() const { return 0; }
};

/// Whether the scenes come with object boxes (the built-in scenes do; captioned photos do not):
/// what attention supervision and the auxiliary heads train on.
inline bool has_object_boxes(const SceneSource& source) {
  return source.size() > 0 && !source.get_without_image(0).objects.empty();
}

}  // namespace fovea
