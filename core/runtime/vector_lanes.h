#pragma once
/// Which of Fovea's hand-written vector kernels this process runs (the per-step products, the
/// small-batch products of decoding).

namespace fovea {

enum class VectorLanes { Portable, Avx2, Avx512 };

/// The widest the CPU has: AVX-512, else AVX2 with FMA, else Portable. Where ATEN_CPU_CAPABILITY
/// is set (e.g. avx2, to reproduce an AVX2-only machine), no wider than what ATen then dispatches
/// to, so that Fovea and LibTorch run on the same instruction set. Decided once per process.
/// Always Portable off x86-64 and on compilers other than GCC.
VectorLanes vector_lanes();

/// "AVX512", "AVX2" or "portable".
const char* vector_lanes_name(VectorLanes lanes);

}  // namespace fovea

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
/// Hand-written AVX2/AVX-512 kernels are compiled (GCC target attributes).
#define FOVEA_X86_KERNELS 1
#endif
