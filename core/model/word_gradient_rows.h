#pragma once
/// The word embedding's gradient as the rows a batch's words read, for batches decoded in parts.
///
/// A dense gradient of the (K, m) embedding is K × m floats, 20 MB at a 10,000-word vocabulary,
/// for the few hundred rows a batch's words touch. Each part of a batch decoded side by side
/// (core/train/decoder_pass.h) zero-filled its own and autograd added the parts' together: three
/// passes over 20 MB a step, with both threads streaming memory at once. While a WordGradientRows
/// scope is open, the training forward gives the embedding a sparse gradient instead (the parts'
/// add up as lists of rows), and the caller makes it dense once, after every part's backward.
#include <torch/torch.h>

namespace fovea {

/// While alive, the calling thread's training forwards give the word embedding a sparse gradient.
/// `enabled` false does nothing. Whoever opens it calls dense_gradients() after the backward.
class WordGradientRows {
 public:
  explicit WordGradientRows(bool enabled);
  ~WordGradientRows();
  WordGradientRows(const WordGradientRows&) = delete;
  WordGradientRows& operator=(const WordGradientRows&) = delete;

  static bool active();

 private:
  bool was_;
};

/// Every sparse gradient among `parameters` made dense, as the optimizer and the gradients'
/// checks and reductions expect.
void dense_gradients(const std::vector<torch::Tensor>& parameters);

}  // namespace fovea
