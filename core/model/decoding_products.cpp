#include "core/model/decoding_products.h"

#include <ATen/record_function.h>

#include "core/model/packed_matrix.h"
#include "core/model/small_batch_linear.h"

namespace fovea {

std::shared_ptr<const PackedMatrix> DecodingProducts::packed(const torch::Tensor& weight) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& e = entries_[weight.unsafeGetTensorImpl()];
  const std::int64_t version = std::int64_t(weight._version());
  if (!e.packed || e.data != weight.data_ptr() || e.version != version) {
    e.packed = std::make_shared<const PackedMatrix>(weight, /*transposed=*/true);
    e.data = weight.data_ptr();
    e.version = version;
  }
  return e.packed;
}

torch::Tensor DecodingProducts::linear(const torch::nn::Linear& layer, const torch::Tensor& x) {
  RECORD_FUNCTION("fovea::DecodingProducts::linear", std::vector<c10::IValue>());
  const auto& weight = layer->weight;
  const auto& bias = layer->bias;
  const bool applies = !torch::GradMode::is_enabled() && PackedMatrix::available() && x.dim() == 2 &&
                       x.size(0) > kSmallBatchRows && x.size(0) <= PackedMatrix::kMaxRows && x.device().is_cpu() &&
                       x.scalar_type() == torch::kFloat && weight.device().is_cpu() &&
                       weight.scalar_type() == torch::kFloat && x.size(1) == weight.size(1);
  if (!applies) return linear_for_decoding(layer, x);
  auto y = packed(weight)->multiply(x);
  return bias.defined() ? y.add_(bias) : y;
}

}  // namespace fovea
