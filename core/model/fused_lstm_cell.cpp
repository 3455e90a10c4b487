#include "core/model/fused_lstm_cell.h"

#include <ATen/record_function.h>

namespace fovea {

namespace {

bool has_fused_kernel(const torch::Tensor& t) { return t.is_cuda(); }

}  // namespace

FusedCellResult fused_lstm_cell(const torch::Tensor& input_gates, const torch::Tensor& hidden_gates,
                                const torch::Tensor& c_prev) {
  if (has_fused_kernel(c_prev)) {
    auto [h, c, workspace] = at::_thnn_fused_lstm_cell(input_gates, hidden_gates, c_prev);
    return {h, c, workspace};
  }
  RECORD_USER_SCOPE(kGenericCellScope);
  const auto n = c_prev.size(1);
  auto gates = input_gates + hidden_gates;
  auto act = torch::sigmoid(gates);
  auto g = act.narrow(1, 2 * n, n);
  at::tanh_out(g, gates.narrow(1, 2 * n, n));
  auto c = act.narrow(1, n, n) * c_prev;
  c.addcmul_(act.narrow(1, 0, n), g);
  auto h = act.narrow(1, 3 * n, n) * torch::tanh(c);
  return {h, c, act};
}

std::pair<torch::Tensor, torch::Tensor> fused_lstm_cell_backward(const torch::Tensor& grad_h, const torch::Tensor& grad_c,
                                                                 const torch::Tensor& c_prev, const torch::Tensor& c,
                                                                 const torch::Tensor& workspace) {
  if (has_fused_kernel(c)) {
    auto [grad_gates, grad_cx, unused] = at::_thnn_fused_lstm_cell_backward_impl(grad_h, grad_c, c_prev, c, workspace, false);
    (void)unused;
    return {grad_gates, grad_cx};
  }
  RECORD_USER_SCOPE(kGenericCellScope);
  const auto n = c.size(1);
  auto i = workspace.narrow(1, 0, n), f = workspace.narrow(1, n, n), g = workspace.narrow(1, 2 * n, n),
       o = workspace.narrow(1, 3 * n, n);
  const auto tanh_c = torch::tanh(c);
  // ∂c_t: through h = o tanh(c) and from the next step.
  auto dc = at::tanh_backward(grad_h * o, tanh_c);
  if (grad_c.defined()) dc.add_(grad_c);
  auto grad = torch::empty_like(workspace);
  auto gi = grad.narrow(1, 0, n), gf = grad.narrow(1, n, n), gg = grad.narrow(1, 2 * n, n), go = grad.narrow(1, 3 * n, n);
  at::mul_out(gi, dc, g);
  at::mul_out(gf, dc, c_prev);
  at::mul_out(gg, dc, i);
  at::mul_out(go, grad_h, tanh_c);
  // To the pre-activations: σ' for i, f, o and tanh' for g.
  auto gif = grad.narrow(1, 0, 2 * n);
  at::sigmoid_backward_out(gif, gif, workspace.narrow(1, 0, 2 * n));
  at::tanh_backward_out(gg, gg, g);
  at::sigmoid_backward_out(go, go, o);
  return {grad, dc * f};
}

}  // namespace fovea
