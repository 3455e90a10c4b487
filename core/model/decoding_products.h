#pragma once
/// The decoder's products while decoding many captions at once (greedy batches, the validation of
/// a training run, beam search over several images): y = x Wᵀ + b with the weight packed once
/// (core/model/packed_matrix.h), where a GEMM would pack it afresh at every word. A weight is
/// packed the first time it is used and again after it changes (an optimizer step or loaded
/// weights bump its version counter).
#include <memory>
#include <mutex>
#include <unordered_map>

#include <torch/torch.h>

namespace fovea {

class PackedMatrix;

class DecodingProducts {
 public:
  /// linear_for_decoding(layer, x) (core/model/small_batch_linear.h), through the packed weight
  /// for more rows than the small-batch kernel takes and up to PackedMatrix::kMaxRows, without
  /// autograd, on CPUs with a packed kernel.
  torch::Tensor linear(const torch::nn::Linear& layer, const torch::Tensor& x);

 private:
  struct Entry {
    const void* data = nullptr;  ///< the weight's storage when packed
    std::int64_t version = -1;   ///< and its version counter
    std::shared_ptr<const PackedMatrix> packed;
  };
  std::shared_ptr<const PackedMatrix> packed(const torch::Tensor& weight);

  std::mutex mutex_;
  std::unordered_map<const c10::TensorImpl*, Entry> entries_;  ///< by weight
};

}  // namespace fovea
