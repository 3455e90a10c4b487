#include "core/model/packed_matrix.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/runtime/vector_lanes.h"

namespace fovea {

namespace {

#ifdef FOVEA_X86_KERNELS

// GCC keeps the accumulator arrays in registers only when every loop over them is unrolled;
// at -O2 it does not unroll them by itself and spills them at every step of the reduction.

/// y (R, 32) = x (R, K; rows ldx apart) · panel (K, 32), AVX-512: 2 R accumulators. Also
/// prefetches `ahead_rows` rows of 32 floats from `ahead` (a share of the next panel).
template <int R>
__attribute__((target("avx512f,fma"))) void panel_rows_avx512(const float* x, std::int64_t ldx, const float* panel,
                                                              float* y, std::int64_t ldy, std::int64_t K,
                                                              const float* ahead, std::int64_t ahead_rows) {
  __m512 lo[R], hi[R];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) lo[r] = hi[r] = _mm512_setzero_ps();
  for (std::int64_t k = 0; k < K; ++k) {
    if (k < ahead_rows) {
      _mm_prefetch(reinterpret_cast<const char*>(ahead + k * 32), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(ahead + k * 32 + 16), _MM_HINT_T0);
    }
    const __m512 w0 = _mm512_load_ps(panel + k * 32), w1 = _mm512_load_ps(panel + k * 32 + 16);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m512 xr = _mm512_set1_ps(x[r * ldx + k]);
      lo[r] = _mm512_fmadd_ps(xr, w0, lo[r]);
      hi[r] = _mm512_fmadd_ps(xr, w1, hi[r]);
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    _mm512_storeu_ps(y + r * ldy, lo[r]);
    _mm512_storeu_ps(y + r * ldy + 16, hi[r]);
  }
}

/// The same with 16 columns, AVX2.
template <int R>
__attribute__((target("avx2,fma"))) void panel_rows_avx2(const float* x, std::int64_t ldx, const float* panel, float* y,
                                                         std::int64_t ldy, std::int64_t K, const float* ahead,
                                                         std::int64_t ahead_rows) {
  __m256 lo[R], hi[R];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) lo[r] = hi[r] = _mm256_setzero_ps();
  for (std::int64_t k = 0; k < K; ++k) {
    if (k < ahead_rows) _mm_prefetch(reinterpret_cast<const char*>(ahead + k * 16), _MM_HINT_T0);
    const __m256 w0 = _mm256_load_ps(panel + k * 16), w1 = _mm256_load_ps(panel + k * 16 + 8);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m256 xr = _mm256_broadcast_ss(x + r * ldx + k);
      lo[r] = _mm256_fmadd_ps(xr, w0, lo[r]);
      hi[r] = _mm256_fmadd_ps(xr, w1, hi[r]);
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    _mm256_storeu_ps(y + r * ldy, lo[r]);
    _mm256_storeu_ps(y + r * ldy + 8, hi[r]);
  }
}

using PanelRows = void (*)(const float*, std::int64_t, const float*, float*, std::int64_t, std::int64_t, const float*,
                           std::int64_t);

template <int... R>
constexpr PanelRows avx512_kernels[] = {nullptr, panel_rows_avx512<R>...};
template <int... R>
constexpr PanelRows avx2_kernels[] = {nullptr, panel_rows_avx2<R>...};

/// The kernel for `rows` rows (1 ≤ rows ≤ the widest block) on this lane width.
PanelRows kernel_for(int width, std::int64_t rows) {
  if (width == 32) return avx512_kernels<1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12>[rows];
  return avx2_kernels<1, 2, 3, 4, 5, 6>[rows];
}

#endif  // FOVEA_X86_KERNELS

/// Panel width and the most rows a block keeps in registers (2 × rows accumulators + 2 panel
/// vectors + 1 broadcast within the 32 or 16 vector registers).
int panel_width() { return vector_lanes() == VectorLanes::Avx512 ? 32 : 16; }
int block_rows(int width) { return width == 32 ? 12 : 6; }

}  // namespace

bool PackedMatrix::available() {
#ifdef FOVEA_X86_KERNELS
  return vector_lanes() != VectorLanes::Portable;
#else
  return false;
#endif
}

PackedMatrix::PackedMatrix(const torch::Tensor& weight, bool transposed) {
  TORCH_CHECK(weight.dim() == 2 && weight.device().is_cpu() && weight.scalar_type() == torch::kFloat,
              "PackedMatrix: a 2-D CPU float matrix, got ", weight.sizes(), " ", weight.scalar_type());
  TORCH_CHECK(available(), "PackedMatrix: no packed kernel for this CPU");
  torch::NoGradGuard no_grad;
  const auto w = weight.detach().contiguous();
  // B (K, N) = Wᵀ or W. Written panel by panel in one pass over W (the decoder packs three weights
  // twice per training step): zeros, a transposing copy and a permuting copy took three.
  const std::int64_t K = transposed ? w.size(1) : w.size(0), N = transposed ? w.size(0) : w.size(1);
  const std::int64_t width = panel_width(), panels = (N + width - 1) / width;
  columns_ = N;
  panels_ = torch::empty({panels, K, width}, w.options());
  const float* W = w.data_ptr<float>();
  float* P = panels_.data_ptr<float>();
  at::parallel_for(0, panels, 1, [&](std::int64_t p0, std::int64_t p1) {
    for (std::int64_t p = p0; p < p1; ++p) {
      float* panel = P + p * K * width;
      const std::int64_t cols = std::min(width, N - p * width);
      if (transposed) {  // panel[k][j] = W[p·width + j][k]
        const float* rows = W + p * width * K;
        for (std::int64_t k = 0; k < K; ++k) {
          for (std::int64_t j = 0; j < cols; ++j) panel[k * width + j] = rows[j * K + k];
          for (std::int64_t j = cols; j < width; ++j) panel[k * width + j] = 0.0f;
        }
      } else {  // panel[k][·] = W[k][p·width ...]
        for (std::int64_t k = 0; k < K; ++k) {
          std::memcpy(panel + k * width, W + k * N + p * width, sizeof(float) * cols);
          std::fill(panel + k * width + cols, panel + (k + 1) * width, 0.0f);
        }
      }
    }
  });
  TORCH_CHECK(reinterpret_cast<std::uintptr_t>(panels_.data_ptr<float>()) % 64 == 0, "PackedMatrix: unaligned panels");
}

torch::Tensor PackedMatrix::multiply(const torch::Tensor& x_in) const {
  TORCH_CHECK(defined(), "PackedMatrix: multiply on an empty matrix");
  TORCH_CHECK(x_in.dim() == 2 && x_in.size(1) == panels_.size(1), "PackedMatrix: x (M, ", panels_.size(1), ") expected, got ",
              x_in.sizes());
  TORCH_CHECK(x_in.device().is_cpu() && x_in.scalar_type() == torch::kFloat, "PackedMatrix: x must be CPU float, got ",
              x_in.scalar_type(), " on ", x_in.device());
  const std::int64_t M = x_in.size(0), K = panels_.size(1), width = panels_.size(2), N = columns_, panels = panels_.size(0);
  if (M > kMaxRows || M == 0) {
    // (M, K) · (panels, K, width) → (panels, M, width) → (M, panels · width), less the padding.
    return torch::matmul(x_in, panels_).permute({1, 0, 2}).reshape({M, panels * width}).narrow(1, 0, N).contiguous();
  }
#ifdef FOVEA_X86_KERNELS
  const auto x = x_in.contiguous();
  auto y = torch::empty({M, N}, x.options());
  const float* X = x.data_ptr<float>();
  const float* P = panels_.data_ptr<float>();
  float* Y = y.data_ptr<float>();
  // Rows in blocks of nearly equal size, each at most block_rows.
  const std::int64_t most = block_rows(int(width));
  const std::int64_t blocks = (M + most - 1) / most;
  at::parallel_for(0, panels, 4, [&](std::int64_t p0, std::int64_t p1) {
    alignas(64) float edge[12 * 32];  // the last panel's block when it has fewer columns than width
    for (std::int64_t p = p0; p < p1; ++p) {
      const float* panel = P + p * K * width;
      const std::int64_t cols = std::min(width, N - p * width);
      // Each block brings its share of the next panel's rows into the cache while it works on this
      // one: the panels stream from L3 (the LSTM's weights are 4 MB each).
      const std::int64_t share = (K + blocks - 1) / blocks;
      for (std::int64_t b = 0, r0 = 0; b < blocks; ++b) {
        const std::int64_t rows = (M - r0) / (blocks - b);
        const auto kernel = kernel_for(int(width), rows);
        const std::int64_t ahead_rows = p + 1 < p1 ? std::clamp<std::int64_t>(K - b * share, 0, share) : 0;
        const float* ahead = ahead_rows > 0 ? panel + K * width + b * share * width : panel;
        if (cols == width) {
          kernel(X + r0 * K, K, panel, Y + r0 * N + p * width, N, K, ahead, ahead_rows);
        } else {
          kernel(X + r0 * K, K, panel, edge, width, K, ahead, ahead_rows);
          for (std::int64_t r = 0; r < rows; ++r) std::memcpy(Y + (r0 + r) * N + p * width, edge + r * width, sizeof(float) * cols);
        }
        r0 += rows;
      }
    }
  });
  return y;
#else
  TORCH_CHECK(false, "PackedMatrix: no packed kernel in this build");
#endif
}

}  // namespace fovea
