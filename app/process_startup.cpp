#include "app/process_startup.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include "core/runtime/runtime.h"

namespace fovea {

namespace {
std::vector<std::string>& arguments() {
  static std::vector<std::string> args;
  return args;
}
}  // namespace

const std::vector<std::string>& process_arguments() { return arguments(); }

void prepare_process(int argc, char** argv) {
  arguments().assign(argv + std::min(argc, 1), argv + argc);
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
