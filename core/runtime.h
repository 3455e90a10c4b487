#pragma once
/// Process-level set-up: device choice and CPU threading.
#include <string>

#include "core/torch_compat.h"

namespace fovea {

/// "auto" (CUDA when available, else CPU), "cpu", "cuda" or "cuda:N". Throws when CUDA is
/// asked for and not available, saying so.
torch::Device resolve_device(const std::string& name);

/// Sets LibTorch's intra-op thread count (<= 0: one per core).
void configure_threads(int threads);

/// libgomp reads OMP_WAIT_POLICY once, when it loads: with the default (spinning) policy its
/// idle workers fight OpenBLAS's threads on small machines. Call first thing in main(): when the
/// variable is unset it sets OMP_WAIT_POLICY=PASSIVE and re-executes the program once, so users
/// never have to export it themselves. Returns normally when nothing needed doing.
void reexec_with_thread_environment(int argc, char** argv);

/// One line describing the runtime (LibTorch version, device, threads), for logs and cards.
std::string describe_runtime(const torch::Device& device);

}  // namespace fovea
