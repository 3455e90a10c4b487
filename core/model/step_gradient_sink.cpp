#include "core/model/step_gradient_sink.h"

#include "core/model/kept_buffer.h"

namespace fovea {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

/// Hands the buffer the steps' backward passes filled to `t`, once, after all of them (autograd runs
/// this node only when every step that read `values` has run its backward).
struct HandOnSink : torch::autograd::Function<HandOnSink> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor t, torch::Tensor sink) {
    ctx->saved_data["sink"] = sink;
    ctx->set_materialize_grads(false);
    return t;  // returned inputs become views carrying this node
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    auto sink = ctx->saved_data["sink"].toTensor();
    // Gradient reaching `values` through LibTorch operators (a hard glimpse's gather).
    if (grads[0].defined()) sink = sink + grads[0];
    return {sink, torch::Tensor()};
  }
};

}  // namespace

StepGradientSink collect_step_gradient(const torch::Tensor& t) {
  if (!torch::GradMode::is_enabled() || !t.requires_grad() || !t.device().is_cpu() || t.scalar_type() != torch::kFloat) {
    return {t, torch::Tensor()};
  }
  auto contiguous = t.contiguous();
  thread_local torch::Tensor kept;  // the sink of this thread's previous step (core/model/kept_buffer.h)
  auto sink = kept_buffer(kept, contiguous.sizes(), contiguous.options()).zero_();
  return {HandOnSink::apply(contiguous, sink), sink};
}

}  // namespace fovea
