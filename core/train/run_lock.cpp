#include "core/train/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace fovea {

namespace {

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown host";
  return name;
}

/// "pid N on host H", as the holder wrote it into the lock file.
std::string holder(int fd) {
  char text[512] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  std::string s(text, n > 0 ? std::size_t(n) : 0);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  return s.empty() ? "a process that has not said its pid yet" : s;
}

}  // namespace

RunLock::RunLock(const std::string& folder) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  const auto path = (std::filesystem::path(folder) / file_name()).string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error(path + ": cannot make the run folder's lock file (" + std::strerror(errno) + ")");
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    const std::string who = error == EWOULDBLOCK ? holder(fd_) : std::string();
    ::close(fd_);
    fd_ = -1;
    // A file system without locks (some network mounts): the run goes on unguarded, as before.
    if (error == ENOLCK || error == EOPNOTSUPP || error == ENOSYS) return;
    if (error != EWOULDBLOCK) throw std::runtime_error(path + ": cannot lock the run folder (" + std::strerror(error) + ")");
    throw RunFolderBusy(folder + ": another run is writing to this folder (" + who +
                             "); wait for it to end or stop it, or choose another folder");
  }
  const std::string me = "pid " + std::to_string(::getpid()) + " on host " + host_name() + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, me.data(), me.size(), 0) != ssize_t(me.size())) {
    // Held all the same: only the message a second run gives is poorer.
  }
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace fovea
