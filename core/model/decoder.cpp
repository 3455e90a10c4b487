#include "core/model/decoder.h"

#include "core/model/additive_attention.h"
#include "core/model/attention_context.h"
#include "core/model/bf16_product.h"
#include "core/model/lstm_cell.h"
#include "core/model/matrix_product.h"
#include "core/model/small_batch_linear.h"
#include "core/model/step_gradient_sink.h"
#include "core/model/teacher_forced_recurrence.h"
#include "core/model/vocabulary_log_likelihood.h"
#include "core/model/word_gradient_rows.h"
#include "core/runtime/thread_generator.h"

#include <algorithm>
#include <mutex>
#include <numeric>

namespace fovea {

namespace nn = torch::nn;

namespace {

/// bf16 values made float for the float kernels: the attention's projections under CPU bf16
/// autocast (scored in float, with the fused kernel), a glimpse of annotations in bf16. Every
/// other dtype passes through.
torch::Tensor float_if_bf16(const torch::Tensor& t) { return t.scalar_type() == torch::kBFloat16 ? t.to(torch::kFloat) : t; }

}  // namespace

struct DecoderImpl::WordGateTable {
  std::mutex mutex;
  torch::Tensor table;            ///< (K, 4n)
  std::vector<std::int64_t> key;  ///< storage addresses and version counters of the weights it came from
};

DecoderImpl::DecoderImpl(const ModelConfig& config) : config_(config) {
  TORCH_CHECK(config.vocab_size > 4, "decoder needs a vocabulary larger than the 4 special tokens, got ",
              config.vocab_size);
  TORCH_CHECK(config.annotation_dim > 0, "decoder needs the encoder's annotation size D, got ", config.annotation_dim);
  const auto m = config.embed_dim, A = config.attention_dim, n = config.hidden_dim, D = config.annotation_dim;
  const auto K = config.vocab_size;
  embedding_ = register_module("embedding", nn::Embedding(K, m));
  att_annotation_ = register_module("att_annotation", nn::Linear(D, A));
  att_hidden_ = register_module("att_hidden", nn::Linear(nn::LinearOptions(n, A).bias(false)));
  att_score_ = register_module("att_score", nn::Linear(A, 1));
  beta_gate_ = register_module("beta_gate", nn::Linear(n, 1));
  word_gates_ = register_module("word_gates", nn::Linear(m, 4 * n));
  context_gates_ = register_module("context_gates", nn::Linear(nn::LinearOptions(D, 4 * n).bias(false)));
  hidden_gates_ = register_module("hidden_gates", nn::Linear(nn::LinearOptions(n, 4 * n).bias(false)));
  init_h_ = register_module("init_h", nn::Linear(D, n));
  init_c_ = register_module("init_c", nn::Linear(D, n));
  learned_h0_ = register_parameter("learned_h0", torch::zeros({n}));
  learned_c0_ = register_parameter("learned_c0", torch::zeros({n}));
  out_hidden_ = register_module("out_hidden", nn::Linear(n, m));
  out_context_ = register_module("out_context", nn::Linear(D, m));
  out_vocab_ = register_module("out_vocab", nn::Linear(m, K));
  dropout_ = register_module("dropout", nn::Dropout(config.dropout));
  word_gate_table_ = std::make_shared<WordGateTable>();
  decoding_products_ = std::make_shared<DecodingProducts>();
  {
    torch::NoGradGuard no_grad;
    // Forget-gate bias 1: the usual LSTM start that keeps early gradients alive.
    word_gates_->bias.slice(0, n, 2 * n).fill_(1.0);
    embedding_->weight.uniform_(-0.1, 0.1);
  }
}

torch::Tensor DecoderImpl::project_annotations(const torch::Tensor& annotations) {
  TORCH_CHECK(annotations.dim() == 3 && annotations.size(2) == config_.annotation_dim,
              "annotations must be (B, L, ", config_.annotation_dim, "), got ", annotations.sizes());
  const auto B = annotations.size(0), L = annotations.size(1), D = annotations.size(2);
  const auto& W = att_annotation_->weight;
  return linear_product(annotations.reshape({B * L, D}), W, {}).view({B, L, W.size(0)});
}

torch::Tensor DecoderImpl::word_gates(const torch::Tensor& embedded) { return linear_for_decoding(word_gates_, embedded); }

torch::Tensor DecoderImpl::decoding_word_gates(const torch::Tensor& tokens, const torch::Tensor& embedded) {
  constexpr std::int64_t kMaxTableBytes = std::int64_t(128) << 20;
  const auto& E = embedding_->weight;
  const auto& W = word_gates_->weight;
  const auto& b = word_gates_->bias;
  if (torch::GradMode::is_enabled() || E.size(0) * W.size(0) * std::int64_t(sizeof(float)) > kMaxTableBytes) {
    return word_gates(embedded.defined() ? embedded : embed(tokens));
  }
  // Training steps (in place) and loading weights change the version counters; moving the model
  // to another device changes the storage.
  auto id = [](const torch::Tensor& t) { return std::int64_t(reinterpret_cast<std::intptr_t>(t.data_ptr())); };
  const std::vector<std::int64_t> key = {id(E), std::int64_t(E._version()), id(W), std::int64_t(W._version()),
                                         id(b), std::int64_t(b._version())};
  torch::Tensor table;
  {
    std::lock_guard<std::mutex> lock(word_gate_table_->mutex);
    if (!word_gate_table_->table.defined() || word_gate_table_->key != key) {
      word_gate_table_->table = linear_product(E, W, b);
      word_gate_table_->key = key;
    }
    table = word_gate_table_->table;
  }
  return table.index_select(0, tokens.to(table.device(), torch::kLong).view({-1}));
}

DecoderState DecoderImpl::initial_state(const torch::Tensor& annotations) {
  const auto B = annotations.size(0);
  switch (config_.init_state) {
    case InitState::Mean: {
      // bf16 annotations (rounded once by a bf16 run's decoder pass) average in float, as the
      // context with α = 1/L reads them (ATen's mean would widen the whole tensor first).
      const auto L = annotations.size(1);
      auto mean = annotations.scalar_type() == torch::kBFloat16
                      ? attention_context(torch::full({B, L}, 1.0 / double(L), annotations.options().dtype(torch::kFloat)),
                                          annotations)
                      : annotations.mean(1);
      return {torch::tanh(init_h_(mean)), init_c_(mean)};
    }
    case InitState::Learned:
      return {torch::tanh(learned_h0_).unsqueeze(0).expand({B, -1}), learned_c0_.unsqueeze(0).expand({B, -1})};
    case InitState::Zero:
    default: {
      const auto dtype = annotations.scalar_type() == torch::kBFloat16 ? torch::kFloat : annotations.scalar_type();
      auto z = torch::zeros({B, config_.hidden_dim}, annotations.options().dtype(dtype));
      return {z, z};
    }
  }
}

torch::Tensor DecoderImpl::attention(const AttentionKeys& projected, const torch::Tensor& h,
                                     const torch::Tensor& projection_sink, const StepWeights* steps) {
  const auto query = (steps ? steps->att_hidden(h) : decoding_products_->linear(att_hidden_, h)) + att_annotation_->bias;
  auto e = additive_attention_scores(projected, float_if_bf16(query),
                                     att_score_->weight.view({-1}), att_score_->bias, projection_sink);
  return torch::softmax(e, 1);
}

AttendResult DecoderImpl::attend_and_step(const torch::Tensor& annotations, const AttentionKeys& projected,
                                          const torch::Tensor& gates_from_word, const DecoderState& state,
                                          const torch::Tensor& sample, const StepSinks& sinks,
                                          const StepWeights* steps) {
  const auto b = state.h.size(0);
  auto a = annotations.narrow(0, 0, b);
  AttendResult r;
  r.alpha = attention(projected, state.h, sinks.projection, steps);
  auto expected = attention_context(r.alpha, annotations, sinks.annotations);  // (b, D)
  const bool gated = config_.beta_gated();
  if (gated) {
    r.beta = torch::sigmoid(linear_for_decoding(beta_gate_, state.h)).squeeze(1);
    expected = expected * r.beta.unsqueeze(1);
  } else {
    r.beta = torch::ones({b}, r.alpha.options());
  }
  r.context = expected;
  r.glimpse = torch::full({b}, -1, torch::TensorOptions().dtype(torch::kLong).device(a.device()));
  r.log_alpha_glimpse = torch::zeros({b}, r.alpha.options());
  if (sample.defined()) {
    auto rows = sample.narrow(0, 0, b);
    // A diverged step's α holds NaN: those cells become valid draws (weight 1) so the step ends and
    // the training's non-finite guard names what diverged, as on the soft path; finite α is drawn
    // from unchanged.
    auto draw_from = torch::nan_to_num(r.alpha.detach(), 1.0, 1.0, 0.0);
    const auto generator = thread_generator();
    // A thread's own generator is a CPU one (core/runtime/thread_generator.h): draw on the CPU then.
    if (generator.has_value() && !draw_from.device().is_cpu()) draw_from = draw_from.cpu();
    auto cells = torch::multinomial(draw_from, 1, false, generator).squeeze(1).to(a.device());  // (b)
    auto picked = float_if_bf16(a.gather(1, cells.view({b, 1, 1}).expand({b, 1, a.size(2)})).squeeze(1));
    auto log_alpha = torch::log(r.alpha.gather(1, cells.unsqueeze(1)).squeeze(1).clamp_min(1e-12));
    r.context = torch::where(rows.unsqueeze(1), picked, expected);
    r.glimpse = torch::where(rows, cells, r.glimpse);
    r.log_alpha_glimpse = torch::where(rows, log_alpha, r.log_alpha_glimpse);
  }
  r.state = lstm_step(gates_from_word, r.context, state, steps);
  return r;
}

AttendResult DecoderImpl::attend_forced(const torch::Tensor& annotations, const torch::Tensor& alpha,
                                        const torch::Tensor& gates_from_word, const DecoderState& state) {
  const auto b = state.h.size(0);
  TORCH_CHECK(alpha.dim() == 2 && alpha.size(0) == b && alpha.size(1) == annotations.size(1),
              "forced alpha must be (", b, ", ", annotations.size(1), "), got ", alpha.sizes());
  auto a = annotations.narrow(0, 0, b);
  AttendResult r;
  r.alpha = alpha.to(a.device(), a.scalar_type());
  r.context = attention_context(r.alpha, annotations);
  if (config_.beta_gated()) {
    r.beta = torch::sigmoid(linear_for_decoding(beta_gate_, state.h)).squeeze(1);
    r.context = r.context * r.beta.unsqueeze(1);
  } else {
    r.beta = torch::ones({b}, r.alpha.options());
  }
  r.glimpse = torch::full({b}, -1, torch::TensorOptions().dtype(torch::kLong).device(a.device()));
  r.log_alpha_glimpse = torch::zeros({b}, r.alpha.options());
  r.state = lstm_step(gates_from_word, r.context, state);
  return r;
}

DecoderState DecoderImpl::lstm_step(const torch::Tensor& gates_from_word, const torch::Tensor& context,
                                    const DecoderState& state, const StepWeights* steps) {
  const auto from_context = steps ? steps->context_gates(context) : decoding_products_->linear(context_gates_, context);
  const auto from_hidden = steps ? steps->hidden_gates(state.h) : decoding_products_->linear(hidden_gates_, state.h);
  const auto s = lstm_cell(gates_from_word, from_context, from_hidden, state.c);
  return {s.h, s.c};
}

torch::Tensor DecoderImpl::deep_output(const torch::Tensor& embedded_prev, const torch::Tensor& h,
                                       const torch::Tensor& context) {
  return fovea::dropout(embedded_prev + decoding_products_->linear(out_hidden_, h) +
                            decoding_products_->linear(out_context_, context),
                        dropout_->options.p(), dropout_->is_training());
}

torch::Tensor DecoderImpl::output_logits(const torch::Tensor& embedded_prev, const torch::Tensor& h,
                                         const torch::Tensor& context) {
  return decoding_products_->linear(out_vocab_, deep_output(embedded_prev, h, context));
}

RecurrenceOutput DecoderImpl::recurrence_step_by_step(const torch::Tensor& a, const torch::Tensor& gates,
                                                DecoderState state, const std::vector<std::int64_t>& rows_at,
                                                const torch::Tensor& sample) {
  // W_a·a once per image. The gradients of the projection and of a collect in one buffer each
  // across the steps (core/model/step_gradient_sink.h).
  const auto projected = collect_step_gradient(float_if_bf16(project_annotations(a)));
  const auto steps_a = collect_step_gradient(a);
  const StepSinks sinks{projected.sink, steps_a.sink};
  // With e^2(W_a a) where the scores can use it; read in bf16 by a bf16 training step's scores.
  const auto keys = attention_keys(projected.values, Bf16Products::active());
  // split_with_sizes' backward puts the steps' gradients together once, where a slice per step
  // would zero-fill a gradient of the whole tensor at every step.
  const auto gates_at = gates.split_with_sizes(rows_at);
  const StepWeights step_weights{StepWeight(att_hidden_->weight), StepWeight(context_gates_->weight),
                                 StepWeight(hidden_gates_->weight)};
  std::vector<torch::Tensor> hs, zs, alphas, betas, glimpses, log_alpha;
  for (std::size_t t = 0; t < rows_at.size(); ++t) {
    const auto b = rows_at[t];
    DecoderState s{state.h.narrow(0, 0, b), state.c.narrow(0, 0, b)};
    auto r = attend_and_step(steps_a.values, keys, gates_at[t], s,
                             sample.defined() ? sample.narrow(0, 0, b) : torch::Tensor(), sinks, &step_weights);
    // Rows past b are finished: they keep their old state (never read again).
    state = r.state;
    hs.push_back(r.state.h);
    zs.push_back(r.context);
    alphas.push_back(r.alpha);
    betas.push_back(r.beta);
    glimpses.push_back(r.glimpse);
    log_alpha.push_back(r.log_alpha_glimpse);
  }
  return {torch::cat(hs), torch::cat(zs), torch::cat(alphas), torch::cat(betas), torch::cat(glimpses), torch::cat(log_alpha)};
}

namespace {

/// How forward() packs a batch of captions for its steps.
struct PackedCaptions {
  std::vector<std::int64_t> order;    ///< the captions by length, longest first
  std::vector<std::int64_t> rows_at;  ///< step t works on the first rows_at[t] of them
  std::int64_t words = 0;             ///< N, the words of all the captions
  /// On the device, in one upload: the order (B), then for each word, step after step, its cell in
  /// the tokens, its target's cell, its sequence in the caller's batch and its step (N each), then
  /// the lengths (B).
  torch::Tensor indices;
};

/// Sorts the captions by length, longest first, so step t works on the first rows_at[t] rows only.
/// The words are packed step after step, as the outputs are: the embeddings and the word part of
/// the gates cover the N words and never the padding (a third of B × T at the benchmark's caption
/// lengths). `len`: each caption's length; T1: the tokens' columns.
PackedCaptions pack_captions(const std::vector<std::int64_t>& len, std::int64_t T1, const torch::Device& device) {
  const auto B = std::int64_t(len.size());
  PackedCaptions p;
  p.order.resize(std::size_t(B));
  std::iota(p.order.begin(), p.order.end(), 0);
  std::stable_sort(p.order.begin(), p.order.end(), [&](auto x, auto y) { return len[x] > len[y]; });
  const auto T = len[p.order[0]];
  p.rows_at.resize(static_cast<std::size_t>(T));
  std::vector<std::int64_t> cells, targets, sequence, steps;
  for (std::int64_t t = 0; t < T; ++t) {
    std::int64_t b = 0;
    while (b < B && len[p.order[b]] > t) ++b;
    p.rows_at[std::size_t(t)] = b;
    for (std::int64_t r = 0; r < b; ++r) {
      cells.push_back(r * T1 + t);
      targets.push_back(r * T1 + t + 1);
      sequence.push_back(p.order[std::size_t(r)]);
      steps.push_back(t);
    }
  }
  p.words = std::int64_t(cells.size());
  std::vector<std::int64_t> upload(p.order);
  const std::vector<std::int64_t>* parts[] = {&cells, &targets, &sequence, &steps, &len};
  for (const auto* v : parts) upload.insert(upload.end(), v->begin(), v->end());
  p.indices = torch::tensor(upload, torch::kLong).to(device);
  return p;
}

}  // namespace

DecoderOutput DecoderImpl::forward(const torch::Tensor& annotations, const torch::Tensor& tokens,
                                   const torch::Tensor& lengths, const torch::Tensor& sample) {
  TORCH_CHECK(tokens.dim() == 2 && tokens.size(0) == annotations.size(0),
              "tokens must be (B, T) with B = ", annotations.size(0), ", got ", tokens.sizes());
  TORCH_CHECK(lengths.dim() == 1 && lengths.size(0) == tokens.size(0), "lengths must be (B), got ", lengths.sizes());
  const auto B = tokens.size(0);
  const auto device = annotations.device();
  auto len_cpu = lengths.to(torch::kCPU, torch::kLong).contiguous();
  std::vector<std::int64_t> len(len_cpu.data_ptr<std::int64_t>(), len_cpu.data_ptr<std::int64_t>() + B);
  for (auto l : len) TORCH_CHECK(l >= 1 && l < tokens.size(1), "caption length ", l, " outside 1..", tokens.size(1) - 1);

  const auto plan = pack_captions(len, tokens.size(1), device);
  const auto& order = plan.order;
  const auto& rows_at = plan.rows_at;
  const auto N = plan.words;
  const auto& indices = plan.indices;
  const auto order_t = indices.narrow(0, 0, B);
  const auto packed = [&](int k) { return indices.narrow(0, B + k * N, N); };

  // A batch already in that order (each part of decoder_pass's) is read in place, not copied.
  bool in_order = true;
  for (std::int64_t i = 0; i < B; ++i) in_order = in_order && order[std::size_t(i)] == i;
  auto sorted = [&](const torch::Tensor& t) { return in_order ? t : t.index_select(0, order_t); };
  const auto a = sorted(annotations);
  auto tok = sorted(tokens.to(device)).contiguous();
  auto smp = sample.defined() ? sorted(sample.to(device)) : torch::Tensor();
  const auto flat_tokens = tok.reshape({-1});

  const auto previous = flat_tokens.index_select(0, packed(0));
  const auto embedded = WordGradientRows::active()  // (N, m): E y_{t-1}
                            ? torch::embedding(embedding_->weight, previous, -1, false, /*sparse=*/true)
                            : embed(previous);
  // One product for all steps.
  const auto gates = word_gates(embedded);
  const auto state = initial_state(a);
  // On the CPU step by step, through the CPU kernels (float, and bf16 annotations under autocast);
  // elsewhere, and for float64, one operator-lean autograd function.
  const bool step_by_step = recurrence_path_ == RecurrencePath::StepByStep ||
                            (recurrence_path_ == RecurrencePath::Auto && a.device().is_cpu() &&
                             a.scalar_type() != torch::kDouble);
  const auto rec = step_by_step
                       ? recurrence_step_by_step(a, gates, state, rows_at, smp)
                       : teacher_forced_recurrence({a, project_annotations(a), gates, state.h, state.c, rows_at, smp},
                                                   {att_hidden_->weight, att_annotation_->bias,
                                                    att_score_->weight.view({-1}), att_score_->bias,
                                                    config_.beta_gated() ? beta_gate_->weight : torch::Tensor(),
                                                    beta_gate_->bias, context_gates_->weight, hidden_gates_->weight});
  DecoderOutput out;
  const auto &h = rec.h, &z = rec.context;
  out.targets = flat_tokens.index_select(0, packed(1));  // y_t, the word after each E y_{t-1}
  // All words at once, fused with the softmax on the CPU (core/model/vocabulary_log_likelihood.h).
  out.token_log_probs =
      vocabulary_log_likelihood(deep_output(embedded, h, z), out_vocab_->weight, out_vocab_->bias, out.targets);
  out.sequence = packed(2);
  out.step = packed(3);
  out.alphas = rec.alpha;
  out.betas = rec.beta;
  out.glimpses = rec.glimpse;
  const auto L = a.size(1);
  out.alpha_sum = torch::zeros({B, L}, out.alphas.options()).index_add(0, out.sequence, out.alphas);
  out.log_p_glimpses = torch::zeros({B}, out.alphas.options());
  if (sample.defined()) out.log_p_glimpses = out.log_p_glimpses.index_add(0, out.sequence, rec.log_alpha_glimpse);
  auto ent = -(out.alphas * torch::log(out.alphas.clamp_min(1e-12))).sum(1);
  out.entropy = torch::zeros({B}, out.alphas.options()).index_add(0, out.sequence, ent);
  out.sampled = sample.defined() ? sample.to(device) : torch::zeros({B}, torch::TensorOptions().dtype(torch::kBool).device(device));
  out.lengths = indices.narrow(0, B + 4 * N, B);
  return out;
}

}  // namespace fovea
