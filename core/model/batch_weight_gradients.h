#pragma once
/// The weight gradients of a batch decoded in parts, each made in one product for the whole batch.
///
/// A batch decoded in parts side by side (core/train/decoder_pass.h) runs each part's backward on
/// a thread of its own, and each part multiplied its own share of every weight's gradient,
/// ∂Y_kᵀ X_k over its own rows: one thread per product, at half the depth. oneDNN runs two such
/// products side by side well below the rate of one product over both parts' rows on both threads
/// (the vocabulary's in bf16 on a 2-core AMX machine: 9–17 ms for the two of depth 288, 5–11 ms
/// for the one of depth 544), and autograd then added the parts' gradients, 20 MB each for the
/// vocabulary. While a scope is open on a part's thread, the backward of core/model's products
/// (linear_product, the vocabulary, the step weights) hands its (∂Y, X) over instead, and the
/// caller's finish() makes each weight's gradient Σ_k ∂Y_kᵀ X_k in one product on all of the
/// caller's threads, the parts' rows in part order: the same sum whichever thread finishes first.
#include <torch/torch.h>

#include <map>
#include <mutex>
#include <vector>

namespace fovea {

class BatchWeightGradients {
 public:
  BatchWeightGradients() = default;
  BatchWeightGradients(const BatchWeightGradients&) = delete;
  BatchWeightGradients& operator=(const BatchWeightGradients&) = delete;

  /// While alive, the calling thread's backward hands the weight gradients of part `part` to
  /// `gradients`; a null `gradients` does nothing.
  class Scope {
   public:
    Scope(BatchWeightGradients* gradients, int part);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    BatchWeightGradients* gradients_;
    int part_;
  };

  /// Hands over the term Σ_i dy_iᵀ x_i of `weight`'s gradient (dy_i: (N_i, out) rows, x_i: (N_i,
  /// in) rows, float or bf16; `bf16`: multiply in bf16). True where a scope is open on this thread,
  /// `weight` is a CPU leaf that takes a gradient and the rows are at most 2,048 (deeper products
  /// run near full rate where they are); false, taking nothing, otherwise.
  static bool defer(const torch::Tensor& weight, const std::vector<torch::Tensor>& dy,
                    const std::vector<torch::Tensor>& x, bool bf16);

  /// Adds each weight's Σ dyᵀ x over what was handed over to its gradient, then forgets it all.
  void finish();

 private:
  struct Term {
    int part;
    std::vector<torch::Tensor> dy, x;
  };
  struct Terms {
    torch::Tensor weight;
    bool bf16 = false;
    std::vector<Term> terms;
  };

  std::mutex mutex_;
  std::map<const void*, Terms> weights_;  // by the weight's TensorImpl
};

}  // namespace fovea
