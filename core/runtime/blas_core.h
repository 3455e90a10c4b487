#pragma once
/// OpenBLAS picks its kernels (its "core") from the CPU's model number. On a model it does not
/// know (a newer CPU, or a virtual machine that hides the model) it falls back to kernels older
/// than AVX2: on a Xeon VM with AVX-512 that reports no model name, OpenBLAS 0.3.21 chose
/// Prescott, whose SSE3 sgemm ran at 31 GFLOP/s where SkylakeX's ran at 152. Torch-free.
#include <string>
#include <vector>

namespace fovea {

/// The core that fits a CPU with `cpu_flags` (as /proc/cpuinfo lists them) when OpenBLAS's own
/// choice `chosen` has kernels older than AVX2 (Prescott, Nehalem, Sandybridge ...): SkylakeX
/// with AVX-512 (F, BW, DQ, VL), Haswell with AVX2 and FMA. Empty when `chosen` has AVX2 or
/// AVX-512 kernels, or the CPU has no AVX2.
std::string openblas_core_for(const std::string& chosen, const std::vector<std::string>& cpu_flags);

/// The core this process's OpenBLAS runs ("" where the BLAS is not OpenBLAS).
std::string openblas_core_name();

/// openblas_core_for(chosen, cpu_flags) where OPENBLAS_CORETYPE is unset (`coretype_env` null);
/// empty where the environment sets it.
std::string openblas_core_to_choose(const char* coretype_env, const std::string& chosen,
                                    const std::vector<std::string>& cpu_flags);

/// openblas_core_for() this process's OpenBLAS and CPU. Empty where OPENBLAS_CORETYPE is set
/// (some machines set it because OpenBLAS computes wrong results on them otherwise: it is
/// respected), where the BLAS is not OpenBLAS, or where OpenBLAS's choice fits the CPU.
/// OpenBLAS reads OPENBLAS_CORETYPE when it loads, so a program that wants the core must set it
/// and start again (prepare_process() does).
std::string openblas_core_to_choose();

/// The variable prepare_process() sets to the core OpenBLAS had chosen itself when it chose
/// another one; cpu_kernels() reports it.
inline constexpr const char* kOpenblasFallbackVariable = "FOVEA_OPENBLAS_FELL_BACK_TO";

}  // namespace fovea
