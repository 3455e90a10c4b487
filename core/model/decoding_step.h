#pragma once
/// One decoding step for b captions at once, with what the search reads on the host in one
/// transfer: what greedy decoding and beam search (core/decode/decoding.h) run at every word.
#include <vector>

#include "core/model/decoder.h"

namespace fovea {

struct DecodingStep {
  /// (b, K + L [+ 1]) float on the CPU: log p(word) over the vocabulary (<pad> and <start>, and
  /// <end> unless allowed, set to -inf afterwards, not renormalised), then α, then β where the model has the gate. For a search
  /// that reads only each row's best word (DecodingConstants::best_only), off the CPU: that
  /// word's log-probability and index in place of the K.
  torch::Tensor host;
  std::int64_t vocab = 0, cells = 0;
  bool best_only = false;  ///< host holds the best word, not the vocabulary
  torch::Tensor glimpse;  ///< (b) int64 on the CPU, the cell drawn; undefined: no row drew one
  DecoderState state;     ///< (h_t, c_t) on the device

  /// The vocabulary's log-probabilities (not when best_only).
  const float* log_probs(std::int64_t row) const { return host.data_ptr<float>() + row * host.size(1); }
  /// The most probable word and its log-probability (the first of equals).
  std::pair<std::int64_t, float> best(std::int64_t row) const;
  /// Where α starts in a row of host.
  std::int64_t alpha_column() const { return best_only ? 2 : vocab; }
  const float* alpha(std::int64_t row) const { return log_probs(row) + alpha_column(); }
  float beta(std::int64_t row) const { return host.size(1) > alpha_column() + cells ? alpha(row)[cells] : 1.0f; }
  std::int64_t glimpse_at(std::int64_t row) const { return glimpse.defined() ? glimpse[row].item<std::int64_t>() : -1; }
};

/// What every step of one search shares, computed once: the embedding table with the deep output
/// layer's biases added (E + b_h + b_z, (K, m)), the words the search may not pick (<pad>,
/// <start>, and <end> unless allowed: their log-probabilities are set to -inf, the others' stay
/// the model's), and, off the CPU float path, every word's part of the LSTM gates beside its row
/// of the first table (K, 4n + m; undefined past 128 MB).
struct DecodingConstants {
  torch::Tensor embedding_with_bias, ruled_out, word_gates;
  bool best_only = false;  ///< the search reads each row's best word only (greedy decoding)
};
DecodingConstants decoding_constants(DecoderImpl& dec, bool allow_end, bool best_only = false);

/// The device-generic step without its transfer to the host: `packed` is what DecodingStep::host
/// holds, still on the device. Runs nothing that waits for the device, so that a CUDA graph can
/// capture it (core/decode/beam_step_graph.h). For expected (soft) context only.
struct DeviceStep {
  torch::Tensor packed;
  DecoderState state;
};
DeviceStep decoding_step_on_device(DecoderImpl& dec, const torch::Tensor& annotations, const AttentionKeys& keys,
                                   const torch::Tensor& prev, const DecoderState& state,
                                   const DecodingConstants& constants);

/// Attention, context, the LSTM step and the word distribution for previous tokens `prev` (b,
/// int64 on the device), without autograd. `sample` as DecoderImpl::attend_and_step's. On the CPU
/// in float it goes through the CPU kernels; elsewhere through a dozen and a half operators, with
/// the LSTM cell fused (core/model/fused_lstm_cell.h).
DecodingStep decoding_step(DecoderImpl& dec, const torch::Tensor& annotations, const AttentionKeys& keys,
                           const torch::Tensor& prev, const DecoderState& state, const torch::Tensor& sample,
                           const DecodingConstants& constants);

}  // namespace fovea
