#pragma once
/// The attention LSTM decoder of Show-Attend-Tell (docs/design.md §1): additive attention with W_a·a
/// computed once per image, soft context with the β gate or hard (sampled) context, the deep
/// output layer and f_init state initialisation.
#include <memory>

#include "core/model/additive_attention.h"
#include "core/model/decoding_products.h"
#include "core/model/model_config.h"
#include "core/model/step_weight.h"
#include "core/model/teacher_forced_recurrence.h"
#include "core/runtime/torch_compat.h"

namespace fovea {

struct DecoderState {
  torch::Tensor h, c;  ///< (B, n)
};

/// How the context vector is formed at a step.
enum class Glimpse {
  Expected,  ///< soft: ẑ = β Σ α_i a_i (hard models at inference: the expected context)
  Sampled,   ///< hard: ẑ = a_s with s ~ Multinoulli(α)
};

/// One step of attention and recurrence.
struct AttendResult {
  torch::Tensor alpha;      ///< (b, L)
  torch::Tensor beta;       ///< (b) ones when the gate is off
  torch::Tensor context;    ///< (b, D) the ẑ fed to the LSTM and the output layer
  torch::Tensor glimpse;    ///< (b) int64 sampled cell, -1 where the expected context was used
  torch::Tensor log_alpha_glimpse;  ///< (b) log α at the sampled cell, 0 where expected
  DecoderState state;       ///< (h_t, c_t)
};

/// Teacher-forced outputs, packed: the N valid (sequence, step) pairs in step-major order over
/// the batch sorted by length; padding never appears.
struct DecoderOutput {
  torch::Tensor token_log_probs;  ///< (N) log p(target | caption so far, image)
  torch::Tensor targets;       ///< (N)
  torch::Tensor sequence;      ///< (N) index into the caller's batch
  torch::Tensor step;          ///< (N) time step t (0 = first word)
  torch::Tensor alphas;        ///< (N, L)
  torch::Tensor betas;         ///< (N)
  torch::Tensor glimpses;      ///< (N) sampled cells, -1 for expected context
  torch::Tensor alpha_sum;     ///< (B, L) Σ_t α_ti over each caption's valid steps
  torch::Tensor log_p_glimpses;///< (B) Σ_t log α_t[s_t] over sampled steps
  torch::Tensor entropy;       ///< (B) Σ_t H[α_t]
  torch::Tensor sampled;       ///< (B) bool: the sequence used sampled glimpses
  torch::Tensor lengths;       ///< (B) number of predicted tokens (words + <end>)
};

/// The weights a training forward multiplies by at every step, each wrapped so that its gradient
/// is one product over all steps (core/model/step_weight.h).
struct StepWeights {
  StepWeight att_hidden, context_gates, hidden_gates;
};

/// Where a training forward's steps add the gradients of the tensors every step reads, in place
/// (core/model/step_gradient_sink.h); undefined: through autograd, step by step.
struct StepSinks {
  torch::Tensor projection;   ///< of project_annotations(a), read by the attention scores
  torch::Tensor annotations;  ///< of a, read by the context
};

struct DecodingStep;
struct DecodingConstants;
struct DeviceStep;

class DecoderImpl : public torch::nn::Module {
 public:
  explicit DecoderImpl(const ModelConfig& config);

  /// W_a·a for all cells, once per image: (B, L, A). The layer's bias b joins W_h h in
  /// attention(): added to b rows there rather than to B × L rows here.
  torch::Tensor project_annotations(const torch::Tensor& annotations);
  DecoderState initial_state(const torch::Tensor& annotations);
  torch::Tensor embed(const torch::Tensor& tokens) { return embedding_(tokens); }
  /// The part of the LSTM gates that depends on the previous word: (.., 4n).
  torch::Tensor word_gates(const torch::Tensor& embedded);
  /// The same while decoding, for previous tokens (b) with their embeddings (b, m): rows of a
  /// table of every vocabulary word's gates (K, 4n), computed once per set of weights, instead of
  /// reading the m × 4n matrix at every step. With autograd, or when the table would pass
  /// 128 MB, word_gates(embedded) (embedded undefined: embed(tokens)).
  torch::Tensor decoding_word_gates(const torch::Tensor& tokens, const torch::Tensor& embedded);

  /// α_t = softmax(w^T tanh(W_a a + W_h h + b)) : (b, L). `projected`: project_annotations(a), or
  /// attention_keys() of it. projection_sink: where the projection's gradient collects
  /// (StepSinks::projection), during training; `steps`: the training forward's step weights (null:
  /// the weights themselves).
  torch::Tensor attention(const AttentionKeys& projected, const torch::Tensor& h, const torch::Tensor& projection_sink = {},
                          const StepWeights* steps = nullptr);

  /// Attention, context and one LSTM step for the first b rows. `sample` (b, bool) selects rows
  /// that draw a hard glimpse; undefined = none (expected / soft context everywhere).
  AttendResult attend_and_step(const torch::Tensor& annotations, const AttentionKeys& projected,
                               const torch::Tensor& gates_from_word, const DecoderState& state,
                               const torch::Tensor& sample, const StepSinks& sinks = {},
                               const StepWeights* steps = nullptr);

  /// attend_and_step with α given instead of computed: the context Σ α_i a_i (times β where the
  /// model has the gate; a one-hot α is a hard model's glimpse at that cell) and one LSTM step.
  /// alpha: (b, L). What `fovea probe` asks: what would the model say looking there?
  AttendResult attend_forced(const torch::Tensor& annotations, const torch::Tensor& alpha,
                             const torch::Tensor& gates_from_word, const DecoderState& state);

  /// One LSTM step with input [E y_{t-1}; ẑ_t]; gates_from_word = word_gates(E y_{t-1}).
  DecoderState lstm_step(const torch::Tensor& gates_from_word, const torch::Tensor& context, const DecoderState& state,
                         const StepWeights* steps = nullptr);

  /// Deep output layer: logits = L_o(dropout(E y_{t-1} + L_h h_t + L_z ẑ_t)).
  torch::Tensor output_logits(const torch::Tensor& embedded_prev, const torch::Tensor& h, const torch::Tensor& context);
  /// The deep output layer's input to L_o: dropout(E y_{t-1} + L_h h_t + L_z ẑ_t).
  torch::Tensor deep_output(const torch::Tensor& embedded_prev, const torch::Tensor& h, const torch::Tensor& context);

  /// Teacher forcing. tokens: (B, T+1) = <start> w_1 .. w_C <end> <pad>..; lengths: (B) number of
  /// predicted tokens (C+1). sample: (B) bool rows that use hard glimpses (undefined = none).
  DecoderOutput forward(const torch::Tensor& annotations, const torch::Tensor& tokens, const torch::Tensor& lengths,
                        const torch::Tensor& sample = {});

  const ModelConfig& config() const { return config_; }

  /// How forward() runs the recurrence. Auto: step by step through the CPU kernels for CPU float
  /// tensors, else teacher_forced_recurrence (core/model/teacher_forced_recurrence.h). The other
  /// two force one, for tests that compare them and for `fovea bench --case op_count`.
  enum class RecurrencePath { Auto, StepByStep, Fused };
  void set_recurrence_path(RecurrencePath path) { recurrence_path_ = path; }

 private:
  friend DecodingConstants decoding_constants(DecoderImpl& dec, bool allow_end, bool best_only);
  friend DecodingStep decoding_step(DecoderImpl& dec, const torch::Tensor& annotations, const AttentionKeys& keys,
                                    const torch::Tensor& prev, const DecoderState& state, const torch::Tensor& sample,
                                    const DecodingConstants& constants);
  friend DeviceStep decoding_step_on_device(DecoderImpl& dec, const torch::Tensor& annotations,
                                            const AttentionKeys& keys, const torch::Tensor& prev,
                                            const DecoderState& state, const DecodingConstants& constants);

  /// forward's recurrence step by step: attend_and_step at each step (through the CPU kernels on
  /// CPU float tensors, through autograd elsewhere), with the gradients of the per-step products gathered (StepWeights, StepSinks).
  RecurrenceOutput recurrence_step_by_step(const torch::Tensor& a, const torch::Tensor& gates, DecoderState state,
                                     const std::vector<std::int64_t>& rows_at, const torch::Tensor& sample);

  ModelConfig config_;
  RecurrencePath recurrence_path_ = RecurrencePath::Auto;
  torch::nn::Embedding embedding_{nullptr};
  torch::nn::Linear att_annotation_{nullptr}, att_hidden_{nullptr}, att_score_{nullptr};
  torch::nn::Linear beta_gate_{nullptr};
  torch::nn::Linear word_gates_{nullptr}, context_gates_{nullptr}, hidden_gates_{nullptr};
  torch::nn::Linear init_h_{nullptr}, init_c_{nullptr};
  torch::Tensor learned_h0_, learned_c0_;
  torch::nn::Linear out_hidden_{nullptr}, out_context_{nullptr}, out_vocab_{nullptr};
  torch::nn::Dropout dropout_{nullptr};
  struct WordGateTable;
  std::shared_ptr<WordGateTable> word_gate_table_;  ///< decoding_word_gates' cache
  std::shared_ptr<DecodingProducts> decoding_products_;  ///< the per-word products while decoding
};
TORCH_MODULE(Decoder);

}  // namespace fovea
