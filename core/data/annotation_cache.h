#pragma once
/// The annotation grids of a split's images, computed once by an encoder that does not train and
/// kept on disk beside the image cache (core/data/image_cache.h), so a run trains its decoder
/// and validates, and `fovea eval` scores, without running the CNN again (the paper's authors
/// computed the conv5_4 annotations once too). One file per key (the split, the image size and
/// the encoder's content: whoever opens it says what the key is), memory-mapped; entries are
/// bfloat16 (8 significant bits: a relative rounding of at most 2^-8, the range of float32) with
/// one CRC-32 each, checked on every read, and the CRC-32 of the image pixels they were computed
/// from: an image changed since is computed again (to_compute()). A damaged entry is computed
/// again through the repair function and rewritten. Layout:
///   "FOVEAANC" | u32 version | u64 header_len | u32 CRC-32 of the header | header JSON
///   | count × u32 CRC-32 | count × u32 CRC-32 of the entry's image | count × cells × dim × u16
/// While it is built the file is "<name>.partial", written in place entry by entry (data, then
/// its CRC-32, then its image's), so a build that is interrupted or killed goes on where it
/// stopped: the next open keeps every entry whose CRC-32 checks. When every entry is in, it is
/// renamed to "<name>". One process builds a cache at a time ("<name>.lock", core/io/file_lock.h).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/data/scene_source.h"
#include "core/runtime/torch_compat.h"

namespace fovea {

class AnnotationCache {
 public:
  /// Opens the cache of `count` entries of (cells, dim) for `key` in `cache_dir` (empty: the
  /// image cache's folder): the finished file when its header matches, else the partial one
  /// (kept entries are those whose CRC-32 checks), else a new partial file. A file under the same
  /// name that is damaged in its header, cut short, or of another count or shape is replaced,
  /// and `message` says which and why.
  static AnnotationCache open(const std::string& key, std::size_t count, std::int64_t cells, std::int64_t dim,
                              const std::string& cache_dir = {},
                              const std::function<void(const std::string&)>& message = {});
  /// The lock file of the cache `key` would open in `cache_dir`: held while a process builds it.
  static std::string lock_path(const std::string& key, const std::string& cache_dir = {});
  AnnotationCache(AnnotationCache&&) noexcept;
  AnnotationCache& operator=(AnnotationCache&&) noexcept;
  ~AnnotationCache();

  std::size_t size() const;
  std::int64_t cells() const;
  std::int64_t dim() const;
  bool complete() const;  ///< every entry in, the file under its final name
  /// Entries to compute: in a partial file those whose CRC-32 does not check; in any file those
  /// computed from other pixels than `inputs[i]` (the CRC-32 of entry i's image; empty: not
  /// checked, 0: not known).
  std::vector<std::size_t> to_compute(const std::vector<std::uint32_t>& inputs = {}) const;
  /// Entries not yet in (to_compute() without inputs).
  std::vector<std::size_t> missing() const { return to_compute(); }
  /// Every entry whose CRC-32 does not check (reads the whole file).
  std::vector<std::size_t> damaged() const;
  /// Stores entry i: (cells, dim) floats, rounded to bfloat16, computed from an image whose
  /// pixels have CRC-32 `input` (0: not known).
  void write(std::size_t i, const torch::Tensor& annotations, std::uint32_t input = 0);
  /// Checks every entry and, when all are in, renames the file to its final name; returns complete().
  bool finish();

  /// Computes entry i again when its CRC-32 fails on a read: (cells, dim) floats.
  using Repair = std::function<torch::Tensor(std::size_t)>;
  void set_repair(Repair repair, std::function<void(const std::string&)> message = {});
  /// Entries `indices` as (B, cells, dim) float32, each checked against its CRC-32. A damaged entry
  /// is computed by the repair function, written back and said through its message; without one,
  /// throws std::runtime_error naming the cache file and the entry. Thread-safe.
  torch::Tensor read(const std::vector<std::size_t>& indices) const;
  /// The same entries in bf16, as stored: for a bf16 training step, which takes them as they are
  /// (half the bytes to select into its parts and no rounding back).
  torch::Tensor read_stored(const std::vector<std::size_t>& indices) const;
  std::size_t repaired() const;  ///< entries found damaged and repaired since open()
  const std::string& path() const;

 private:
  AnnotationCache();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The scenes of `source` with their captions and ids only (no image is read): the batches of a
/// run that trains from cached annotations.
std::shared_ptr<const SceneSource> captions_only(std::shared_ptr<const SceneSource> source);

}  // namespace fovea
