#include "core/model/step_gradient_sink.h"

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

/// Zeros shaped like `t`: the buffer this thread handed out for its previous step where nothing
/// holds it any more (a step's sink is handed on and let go within its backward), else a new one.
/// A new buffer of this size (12.8 MB for each part of a corpus step) comes from fresh pages that
/// the kernel clears on first touch, and zeroing it took the part up to 20 ms; a kept one is zeroed
/// at the memory's rate. The buffer stays with its thread until a sink of another shape replaces it.
torch::Tensor zeroed_buffer(const torch::Tensor& t) {
  thread_local torch::Tensor kept;
  if (kept.defined() && kept.sizes() == t.sizes() && kept.scalar_type() == t.scalar_type() &&
      kept.device() == t.device() &&
      kept.use_count() == 1 && kept.storage().use_count() == 1) {
    return kept.zero_();
  }
  kept = torch::zeros_like(t);
  return kept;
}

}  // namespace

StepGradientSink collect_step_gradient(const torch::Tensor& t) {
  if (!torch::GradMode::is_enabled() || !t.requires_grad() || !t.device().is_cpu() || t.scalar_type() != torch::kFloat) {
    return {t, torch::Tensor()};
  }
  auto contiguous = t.contiguous();
  auto sink = zeroed_buffer(contiguous);
  return {HandOnSink::apply(contiguous, sink), sink};
}

}  // namespace fovea
