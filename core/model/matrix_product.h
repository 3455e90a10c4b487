#pragma once
/// The training step's large products: W_a·a over every annotation, the word part of the LSTM
/// gates and the output layers over every word of a batch, the vocabulary projection and their
/// gradients (about two thirds of a CPU training step).
///
/// On CPUs whose widest vectors are AVX2 + FMA (as ATen dispatches: core/runtime/vector_lanes.h)
/// they run on Fovea's blocked product: the Goto/BLIS loops, both operands packed into
/// cache-sized blocks, a 6 × 16 register kernel (BLIS's Haswell and Zen shape). In the step it
/// runs its kernel at ~93% of the FMA units' peak where OpenBLAS's Haswell kernels ran at ~90%,
/// and packs in about the time they did. AVX-512 CPUs keep OpenBLAS's AVX-512 kernels (about twice
/// this kernel's rate); other CPUs, dtypes and devices, and small products, go to torch::mm.
#include <torch/torch.h>

namespace fovea {

/// Whether matrix_product runs Fovea's blocked kernel on a · b: CPU float, one of each operand's
/// strides 1, AVX2 lanes, and at least 2^22 multiply-adds.
bool uses_blocked_product(const torch::Tensor& a, const torch::Tensor& b);

/// a · b for 2-D tensors a (M, K) and b (K, N); either may be a transposed view. Recording
/// autograd on a or b, it is torch::mm. On the CPU in a Bf16Products scope, or with a bf16
/// operand, it is bf16_matrix_product (core/model/bf16_product.h): a float result.
torch::Tensor matrix_product(const torch::Tensor& a, const torch::Tensor& b);

/// torch::linear(x, weight, bias), with autograd; for 2-D x outside CPU autocast its products
/// (forward and gradients) go through matrix_product. `bias` may be undefined.
torch::Tensor linear_product(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias);

}  // namespace fovea
