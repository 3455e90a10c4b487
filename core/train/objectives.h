#pragma once
/// Training objectives (docs/design.md §2): soft attention's NLL + doubly stochastic penalty, and hard
/// attention's variational bound trained with REINFORCE (baseline, entropy bonus).
#include "core/model/decoder.h"
#include "core/train/objective_options.h"

namespace fovea {

/// Hard attention: the chance that a training sequence uses the expected context instead of
/// sampled glimpses (the paper's 0.5, §4.1): such sequences contribute their NLL, entropy and
/// penalty terms, no REINFORCE term.
inline constexpr double kExpectedContextProb = 0.5;

/// Per-caption doubly stochastic penalty (B): Σ_i or mean_i of (1 − Σ_t α_ti)², with α summed
/// over each caption's valid steps only.
torch::Tensor doubly_stochastic_penalty(const torch::Tensor& alpha_sum, PenaltyReduction reduction);

/// The objective value and the figures the dashboards plot.
struct ObjectiveTerms {
  torch::Tensor loss;      ///< scalar to minimise (for hard attention a surrogate whose gradient is the estimate)
  double objective = 0;    ///< the objective's value: mean per caption of −log p(y|·) + penalty
  double nll = 0;          ///< mean NLL per token
  double penalty = 0;      ///< mean λ-weighted penalty per caption
  std::int64_t tokens = 0;
  // Hard attention only:
  torch::Tensor rewards;   ///< (B) log p(y|s̃,a), detached
  double reward = 0;       ///< mean reward of the sampled sequences
  double reward_var = 0;   ///< variance of (reward − baseline) over the sampled sequences
  double entropy = 0;      ///< mean H[α_t] per step
  std::int64_t sampled = 0;
};

/// `caption_weights` (B), for self-critical training (core/train/self_critical.h): each caption's
/// −log p(y|·) is weighted by its advantage, so the gradient is the REINFORCE estimate of the
/// reward's; undefined: cross-entropy (every weight 1).
ObjectiveTerms soft_objective(const DecoderOutput& out, const ObjectiveOptions& opt,
                              const torch::Tensor& caption_weights = {});

/// REINFORCE surrogate whose gradient is the Monte-Carlo estimate of docs/design.md §2.2:
///   ∂log p(y|s̃,a) + λ_r (log p(y|s̃,a) − b) ∂log p(s̃|a) + λ_e ∂H, averaged over the batch.
/// Sequences that used the expected context contribute their NLL (and entropy) only.
/// With `caption_weights` the caption's own term is weighted as soft_objective's; the glimpses'
/// REINFORCE term and the entropy bonus stay as they are, their reward log p(y|s̃,a) of the
/// caption given.
ObjectiveTerms hard_objective(const DecoderOutput& out, const ObjectiveOptions& opt, double baseline,
                              const torch::Tensor& caption_weights = {});

/// Attention supervision (Liu et al. 2017): mean over supervised words of KL(u_t || α_t), where
/// u_t spreads evenly over the cells of the object word t names: word_boxes (B, T, L) marks those
/// cells and word_has_box (B, T) says which words name one. Zero when no word does, and when α
/// is u_t.
torch::Tensor attention_supervision_loss(const DecoderOutput& out, const torch::Tensor& word_boxes,
                                         const torch::Tensor& word_has_box);

/// The same as a sum over the supervised words and their count, for losses averaged over several
/// parts of a batch (core/train/decoder_pass.h).
struct AttentionSupervisionSum {
  torch::Tensor sum;       ///< Σ over supervised words of KL(u_t || α_t) (0 when none)
  std::int64_t words = 0;  ///< how many words are supervised
};
AttentionSupervisionSum attention_supervision_sum(const DecoderOutput& out, const torch::Tensor& word_boxes,
                                                  const torch::Tensor& word_has_box);

/// Object classification on pooled annotations: each object's annotation vectors averaged over
/// the cells it covers (what soft attention hands the decoder at the object's noun), classified
/// by `class_head` (D -> classes + 1, index 0 = background); mean cross-entropy over the objects.
/// cell_class (B, L) holds class + 1 of the object under each cell (0: none); one object per
/// class and scene, as in the built-in scenes. Zero when no cell is labelled.
torch::Tensor object_class_loss(torch::nn::Linear& class_head, const torch::Tensor& annotations,
                                const torch::Tensor& cell_class);

/// How many objects object_class_loss() scores in `cell_class` (B, L), with `classes` outputs of
/// the class head (index 0 = background): the classes present in each row, summed over rows.
std::int64_t count_objects(const torch::Tensor& cell_class, std::int64_t classes);

/// What object_class_loss() scores: (logits (N, classes + 1), target (N)) of the N objects
/// present; both empty when no cell is labelled.
std::pair<torch::Tensor, torch::Tensor> object_class_logits(torch::nn::Linear& class_head, const torch::Tensor& annotations,
                                                            const torch::Tensor& cell_class);

/// The moving-average baseline b_k = decay · b_{k−1} + (1 − decay) · mean reward.
struct MovingBaseline {
  double value = 0;
  bool initialised = false;
  double decay = 0.9;
  void update(double mean_reward);
};

}  // namespace fovea
