#include "core/model/attention_context.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/model/attention_context_rows.h"
#include "core/model/vector_clones.h"
#include "core/model/vector_math.h"

namespace fovea {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

/// out = Σ_l alpha[l] a[l] over L rows of D (bf16 annotations: core/model/attention_context_rows.h).
FOVEA_VECTOR_CLONES void context_row(const float* alpha, const float* a, float* out, std::int64_t L, std::int64_t D) {
  std::fill(out, out + D, 0.0f);
  for (std::int64_t l = 0; l < L; ++l) {
    const float w = alpha[l];
    const float* row = a + l * D;
    for (std::int64_t d = 0; d < D; ++d) out[d] += w * row[d];
  }
}

/// x · y over D, in kReductionLanes partial sums so that the loop vectorises.
FOVEA_VECTOR_CLONES float dot(const float* x, const float* y, std::int64_t D) {
  float lanes[kReductionLanes] = {};
  std::int64_t d = 0;
  for (; d + kReductionLanes <= D; d += kReductionLanes) {
    for (int j = 0; j < kReductionLanes; ++j) lanes[j] += x[d + j] * y[d + j];
  }
  float s = 0;
  for (; d < D; ++d) s += x[d] * y[d];
  for (int j = 0; j < kReductionLanes; ++j) s += lanes[j];
  return s;
}

/// The annotations' values as stored: float, or bf16 as its bits.
template <typename T>
const T* stored(const torch::Tensor& annotations) {
  if constexpr (std::is_same_v<T, float>) {
    return annotations.data_ptr<float>();
  } else {
    return reinterpret_cast<const std::uint16_t*>(annotations.data_ptr<at::BFloat16>());
  }
}

/// y += s · x over D.
FOVEA_VECTOR_CLONES void add_scaled(float s, const float* x, float* y, std::int64_t D) {
  for (std::int64_t d = 0; d < D; ++d) y[d] += s * x[d];
}

/// Float α, and annotations in float or, where they need no gradient, in bf16 (half the bytes).
bool context_fusable(const torch::Tensor& alpha, const torch::Tensor& annotations) {
  auto cpu_float = [](const torch::Tensor& t) { return t.device().is_cpu() && t.scalar_type() == torch::kFloat; };
  const bool stored_bf16 = annotations.device().is_cpu() && annotations.scalar_type() == torch::kBFloat16 &&
                           !annotations.requires_grad();
  return cpu_float(alpha) && (cpu_float(annotations) || stored_bf16) && annotations.stride(2) == 1 &&
         annotations.stride(1) == annotations.size(2);
}

template <typename T>
torch::Tensor fused_forward(const torch::Tensor& alpha_in, const torch::Tensor& annotations) {
  const auto alpha = alpha_in.contiguous();
  const std::int64_t b = alpha.size(0), L = annotations.size(1), D = annotations.size(2), stride = annotations.stride(0);
  auto out = torch::empty({b, D}, alpha.options());
  const float* AL = alpha.data_ptr<float>();
  const T* A = stored<T>(annotations);
  float* O = out.data_ptr<float>();
  at::parallel_for(0, b, 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      if constexpr (std::is_same_v<T, float>) {
        context_row(AL + i * L, A + i * stride, O + i * D, L, D);
      } else {
        bf16_context_row(AL + i * L, A + i * stride, O + i * D, L, D);
      }
    }
  });
  return out;
}

torch::Tensor fused_forward(const torch::Tensor& alpha, const torch::Tensor& annotations) {
  return annotations.scalar_type() == torch::kBFloat16 ? fused_forward<std::uint16_t>(alpha, annotations)
                                                       : fused_forward<float>(alpha, annotations);
}

/// α's gradient (b, L) from the context's g (b, D); with `sink` (float annotations only), the
/// annotations' gradient added into it.
template <typename T>
void fused_backward(const torch::Tensor& alpha, const torch::Tensor& annotations, const torch::Tensor& g,
                    const torch::Tensor& sink, torch::Tensor& grad_alpha) {
  const std::int64_t b = alpha.size(0), L = annotations.size(1), D = annotations.size(2), stride = annotations.stride(0);
  const float* AL = alpha.data_ptr<float>();
  const T* A = stored<T>(annotations);
  const float* G = g.data_ptr<float>();
  float* GA = grad_alpha.data_ptr<float>();
  float* S = sink.defined() ? sink.data_ptr<float>() : nullptr;  // rows 0..b-1 of (B, L, D), contiguous
  at::parallel_for(0, b, 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      if constexpr (std::is_same_v<T, std::uint16_t>) {  // bf16 annotations take no gradient: no sink
        bf16_context_alpha_gradient(G + i * D, A + i * stride, GA + i * L, L, D);
      } else {
        for (std::int64_t l = 0; l < L; ++l) {
          GA[i * L + l] = dot(G + i * D, A + i * stride + l * D, D);
          if (S) add_scaled(AL[i * L + l], G + i * D, S + (i * L + l) * D, D);
        }
      }
    }
  });
}

struct AttentionContext : torch::autograd::Function<AttentionContext> {
  // The sink is optional: autograd cannot register an undefined tensor as an input.
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor alpha, torch::Tensor annotations,
                               c10::optional<torch::Tensor> sink) {
    ctx->save_for_backward({alpha, annotations});
    ctx->saved_data["sink"] = sink.value_or(torch::Tensor());
    ctx->set_materialize_grads(false);
    return fused_forward(alpha, annotations);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    if (!grads[0].defined()) return {torch::Tensor(), torch::Tensor(), torch::Tensor()};
    const auto saved = ctx->get_saved_variables();
    const auto alpha = saved[0].contiguous(), annotations = saved[1];
    const auto sink = ctx->saved_data["sink"].toTensor();
    const auto g = grads[0].contiguous();
    auto grad_alpha = torch::empty({alpha.size(0), annotations.size(1)}, alpha.options());
    if (annotations.scalar_type() == torch::kBFloat16) {
      fused_backward<std::uint16_t>(alpha, annotations, g, sink, grad_alpha);
    } else {
      fused_backward<float>(alpha, annotations, g, sink, grad_alpha);
    }
    torch::Tensor grad_annotations;  // delivered through the sink
    return {grad_alpha, grad_annotations, torch::Tensor()};
  }
};

}  // namespace

torch::Tensor attention_context(const torch::Tensor& alpha, const torch::Tensor& annotations, const torch::Tensor& sink) {
  RECORD_FUNCTION("fovea::attention_context", std::vector<c10::IValue>());
  TORCH_CHECK(alpha.dim() == 2 && annotations.dim() == 3 && alpha.size(0) <= annotations.size(0) &&
                  alpha.size(1) == annotations.size(1),
              "attention context: alpha (b, L) and annotations (B >= b, L, D) do not match: ", alpha.sizes(), " and ",
              annotations.sizes());
  const auto b = alpha.size(0);
  // Beam search expands one image over its beams (stride 0): one product, no copy of the image.
  if (annotations.stride(0) == 0) return torch::mm(alpha, annotations[0]);
  const bool grad = torch::GradMode::is_enabled() && (alpha.requires_grad() || annotations.requires_grad());
  if (!context_fusable(alpha, annotations) || (grad && annotations.requires_grad() && !sink.defined())) {
    return torch::bmm(alpha.unsqueeze(1), annotations.narrow(0, 0, b)).squeeze(1);
  }
  if (!grad) return fused_forward(alpha, annotations);
  return AttentionContext::apply(alpha, annotations, sink.defined() ? c10::optional<torch::Tensor>(sink) : c10::nullopt);
}

}  // namespace fovea
