#pragma once
/// Process-level set-up: device choice and CPU threading.
#include <string>

#include "core/thread_environment.h"
#include "core/torch_compat.h"

namespace fovea {

/// "auto" (CUDA when available, else CPU), "cpu", "cuda" or "cuda:N". Throws when CUDA is
/// asked for and not available, saying so.
torch::Device resolve_device(const std::string& name);

/// Sets LibTorch's intra-op thread count (<= 0: one per core).
void configure_threads(int threads);

/// One line describing the runtime (LibTorch version, device, threads), for logs and cards.
std::string describe_runtime(const torch::Device& device);

}  // namespace fovea
