#pragma once
/// One writer per run folder: an advisory lock (flock) on `.fovea-run.lock` in the folder, held
/// for the life of the object. A second run into the folder, or a second `--resume` of it, is
/// refused with the holder's pid and host instead of both writing the same files. The lock ends
/// with the process that holds it, however it ends (a kill -9 included); the file stays. On a
/// file system without locks (some network mounts) the run goes on unguarded.
#include <memory>
#include <stdexcept>
#include <string>

#include "core/io/file_lock.h"

namespace fovea {

/// Another process writes the run folder (RunLock): the run was not started, and the folder is
/// that process's, not this one's to mark as failed.
class RunFolderBusy : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RunLock {
 public:
  /// Creates `folder` if needed and takes its lock. Throws RunFolderBusy naming the folder and the
  /// holder (pid and host) when another process holds it, or std::runtime_error with the reason
  /// when the lock file cannot be made.
  explicit RunLock(const std::string& folder);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

  /// The lock file's name inside a run folder.
  static const char* file_name() { return ".fovea-run.lock"; }

 private:
  std::unique_ptr<FileLock> lock_;
};

}  // namespace fovea
