#include "core/runtime/blas_core.h"

#include <algorithm>
#include <cstdlib>

#include "core/runtime/runtime.h"

extern "C" char* openblas_get_corename() __attribute__((weak));

namespace fovea {

namespace {

/// 2: OpenBLAS cores with AVX-512 kernels; 1: with AVX2 and FMA kernels; 0: anything older.
int core_level(const std::string& core) {
  static const std::vector<std::string> avx512 = {"SkylakeX", "Cooperlake", "SapphireRapids"};
  static const std::vector<std::string> avx2 = {"Haswell", "Zen", "Excavator"};
  if (std::find(avx512.begin(), avx512.end(), core) != avx512.end()) return 2;
  if (std::find(avx2.begin(), avx2.end(), core) != avx2.end()) return 1;
  return 0;
}

}  // namespace

std::string openblas_core_for(const std::string& chosen, const std::vector<std::string>& cpu_flags) {
  const auto has = [&](const char* flag) { return std::find(cpu_flags.begin(), cpu_flags.end(), flag) != cpu_flags.end(); };
  int level = 0;
  if (has("avx2") && has("fma")) level = 1;
  if (level == 1 && has("avx512f") && has("avx512bw") && has("avx512dq") && has("avx512vl")) level = 2;
  // Only a fall-back to pre-AVX2 kernels is replaced: where OpenBLAS chose AVX2 kernels on an
  // AVX-512 CPU it did so on purpose (Zen 2-3 class support, or an OS without AVX-512 state).
  if (level == 0 || core_level(chosen) > 0) return "";
  return level == 2 ? "SkylakeX" : "Haswell";
}

std::string openblas_core_name() { return openblas_get_corename != nullptr ? openblas_get_corename() : ""; }

std::string openblas_core_to_choose(const char* coretype_env, const std::string& chosen,
                                    const std::vector<std::string>& cpu_flags) {
  return coretype_env != nullptr ? "" : openblas_core_for(chosen, cpu_flags);
}

std::string openblas_core_to_choose() {
  if (openblas_get_corename == nullptr) return "";
  return openblas_core_to_choose(std::getenv("OPENBLAS_CORETYPE"), openblas_core_name(), cpu_flags());
}

}  // namespace fovea
