#include "core/model/decoding_step.h"

#include <algorithm>
#include <limits>

#include "core/data/vocabulary.h"
#include "core/model/fused_lstm_cell.h"

namespace fovea {

namespace {

/// The words no search may pick: <pad>, <start>, and <end> unless allowed.
std::vector<std::int64_t> ruled_out(bool allow_end) {
  std::vector<std::int64_t> words = {Vocabulary::kPad, Vocabulary::kStart};
  if (!allow_end) words.push_back(Vocabulary::kEnd);
  return words;
}

}  // namespace

std::pair<std::int64_t, float> DecodingStep::best(std::int64_t row) const {
  const float* lp = log_probs(row);
  if (best_only) return {std::int64_t(lp[1]), lp[0]};
  const auto token = std::int64_t(std::max_element(lp, lp + vocab) - lp);
  return {token, lp[token]};
}

DecodingConstants decoding_constants(DecoderImpl& dec, bool allow_end, bool best_only) {
  torch::NoGradGuard no_grad;
  DecodingConstants c;
  c.best_only = best_only;
  const auto& E = dec.embedding_->weight;
  const auto& W = dec.word_gates_->weight;
  c.embedding_with_bias = E + (dec.out_hidden_->bias + dec.out_context_->bias);
  c.ruled_out = torch::tensor(ruled_out(allow_end), torch::kLong).to(E.device());
  constexpr std::int64_t kMaxTableBytes = std::int64_t(128) << 20;
  if (!(E.device().is_cpu() && E.scalar_type() == torch::kFloat) &&  // the CPU path has its own table
      E.size(0) * W.size(0) * W.element_size() <= kMaxTableBytes) {
    // Each word's gates beside its biased embedding: one lookup a step reads both.
    c.word_gates = torch::cat({torch::addmm(dec.word_gates_->bias, E, W.t()), c.embedding_with_bias}, 1);
  }
  return c;
}

DecodingStep decoding_step(DecoderImpl& dec, const torch::Tensor& a, const AttentionKeys& keys,
                           const torch::Tensor& prev, const DecoderState& state, const torch::Tensor& sample,
                           const DecodingConstants& constants) {
  torch::NoGradGuard no_grad;
  const auto L = a.size(1);
  DecodingStep out;
  out.vocab = dec.config_.vocab_size;
  out.cells = L;
  const bool gated = dec.config_.beta_gated();
  if ((a.device().is_cpu() && a.scalar_type() == torch::kFloat) || sample.defined()) {
    // The CPU kernels (and hard glimpses on any device): the step as training's is.
    const auto emb = dec.embed(prev);
    auto r = dec.attend_and_step(a, keys, dec.decoding_word_gates(prev, emb), state, sample);
    const auto log_probs = torch::log_softmax(dec.output_logits(emb, r.state.h, r.context), 1)
                               .index_fill_(1, constants.ruled_out, -std::numeric_limits<float>::infinity());
    std::vector<torch::Tensor> parts = {log_probs, r.alpha};
    if (gated) parts.push_back(r.beta.unsqueeze(1));
    out.host = torch::cat(parts, 1).to(torch::kCPU, torch::kFloat).contiguous();
    if (sample.defined()) out.glimpse = r.glimpse.cpu();
    out.state = r.state;
    return out;
  }
  const auto device_step = decoding_step_on_device(dec, a, keys, prev, state, constants);
  out.best_only = constants.best_only;
  out.host = device_step.packed.to(torch::kCPU, torch::kFloat);
  out.state = device_step.state;
  return out;
}

DeviceStep decoding_step_on_device(DecoderImpl& dec, const torch::Tensor& a, const AttentionKeys& keys,
                                   const torch::Tensor& prev, const DecoderState& state,
                                   const DecodingConstants& constants) {
  // Every operator here is a kernel launch: attention, context and cell in a dozen of them.
  torch::NoGradGuard no_grad;
  const auto b = prev.size(0), L = a.size(1);
  const auto& h = state.h;
  const auto A = keys.projected.size(2);
  const auto q = torch::addmm(dec.att_annotation_->bias, h, dec.att_hidden_->weight.t());
  const auto u = (keys.projected + q.unsqueeze(1)).tanh_();
  // The score's bias is left out: softmax does not see it.
  const auto alpha = torch::softmax(at::mv(u.view({b * L, A}), dec.att_score_->weight.view({-1})).view({b, L}), 1);
  torch::Tensor weights = alpha, beta;
  const bool gated = dec.config_.beta_gated();
  if (gated) {
    beta = torch::sigmoid(torch::addmm(dec.beta_gate_->bias, h, dec.beta_gate_->weight.t()));  // (b, 1)
    weights = alpha * beta;
  }
  const auto z = torch::bmm(weights.unsqueeze(1), a).squeeze(1);
  const auto n4 = dec.hidden_gates_->weight.size(0);
  torch::Tensor word_gates, embedded;  // (b, 4n) and (b, m), the latter with the deep output's biases
  if (constants.word_gates.defined()) {
    const auto rows = constants.word_gates.index_select(0, prev);
    word_gates = rows.narrow(1, 0, n4);
    embedded = rows.narrow(1, n4, rows.size(1) - n4);
  } else {
    word_gates = dec.word_gates(dec.embed(prev));
    embedded = constants.embedding_with_bias.index_select(0, prev);
  }
  const auto cell = fused_lstm_cell(torch::addmm(word_gates, z, dec.context_gates_->weight.t()),
                                    torch::mm(h, dec.hidden_gates_->weight.t()), state.c);
  // Deep output: E y + L_h h + L_z z (their biases in the table) to the vocabulary.
  auto deep = torch::addmm(embedded, cell.h, dec.out_hidden_->weight.t());
  deep = torch::addmm(deep, z, dec.out_context_->weight.t());
  // The model's distribution over every word; the words no search may pick then at -inf.
  const auto log_probs =
      torch::log_softmax(torch::addmm(dec.out_vocab_->bias, deep, dec.out_vocab_->weight.t()), 1)
          .index_fill_(1, constants.ruled_out, -std::numeric_limits<float>::infinity());
  std::vector<torch::Tensor> parts;
  if (constants.best_only) {  // a word's index is exact in float up to 2^24
    const auto [best, word] = log_probs.max(1, /*keepdim=*/true);
    parts = {best, word.to(best.scalar_type())};
  } else {
    parts = {log_probs};
  }
  parts.push_back(alpha);
  if (gated) parts.push_back(beta);
  return {torch::cat(parts, 1), {cell.h, cell.c}};
}

}  // namespace fovea
