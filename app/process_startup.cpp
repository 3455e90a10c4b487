#include "app/process_startup.h"

#include <unistd.h>

#include <cstdlib>
#include <utility>
#include <vector>

#include "core/runtime/runtime.h"

namespace fovea {

void prepare_process(int argc, char** argv) {
  configure_allocator();
  if (std::getenv("FOVEA_NO_REEXEC") != nullptr) return;
  bool changed = false;
  for (const auto& [name, value] : {std::pair{"OMP_WAIT_POLICY", "PASSIVE"}, std::pair{"OPENBLAS_THREAD_TIMEOUT", "4"}}) {
    if (std::getenv(name) == nullptr) {
      setenv(name, value, 1);
      changed = true;
    }
  }
  if (!changed) return;
  setenv("FOVEA_NO_REEXEC", "1", 1);
  std::vector<char*> args(argv, argv + argc);
  args.push_back(nullptr);
  execv("/proc/self/exe", args.data());
  // execv failed (no /proc): carry on with the libraries' spinning defaults.
}

}  // namespace fovea
