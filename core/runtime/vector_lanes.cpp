#include "core/runtime/vector_lanes.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

namespace fovea {

VectorLanes vector_lanes() {
  static const VectorLanes chosen = [] {
#ifdef FOVEA_X86_KERNELS
    // Unset, ATen keeps to AVX2 on many AVX-512 CPUs by its own choice; that is no reason for
    // Fovea's kernels to (as with OpenBLAS's core: core/runtime/blas_core.h).
    // ATen reads the same variable: avx512, avx2 or default, any case.
    std::string cap = "avx512";
    if (const char* asked = std::getenv("ATEN_CPU_CAPABILITY"); asked != nullptr && *asked != '\0') {
      cap = asked;
      std::transform(cap.begin(), cap.end(), cap.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    }
    if (cap == "avx512" && __builtin_cpu_supports("avx512f")) return VectorLanes::Avx512;
    if ((cap == "avx512" || cap == "avx2") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
      return VectorLanes::Avx2;
    }
#endif
    return VectorLanes::Portable;
  }();
  return chosen;
}

const char* vector_lanes_name(VectorLanes lanes) {
  switch (lanes) {
    case VectorLanes::Avx512: return "AVX512";
    case VectorLanes::Avx2: return "AVX2";
    case VectorLanes::Portable: break;
  }
  return "portable";
}

}  // namespace fovea
