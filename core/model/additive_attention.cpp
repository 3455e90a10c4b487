#include "core/model/additive_attention.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/model/attention_score_rows.h"
#include "core/model/vector_clones.h"
#include "core/model/vector_math.h"

namespace fovea {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

/// Σ_a w[a] tanh(p[a] + q[a]).
FOVEA_VECTOR_CLONES float score_row(const float* p, const float* q, const float* w, std::int64_t A) {
  float lanes[kReductionLanes] = {};
  std::int64_t a = 0;
  for (; a + kReductionLanes <= A; a += kReductionLanes) {
    for (int j = 0; j < kReductionLanes; ++j) lanes[j] += w[a + j] * fast_tanh(p[a + j] + q[a + j]);
  }
  float s = 0;
  for (; a < A; ++a) s += w[a] * fast_tanh(p[a] + q[a]);
  for (int j = 0; j < kReductionLanes; ++j) s += lanes[j];
  return s;
}

/// One (row, cell) of the backward: with t = tanh(p + q) computed again (the same kernel as the
/// forward's, so the same numbers), g = de · w ⊙ (1 − t²) into the projection's and q's gradients,
/// de · t into w's.
template <bool kProjection>
FOVEA_VECTOR_CLONES void score_row_backward(const float* __restrict p, const float* __restrict q, float de,
                                            const float* __restrict w, float* __restrict grad_p,
                                            float* __restrict grad_q, float* __restrict grad_w, std::int64_t A) {
  for (std::int64_t a = 0; a < A; ++a) {
    const float v = fast_tanh(p[a] + q[a]);
    const float g = de * w[a] * (1.0f - v * v);
    if constexpr (kProjection) grad_p[a] += g;
    grad_q[a] += g;
    grad_w[a] += de * v;
  }
}

/// out = e^2p over n (float, or rounded to bf16's bits); returns the largest |p|'s bits (a NaN's
/// are above every number's). Values of 2p outside ±88 give meaningless out: the caller then drops
/// it.
inline void store_key(float& out, float v) { out = v; }
inline void store_key(std::uint16_t& out, float v) { out = bf16_bits(v); }

template <class Key>
FOVEA_VECTOR_CLONES std::uint32_t double_exponentials(const float* __restrict p, Key* __restrict out, std::int64_t n) {
  std::uint32_t largest = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, p + i, sizeof bits);
    largest = std::max(largest, bits & 0x7FFFFFFFu);
    store_key(out[i], exp_bounded(2.0f * p[i]));
  }
  return largest;
}

/// e^2q with q clamped to ±(kExponentialFormBound + 10), NaN kept; (b, A).
torch::Tensor query_exponentials(const torch::Tensor& q) {
  const float limit = kExponentialFormBound + 10.0f;
  return torch::exp(q.clamp(-limit, limit) * 2.0f).contiguous();
}

/// Whether the fused kernel reads `projected` (float; e^2p also in bf16) with q.
bool scores_fusable(const torch::Tensor& projected, const torch::Tensor& q, bool bf16_too = false) {
  const auto type = projected.scalar_type();
  return projected.device().is_cpu() && (type == torch::kFloat || (bf16_too && type == torch::kBFloat16)) &&
         q.device().is_cpu() &&
         q.scalar_type() == torch::kFloat && projected.dim() == 3 && q.dim() == 2 && projected.size(2) == q.size(1) &&
         q.size(0) <= projected.size(0) && projected.stride(2) == 1 && projected.stride(1) == projected.size(2);
}

/// The keys' elements as the row kernels take them: float, or bf16 bits.
const std::uint16_t* key_bits(const torch::Tensor& t) {
  return reinterpret_cast<const std::uint16_t*>(t.data_ptr<at::BFloat16>());
}

/// Scores (b, L) from `keys` (b.., L, A: the projection, or e^2p in float or bf16 with q = e^2q).
template <class Key>
torch::Tensor fused_forward(const Key* P, std::int64_t row_stride, std::int64_t L, const torch::Tensor& q,
                            const torch::Tensor& w, const torch::Tensor& bias, bool exponential) {
  const std::int64_t b = q.size(0), A = q.size(1);
  auto e = torch::empty({b, L}, q.options());
  const float* Q = q.data_ptr<float>();
  const float* W = w.data_ptr<float>();
  const float B0 = bias.item<float>();
  float* E = e.data_ptr<float>();
  if constexpr (std::is_same_v<Key, std::uint16_t>) {
    at::parallel_for(0, b, 1, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i) {
        exponential_scores_bf16(P + i * row_stride, L, Q + i * A, W, A, E + i * L);
        for (std::int64_t l = 0; l < L; ++l) E[i * L + l] += B0;
      }
    });
  } else {
    const std::int64_t grain = std::max<std::int64_t>(1, 32768 / std::max<std::int64_t>(A, 1));
    at::parallel_for(0, b * L, grain, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t k = begin; k < end; ++k) {
        const std::int64_t i = k / L, l = k % L;
        const float* p = P + i * row_stride + l * A;
        E[k] = B0 + (exponential ? exponential_score_row(p, Q + i * A, W, A) : score_row(p, Q + i * A, W, A));
      }
    });
  }
  return e;
}

torch::Tensor fused_forward(const torch::Tensor& keys, const torch::Tensor& q_in, const torch::Tensor& w_in,
                            const torch::Tensor& bias, bool exponential) {
  const auto q = q_in.contiguous(), w = w_in.contiguous();
  const std::int64_t L = keys.size(1), row_stride = keys.stride(0);
  if (keys.scalar_type() == torch::kBFloat16) return fused_forward(key_bits(keys), row_stride, L, q, w, bias, true);
  return fused_forward(keys.data_ptr<float>(), row_stride, L, q, w, bias, exponential);
}

/// The backward's images i in [begin, end): g added into grad_p (when not null) and grad_q, w's into gw.
template <class Key>
void backward_rows(const Key* P, std::int64_t row_stride, std::int64_t L, std::int64_t A, const float* Q,
                   const float* DE, const float* W, float* GP, float* GQ, float* gw, bool exponential,
                   std::int64_t begin, std::int64_t end) {
  for (std::int64_t i = begin; i < end; ++i) {
    if constexpr (std::is_same_v<Key, std::uint16_t>) {
      exponential_scores_backward_bf16(P + i * row_stride, L, Q + i * A, DE + i * L, W, GP ? GP + i * L * A : nullptr,
                                       GQ + i * A, gw, A);
    } else {
      using RowBackward = void (*)(const float*, const float*, float, const float*, float*, float*, float*, std::int64_t);
      RowBackward row_backward = exponential_score_row_backward;
      if (!exponential) row_backward = GP ? score_row_backward<true> : score_row_backward<false>;
      for (std::int64_t l = 0; l < L; ++l) {
        const std::int64_t k = i * L + l;
        row_backward(P + i * row_stride + l * A, Q + i * A, DE[k], W, GP ? GP + k * A : nullptr, GQ + i * A, gw, A);
      }
    }
  }
}

/// The backward computes tanh again rather than keeping it: kept, the (b, L, A) values were a
/// 12.8 MB store per step at the benchmark's sizes (200 MB a training step) that the backward read
/// back from memory, where reading the projection again costs the same and the tanh is cheap.
/// With e^2p given (the exponential form) it reads that instead of `projected` and keeps e^2q for
/// the backward; `projected` stays an input all the same: its sink is handed on only after every
/// step that took it as an input has run its backward (core/model/step_gradient_sink.h).
struct AttentionScores : torch::autograd::Function<AttentionScores> {
  // The sink and e^2p are optional: autograd cannot register an undefined tensor as an input.
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor projected, torch::Tensor q, torch::Tensor w,
                               torch::Tensor bias, c10::optional<torch::Tensor> sink,
                               c10::optional<torch::Tensor> exponentials) {
    q = q.contiguous(), w = w.contiguous();
    const bool exponential = exponentials.has_value();
    const auto keys_q = exponential ? query_exponentials(q) : q;
    const auto& read = exponential ? *exponentials : projected;
    auto e = fused_forward(read, keys_q, w, bias, exponential);
    ctx->save_for_backward({read, keys_q, w});
    ctx->saved_data["sink"] = sink.value_or(torch::Tensor());
    ctx->saved_data["exponential"] = exponential;
    ctx->set_materialize_grads(false);
    return e;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list none(6);
    if (!grads[0].defined()) return none;
    const auto de = grads[0].contiguous();
    const auto saved = ctx->get_saved_variables();
    const auto &projected = saved[0], &q = saved[1], &w = saved[2];
    const auto sink = ctx->saved_data["sink"].toTensor();
    const bool exponential = ctx->saved_data["exponential"].toBool();
    const std::int64_t b = q.size(0), L = projected.size(1), A = projected.size(2), row_stride = projected.stride(0);
    auto grad_q = torch::zeros({b, A}, q.options());
    const int threads = at::get_num_threads();
    auto partial_w = torch::zeros({threads, A}, q.options());  // one row per worker, summed below
    const float* Q = q.data_ptr<float>();
    const float* DE = de.data_ptr<float>();
    const float* W = w.data_ptr<float>();
    float* GP = sink.defined() ? sink.data_ptr<float>() : nullptr;  // rows 0..b-1 of (B, L, A), contiguous
    float* GQ = grad_q.data_ptr<float>();
    float* GW = partial_w.data_ptr<float>();
    const bool bf16 = projected.scalar_type() == torch::kBFloat16;
    at::parallel_for(0, b, 1, [&](std::int64_t begin, std::int64_t end) {
      float* gw = GW + std::min<std::int64_t>(at::get_thread_num(), threads - 1) * A;
      if (bf16) {
        backward_rows(key_bits(projected), row_stride, L, A, Q, DE, W, GP, GQ, gw, true, begin, end);
      } else {
        backward_rows(projected.data_ptr<float>(), row_stride, L, A, Q, DE, W, GP, GQ, gw, exponential, begin, end);
      }
    });
    auto grad_w = partial_w.sum(0);
    auto grad_bias = de.sum().reshape({1});
    torch::Tensor grad_projected;  // delivered through the sink
    return {grad_projected, grad_q, grad_w, grad_bias, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor additive_attention_scores_reference(const torch::Tensor& projected, const torch::Tensor& q,
                                                  const torch::Tensor& w, const torch::Tensor& bias) {
  const auto b = q.size(0);
  return torch::matmul(torch::tanh(projected.narrow(0, 0, b) + q.unsqueeze(1)), w) + bias;
}

AttentionKeys attention_keys(const torch::Tensor& projected, bool bf16) {
  if (!projected.defined() || !projected.device().is_cpu() || projected.scalar_type() != torch::kFloat ||
      projected.numel() == 0) {
    return {projected};
  }
  torch::NoGradGuard no_grad;
  const auto p = projected.detach().contiguous();
  // Written in bf16 directly where asked: no float copy to write and read back.
  auto exponential = torch::empty_like(p, bf16 ? torch::kBFloat16 : torch::kFloat);
  const float* P = p.data_ptr<float>();
  const std::uint32_t largest =
      bf16 ? double_exponentials(P, reinterpret_cast<std::uint16_t*>(exponential.data_ptr<at::BFloat16>()), p.numel())
           : double_exponentials(P, exponential.data_ptr<float>(), p.numel());
  float bound = kExponentialFormBound;
  std::uint32_t bound_bits;
  std::memcpy(&bound_bits, &bound, sizeof bound_bits);
  if (largest > bound_bits) return {projected};  // also a NaN or an infinity
  return {projected, exponential};
}

torch::Tensor additive_attention_scores(const AttentionKeys& keys, const torch::Tensor& q, const torch::Tensor& w,
                                        const torch::Tensor& bias, const torch::Tensor& sink) {
  RECORD_FUNCTION("fovea::additive_attention_scores", std::vector<c10::IValue>());
  const auto& projected = keys.projected;
  TORCH_CHECK(projected.dim() == 3 && q.dim() == 2 && q.size(1) == projected.size(2) && q.size(0) <= projected.size(0),
              "attention: projection (B, L, A) and W_h h (b <= B, A) do not match: ", projected.sizes(), " and ",
              q.sizes());
  const bool grad = torch::GradMode::is_enabled() &&
                    (projected.requires_grad() || q.requires_grad() || w.requires_grad() || bias.requires_grad());
  if (!scores_fusable(projected, q) || w.scalar_type() != torch::kFloat ||
      (grad && projected.requires_grad() && !sink.defined())) {
    return additive_attention_scores_reference(projected, q, w, bias);
  }
  const auto& e2p = keys.exponential;  // used where it has the projection's shape and row layout
  const bool exponential = e2p.defined() && e2p.sizes() == projected.sizes() && scores_fusable(e2p, q, true);
  if (!grad) {
    return exponential ? fused_forward(keys.exponential, query_exponentials(q), w, bias, true)
                       : fused_forward(projected, q, w, bias, false);
  }
  auto optional = [](const torch::Tensor& t) { return t.defined() ? c10::optional<torch::Tensor>(t) : c10::nullopt; };
  return AttentionScores::apply(projected, q, w, bias, optional(sink),
                                optional(exponential ? keys.exponential : torch::Tensor()));
}

}  // namespace fovea
