// The runtime's reading of the CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/runtime/blas_core.h"
#include "core/runtime/error_text.h"
#include "core/runtime/runtime.h"

// The flags come from /proc/cpuinfo on Linux.
TEST(Runtime, ReadsTheCpuFlags) {
#if defined(__linux__) && (defined(__x86_64__) || defined(__i386__))
  const auto flags = fovea::cpu_flags();
  EXPECT_NE(std::find(flags.begin(), flags.end(), "sse2"), flags.end());
#else
  GTEST_SKIP() << "x86 Linux only";
#endif
}

// OpenBLAS's fall-back to pre-AVX2 kernels on a CPU it does not know is replaced by the core of
// the CPU's instruction set; a choice with AVX2 or AVX-512 kernels is kept.
TEST(OpenblasCore, ReplacesAFallBackOlderThanTheCpu) {
  const std::vector<std::string> avx512 = {"sse2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512dq", "avx512vl"};
  const std::vector<std::string> avx2 = {"sse2", "avx", "avx2", "fma"};
  const std::vector<std::string> avx = {"sse2", "avx"};
  EXPECT_EQ(fovea::openblas_core_for("Prescott", avx512), "SkylakeX");
  EXPECT_EQ(fovea::openblas_core_for("Nehalem", avx2), "Haswell");
  EXPECT_EQ(fovea::openblas_core_for("Sandybridge", avx2), "Haswell");
  // AVX-512 without BW/DQ/VL (Knights Landing) is not what SkylakeX's kernels need.
  EXPECT_EQ(fovea::openblas_core_for("Prescott", {"avx2", "fma", "avx512f"}), "Haswell");
  EXPECT_EQ(fovea::openblas_core_for("Haswell", avx512), "");
  EXPECT_EQ(fovea::openblas_core_for("Zen", avx2), "");
  EXPECT_EQ(fovea::openblas_core_for("Cooperlake", avx512), "");
  EXPECT_EQ(fovea::openblas_core_for("Sandybridge", avx), "");
  EXPECT_EQ(fovea::openblas_core_for("Prescott", {}), "");
}

// OPENBLAS_CORETYPE set by the environment is never overridden, even to a core older than the CPU.
TEST(OpenblasCore, RespectsTheEnvironment) {
  const std::vector<std::string> avx512 = {"avx2", "fma", "avx512f", "avx512bw", "avx512dq", "avx512vl"};
  EXPECT_EQ(fovea::openblas_core_to_choose(nullptr, "Prescott", avx512), "SkylakeX");
  EXPECT_EQ(fovea::openblas_core_to_choose("Prescott", "Prescott", avx512), "");
  EXPECT_EQ(fovea::openblas_core_to_choose("", "Prescott", avx512), "") << "set, even empty";
}

TEST(Runtime, ErrorTextLeavesLibTorchsBacktraceOut) {
  try {
    TORCH_CHECK(false, "the reason a user should read");
  } catch (const std::exception& e) {
    const std::string text = fovea::error_text(e);
    EXPECT_NE(text.find("the reason a user should read"), std::string::npos) << text;
    EXPECT_EQ(text.find("Exception raised from"), std::string::npos) << text;
    EXPECT_EQ(text.find("frame #"), std::string::npos) << text;
  }
  EXPECT_EQ(fovea::error_text(std::runtime_error("plain")), "plain");
}

TEST(Runtime, ErrorTextLeavesLibrarySourceLocationsOut) {
  // What a process of a group says when its peer died: Gloo's own source location is not the user's.
  try {
    TORCH_CHECK(false, "[./gloo/transport/tcp/pair.cc:598] Connection closed by peer [127.0.0.1]:41234");
  } catch (const std::exception& e) {
    EXPECT_EQ(fovea::error_text(e), "Connection closed by peer [127.0.0.1]:41234");
  }
  const std::runtime_error wrapped(
      "process 0 of 2: an all-reduce failed: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out");
  EXPECT_EQ(fovea::error_text(wrapped), "process 0 of 2: an all-reduce failed: Timed out");
  // Brackets that are no source location stay.
  for (const std::string kept : {"runs/[a]: no last.ckpt", "x [12:30] y", "[a b.cc:3] z", "[file.cc:] w", "[x.json:3] v"})
    EXPECT_EQ(fovea::error_text(std::runtime_error(kept)), kept);
}
