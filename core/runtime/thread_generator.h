#pragma once
/// Random draws of a training step's parallel parts (core/train/decoder_pass.h). The parts of one batch
/// run on threads at once; drawing from LibTorch's one global generator would hand out numbers in
/// whatever order the threads reach it, and a resumed run would no longer repeat the uninterrupted
/// one. Each part therefore draws from its own generator, seeded from the global one in part order.
#include <cstdint>

#include "core/runtime/torch_compat.h"

namespace fovea {

/// The generator this thread's draws use: a ScopedThreadGenerator's, else LibTorch's default.
c10::optional<at::Generator> thread_generator();

/// Gives the calling thread its own CPU generator, seeded with `seed`, while alive.
class ScopedThreadGenerator {
 public:
  explicit ScopedThreadGenerator(std::uint64_t seed);
  ~ScopedThreadGenerator();
  ScopedThreadGenerator(const ScopedThreadGenerator&) = delete;
  ScopedThreadGenerator& operator=(const ScopedThreadGenerator&) = delete;

 private:
  c10::optional<at::Generator> previous_;
};

/// Inverted dropout (what torch::dropout computes on CPU) with its mask drawn from thread_generator().
torch::Tensor dropout(const torch::Tensor& x, double p, bool training);

}  // namespace fovea
