#pragma once
/// Matrix products in bfloat16 at the hardware's rate, for `--precision bf16` training.
///
/// The decoder's training step is almost all matrix products (the LSTM gates, the attention
/// projections, the output layers, the vocabulary, and their gradients). On CPUs that multiply
/// bfloat16 in hardware (AVX-512 BF16, AMX) oneDNN's matmul multiplies bf16 operands 2–10× faster
/// than the best float product, accumulating in float. Here the operands are rounded to bf16 and
/// the result comes back in float: master weights, optimizer state, softmax and loss stay float,
/// as mixed-precision training does it.
///
/// LibTorch's own bf16 products (CPU autocast) return bf16 and create oneDNN primitives in a way
/// Debian's oneDNN 2.6 does not survive from two threads at once, so the decoder's parallel parts
/// could not use them. Here primitives are created one at a time (a process-wide lock), kept per
/// thread, and run with their own scratch memory: parts multiply in bf16 side by side.
///
/// The products are used while a Bf16Products scope is open on the calling thread. Where oneDNN
/// has no bf16 kernel (a CPU without bf16 products, oneDNN capped below them, or Fovea built
/// without oneDNN's headers) the rounded operands are multiplied in float: the same numbers, slower.
#include <torch/torch.h>

namespace fovea {

/// While alive, the calling thread's training products (matrix_product, linear_product,
/// StepWeight, vocabulary_log_likelihood) multiply in bf16 with float results. `enabled` false
/// does nothing, so callers need no optional. Scopes nest.
class Bf16Products {
 public:
  explicit Bf16Products(bool enabled);
  ~Bf16Products();
  Bf16Products(const Bf16Products&) = delete;
  Bf16Products& operator=(const Bf16Products&) = delete;

  /// Whether a scope is open on this thread.
  static bool active();

 private:
  bool was_;
};

/// The bf16 copy of a float tensor the products take (contiguous); a bf16 tensor as it is.
torch::Tensor to_bf16(const torch::Tensor& t);

/// The depth AMX multiplies bf16 in: products whose depth K is a multiple of it take oneDNN 2.6's
/// fast path (bf16_matrix_product pads other depths with zeros where that pays).
constexpr std::int64_t kBf16DepthBlock = 32;

/// a · b in float for CPU 2-D a (M, K) and b (K, N), float or bf16 (rounded to bf16 first),
/// either possibly a transposed view. No autograd: callers supply their own backward.
torch::Tensor bf16_matrix_product(const torch::Tensor& a, const torch::Tensor& b);

/// A right-hand side B (K, N) for many products a · B (a weight the decoder applies at every step):
/// rounded to bf16 once and, where oneDNN's kernels read B in a layout of their own (AMX reads it in
/// tiles of pairs), reordered into that layout once instead of at every product.
class Bf16Matrix {
 public:
  Bf16Matrix() = default;
  /// `b`: CPU (K, N), float or bf16, any strides; laid out for products with about `rows` rows.
  explicit Bf16Matrix(const torch::Tensor& b, std::int64_t rows = 32);

  bool defined() const { return plain_.defined(); }

  /// a · B in float for CPU a (M, K), float or bf16.
  torch::Tensor multiply(const torch::Tensor& a) const;

  struct Layout;

 private:
  torch::Tensor plain_;                   ///< B in bf16, rows or columns contiguous
  torch::Tensor laid_out_;                ///< B in the kernels' own layout (bytes), or undefined
  std::shared_ptr<const Layout> layout_;  ///< that layout, or null
};

/// "oneDNN <version>, <implementation>" for the product of a (M, K) by (K, N), e.g.
/// "brg:avx512_core_amx_bf16": what `fovea bench` reports beside the rate.
std::string bf16_product_kernel(std::int64_t M, std::int64_t K, std::int64_t N);

}  // namespace fovea
