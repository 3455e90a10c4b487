#include "core/train/thread_generator.h"

#include <ATen/CPUGeneratorImpl.h>

namespace fovea {
namespace {
thread_local c10::optional<at::Generator> current;
}  // namespace

c10::optional<at::Generator> thread_generator() { return current; }

ScopedThreadGenerator::ScopedThreadGenerator(std::uint64_t seed) : previous_(current) {
  current = at::make_generator<at::CPUGeneratorImpl>(seed);
}

ScopedThreadGenerator::~ScopedThreadGenerator() { current = previous_; }

torch::Tensor dropout(const torch::Tensor& x, double p, bool training) {
  if (!training || p == 0) return x;
  if (!current.has_value() || !x.device().is_cpu()) return torch::dropout(x, p, true);
  auto keep = at::empty_like(x).bernoulli_(1 - p, current);
  keep.div_(1 - p);
  return x * keep;
}

}  // namespace fovea
