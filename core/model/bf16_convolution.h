#pragma once
/// A trained convolution of the built-in CNN under `--precision bf16`: its forward in bfloat16, its
/// backward in bfloat16 or in float, whichever the CPU's oneDNN runs faster.
///
/// The bf16 forward is faster than the float one wherever the CPU multiplies bf16 in hardware, and
/// batch norm and ReLU after it run faster in bf16 too. The backward differs by CPU: where the CPU
/// has AVX-512 BF16 and no AMX (an AMD EPYC) oneDNN 2.6's bf16 backward on channels-last
/// activations ran 2–4× faster than the float one (the default recipe's step 0.27–0.30 s → 0.21 s
/// on 2 cores), while where oneDNN uses AMX (a Xeon) it ran 10× slower (1 s against 90 ms for a
/// 128-channel block of the recipe's batch). A bf16 backward rounds the weight's
/// gradient to bf16 after oneDNN accumulated it in float, as CPU autocast does; a float one
/// computes both gradients in float from the saved input and weight.
#include <torch/torch.h>

namespace fovea {

/// The precision a bf16 convolution's backward computes in.
enum class ConvolutionBackward { Float, Bf16 };

/// Bf16 where the CPU multiplies bf16 in hardware with AVX-512 BF16 alone; float where oneDNN would
/// use AMX, or emulate bf16 on a CPU without bf16 products.
ConvolutionBackward bf16_convolution_backward();

/// conv2d(x, weight) without bias, its forward in bf16 and its backward in `backward`'s precision.
/// `x`: (B, C, H, W), float or bf16, CPU; returns bf16, and x's gradient in x's dtype, the weight's
/// in float. Runs with CPU autocast excluded (it chose the dtypes).
torch::Tensor bf16_convolution(const torch::Tensor& x, const torch::Tensor& weight, torch::IntArrayRef stride,
                               torch::IntArrayRef padding,
                               ConvolutionBackward backward = bf16_convolution_backward());

}  // namespace fovea
