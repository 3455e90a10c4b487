#include "core/model/step_weight.h"

#include <ATen/record_function.h>

#include "core/model/batch_weight_gradients.h"
#include "core/model/bf16_product.h"
#include "core/model/bf16_weights.h"
#include "core/model/matrix_product.h"
#include "core/model/packed_matrix.h"
#include "core/model/small_batch_linear.h"
#include "core/runtime/torch_compat.h"

namespace fovea {

/// The weight packed for the steps' products: x Wᵀ forward, ∂y W backward; or, for products in
/// bf16 (core/model/bf16_product.h), rounded to bf16 once for every step.
struct StepWeight::Packed {
  PackedMatrix forward, backward;
  Bf16Matrix bf16_forward, bf16_backward;
};

namespace {

/// Carries the packed weight from a step's forward to its backward (autograd's saved data holds
/// IValues; a capsule needs no TorchScript class registration).
struct PackedHolder : torch::CustomClassHolder {
  explicit PackedHolder(std::shared_ptr<const StepWeight::Packed> p) : packed(std::move(p)) {}
  std::shared_ptr<const StepWeight::Packed> packed;
};

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

/// x Wᵀ whose backward returns x's gradient only and records (x, ∂y) for the weight's. The
/// products go through the weight's packed forms when it has them.
struct StepProduct : torch::autograd::Function<StepProduct> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x, torch::Tensor weight,
                               c10::List<torch::Tensor> record, std::shared_ptr<const StepWeight::Packed> packed) {
    // In bf16 the rounded x the product reads is the one recorded for the weight's gradient too:
    // rounded once, and half the bytes to keep and to gather after the parts.
    const bool bf16 = packed && packed->bf16_forward.defined();
    if (bf16) x = to_bf16(x);
    ctx->save_for_backward({x, weight});
    ctx->saved_data["record"] = record;
    if (!packed) return torch::mm(x, weight.t());
    ctx->saved_data["packed"] = c10::IValue::make_capsule(c10::make_intrusive<PackedHolder>(packed));
    if (bf16) return packed->bf16_forward.multiply(x);
    return packed->forward.multiply(x);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    auto dy = grads[0];
    auto record = ctx->saved_data["record"].toTensorList();
    const auto found = ctx->saved_data.find("packed");
    torch::Tensor dx;
    if (found == ctx->saved_data.end()) {
      dx = torch::mm(dy, saved[1]);
    } else {
      const auto& packed = c10::static_intrusive_pointer_cast<PackedHolder>(found->second.toCapsule())->packed;
      if (packed->bf16_backward.defined()) dy = to_bf16(dy);  // as x in the forward
      dx = packed->bf16_backward.defined() ? packed->bf16_backward.multiply(dy) : packed->backward.multiply(dy);
    }
    record.push_back(saved[0]);
    record.push_back(dy);
    return {dx, torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

/// Stands for the weight in the steps' products; its backward, which autograd runs once every step
/// that read it has run its own, is the weight's gradient over all steps in one product.
struct StepWeightGradient : torch::autograd::Function<StepWeightGradient> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor weight, c10::List<torch::Tensor> record) {
    ctx->saved_data["record"] = record;
    ctx->saved_data["weight"] = weight;  // the parameter, whose gradient a batch in parts may defer
    ctx->set_materialize_grads(false);
    return weight;  // a returned input becomes a view carrying this node
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    auto record = ctx->saved_data["record"].toTensorList();
    std::vector<torch::Tensor> xs, dys;
    for (std::size_t i = 0; i + 1 < record.size(); i += 2) {
      xs.push_back(record.get(i));
      dys.push_back(record.get(i + 1));
    }
    record.clear();
    torch::Tensor grad = grads[0];  // a use of the weight outside the steps (none in the decoder)
    const auto weight = ctx->saved_data["weight"].toTensor();
    const bool bf16 = !xs.empty() && xs.front().scalar_type() == torch::kBFloat16;  // recorded rounded
    if (!xs.empty() && !BatchWeightGradients::defer(weight, dys, xs, bf16 || Bf16Products::active())) {
      const auto dy = torch::cat(dys).t(), x = torch::cat(xs);
      auto from_steps = bf16 ? bf16_matrix_product(dy, x) : matrix_product(dy, x);
      grad = grad.defined() ? grad + from_steps : from_steps;
    }
    return {grad, torch::Tensor()};
  }
};

}  // namespace

StepWeight::StepWeight(const torch::Tensor& weight) : weight_(weight) {
  collects_ = torch::GradMode::is_enabled() && weight.requires_grad() && weight.scalar_type() == torch::kFloat &&
              !(weight.device().is_cpu() && compat::cpu_autocast_enabled());
  if (!collects_) return;
  weight_ = StepWeightGradient::apply(weight, record_);
  if (weight.device().is_cpu() && Bf16Products::active()) {
    // Rounded and laid out for the steps' rows (a part's captions) once per version of the weight.
    packed_ = std::make_shared<const Packed>(
        Packed{{}, {}, *shared_bf16_matrix(weight, /*transposed=*/true, 16), *shared_bf16_matrix(weight, false, 16)});
  } else if (weight.device().is_cpu() && PackedMatrix::available()) {
    packed_ = std::make_shared<const Packed>(Packed{PackedMatrix(weight, /*transposed=*/true), PackedMatrix(weight, false), {}, {}});
  }
}

torch::Tensor StepWeight::operator()(const torch::Tensor& x) const {
  RECORD_FUNCTION("fovea::StepWeight", std::vector<c10::IValue>());
  if (!collects_ || x.scalar_type() != torch::kFloat) return linear_for_decoding(x, weight_, {});
  return StepProduct::apply(x, weight_, record_, packed_);
}

}  // namespace fovea
