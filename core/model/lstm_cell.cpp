#include "core/model/lstm_cell.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <algorithm>

#include "core/model/vector_clones.h"
#include "core/model/vector_math.h"

namespace fovea {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

/// One row: the gates (4n each of word, context, hidden), c_prev (n) → h, c (n); with kSave also
/// the activations i, f, g, o (4n) and tanh(c) (n) for the backward.
template <bool kSave>
FOVEA_VECTOR_CLONES void cell_row(const float* __restrict word, const float* __restrict context,
                                  const float* __restrict hidden, const float* __restrict c_prev, float* __restrict h,
                                  float* __restrict c, float* __restrict act, float* __restrict tanh_c,
                                  std::int64_t n) {
  for (std::int64_t j = 0; j < n; ++j) {
    const float i = sigmoid(word[j] + context[j] + hidden[j]);
    const float f = sigmoid(word[n + j] + context[n + j] + hidden[n + j]);
    const float g = fast_tanh(word[2 * n + j] + context[2 * n + j] + hidden[2 * n + j]);
    const float o = sigmoid(word[3 * n + j] + context[3 * n + j] + hidden[3 * n + j]);
    const float cj = f * c_prev[j] + i * g;
    const float t = fast_tanh(cj);
    c[j] = cj;
    h[j] = o * t;
    if constexpr (kSave) {
      act[j] = i, act[n + j] = f, act[2 * n + j] = g, act[3 * n + j] = o;
      tanh_c[j] = t;
    }
  }
}

/// One row of the backward: ∂h, ∂c (n) → the gates' pre-activation gradient (4n) and ∂c_prev (n).
FOVEA_VECTOR_CLONES void cell_row_backward(const float* __restrict act, const float* __restrict tanh_c,
                                           const float* __restrict c_prev, const float* __restrict dh,
                                           const float* __restrict dc, float* __restrict dgates,
                                           float* __restrict dc_prev, std::int64_t n) {
  for (std::int64_t j = 0; j < n; ++j) {
    const float i = act[j], f = act[n + j], g = act[2 * n + j], o = act[3 * n + j], t = tanh_c[j];
    const float dct = dc[j] + dh[j] * o * (1.0f - t * t);
    dgates[j] = dct * g * i * (1.0f - i);
    dgates[n + j] = dct * c_prev[j] * f * (1.0f - f);
    dgates[2 * n + j] = dct * i * (1.0f - g * g);
    dgates[3 * n + j] = dh[j] * t * o * (1.0f - o);
    dc_prev[j] = dct * f;
  }
}

/// Rows per task: a few rows are too little work to hand to another thread.
std::int64_t grain_rows(std::int64_t n) { return std::max<std::int64_t>(1, 32768 / std::max<std::int64_t>(4 * n, 1)); }

/// h, c and, when `act` is defined, what the backward needs.
void fused_forward(const torch::Tensor& word, const torch::Tensor& context, const torch::Tensor& hidden,
                   const torch::Tensor& c_prev, torch::Tensor& h, torch::Tensor& c, torch::Tensor* act,
                   torch::Tensor* tanh_c) {
  const std::int64_t b = c_prev.size(0), n = c_prev.size(1);
  h = torch::empty({b, n}, c_prev.options());
  c = torch::empty({b, n}, c_prev.options());
  if (act) *act = torch::empty({b, 4 * n}, c_prev.options()), *tanh_c = torch::empty({b, n}, c_prev.options());
  const float *W = word.data_ptr<float>(), *X = context.data_ptr<float>(), *H = hidden.data_ptr<float>();
  const float* CP = c_prev.data_ptr<float>();
  float *HO = h.data_ptr<float>(), *CO = c.data_ptr<float>();
  float* AC = act ? act->data_ptr<float>() : nullptr;
  float* TC = act ? tanh_c->data_ptr<float>() : nullptr;
  at::parallel_for(0, b, grain_rows(n), [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t r = begin; r < end; ++r) {
      const std::int64_t g = r * 4 * n, s = r * n;
      if (AC) {
        cell_row<true>(W + g, X + g, H + g, CP + s, HO + s, CO + s, AC + g, TC + s, n);
      } else {
        cell_row<false>(W + g, X + g, H + g, CP + s, HO + s, CO + s, nullptr, nullptr, n);
      }
    }
  });
}

struct LstmCell : torch::autograd::Function<LstmCell> {
  static variable_list forward(AutogradContext* ctx, const torch::Tensor& word, const torch::Tensor& context,
                               const torch::Tensor& hidden, const torch::Tensor& c_prev_in) {
    const auto c_prev = c_prev_in.contiguous();
    torch::Tensor h, c, act, tanh_c;
    fused_forward(word.contiguous(), context.contiguous(), hidden.contiguous(), c_prev, h, c, &act, &tanh_c);
    ctx->save_for_backward({act, tanh_c, c_prev});
    ctx->set_materialize_grads(false);
    return {h, c};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    if (!grads[0].defined() && !grads[1].defined())
      return {torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
    const auto saved = ctx->get_saved_variables();
    const auto &act = saved[0], &tanh_c = saved[1], &c_prev = saved[2];
    const std::int64_t b = c_prev.size(0), n = c_prev.size(1);
    const auto dh = grads[0].defined() ? grads[0].contiguous() : torch::zeros({b, n}, c_prev.options());
    const auto dc = grads[1].defined() ? grads[1].contiguous() : torch::zeros({b, n}, c_prev.options());
    auto dgates = torch::empty({b, 4 * n}, c_prev.options());
    auto dc_prev = torch::empty({b, n}, c_prev.options());
    const float *AC = act.data_ptr<float>(), *TC = tanh_c.data_ptr<float>(), *CP = c_prev.data_ptr<float>();
    const float *DH = dh.data_ptr<float>(), *DC = dc.data_ptr<float>();
    float *DG = dgates.data_ptr<float>(), *DCP = dc_prev.data_ptr<float>();
    at::parallel_for(0, b, grain_rows(n), [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t r = begin; r < end; ++r) {
        cell_row_backward(AC + r * 4 * n, TC + r * n, CP + r * n, DH + r * n, DC + r * n, DG + r * 4 * n, DCP + r * n,
                          n);
      }
    });
    // The three pre-activations are summed: each gets the same gradient (read, never written, downstream).
    return {dgates, dgates, dgates, dc_prev};
  }
};

bool fusable(const torch::Tensor& word, const torch::Tensor& context, const torch::Tensor& hidden,
             const torch::Tensor& c_prev) {
  for (const auto* t : {&word, &context, &hidden, &c_prev}) {
    if (!t->device().is_cpu() || t->scalar_type() != torch::kFloat || t->dim() != 2 || t->size(0) != c_prev.size(0)) {
      return false;
    }
  }
  const auto four_n = 4 * c_prev.size(1);
  return word.size(1) == four_n && context.size(1) == four_n && hidden.size(1) == four_n;
}

}  // namespace

LstmCellState lstm_cell_reference(const torch::Tensor& word, const torch::Tensor& context, const torch::Tensor& hidden,
                                  const torch::Tensor& c_prev) {
  auto chunks = (word + context + hidden).chunk(4, 1);
  auto i = torch::sigmoid(chunks[0]), f = torch::sigmoid(chunks[1]);
  auto g = torch::tanh(chunks[2]), o = torch::sigmoid(chunks[3]);
  auto c = f * c_prev + i * g;
  return {o * torch::tanh(c), c};
}

LstmCellState lstm_cell(const torch::Tensor& word, const torch::Tensor& context, const torch::Tensor& hidden,
                        const torch::Tensor& c_prev) {
  RECORD_FUNCTION("fovea::lstm_cell", std::vector<c10::IValue>());
  if (!fusable(word, context, hidden, c_prev)) return lstm_cell_reference(word, context, hidden, c_prev);
  const bool grad = torch::GradMode::is_enabled() && (word.requires_grad() || context.requires_grad() ||
                                                      hidden.requires_grad() || c_prev.requires_grad());
  if (grad) {
    const auto out = LstmCell::apply(word, context, hidden, c_prev);
    return {out[0], out[1]};
  }
  LstmCellState s;
  fused_forward(word.contiguous(), context.contiguous(), hidden.contiguous(), c_prev.contiguous(), s.h, s.c, nullptr,
                nullptr);
  return s;
}

}  // namespace fovea
