#pragma once
/// Copying weights and buffers between modules by name.
#include "core/runtime/torch_compat.h"

namespace fovea {

/// Copies every parameter and buffer of `from` into the one of the same name in `to`; names that
/// `from` lacks are left as they are.
inline void copy_matching_state(torch::nn::Module& to, const torch::nn::Module& from) {
  torch::NoGradGuard no_grad;
  const auto params = from.named_parameters(), buffers = from.named_buffers();
  for (auto& p : to.named_parameters()) {
    if (const auto* f = params.find(p.key())) p.value().copy_(*f);
  }
  for (auto& b : to.named_buffers()) {
    if (const auto* f = buffers.find(b.key())) b.value().copy_(*f);
  }
}

}  // namespace fovea
