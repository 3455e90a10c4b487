#include <gtest/gtest.h>

#include <algorithm>

#include "core/thread_environment.h"

using fovea::openblas_coretype_for;

namespace {
const std::vector<std::string> kAvx2{"fpu", "sse4_2", "avx", "avx2", "fma"};
const std::vector<std::string> kAvx512{"avx2", "fma", "avx512f", "avx512dq", "avx512bw", "avx512vl"};
const std::vector<std::string> kAvx512Bf16{"avx2", "avx512f", "avx512dq", "avx512bw", "avx512vl", "avx512_bf16"};
}  // namespace

// A kernel family older than the CPU (these VMs export Haswell on an AVX-512 EPYC) is replaced.
TEST(ThreadEnvironment, AnAvx2OpenBlasCoreOnAnAvx512CpuGetsTheAvx512Kernels) {
  EXPECT_EQ(openblas_coretype_for("Haswell", nullptr, kAvx512Bf16), "Cooperlake");
  EXPECT_EQ(openblas_coretype_for("haswell", nullptr, kAvx512), "SkylakeX");
  EXPECT_EQ(openblas_coretype_for("Zen", nullptr, kAvx512), "SkylakeX");
}

// What OpenBLAS would pick itself, a CPU without AVX-512, and AVX-512 names are left alone.
TEST(ThreadEnvironment, LeavesTheCoreTypeWhereTheCpuHasNothingFaster) {
  EXPECT_EQ(openblas_coretype_for(nullptr, nullptr, kAvx512Bf16), "");
  EXPECT_EQ(openblas_coretype_for("Haswell", nullptr, kAvx2), "Haswell");
  EXPECT_EQ(openblas_coretype_for("Haswell", nullptr, {"avx512f"}), "Haswell");  // no bw/dq/vl: not SkylakeX
  EXPECT_EQ(openblas_coretype_for("SkylakeX", nullptr, kAvx512Bf16), "SkylakeX");
  EXPECT_EQ(openblas_coretype_for("SAPPHIRERAPIDS", nullptr, kAvx512Bf16), "SAPPHIRERAPIDS");
}

// FOVEA_OPENBLAS_CORETYPE pins the kernels: a name, or "keep" for whatever OPENBLAS_CORETYPE says.
TEST(ThreadEnvironment, FoveaOpenBlasCoreTypeWins) {
  EXPECT_EQ(openblas_coretype_for("Haswell", "keep", kAvx512Bf16), "Haswell");
  EXPECT_EQ(openblas_coretype_for(nullptr, "keep", kAvx512Bf16), "");
  EXPECT_EQ(openblas_coretype_for("Haswell", "SkylakeX", kAvx512Bf16), "SkylakeX");
  EXPECT_EQ(openblas_coretype_for(nullptr, "Haswell", kAvx512Bf16), "Haswell");
  EXPECT_EQ(openblas_coretype_for("Haswell", "", kAvx512Bf16), "Cooperlake");  // empty counts as unset
}

// The flags come from /proc/cpuinfo on Linux.
TEST(ThreadEnvironment, ReadsTheCpuFlags) {
#if defined(__linux__) && (defined(__x86_64__) || defined(__i386__))
  const auto flags = fovea::cpu_flags();
  EXPECT_NE(std::find(flags.begin(), flags.end(), "sse2"), flags.end());
#else
  GTEST_SKIP() << "x86 Linux only";
#endif
}
