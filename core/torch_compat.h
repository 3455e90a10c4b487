#pragma once
/// The one place where differences between LibTorch releases are absorbed.
/// Fovea builds against Debian's LibTorch 1.13 (CPU) and the official 2.x distributions (CUDA).
#include <torch/torch.h>
#include <torch/version.h>

namespace fovea::compat {

inline constexpr int kTorchMajor = TORCH_VERSION_MAJOR;
inline constexpr int kTorchMinor = TORCH_VERSION_MINOR;

/// Human-readable LibTorch version, e.g. "1.13.1".
inline std::string torch_version() {
  return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
         std::to_string(TORCH_VERSION_PATCH);
}

/// The default CPU generator's state (a uint8 tensor), for exact resumption.
inline torch::Tensor cpu_rng_state() {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get_state();
}

inline void set_cpu_rng_state(const torch::Tensor& state) {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(state);
}

/// Whether a CUDA device can be used by this build.
inline bool cuda_available() { return torch::cuda::is_available(); }

}  // namespace fovea::compat
