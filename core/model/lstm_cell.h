#pragma once
/// The decoder's LSTM update (docs/design.md §1.2) from its gate pre-activations, in one pass:
///   (i, f, g, o) = (σ, σ, tanh, σ) of the four column blocks of word + context + hidden,
///   c = f ⊙ c_prev + i ⊙ g,  h = o ⊙ tanh(c).
///
/// Composed of LibTorch operators it is about a dozen operators a step forward and twenty
/// backward, each a pass over (b, 4n) and an autograd node, and the gates' chunks come back
/// through four zero-filled slices. On the CPU in float the forward and the backward here are one
/// pass each; elsewhere (CUDA, bf16 autocast) it is LibTorch's composition.
#include <torch/torch.h>

namespace fovea {

struct LstmCellState {
  torch::Tensor h, c;  ///< (b, n)
};

/// word, context, hidden: (b, 4n) gate pre-activations from the previous word, the context and
/// h_{t-1}; c_prev: (b, n).
LstmCellState lstm_cell(const torch::Tensor& word, const torch::Tensor& context, const torch::Tensor& hidden,
                        const torch::Tensor& c_prev);

/// The same through LibTorch's operators: what lstm_cell computes elsewhere, and what the tests
/// compare it with.
LstmCellState lstm_cell_reference(const torch::Tensor& word, const torch::Tensor& context, const torch::Tensor& hidden,
                                  const torch::Tensor& c_prev);

}  // namespace fovea
