#pragma once
/// A weight the decoder applies at every step of a training forward: y_t = x_t Wᵀ, t = 1..T.
///
/// Through torch::linear, each step's backward computes its own share of the weight's gradient,
/// a product with only the step's b ≤ B rows inside, and autograd adds the T shares one by one:
/// T skinny products and T - 1 passes over the whole weight (4 MB for the LSTM's 512 × 2048 at
/// the benchmark's sizes). Here a step's backward computes only its input's gradient and keeps
/// (x_t, ∂y_t); the weight's gradient is then one product over every step's rows,
/// Σ_t ∂y_tᵀ x_t = ∂Yᵀ X, when autograd reaches the weight after the last step's backward.
#include <torch/torch.h>

namespace fovea {

class StepWeight {
 public:
  StepWeight() = default;

  /// Wraps `weight` (N, K) for the steps of one forward. Without autograd, under bf16 autocast and
  /// for other dtypes than float, the steps multiply by `weight` through linear_for_decoding.
  explicit StepWeight(const torch::Tensor& weight);

  /// x Wᵀ for one step's rows x (b, K).
  torch::Tensor operator()(const torch::Tensor& x) const;

  struct Packed;

 private:
  torch::Tensor weight_;              ///< the weight, or the alias whose backward computes its gradient
  c10::List<torch::Tensor> record_;   ///< x_t, ∂y_t of every step, appended by the steps' backward
  std::shared_ptr<const Packed> packed_;  ///< null without a packed kernel
  bool collects_ = false;
};

}  // namespace fovea
