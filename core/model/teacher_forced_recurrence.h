#pragma once
/// The training forward's recurrence (attention, context and LSTM step, docs/design.md §1) over all
/// steps of a batch as one autograd function, for the device-generic path: CUDA, and any tensor the
/// CPU kernels do not take (float64). The forward records no graph and the backward is written out,
/// so a step issues about a dozen operators each way, where autograd issued ~85 per word in all
/// (`fovea bench --case op_count`). Weight gradients are one product over all steps; the LSTM cell
/// is core/model/fused_lstm_cell.h.
#include <vector>

#include "core/runtime/torch_compat.h"

namespace fovea {

struct RecurrenceWeights {
  torch::Tensor att_hidden;     ///< W_h (A, n)
  torch::Tensor att_bias;       ///< b (A) of the attention's projection
  torch::Tensor score_weight;   ///< w (A)
  torch::Tensor score_bias;     ///< (1): softmax ignores it, so its gradient is zero
  torch::Tensor beta_weight;    ///< (1, n); undefined: the model has no β gate
  torch::Tensor beta_bias;      ///< (1)
  torch::Tensor context_gates;  ///< (4n, D)
  torch::Tensor hidden_gates;   ///< (4n, n)
};

struct RecurrenceInput {
  torch::Tensor annotations;  ///< a (B, L, D), rows sorted longest caption first
  torch::Tensor projected;    ///< W_a a (B, L, A), without the bias
  torch::Tensor word_gates;   ///< (N, 4n) the word part of the gates, bias included, packed step after step
  torch::Tensor h0, c0;       ///< (B, n)
  std::vector<std::int64_t> rows_at;  ///< step t works on rows 0 .. rows_at[t]
  torch::Tensor sample;       ///< (B) bool: rows that draw hard glimpses; undefined: none
};

/// Packed like the word gates: (N, ..) in step-major order.
struct RecurrenceOutput {
  torch::Tensor h, context, alpha, beta, glimpse, log_alpha_glimpse;
};

RecurrenceOutput teacher_forced_recurrence(const RecurrenceInput& in, const RecurrenceWeights& w);

}  // namespace fovea
