#include "core/io/file_lock.h"

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
std::string read_holder(int fd) {
  char text[512] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  std::string s(text, n > 0 ? std::size_t(n) : 0);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  return s.empty() ? "a process that has not said its pid yet" : s;
}

bool locks_unsupported(int error) { return error == ENOLCK || error == EOPNOTSUPP || error == ENOSYS; }

}  // namespace

FileLock::FileLock(const std::string& path, bool wait, const std::function<void(const std::string&)>& waiting) {
  std::error_code ec;
  const auto folder = std::filesystem::path(path).parent_path();
  if (!folder.empty()) std::filesystem::create_directories(folder, ec);
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error(path + ": cannot make the lock file (" + std::strerror(errno) + ")");
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    if (locks_unsupported(error)) {  // unguarded, as without the lock
      held_ = true;
      return;
    }
    if (error != EWOULDBLOCK) {
      ::close(fd_);
      fd_ = -1;
      throw std::runtime_error(path + ": cannot lock it (" + std::strerror(error) + ")");
    }
    holder_ = read_holder(fd_);
    if (!wait) return;
    if (waiting) waiting(holder_);
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) throw std::runtime_error(path + ": cannot lock it (" + std::strerror(errno) + ")");
    }
  }
  held_ = true;
  const std::string me = "pid " + std::to_string(::getpid()) + " on host " + host_name() + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, me.data(), me.size(), 0) != ssize_t(me.size())) {
    // Held all the same: only what a second process is told is poorer.
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace fovea
