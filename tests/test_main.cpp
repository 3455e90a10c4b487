// The core tests start as Fovea's programs do (core/runtime/process_startup.h), so they run the
// kernels and threading users get: on a CPU OpenBLAS does not know, the core Fovea chooses.
#include <gtest/gtest.h>

#include "core/runtime/process_startup.h"

int main(int argc, char** argv) {
  fovea::prepare_process(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
