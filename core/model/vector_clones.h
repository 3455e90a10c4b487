#pragma once
/// FOVEA_VECTOR_CLONES: compile a hot loop for AVX-512, AVX2 and plain x86-64 and let the loader
/// pick the best the CPU has (GCC function multi-versioning). Nothing on other compilers/targets.
///
/// The AVX2 form is x86-64-v3 (AVX2 with FMA): a plain "avx2" clone leaves FMA out, and every
/// a * b + c in it (the polynomials of tanh and exp, Adam) then takes two instructions. GCC 11
/// and older do not know the x86-64 levels as clone targets: there the AVX2 form has no FMA.
/// The CMake option FOVEA_NO_AVX512_KERNELS leaves the AVX-512 form out, so that an AVX-512
/// machine runs (and times) the forms an AVX2-only CPU gets.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#if __GNUC__ >= 12
#define FOVEA_CLONE_AVX2 "arch=x86-64-v3"
#else
#define FOVEA_CLONE_AVX2 "avx2"
#endif
#ifdef FOVEA_NO_AVX512_KERNELS
#define FOVEA_VECTOR_CLONES __attribute__((target_clones(FOVEA_CLONE_AVX2, "default")))
#else
#define FOVEA_VECTOR_CLONES __attribute__((target_clones("avx512f", FOVEA_CLONE_AVX2, "default")))
#endif
#else
#define FOVEA_VECTOR_CLONES
#endif

namespace fovea {

/// Partial sums (or maxima) a reduction keeps side by side so that its loop vectorises: one
/// AVX-512 register, two AVX2 ones.
constexpr int kReductionLanes = 16;

}  // namespace fovea
