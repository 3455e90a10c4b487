#include "core/model/matrix_product.h"

#include "core/model/batch_weight_gradients.h"
#include "core/model/bf16_product.h"
#include "core/model/bf16_weights.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/runtime/torch_compat.h"
#include "core/runtime/vector_lanes.h"

namespace fovea {

namespace {

/// Below this many multiply-adds packing costs more than the kernel gains.
constexpr double kSmallestProduct = double(1 << 22);

#ifdef FOVEA_X86_KERNELS

constexpr std::int64_t kRows = 6;            ///< rows of the register block (MR)
constexpr std::int64_t kColumns = 16;        ///< columns of the register block (NR)
constexpr std::int64_t kRowBlock = 144;      ///< rows of a's packed block, kept in L2 (MC)
constexpr std::int64_t kColumnBlock = 4080;  ///< columns of b's packed block, kept in L3 (NC)

/// The most of the reduction one packed block covers (KC): b's 16-column sliver, re-read by every
/// row sliver, takes two thirds of the L1 data cache (512 on 48 KB, 336 on 32 KB).
std::int64_t block_depth() {
  static const std::int64_t depth = [] {
#ifdef _SC_LEVEL1_DCACHE_SIZE
    const long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE);
#else
    const long l1 = 0;
#endif
    const std::int64_t bytes = l1 > 0 ? l1 : 32 * 1024;
    return std::clamp<std::int64_t>(bytes * 2 / 3 / (16 * sizeof(float)) / 8 * 8, 128, 512);
  }();
  return depth;
}

/// An operand by element: (i, k) at data[i * row + k * column].
struct View {
  const float* data;
  std::int64_t row, column;
};

/// c (6 × 16, rows ldc apart) = or += a (depth × 6, packed) · b (depth × 16, packed).
__attribute__((target("avx2,fma"))) void block_6x16(std::int64_t depth, const float* __restrict a,
                                                    const float* __restrict b, float* c, std::int64_t ldc,
                                                    bool accumulate) {
  for (int i = 0; i < 6; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + 15), _MM_HINT_T0);
  }
  __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00,
         c40 = c00, c41 = c00, c50 = c00, c51 = c00;
#pragma GCC unroll 4
  for (std::int64_t k = 0; k < depth; ++k) {
    _mm_prefetch(reinterpret_cast<const char*>(a + 96), _MM_HINT_T0);
    const __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);
    __m256 x = _mm256_broadcast_ss(a);
    c00 = _mm256_fmadd_ps(x, b0, c00), c01 = _mm256_fmadd_ps(x, b1, c01);
    x = _mm256_broadcast_ss(a + 1);
    c10 = _mm256_fmadd_ps(x, b0, c10), c11 = _mm256_fmadd_ps(x, b1, c11);
    x = _mm256_broadcast_ss(a + 2);
    c20 = _mm256_fmadd_ps(x, b0, c20), c21 = _mm256_fmadd_ps(x, b1, c21);
    x = _mm256_broadcast_ss(a + 3);
    c30 = _mm256_fmadd_ps(x, b0, c30), c31 = _mm256_fmadd_ps(x, b1, c31);
    x = _mm256_broadcast_ss(a + 4);
    c40 = _mm256_fmadd_ps(x, b0, c40), c41 = _mm256_fmadd_ps(x, b1, c41);
    x = _mm256_broadcast_ss(a + 5);
    c50 = _mm256_fmadd_ps(x, b0, c50), c51 = _mm256_fmadd_ps(x, b1, c51);
    a += 6, b += 16;
  }
  const __m256 sums[12] = {c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51};
#pragma GCC unroll 6
  for (int i = 0; i < 6; ++i) {
    float* row = c + i * ldc;
    __m256 lo = sums[2 * i], hi = sums[2 * i + 1];
    if (accumulate) lo = _mm256_add_ps(lo, _mm256_loadu_ps(row)), hi = _mm256_add_ps(hi, _mm256_loadu_ps(row + 8));
    _mm256_storeu_ps(row, lo);
    _mm256_storeu_ps(row + 8, hi);
  }
}

/// Transposes eight vectors of 8 floats in place: r[j][i] becomes r[i][j].
__attribute__((target("avx2,fma"))) inline void transpose_8x8(__m256 r[8]) {
  __m256 t[8], u[8];
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
#pragma GCC unroll 2
  for (int i = 0; i < 2; ++i) {
    u[4 * i] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    u[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
    u[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    u[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
    r[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
  }
}

/// Transposed a (its rows of m contiguous floats are the k's): the k-th row gives, six floats at a
/// time, the k-th step of every full sliver. An 8-float load reads two floats past its sliver
/// (inside the m rows, save for the last sliver), and its store runs 2 floats into the next k's
/// place, which the next k fills; the last k of each sliver is stored exactly.
__attribute__((target("avx2,fma"))) void pack_transposed_rows(View a, std::int64_t i0, std::int64_t slivers,
                                                              std::int64_t m, std::int64_t k0, std::int64_t depth,
                                                              float* out) {
  for (std::int64_t k = 0; k < depth; ++k) {
    const float* source = a.data + i0 + (k0 + k) * a.column;
    for (std::int64_t s = 0; s < slivers; ++s) {
      float* o = out + s * kRows * depth + k * kRows;
      if (k + 1 < depth && (s + 1) * kRows + 2 <= m) {
        _mm256_storeu_ps(o, _mm256_loadu_ps(source + s * kRows));
      } else {
#pragma GCC unroll 6
        for (int r = 0; r < kRows; ++r) o[r] = source[s * kRows + r];
      }
    }
  }
}

/// Rows i0.. (m of them) and reductions k0.. (depth) of a, as consecutive 6-row slivers, each
/// depth × 6 (zero past the last row).
__attribute__((target("avx2,fma"))) void pack_rows(View a, std::int64_t i0, std::int64_t m, std::int64_t k0,
                                                   std::int64_t depth, float* out) {
  std::int64_t s = 0;
  if (a.row == 1 && a.column != 1) {
    const std::int64_t full = m / kRows;
    pack_transposed_rows(a, i0, full, m, k0, depth, out);
    s = full * kRows;
  }
  for (; s < m; s += kRows) {
    float* o = out + s * depth;
    const std::int64_t rows = std::min(kRows, m - s);
    const float* base = a.data + (i0 + s) * a.row + k0 * a.column;
    if (rows == kRows && a.column == 1) {  // rows contiguous: 8 reductions of the six rows at a time
      std::int64_t k = 0;
      // Each k's 8-float store runs 2 floats into the next k's place, which a later store fills:
      // the last k of the sliver is left to the loop below.
      for (; k + 8 < depth; k += 8) {
        __m256 r[8];
#pragma GCC unroll 6
        for (int i = 0; i < kRows; ++i) r[i] = _mm256_loadu_ps(base + i * a.row + k);
        r[6] = r[7] = r[0];
        transpose_8x8(r);
#pragma GCC unroll 8
        for (int j = 0; j < 8; ++j) _mm256_storeu_ps(o + (k + j) * kRows, r[j]);
      }
      for (; k < depth; ++k) {
#pragma GCC unroll 6
        for (int r = 0; r < kRows; ++r) o[k * kRows + r] = base[r * a.row + k];
      }
    } else {
      for (std::int64_t k = 0; k < depth; ++k) {
        for (std::int64_t r = 0; r < kRows; ++r) o[k * kRows + r] = r < rows ? base[r * a.row + k * a.column] : 0.0f;
      }
    }
  }
}

/// b's rows contiguous: its k-th row, read once from end to end, is 16 floats of every full sliver.
__attribute__((target("avx2,fma"))) void pack_contiguous_columns(View b, std::int64_t k0, std::int64_t depth,
                                                                 std::int64_t j0, std::int64_t slivers, float* out) {
  for (std::int64_t k = 0; k < depth; ++k) {
    const float* source = b.data + (k0 + k) * b.row + j0;
    for (std::int64_t s = 0; s < slivers; ++s) {
      float* o = out + s * kColumns * depth + k * kColumns;
      _mm256_store_ps(o, _mm256_loadu_ps(source + s * kColumns));
      _mm256_store_ps(o + 8, _mm256_loadu_ps(source + s * kColumns + 8));
    }
  }
}

/// Reductions k0.. (depth) and columns j0.. (n) of b, as consecutive 16-column slivers, each
/// depth × 16 (zero past the last column).
__attribute__((target("avx2,fma"))) void pack_columns(View b, std::int64_t k0, std::int64_t depth, std::int64_t j0,
                                                      std::int64_t n, float* out) {
  std::int64_t s = 0;
  if (b.column == 1) {
    const std::int64_t full = n / kColumns;
    pack_contiguous_columns(b, k0, depth, j0, full, out);
    s = full * kColumns;
  }
  for (; s < n; s += kColumns) {
    float* o = out + s * depth;
    const std::int64_t cols = std::min(kColumns, n - s);
    const float* base = b.data + k0 * b.row + (j0 + s) * b.column;
    if (cols == kColumns && b.row == 1 && depth % 8 == 0) {  // transposed: 8 × 8 blocks
      for (std::int64_t k = 0; k < depth; k += 8) {
        for (int half = 0; half < 2; ++half) {
          __m256 r[8];
#pragma GCC unroll 8
          for (int j = 0; j < 8; ++j) r[j] = _mm256_loadu_ps(base + (8 * half + j) * b.column + k);
          transpose_8x8(r);
#pragma GCC unroll 8
          for (int i = 0; i < 8; ++i) _mm256_store_ps(o + (k + i) * kColumns + 8 * half, r[i]);
        }
      }
    } else {
      for (std::int64_t k = 0; k < depth; ++k) {
        for (std::int64_t j = 0; j < kColumns; ++j) {
          o[k * kColumns + j] = j < cols ? base[k * b.row + j * b.column] : 0.0f;
        }
      }
    }
  }
}

/// A 64-byte aligned float buffer of at least n floats, kept per calling thread between products
/// (at most ~9 MB: b's block of 4080 columns, 512 deep).
float* scratch(std::vector<float>& buffer, std::int64_t n) {
  if (std::int64_t(buffer.size()) < n + 16) buffer.resize(std::size_t(n + 16));
  const auto address = reinterpret_cast<std::uintptr_t>(buffer.data());
  return reinterpret_cast<float*>((address + 63) & ~std::uintptr_t(63));
}

/// c (M, N, contiguous) = a · b, the loops of the Goto/BLIS blocking: b's block of columns packed
/// once per depth step, a's block of rows once per column block, the register kernel over
/// 6 × 16 tiles. Threads share the packed blocks and split the tiles' columns.
void blocked_product(View a, View b, std::int64_t M, std::int64_t N, std::int64_t K, float* c) {
  thread_local std::vector<float> rows_buffer, columns_buffer;
  const std::int64_t most = block_depth(), steps = (K + most - 1) / most;
  const std::int64_t step = ((K + steps - 1) / steps + 7) / 8 * 8;  // equal steps, a multiple of 8
  float* packed_rows = scratch(rows_buffer, (kRowBlock + kRows) * step);
  float* packed_columns = scratch(columns_buffer, (kColumnBlock + kColumns) * step);
  for (std::int64_t j0 = 0; j0 < N; j0 += kColumnBlock) {
    const std::int64_t n = std::min(kColumnBlock, N - j0), slivers = (n + kColumns - 1) / kColumns;
    for (std::int64_t k0 = 0; k0 < K; k0 += step) {
      const std::int64_t depth = std::min(step, K - k0);
      const bool accumulate = k0 > 0;
      at::parallel_for(0, slivers, 8, [&](std::int64_t s0, std::int64_t s1) {
        const std::int64_t first = s0 * kColumns, last = std::min(n, s1 * kColumns);
        pack_columns(b, k0, depth, j0 + first, last - first, packed_columns + first * depth);
      });
      for (std::int64_t i0 = 0; i0 < M; i0 += kRowBlock) {
        const std::int64_t m = std::min(kRowBlock, M - i0);
        const std::int64_t row_slivers = (m + kRows - 1) / kRows;
        at::parallel_for(0, row_slivers, 4, [&](std::int64_t s0, std::int64_t s1) {
          const std::int64_t first = s0 * kRows, last = std::min(m, s1 * kRows);
          pack_rows(a, i0 + first, last - first, k0, depth, packed_rows + first * depth);
        });
        at::parallel_for(0, slivers, 1, [&](std::int64_t s0, std::int64_t s1) {
          alignas(32) float edge[kRows * kColumns];
          for (std::int64_t s = s0; s < s1; ++s) {
            const std::int64_t cols = std::min(kColumns, n - s * kColumns);
            const float* bs = packed_columns + s * kColumns * depth;
            for (std::int64_t r = 0; r < m; r += kRows) {
              const std::int64_t rows = std::min(kRows, m - r);
              float* tile = c + (i0 + r) * N + j0 + s * kColumns;
              if (rows == kRows && cols == kColumns) {
                block_6x16(depth, packed_rows + r * depth, bs, tile, N, accumulate);
                continue;
              }
              block_6x16(depth, packed_rows + r * depth, bs, edge, kColumns, false);
              for (std::int64_t i = 0; i < rows; ++i) {
                for (std::int64_t j = 0; j < cols; ++j) {
                  tile[i * N + j] = (accumulate ? tile[i * N + j] : 0.0f) + edge[i * kColumns + j];
                }
              }
            }
          }
        });
      }
    }
  }
}

#endif  // FOVEA_X86_KERNELS

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

/// x Wᵀ + b with its three gradients through matrix_product.
struct LinearProduct : torch::autograd::Function<LinearProduct> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& weight,
                               c10::optional<torch::Tensor> bias) {
    // Products in bf16 round x and the weight once, for the forward and both gradients.
    const bool bf16 = Bf16Products::active();
    const auto xs = bf16 ? to_bf16(x) : x, ws = bf16 ? shared_bf16(weight) : weight;
    ctx->save_for_backward({xs, ws});
    ctx->saved_data["weight"] = weight;  // the parameter, whose gradient a batch in parts may defer
    ctx->saved_data["bias"] = bias.has_value();
    auto y = matrix_product(xs, ws.t());
    return bias ? y.add_(*bias) : y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto &x = saved[0], &weight = saved[1];
    const auto dy = x.scalar_type() == torch::kBFloat16 ? to_bf16(grads[0]) : grads[0];
    const bool bias = ctx->saved_data["bias"].toBool();
    const bool weight_grad = ctx->needs_input_grad(1) &&
                             !BatchWeightGradients::defer(ctx->saved_data["weight"].toTensor(), {dy}, {x},
                                                          x.scalar_type() == torch::kBFloat16);
    return {ctx->needs_input_grad(0) ? matrix_product(dy, weight) : torch::Tensor(),
            weight_grad ? matrix_product(dy.t(), x) : torch::Tensor(),
            bias && ctx->needs_input_grad(2) ? grads[0].sum(0) : torch::Tensor()};
  }
};

}  // namespace

bool uses_blocked_product(const torch::Tensor& a, const torch::Tensor& b) {
#ifdef FOVEA_X86_KERNELS
  auto operand = [](const torch::Tensor& t) {
    return t.dim() == 2 && t.device().is_cpu() && t.scalar_type() == torch::kFloat &&
           (t.stride(1) == 1 || t.stride(0) == 1);
  };
  return vector_lanes() == VectorLanes::Avx2 && operand(a) && operand(b) && a.size(1) == b.size(0) &&
         double(a.size(0)) * double(b.size(1)) * double(a.size(1)) >= kSmallestProduct;
#else
  (void)a, (void)b;
  return false;
#endif
}

torch::Tensor matrix_product(const torch::Tensor& a, const torch::Tensor& b) {
  RECORD_FUNCTION("fovea::matrix_product", std::vector<c10::IValue>());
  TORCH_CHECK(a.dim() == 2 && b.dim() == 2 && a.size(1) == b.size(0), "matrix_product: a (M, K) and b (K, N), got ",
              a.sizes(), " and ", b.sizes());
  // With autograd recording, torch::mm keeps the graph (linear_product has the kernel's own backward).
  const bool recording = torch::GradMode::is_enabled() && (a.requires_grad() || b.requires_grad());
  // Products in bf16, or operands a bf16 product's forward kept rounded: bf16 operands, float result.
  const bool bf16 = Bf16Products::active() || a.scalar_type() == torch::kBFloat16 || b.scalar_type() == torch::kBFloat16;
  if (!recording && bf16 && a.is_cpu() && b.is_cpu()) return bf16_matrix_product(a, b);
  if (recording || !uses_blocked_product(a, b)) return torch::mm(a, b);
#ifdef FOVEA_X86_KERNELS
  const std::int64_t M = a.size(0), K = a.size(1), N = b.size(1);
  auto c = torch::empty({M, N}, a.options());
  blocked_product({a.data_ptr<float>(), a.stride(0), a.stride(1)}, {b.data_ptr<float>(), b.stride(0), b.stride(1)}, M,
                  N, K, c.data_ptr<float>());
  return c;
#else
  return torch::mm(a, b);
#endif
}

torch::Tensor linear_product(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
  RECORD_FUNCTION("fovea::linear_product", std::vector<c10::IValue>());
  // Under CPU autocast torch::linear multiplies in bf16, as asked. Products in bf16
  // (core/model/bf16_product.h) take every CPU float product, whatever its size.
  const bool shapes = x.dim() == 2 && weight.dim() == 2 && x.size(1) == weight.size(1);
  // x may be bf16 already (annotations a bf16 run rounded once): rounding leaves it as it is.
  const bool in_bf16 = Bf16Products::active() && x.is_cpu() &&
                       (x.scalar_type() == torch::kFloat || x.scalar_type() == torch::kBFloat16) &&
                       weight.scalar_type() == torch::kFloat;
  const bool fits = shapes && !compat::cpu_autocast_enabled() && (in_bf16 || uses_blocked_product(x, weight.t()));
  if (!fits) return torch::linear(x, weight, bias);
  if (!torch::GradMode::is_enabled() ||
      !(x.requires_grad() || weight.requires_grad() || (bias.defined() && bias.requires_grad()))) {
    auto y = matrix_product(x, weight.t());
    return bias.defined() ? y.add_(bias) : y;
  }
  return LinearProduct::apply(x, weight, bias.defined() ? c10::optional<torch::Tensor>(bias) : c10::nullopt);
}

}  // namespace fovea
