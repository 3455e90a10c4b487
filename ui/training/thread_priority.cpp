#include "ui/training/thread_priority.h"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#endif

namespace fovea::ui {

#ifdef __linux__
namespace {
// On Linux setpriority(PRIO_PROCESS, tid) applies to that one thread (NPTL threads are tasks).
id_t this_thread_id() { return id_t(::syscall(SYS_gettid)); }
}  // namespace

bool lower_current_thread_priority(int nice) { return ::setpriority(PRIO_PROCESS, this_thread_id(), nice) == 0; }

int current_thread_nice() {
  errno = 0;
  const int n = ::getpriority(PRIO_PROCESS, this_thread_id());
  return errno == 0 ? n : 0;
}
#else
bool lower_current_thread_priority(int) { return false; }
int current_thread_nice() { return 0; }
#endif

}  // namespace fovea::ui
