#pragma once
/// The LSTM cell of the device-generic path (docs/design.md §1, eq. 1–3) as one operator each way
/// where the device has one: at::_thnn_fused_lstm_cell and its backward on CUDA. Elsewhere (the CPU
/// in float64, say) the same results from a few elementwise operators, inside the profiler scope
/// kScope so that `fovea bench --case op_count` can say what the fused cell saves.
#include "core/runtime/torch_compat.h"

namespace fovea {

struct FusedCellResult {
  torch::Tensor h, c;       ///< (b, n)
  torch::Tensor workspace;  ///< (b, 4n) the activated gates i, f, g, o: what the backward reads
};

/// h, c from the gates' two parts (b, 4n each, summed; gate order i, f, g, o) and c_prev (b, n).
FusedCellResult fused_lstm_cell(const torch::Tensor& input_gates, const torch::Tensor& hidden_gates,
                                const torch::Tensor& c_prev);

/// The backward of one fused_lstm_cell: from ∂h and ∂c (b, n; ∂c may be undefined) the gradient of
/// the gates' pre-activation (b, 4n) and of c_prev (b, n).
std::pair<torch::Tensor, torch::Tensor> fused_lstm_cell_backward(const torch::Tensor& grad_h, const torch::Tensor& grad_c,
                                                                 const torch::Tensor& c_prev, const torch::Tensor& c,
                                                                 const torch::Tensor& workspace);

/// The profiler scope of the generic cell's operators.
inline constexpr const char* kGenericCellScope = "fovea::generic_lstm_cell";

}  // namespace fovea
