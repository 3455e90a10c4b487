#pragma once
/// A split's images decoded and resized once into one binary file that later runs memory-map,
/// so epochs never decode JPEGs again. The file's header records the source (annotation file,
/// its size and time, the images folder, the split) and the preprocessing (image size); a cache
/// whose header differs, is damaged or is cut short is rebuilt. Each entry keeps its image file's
/// identity (size, modification time and a CRC-32 of its bytes): when a file's size or time
/// changed since, its bytes are compared, and an image changed in place is read again and its
/// entry rewritten (said through the open's `message`). Each entry's pixels have a CRC-32,
/// checked whenever they are read: a damaged entry is decoded again from its source file,
/// repaired in the cache and reported by index and file. Layout:
///   "FOVEAIMC" | u32 version | u64 header_len | u32 CRC-32 of the header | header JSON
///   | count × u32 CRC-32 of the pixels | count × (u64 size, i64 mtime ns, u32 CRC-32, u32 0) of
///   the file | count × size × size × 3 bytes (RGB)
/// Written to a temporary file and renamed. Torch-free; POSIX mmap.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/data/caption_dataset.h"
#include "core/data/image.h"

namespace fovea {

struct ImageCacheOptions {
  int image_size = 112;
  /// Leave unreadable images out (counted, named in the cache's skipped()) instead of failing.
  bool skip_bad_images = true;
  /// Empty: $FOVEA_CACHE_DIR, else $XDG_CACHE_HOME/fovea, else ~/.cache/fovea.
  std::string cache_dir;
};

class ImageCache {
 public:
  /// Opens the cache of `images` for `source` (a description that changes whenever the data
  /// does), building it first when missing or stale. A missing or unreadable image throws a
  /// std::runtime_error naming its path, unless options.skip_bad_images.
  static ImageCache open(const std::vector<CaptionedImage>& images, const std::string& source,
                         const ImageCacheOptions& options,
                         const std::function<void(const std::string&)>& message = {});
  ImageCache(ImageCache&&) noexcept;
  ImageCache& operator=(ImageCache&&) noexcept;
  ~ImageCache();

  std::size_t size() const;
  int image_size() const;
  /// Image i, checked against its CRC-32. A damaged entry is read again from its source file and
  /// rewritten in the cache (said through open()'s `message`); throws std::runtime_error naming
  /// the cache, the entry and the source file when that file cannot be read. Thread-safe.
  RgbImage image(std::size_t i) const;
  /// Entries found damaged and repaired since open().
  std::size_t repaired() const;
  /// Entries read again by open() because their image file changed since they were cached.
  std::size_t refreshed() const;
  /// The CRC-32 of image i's pixels as cached: what the annotations computed from it are keyed by.
  std::uint32_t pixels_crc(std::size_t i) const;
  /// Every entry whose pixels' CRC-32 does not check, each read again from its file and repaired
  /// (named through `message`); returns how many.
  std::size_t verify() const;
  /// For each cached image, its index in the `images` the cache was built from.
  const std::vector<std::size_t>& kept() const;
  /// Paths left out as unreadable (skip_bad_images).
  const std::vector<std::string>& skipped() const;
  bool was_built() const;  ///< built (or rebuilt) by this open() rather than reused
  const std::string& path() const;

 private:
  ImageCache();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Where caches go by default: $FOVEA_CACHE_DIR, else $XDG_CACHE_HOME/fovea, else ~/.cache/fovea.
std::string default_cache_dir();

/// A description of a dataset file that changes when it does: path, size and modification time.
std::string describe_source_file(const std::string& path);

}  // namespace fovea
