// The runtime's reading of the CPU.
#include <gtest/gtest.h>

#include <algorithm>

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
