#include "core/model/word_gradient_rows.h"

namespace fovea {

namespace {
thread_local bool sparse_word_gradient = false;
}  // namespace

WordGradientRows::WordGradientRows(bool enabled) : was_(sparse_word_gradient) {
  sparse_word_gradient = was_ || enabled;
}

WordGradientRows::~WordGradientRows() { sparse_word_gradient = was_; }

bool WordGradientRows::active() { return sparse_word_gradient; }

void dense_gradients(const std::vector<torch::Tensor>& parameters) {
  torch::NoGradGuard no_grad;
  for (auto p : parameters) {
    if (p.grad().defined() && p.grad().is_sparse()) p.mutable_grad() = p.grad().to_dense();
  }
}

}  // namespace fovea
