#include "core/train/run_lock.h"

#include <filesystem>

namespace fovea {

RunLock::RunLock(const std::string& folder) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  const auto path = (std::filesystem::path(folder) / file_name()).string();
  lock_ = std::make_unique<FileLock>(path, false);
  if (!lock_->held()) {
    throw RunFolderBusy(folder + ": another run is writing to this folder (" + lock_->holder() +
                        "); wait for it to end or stop it, or choose another folder");
  }
}

RunLock::~RunLock() = default;

}  // namespace fovea
