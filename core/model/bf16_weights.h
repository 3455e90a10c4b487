#pragma once
/// A weight's bf16 forms, made once per version of the weight and shared by every part of a step.
///
/// A `--precision bf16` training step rounds each weight it multiplies to bf16 (and lays the
/// steps' weights out for oneDNN's kernels). The decoder's parts (one per thread) read the same
/// weights, so each form is made by whichever part asks first and handed to the others; the
/// optimizer's update bumps the weight's version, and the next step makes the forms again.
#include <memory>

#include <torch/torch.h>

#include "core/model/bf16_product.h"

namespace fovea {

/// `weight` (a float CPU tensor, 2-D) rounded to bf16, contiguous; made once per version of it.
torch::Tensor shared_bf16(const torch::Tensor& weight);

/// `weight` (V, E) as the right-hand side of products x · Wᵀ (`transposed`) or x · W, rounded and
/// laid out for about `rows` rows; made once per version of it.
std::shared_ptr<const Bf16Matrix> shared_bf16_matrix(const torch::Tensor& weight, bool transposed, std::int64_t rows);

/// How many forms are kept (for tests: forms of weights that are gone are dropped).
std::size_t shared_bf16_forms();

}  // namespace fovea
