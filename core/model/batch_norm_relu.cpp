#include "core/model/batch_norm_relu.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/model/vector_clones.h"
#include "core/model/vector_math.h"

namespace fovea {

namespace {

/// Rows (pixels) per chunk: each chunk's sums are taken in float over this many rows, then added
/// in double in chunk order, so the statistics do not depend on the number of threads.
constexpr std::int64_t kRowsPerChunk = 256;

/// Floats stored as float itself or as bfloat16's bits (read with vector_math.h's load_float).
inline void store(float& out, float v) { out = v; }
inline void store(std::uint16_t& out, float v) { out = bf16_bits(v); }

/// sum[c] and sumsq[c] of (x[r][c] - origin[c]) over `rows` rows of `channels` values.
template <typename T>
FOVEA_VECTOR_CLONES void shifted_sums(const T* __restrict x, std::int64_t rows, std::int64_t channels,
                                      const float* __restrict origin, float* __restrict sum, float* __restrict sumsq) {
  for (std::int64_t c = 0; c < channels; ++c) sum[c] = sumsq[c] = 0.0f;
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* row = x + r * channels;
    for (std::int64_t c = 0; c < channels; ++c) {
      const float d = load_float(row[c]) - origin[c];
      sum[c] += d;
      sumsq[c] += d * d;
    }
  }
}

/// x[r][c] <- max(x[r][c] * scale[c] + shift[c], 0); NaN stays NaN, as ATen's ReLU keeps it.
template <typename T>
FOVEA_VECTOR_CLONES void scale_shift_relu(T* __restrict x, std::int64_t rows, std::int64_t channels,
                                          const float* __restrict scale, const float* __restrict shift) {
  for (std::int64_t r = 0; r < rows; ++r) {
    T* row = x + r * channels;
    for (std::int64_t c = 0; c < channels; ++c) store(row[c], std::max(load_float(row[c]) * scale[c] + shift[c], 0.0f));
  }
}

std::int64_t chunks_of(std::int64_t rows) { return (rows + kRowsPerChunk - 1) / kRowsPerChunk; }

/// The batch's per-channel mean and biased variance, in double.
template <typename T>
void batch_statistics(const T* x, std::int64_t rows, std::int64_t channels, std::vector<double>& mean,
                      std::vector<double>& variance) {
  // Sums of differences from the first row: the variance then does not lose its digits to a
  // mean far from zero.
  std::vector<float> origin(static_cast<std::size_t>(channels));
  for (std::int64_t c = 0; c < channels; ++c) origin[c] = load_float(x[c]);
  const std::int64_t chunks = chunks_of(rows);
  std::vector<float> partial(std::size_t(chunks * 2 * channels));
  at::parallel_for(0, chunks, 8, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t k = begin; k < end; ++k) {
      const std::int64_t first = k * kRowsPerChunk;
      float* out = partial.data() + k * 2 * channels;
      shifted_sums(x + first * channels, std::min(kRowsPerChunk, rows - first), channels, origin.data(), out,
                   out + channels);
    }
  });
  std::vector<double> sum(std::size_t(channels), 0.0), sumsq(std::size_t(channels), 0.0);
  for (std::int64_t k = 0; k < chunks; ++k) {
    const float* in = partial.data() + k * 2 * channels;
    for (std::int64_t c = 0; c < channels; ++c) sum[c] += in[c], sumsq[c] += in[channels + c];
  }
  mean.assign(std::size_t(channels), 0.0);
  variance.assign(std::size_t(channels), 0.0);
  for (std::int64_t c = 0; c < channels; ++c) {
    const double shifted_mean = sum[c] / double(rows);
    mean[c] = double(origin[c]) + shifted_mean;
    variance[c] = std::max(0.0, sumsq[c] / double(rows) - shifted_mean * shifted_mean);
  }
}

}  // namespace

bool batch_norm_relu_applies(const torch::Tensor& x) {
  return !torch::GradMode::is_enabled() && x.defined() && x.dim() == 4 && x.is_cpu() &&
         (x.scalar_type() == torch::kFloat || x.scalar_type() == torch::kBFloat16) &&
         x.is_contiguous(at::MemoryFormat::ChannelsLast) && x.size(0) * x.size(2) * x.size(3) > 1;
}

void batch_norm_relu_(torch::Tensor& x, torch::nn::BatchNorm2dImpl& bn) {
  TORCH_CHECK(
      batch_norm_relu_applies(x),
      "batch_norm_relu_: needs a float or bfloat16 CPU (N, C, H, W) tensor laid out channels-last, more than one value "
      "per channel and gradients off; got ",
      x.sizes(), " ", x.scalar_type());
  const std::int64_t channels = x.size(1);
  TORCH_CHECK(channels == bn.options.num_features(), "batch_norm_relu_: ", channels, " channels for a batch norm of ",
              bn.options.num_features());
  const std::int64_t rows = x.numel() / channels;
  const bool bf16 = x.scalar_type() == torch::kBFloat16;
  void* data = x.data_ptr();

  std::vector<double> mean, variance;
  const bool batch_stats = bn.is_training() || !bn.options.track_running_stats();
  if (batch_stats) {
    if (bf16) {
      batch_statistics(static_cast<const std::uint16_t*>(data), rows, channels, mean, variance);
    } else {
      batch_statistics(static_cast<const float*>(data), rows, channels, mean, variance);
    }
    if (bn.is_training() && bn.options.track_running_stats()) {
      double factor = bn.options.momentum().value_or(0.0);
      if (bn.num_batches_tracked.defined()) {
        bn.num_batches_tracked += 1;
        if (!bn.options.momentum()) factor = 1.0 / bn.num_batches_tracked.item<double>();
      }
      // As ATen: the running variance is the unbiased one.
      const auto batch_mean = torch::tensor(mean, torch::kDouble).to(bn.running_mean.scalar_type());
      const auto batch_var = (torch::tensor(variance, torch::kDouble) * (double(rows) / double(rows - 1)))
                                 .to(bn.running_var.scalar_type());
      bn.running_mean.mul_(1.0 - factor).add_(batch_mean, factor);
      bn.running_var.mul_(1.0 - factor).add_(batch_var, factor);
    }
  } else {
    const auto m = bn.running_mean.to(torch::kDouble).contiguous();
    const auto v = bn.running_var.to(torch::kDouble).contiguous();
    mean.assign(m.data_ptr<double>(), m.data_ptr<double>() + channels);
    variance.assign(v.data_ptr<double>(), v.data_ptr<double>() + channels);
  }

  const bool affine = bn.options.affine();
  const auto gamma = affine ? bn.weight.to(torch::kDouble).contiguous() : torch::Tensor();
  const auto beta = affine ? bn.bias.to(torch::kDouble).contiguous() : torch::Tensor();
  std::vector<float> scale(static_cast<std::size_t>(channels)), shift(static_cast<std::size_t>(channels));
  for (std::int64_t c = 0; c < channels; ++c) {
    const double s = (affine ? gamma.data_ptr<double>()[c] : 1.0) / std::sqrt(variance[c] + bn.options.eps());
    scale[c] = float(s);
    shift[c] = float((affine ? beta.data_ptr<double>()[c] : 0.0) - mean[c] * s);
  }
  const std::int64_t chunks = chunks_of(rows);
  at::parallel_for(0, chunks, 8, [&](std::int64_t begin, std::int64_t end) {
    const std::int64_t first = begin * kRowsPerChunk;
    const std::int64_t last = std::min(rows, end * kRowsPerChunk);
    if (bf16) {
      scale_shift_relu(static_cast<std::uint16_t*>(data) + first * channels, last - first, channels, scale.data(),
                       shift.data());
    } else {
      scale_shift_relu(static_cast<float*>(data) + first * channels, last - first, channels, scale.data(),
                       shift.data());
    }
  });
}

}  // namespace fovea
