#include "core/model/teacher_forced_recurrence.h"

#include <numeric>

#include "core/model/fused_lstm_cell.h"
#include "core/runtime/thread_generator.h"

namespace fovea {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

/// Where each step's rows start in the packed tensors; the last entry is N.
std::vector<std::int64_t> step_offsets(const std::vector<std::int64_t>& rows_at) {
  std::vector<std::int64_t> at(rows_at.size() + 1, 0);
  for (std::size_t t = 0; t < rows_at.size(); ++t) at[t + 1] = at[t] + rows_at[t];
  return at;
}

/// For each packed row (t, r), in one upload: r (its sequence), r·T + t (its cell in a (B, T)
/// grid) and where h_{t-1} is in cat(h0, h): r for t = 0, else B + (offset of step t-1) + r.
torch::Tensor packed_indices(const std::vector<std::int64_t>& rows_at, std::int64_t B, const torch::Device& device) {
  const auto T = std::int64_t(rows_at.size());
  const auto off = step_offsets(rows_at);
  const auto N = off.back();
  auto idx = torch::empty({3, N}, torch::kLong);
  auto* p = idx.data_ptr<std::int64_t>();
  for (std::int64_t t = 0; t < T; ++t) {
    for (std::int64_t r = 0; r < rows_at[std::size_t(t)]; ++r) {
      const auto k = off[std::size_t(t)] + r;
      p[k] = r;
      p[N + k] = r * T + t;
      p[2 * N + k] = t == 0 ? r : B + off[std::size_t(t - 1)] + r;
    }
  }
  return idx.to(device);
}

torch::Tensor plain(const torch::Tensor& t) { return t.defined() ? t.detach() : t; }

/// What Recurrence::forward saved for the backward pass.
struct SavedForBackward {
  torch::Tensor a, h0, c0, W_q, w, W_c, W_hh, sample, u, alpha, weights, beta, context, H, C, workspace, glimpse, score_bias;
  std::vector<std::int64_t> rows_at;
  bool gated, hard;

  explicit SavedForBackward(AutogradContext* ctx) {
    auto& s = ctx->saved_data;
    a = s["a"].toTensor(), h0 = s["h0"].toTensor(), c0 = s["c0"].toTensor(), W_q = s["W_q"].toTensor();
    w = s["w"].toTensor(), W_c = s["W_c"].toTensor(), W_hh = s["W_hh"].toTensor();
    sample = s["sample"].toTensor(), u = s["u"].toTensor(), alpha = s["alpha"].toTensor();
    weights = s["weights"].toTensor(), beta = s["beta"].toTensor(), context = s["context"].toTensor();
    H = s["h"].toTensor(), C = s["c"].toTensor(), workspace = s["workspace"].toTensor();
    glimpse = s["glimpse"].toTensor(), score_bias = s["score_bias"].toTensor();
    rows_at = s["rows_at"].toIntVector();
    gated = s["gated"].toBool(), hard = sample.numel() > 0;
  }
};

/// `t`, a tensor of step t+1's rows, with zero rows added where step t has more; undefined stays so.
torch::Tensor padded_rows(const torch::Tensor& t, std::int64_t b) {
  return !t.defined() || t.size(0) == b ? t : at::constant_pad_nd(t, {0, 0, 0, b - t.size(0)});
}

/// What the walk back through the steps leaves for the inputs' gradients, packed by row as the
/// forward pass's tensors are.
struct StepGradients {
  torch::Tensor dq;     ///< ∂(W_h h + b) (first without w, see W_q_w) and ∂ of β's input
  torch::Tensor dz;     ///< ∂ of each row's context
  torch::Tensor de;     ///< ∂ of each row's scores
  torch::Tensor slope;  ///< 1 − u² (the tanh's derivative)
  torch::Tensor soft_rows;  ///< hard: the rows that use the expected context (undefined for soft)
  std::vector<torch::Tensor> dgates;  ///< per step
  torch::Tensor dh0, dc0;
};

/// Walks the steps back from the last: each step's LSTM cell, context, attention and query.
StepGradients backward_steps(const SavedForBackward& s, const variable_list& grads) {
  const auto &a = s.a, &c0 = s.c0, &W_q = s.W_q, &w = s.w, &W_c = s.W_c, &W_hh = s.W_hh, &u_all = s.u;
  const auto &alpha = s.alpha, &beta = s.beta, &C = s.C, &workspace = s.workspace, &glimpse = s.glimpse;
  const auto& rows_at = s.rows_at;
  const bool gated = s.gated, hard = s.hard;
  const auto &gH = grads[0], &gZ = grads[1], &gA = grads[2], &gB = grads[3], &gL = grads[5];
  const auto L = a.size(1), D = a.size(2), A = w.size(0), n = s.h0.size(1);
  const auto T = std::int64_t(rows_at.size());
  const auto off = step_offsets(rows_at);
  const auto N = off.back();
  const auto opt = a.options();

  // ∂h_t and ∂c_t reach step t from step t+1 (and ∂h_t from the output layer); undefined before
  // the last step.
  torch::Tensor dh_next, dc_next;
  auto dq = torch::empty({N, W_q.size(0)}, opt);  // see StepGradients::dq
  auto dz_all = torch::empty({N, D}, opt);
  auto de_all = torch::empty({N, L}, opt);
  std::vector<torch::Tensor> dgates(static_cast<std::size_t>(T));
  // Σ_l ∂e_l (1 − u_l²) w is the query's gradient; w is folded into the weight here and into dq
  // after the loop, so a step takes one product for it.
  auto W_q_w = W_q.clone();
  W_q_w.narrow(0, 0, A).mul_(w.unsqueeze(1));
  auto slope = at::rsub(u_all.square(), 1);  // 1 − u²
  torch::Tensor soft_rows = hard ? s.sample.logical_not().to(opt.dtype()) : torch::Tensor();
  for (std::int64_t t = T - 1; t >= 0; --t) {
    const auto b = rows_at[std::size_t(t)], o = off[std::size_t(t)];
    auto dh = padded_rows(dh_next, b);
    if (!dh.defined()) dh = gH.defined() ? gH.narrow(0, o, b) : torch::zeros({b, n}, opt);
    const auto c_prev = t == 0 ? c0.narrow(0, 0, b) : C.narrow(0, off[std::size_t(t - 1)], b);
    auto [dg, dc] = fused_lstm_cell_backward(dh, padded_rows(dc_next, b), c_prev, C.narrow(0, o, b), workspace.narrow(0, o, b));
    dgates[std::size_t(t)] = dg;
    dc_next = dc;
    auto dz = dz_all.narrow(0, o, b);
    if (gZ.defined()) {
      at::addmm_out(dz, gZ.narrow(0, o, b), dg, W_c);
    } else {
      at::mm_out(dz, dg, W_c);
    }
    const auto dz_soft = hard ? dz * soft_rows.narrow(0, 0, b).unsqueeze(1) : dz;
    const auto al = alpha.narrow(0, o, b);
    auto dweights = torch::bmm(dz_soft.unsqueeze(1), a.narrow(0, 0, b).transpose(1, 2)).squeeze(1);  // (b, L)
    torch::Tensor dalpha;
    if (gated) {
      const auto bt = beta.narrow(0, o, b);
      dalpha = gA.defined() ? torch::addcmul(gA.narrow(0, o, b), dweights, bt.unsqueeze(1)) : dweights * bt.unsqueeze(1);
      const auto row_dot = [&](const torch::Tensor& x, const torch::Tensor& y) { return x.unsqueeze(1).bmm(y.unsqueeze(2)); };
      auto dbeta = gB.defined() ? torch::baddbmm(gB.narrow(0, o, b).view({b, 1, 1}), dweights.unsqueeze(1), al.unsqueeze(2))
                                : row_dot(dweights, al);
      auto column = dq.narrow(0, o, b).select(1, A);
      at::sigmoid_backward_out(column, dbeta.view({b}), bt);
    } else {
      dalpha = gA.defined() ? dweights.add_(gA.narrow(0, o, b)) : dweights;
    }
    if (hard && gL.defined()) {  // log α_s: 1/α_s at the drawn cell, where the clamp let it through
      const auto cells = glimpse.narrow(0, o, b).clamp_min(0).unsqueeze(1);
      const auto at_cell = al.gather(1, cells);
      const auto drawn = (glimpse.narrow(0, o, b).unsqueeze(1) >= 0).logical_and(at_cell > 1e-12);
      dalpha = dalpha.scatter_add(1, cells, torch::where(drawn, gL.narrow(0, o, b).unsqueeze(1) / at_cell,
                                                         torch::zeros_like(at_cell)));
    }
    auto de = de_all.narrow(0, o, b);
    at::_softmax_backward_data_out(de, dalpha, al, 1, al.scalar_type());
    auto dq3 = dq.narrow(0, o, b).narrow(1, 0, A).unsqueeze(1);
    at::bmm_out(dq3, de.unsqueeze(1), slope.narrow(0, o, b));
    // ∂h_{t-1} = ∂q' W_q_w + ∂gates W_hh, with the output layer's ∂h_{t-1} for the rows step t has.
    const auto from_gates = t > 0 && gH.defined() ? torch::addmm(gH.narrow(0, off[std::size_t(t - 1)], b), dg, W_hh)
                                                  : torch::mm(dg, W_hh);
    dh_next = from_gates.addmm_(dq.narrow(0, o, b), W_q_w);
    if (t > 0 && gH.defined() && rows_at[std::size_t(t - 1)] > b) {  // rows that end at step t-1
      const auto prev = rows_at[std::size_t(t - 1)];
      dh_next = torch::cat({dh_next, gH.narrow(0, off[std::size_t(t - 1)] + b, prev - b)});
    }
  }
  dq.narrow(1, 0, A).mul_(w);
  return {dq, dz_all, de_all, slope, soft_rows, std::move(dgates), dh_next, dc_next};
}

/// The gradients of Recurrence's inputs from the steps' (their order: Recurrence's arguments).
variable_list input_gradients(AutogradContext* ctx, const SavedForBackward& s, StepGradients g) {
  const auto &a = s.a, &w = s.w, &weights = s.weights, &glimpse = s.glimpse, &u_all = s.u;
  const bool gated = s.gated, hard = s.hard;
  const auto B = a.size(0), L = a.size(1), D = a.size(2), A = w.size(0);
  const auto T = std::int64_t(s.rows_at.size());
  const auto N = step_offsets(s.rows_at).back();
  const auto opt = a.options();
  const auto &dq = g.dq, &dz_all = g.dz, &de_all = g.de, &soft_rows = g.soft_rows;
  auto& slope = g.slope;
  const auto dG = torch::cat(g.dgates);
  const auto idx = packed_indices(s.rows_at, B, a.device());
  const auto sequence = idx[0], cell_of = idx[1], previous = idx[2];
  const auto h_prev = torch::cat({s.h0, s.H}).index_select(0, previous);

  variable_list out(15);
  if (ctx->needs_input_grad(0)) {
    // ∂a = Σ_t (β α_t)ᵀ ∂ẑ_t per sequence, as one batched product over a (B, T) grid.
    auto dz_soft = hard ? dz_all * soft_rows.index_select(0, sequence).unsqueeze(1) : dz_all;
    auto w_grid = torch::zeros({B * T, L}, opt).index_copy_(0, cell_of, weights).view({B, T, L});
    auto z_grid = torch::zeros({B * T, D}, opt).index_copy_(0, cell_of, dz_soft).view({B, T, D});
    auto da = torch::bmm(w_grid.transpose(1, 2), z_grid);
    if (hard) {  // a drawn glimpse passes ∂ẑ to its cell
      const auto drawn = (glimpse >= 0).to(opt.dtype()).unsqueeze(1);
      da.view({B * L, D}).index_add_(0, sequence * L + glimpse.clamp_min(0), dz_all * drawn);
    }
    out[0] = da;
  }
  if (ctx->needs_input_grad(1)) {
    slope.mul_(de_all.unsqueeze(2));
    out[1] = torch::zeros({B, L, A}, opt).index_add_(0, sequence, slope).mul_(w);
  }
  out[2] = dG;
  out[3] = g.dh0;
  out[4] = g.dc0;
  const auto dW_q = dq.t().mm(h_prev);
  out[5] = dW_q.narrow(0, 0, A);
  out[6] = dq.narrow(1, 0, A).sum(0);
  out[7] = at::mv(u_all.view({N * L, A}).t(), de_all.view({N * L}));
  out[8] = torch::zeros_like(s.score_bias);
  if (gated) {
    out[9] = dW_q.narrow(0, A, 1);
    out[10] = dq.narrow(1, A, 1).sum(0);
  }
  out[11] = dG.t().mm(s.context);
  out[12] = dG.t().mm(h_prev);
  return out;
}

/// Arguments: 0 a, 1 W_a a, 2 word gates, 3 h0, 4 c0, 5 W_h, 6 b, 7 w, 8 w's bias, 9 β weight,
/// 10 β bias, 11 context gates, 12 hidden gates, 13 sample, 14 rows_at.
struct Recurrence : public torch::autograd::Function<Recurrence> {
  static variable_list forward(AutogradContext* ctx, torch::Tensor a, torch::Tensor projected, torch::Tensor word,
                               torch::Tensor h0, torch::Tensor c0, torch::Tensor W_h, torch::Tensor att_bias,
                               torch::Tensor w, torch::Tensor score_bias, torch::Tensor W_beta, torch::Tensor beta_bias,
                               torch::Tensor W_c, torch::Tensor W_hh, torch::Tensor sample,
                               std::vector<std::int64_t> rows_at) {
    ctx->set_materialize_grads(false);
    const auto L = a.size(1), D = a.size(2), A = projected.size(2);
    const auto off = step_offsets(rows_at);
    const auto N = off.back();
    const bool gated = W_beta.numel() > 0, hard = sample.numel() > 0;
    const auto opt = a.options();
    // W_h h + b and the β gate's input in one product.
    const auto W_q = gated ? torch::cat({W_h, W_beta}) : W_h;
    const auto b_q = gated ? torch::cat({att_bias, beta_bias}) : att_bias;
    const auto W_q_t = W_q.t(), W_c_t = W_c.t(), W_hh_t = W_hh.t();
    auto u_all = torch::empty({N, L, A}, opt);  // tanh(W_a a + W_h h + b), per step and cell
    auto alpha = torch::empty({N, L}, opt);
    auto weights = gated ? torch::empty({N, L}, opt) : alpha;  // β α: what the context sums a by
    auto beta = gated ? torch::empty({N}, opt) : torch::ones({N}, opt);
    auto context = torch::empty({N, D}, opt);
    auto glimpse = torch::full({N}, -1, opt.dtype(torch::kLong));
    auto log_alpha = torch::zeros({N}, opt);
    std::vector<torch::Tensor> hs, cs, workspaces;
    torch::Tensor h = h0, c = c0;
    for (std::size_t t = 0; t < rows_at.size(); ++t) {
      const auto b = rows_at[t], o = off[t];
      h = h.narrow(0, 0, b), c = c.narrow(0, 0, b);
      const auto a_b = a.narrow(0, 0, b);
      const auto q = torch::addmm(b_q, h, W_q_t);
      auto u = u_all.narrow(0, o, b);
      at::add_out(u, projected.narrow(0, 0, b), q.narrow(1, 0, A).unsqueeze(1));
      u.tanh_();
      const auto e = at::mv(u.view({b * L, A}), w).view({b, L});
      auto al = alpha.narrow(0, o, b);
      at::softmax_out(al, e, 1);
      auto z = context.narrow(0, o, b);
      auto z3 = z.unsqueeze(1);
      if (gated) {
        auto bt = beta.narrow(0, o, b), wt = weights.narrow(0, o, b);
        at::sigmoid_out(bt, q.select(1, A));
        at::mul_out(wt, al, bt.unsqueeze(1));
        at::bmm_out(z3, wt.unsqueeze(1), a_b);
      } else {
        at::bmm_out(z3, al.unsqueeze(1), a_b);
      }
      if (hard) {
        // As DecoderImpl::attend_and_step draws: the same generator, the same order.
        const auto rows = sample.narrow(0, 0, b);
        auto draw_from = torch::nan_to_num(al, 1.0, 1.0, 0.0);
        const auto generator = thread_generator();
        if (generator.has_value() && !draw_from.device().is_cpu()) draw_from = draw_from.cpu();
        auto cells = torch::multinomial(draw_from, 1, false, generator).squeeze(1).to(a.device());
        auto picked = a_b.gather(1, cells.view({b, 1, 1}).expand({b, 1, D})).squeeze(1);
        auto log_at = torch::log(al.gather(1, cells.unsqueeze(1)).squeeze(1).clamp_min(1e-12));
        z.copy_(torch::where(rows.unsqueeze(1), picked, z));
        glimpse.narrow(0, o, b).masked_fill_(rows, 0).add_(cells * rows);
        log_alpha.narrow(0, o, b).copy_(log_at * rows);
      }
      const auto cell = fused_lstm_cell(torch::addmm(word.narrow(0, o, b), z, W_c_t), torch::mm(h, W_hh_t), c);
      h = cell.h, c = cell.c;
      hs.push_back(cell.h), cs.push_back(cell.c), workspaces.push_back(cell.workspace);
    }
    const auto H = torch::cat(hs);
    auto& s = ctx->saved_data;
    s["a"] = plain(a), s["h0"] = plain(h0), s["c0"] = plain(c0), s["W_q"] = plain(W_q), s["w"] = plain(w);
    s["W_c"] = plain(W_c), s["W_hh"] = plain(W_hh), s["sample"] = plain(sample), s["u"] = u_all, s["alpha"] = alpha;
    s["weights"] = weights, s["beta"] = beta, s["context"] = context, s["h"] = H, s["c"] = torch::cat(cs);
    s["workspace"] = torch::cat(workspaces), s["glimpse"] = glimpse, s["rows_at"] = rows_at, s["gated"] = gated;
    s["score_bias"] = plain(score_bias);
    ctx->mark_non_differentiable({glimpse});
    return {H, context, alpha, beta, glimpse, log_alpha};
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const SavedForBackward saved(ctx);
    return input_gradients(ctx, saved, backward_steps(saved, grads));
  }
};

}  // namespace

RecurrenceOutput teacher_forced_recurrence(const RecurrenceInput& in, const RecurrenceWeights& w) {
  TORCH_CHECK(!in.rows_at.empty() && in.rows_at[0] == in.annotations.size(0),
              "the recurrence's first step must cover the whole batch");
  // Autograd functions take no undefined tensors: an absent one travels as an empty one.
  const auto or_empty = [&](const torch::Tensor& t) { return t.defined() ? t : torch::empty({0}, in.annotations.options()); };
  auto r = Recurrence::apply(in.annotations, in.projected, in.word_gates, in.h0, in.c0, w.att_hidden, w.att_bias,
                             w.score_weight, w.score_bias, or_empty(w.beta_weight), w.beta_bias, w.context_gates,
                             w.hidden_gates, or_empty(in.sample), in.rows_at);
  return {r[0], r[1], r[2], r[3], r[4], r[5]};
}

}  // namespace fovea
