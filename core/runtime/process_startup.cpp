#include "core/runtime/process_startup.h"

#include <unistd.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "core/runtime/blas_core.h"
#include "core/runtime/runtime.h"

namespace fovea {

namespace {
std::vector<std::string>& arguments() {
  static std::vector<std::string> args;
  return args;
}
#if defined(__SSE__)
constexpr unsigned kFlushDenormals = 0x8000 | 0x0040;  // MXCSR's flush-to-zero and denormals-are-zero bits
#endif
}  // namespace

const std::vector<std::string>& process_arguments() { return arguments(); }

void flush_denormals() {
#if defined(__SSE__)
  _mm_setcsr(_mm_getcsr() | kFlushDenormals);
#endif
}

bool denormals_flushed() {
#if defined(__SSE__)
  return (_mm_getcsr() & kFlushDenormals) == kFlushDenormals;
#else
  return false;
#endif
}

void prepare_process(int argc, char** argv) {
  arguments().assign(argv + std::min(argc, 1), argv + argc);
  configure_allocator();
  flush_denormals();
  if (std::getenv("FOVEA_NO_REEXEC") != nullptr) return;
  bool changed = false;
  for (const auto& [name, value] : {std::pair{"OMP_WAIT_POLICY", "PASSIVE"}, std::pair{"OPENBLAS_THREAD_TIMEOUT", "4"}}) {
    if (std::getenv(name) == nullptr) {
      setenv(name, value, 1);
      changed = true;
    }
  }
  // OpenBLAS fell back to kernels older than the CPU (it did not know the CPU's model): give it
  // the core of the CPU's instruction set, and say which one it had chosen.
  if (const auto core = openblas_core_to_choose(); !core.empty()) {
    setenv(kOpenblasFallbackVariable, openblas_core_name().c_str(), 1);
    setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
    changed = true;
  }
  // Transparent huge pages for malloc's memory: a training step's activations are tens of MB
  // (51 MB for the encoder's first blocks at a batch of 64), and faulting fresh memory in 4 KB at a
  // time took 10-15% of a training step on a 2-core VM.
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const std::string current = tunables ? tunables : "";
  if (current.find("glibc.malloc.hugetlb") == std::string::npos) {
    setenv("GLIBC_TUNABLES", ((current.empty() ? "" : current + ":") + "glibc.malloc.hugetlb=1").c_str(), 1);
    changed = true;
  }
  if (!changed) return;
  setenv("FOVEA_NO_REEXEC", "1", 1);
  std::vector<char*> args(argv, argv + argc);
  args.push_back(nullptr);
  execv("/proc/self/exe", args.data());
  // execv failed (no /proc): carry on with the libraries' spinning defaults.
}

}  // namespace fovea
