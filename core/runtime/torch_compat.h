#pragma once
/// The one place where differences between LibTorch releases are absorbed.
/// Fovea builds against Debian's LibTorch 1.13 (CPU) and the official 2.x distributions (CUDA).
#include <ATen/autocast_mode.h>
#include <sstream>
#include <string>
#include <type_traits>
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

/// Whether CPU autocast (CpuBf16Autocast) is on in this thread.
inline bool cpu_autocast_enabled() {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  return at::autocast::is_autocast_enabled(at::kCPU);
#else
  return at::autocast::is_cpu_enabled();
#endif
}

/// A 2-D convolution's padding as numbers, or null where it is "valid" or "same": its options
/// hold a c10::variant in LibTorch 1.x and a std::variant in 2.x.
inline const torch::ExpandingArray<2>* explicit_padding(const torch::nn::detail::ConvNdOptions<2>& options) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
  return std::get_if<torch::ExpandingArray<2>>(&options.padding());
#else
  return c10::get_if<torch::ExpandingArray<2>>(&options.padding());
#endif
}

/// While alive, CPU operators on autocast's lower-precision list (matrix products, convolutions)
/// run in bfloat16 with float accumulation, like Python's torch.autocast("cpu"). Used by
/// `fovea train/bench --precision bf16` around the forward only (backward and Adam stay float).
class CpuBf16Autocast {
 public:
  /// enabled = false does nothing (so callers need no optional): `CpuBf16Autocast bf16(precision == "bf16");`
  explicit CpuBf16Autocast(bool enabled = true) : active_(enabled) {
    if (!active_) return;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    was_enabled_ = at::autocast::is_autocast_enabled(at::kCPU);
    was_dtype_ = at::autocast::get_autocast_dtype(at::kCPU);
    at::autocast::set_autocast_enabled(at::kCPU, true);
    at::autocast::set_autocast_dtype(at::kCPU, at::kBFloat16);
#else
    was_enabled_ = at::autocast::is_cpu_enabled();
    was_dtype_ = at::autocast::get_autocast_cpu_dtype();
    at::autocast::set_cpu_enabled(true);
    at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
#endif
    at::autocast::increment_nesting();
  }
  /// Restores the previous autocast state now (before backward, say); the destructor then does nothing.
  void end() {
    if (!active_) return;
    active_ = false;
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
    at::autocast::set_autocast_enabled(at::kCPU, was_enabled_);
    at::autocast::set_autocast_dtype(at::kCPU, was_dtype_);
#else
    at::autocast::set_cpu_enabled(was_enabled_);
    at::autocast::set_autocast_cpu_dtype(was_dtype_);
#endif
  }
  ~CpuBf16Autocast() { end(); }
  CpuBf16Autocast(const CpuBf16Autocast&) = delete;
  CpuBf16Autocast& operator=(const CpuBf16Autocast&) = delete;

 private:
  bool active_ = false;
  bool was_enabled_ = false;
  at::ScalarType was_dtype_ = at::kBFloat16;
};

/// The key of `p`'s entry in an optimizer's state(): a string (the TensorImpl's address as
/// c10::guts::to_string writes it) in LibTorch 1.x, the TensorImpl pointer in 2.x.
template <class StateMap>
typename StateMap::key_type optimizer_state_key(const StateMap&, const torch::Tensor& p) {
  using Key = typename StateMap::key_type;
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream address;
    address << p.unsafeGetTensorImpl();
    return address.str();
  } else {
    return Key(p.unsafeGetTensorImpl());
  }
}

/// Whether a CUDA device can be used by this build.
inline bool cuda_available() { return torch::cuda::is_available(); }

}  // namespace fovea::compat
