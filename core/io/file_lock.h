#pragma once
/// An advisory lock (flock) on a file, held for the life of the object: one run writes a run
/// folder (core/train/run_lock.h), one process builds a cache (core/data/image_cache.h,
/// core/data/annotation_cache.h). The holder writes "pid N on host H" into the file, so whoever
/// meets the lock can say who holds it. The lock ends with the process, however it ends (kill -9
/// included); the file stays. On a file system without locks (some network mounts) the lock is
/// taken unguarded.
#include <functional>
#include <string>

namespace fovea {

class FileLock {
 public:
  /// Takes the lock on `path` (created, with its folder, if missing). When another process holds
  /// it: with `wait`, calls `waiting(holder)` once and blocks until it is free; without, returns
  /// a lock not held (held() false, holder() names the other process). Throws std::runtime_error
  /// naming the file when it cannot be made or locked.
  FileLock(const std::string& path, bool wait, const std::function<void(const std::string& holder)>& waiting = {});
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  bool held() const { return held_; }
  /// "pid N on host H": the process that held the lock when it was asked for (empty when free).
  const std::string& holder() const { return holder_; }

 private:
  int fd_ = -1;
  bool held_ = false;
  std::string holder_;
};

}  // namespace fovea
