#include "core/model/bf16_convolution.h"

#include <ATen/record_function.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

#include "core/runtime/runtime.h"

namespace fovea {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

constexpr std::int64_t kNoDilation[] = {1, 1};
constexpr std::int64_t kNoOutputPadding[] = {0, 0};

struct Bf16Convolution : torch::autograd::Function<Bf16Convolution> {
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, const torch::Tensor& weight,
                               std::vector<std::int64_t> stride, std::vector<std::int64_t> padding,
                               ConvolutionBackward backward) {
    ctx->save_for_backward({x, weight});
    ctx->saved_data["stride"] = stride;
    ctx->saved_data["padding"] = padding;
    ctx->saved_data["bf16_backward"] = backward == ConvolutionBackward::Bf16;
    const auto format = x.suggest_memory_format();
    return at::convolution(x.to(torch::kBFloat16), weight.to(torch::kBFloat16).contiguous(format), {}, stride,
                           padding, kNoDilation, false, kNoOutputPadding, 1);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto &x = saved[0], &weight = saved[1];
    const auto stride = ctx->saved_data["stride"].toIntVector();
    const auto padding = ctx->saved_data["padding"].toIntVector();
    const auto format = x.suggest_memory_format();
    const auto dtype = ctx->saved_data["bf16_backward"].toBool() ? torch::kBFloat16 : torch::kFloat;
    auto [dx, dw, db] = at::convolution_backward(
        grads[0].to(dtype), x.to(dtype), weight.to(dtype).contiguous(format), c10::nullopt, stride, padding,
        kNoDilation, false, kNoOutputPadding, 1, {ctx->needs_input_grad(0), ctx->needs_input_grad(1), false});
    (void)db;
    return {dx.defined() ? dx.to(x.scalar_type()) : dx, dw.defined() ? dw.to(torch::kFloat).contiguous() : dw, {}, {},
            {}};
  }
};

}  // namespace

ConvolutionBackward bf16_convolution_backward() {
  static const auto backward = cpu_has_native_bf16() && !cpu_multiplies_bf16_with_amx() ? ConvolutionBackward::Bf16
                                                                                         : ConvolutionBackward::Float;
  return backward;
}

torch::Tensor bf16_convolution(const torch::Tensor& x, const torch::Tensor& weight, torch::IntArrayRef stride,
                               torch::IntArrayRef padding, ConvolutionBackward backward) {
  RECORD_FUNCTION("fovea::bf16_convolution", std::vector<c10::IValue>());
  c10::impl::ExcludeDispatchKeyGuard no_autocast(c10::DispatchKey::AutocastCPU);
  return Bf16Convolution::apply(x, weight, stride.vec(), padding.vec(), backward);
}

}  // namespace fovea
