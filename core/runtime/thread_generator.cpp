#include "core/runtime/thread_generator.h"

#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <mutex>

namespace fovea {
namespace {
thread_local c10::optional<at::Generator> current;

/// Inverted dropout's multiplier for a CPU float tensor: 1 / (1 - p) with probability 1 - p, else 0,
/// one 32-bit draw of the generator per element (its top 24 bits against (1 - p) 2^24, as a float
/// uniform would). bernoulli_ with a scalar probability drew a double per element through a
/// TensorIterator: 3.8 ms for the deep output's 519 x 512 at the benchmark's sizes, 15% of a step's
/// elementwise work.
torch::Tensor keep_mask(const torch::Tensor& like, double p, at::Generator generator) {
  auto keep = torch::empty(like.sizes(), like.options().dtype(torch::kFloat));
  const auto threshold = static_cast<std::uint32_t>(std::llround((1.0 - p) * 16777216.0));
  const float scale = static_cast<float>(1.0 / (1.0 - p));
  float* k = keep.data_ptr<float>();
  const std::int64_t n = keep.numel();
  auto* gen = at::check_generator<at::CPUGeneratorImpl>(generator);
  std::lock_guard<std::mutex> lock(generator.mutex());
  for (std::int64_t i = 0; i < n; ++i) k[i] = (gen->random() >> 8) < threshold ? scale : 0.0f;
  return keep;
}
}  // namespace

c10::optional<at::Generator> thread_generator() { return current; }

ScopedThreadGenerator::ScopedThreadGenerator(std::uint64_t seed) : previous_(current) {
  current = at::make_generator<at::CPUGeneratorImpl>(seed);
}

ScopedThreadGenerator::~ScopedThreadGenerator() { current = previous_; }

torch::Tensor dropout(const torch::Tensor& x, double p, bool training) {
  if (!training || p == 0) return x;
  if (x.device().is_cpu() && x.scalar_type() == torch::kFloat && p < 1) {
    return x * keep_mask(x, p, current.has_value() ? *current : at::detail::getDefaultCPUGenerator());
  }
  if (!current.has_value() || !x.device().is_cpu()) return torch::dropout(x, p, true);
  auto keep = at::empty_like(x).bernoulli_(1 - p, current);
  keep.div_(1 - p);
  return x * keep;
}

}  // namespace fovea
