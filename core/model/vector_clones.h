#pragma once
/// FOVEA_VECTOR_CLONES: compile a hot loop for AVX-512, AVX2 and plain x86-64 and let the loader
/// pick the best the CPU has (GCC function multi-versioning). Nothing on other compilers/targets.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define FOVEA_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define FOVEA_VECTOR_CLONES
#endif
