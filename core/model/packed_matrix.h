#pragma once
/// A weight packed once for many products with a few rows each: the decoder's per-step products
/// (B ≤ 64 rows against 512 × 2048 weights, T times forward and T times backward per training step).
///
/// A general GEMM packs the weight afresh at every call (OpenBLAS: 12% of a training step) and is
/// built for many rows; with 32 it ran at about half of its own large-matrix rate here. The packed
/// kernel reads the weight as column panels of 16 (AVX2) or 32 (AVX-512) floats, contiguous down the
/// reduction, and keeps up to 6 or 12 rows of the result in registers: measured 1.8× OpenBLAS's
/// rate on AVX-512 and 1.45× on AVX2 for 32 × 512 by 512 × 2048 (one thread).
#include <torch/torch.h>

namespace fovea {

class PackedMatrix {
 public:
  /// Rows above this go to a batched GEMM over the panels: its blocking serves them as well or better.
  static constexpr std::int64_t kMaxRows = 128;

  /// Whether this process has a packed kernel: AVX2 + FMA or AVX-512, as ATen dispatches (vector_lanes()).
  static bool available();

  PackedMatrix() = default;

  /// Packs the right-hand side of x Wᵀ (`transposed`) or of x W, for a CPU float matrix W. The
  /// packed copy is a snapshot: later changes to W do not reach it.
  PackedMatrix(const torch::Tensor& weight, bool transposed);

  bool defined() const { return panels_.defined(); }

  /// x B for x (M, K), CPU float.
  torch::Tensor multiply(const torch::Tensor& x) const;

 private:
  torch::Tensor panels_;  ///< (panels, K, width): B's columns in panels, zero past the last column
  std::int64_t columns_ = 0;
};

}  // namespace fovea
