#include "core/train/objectives.h"

#include <stdexcept>

#include "core/runtime/enum_names.h"

namespace fovea {

namespace {
constexpr EnumName<PenaltyReduction> kReductionNames[] = {{PenaltyReduction::Sum, "sum"}, {PenaltyReduction::Mean, "mean"}};
}  // namespace

PenaltyReduction parse_penalty_reduction(const std::string& s) {
  if (const auto* r = enum_named(kReductionNames, s)) return *r;
  throw std::invalid_argument("penalty reduction must be " + quoted_names(kReductionNames) + ", got '" + s + "'");
}
std::string to_string(PenaltyReduction r) { return name_of(kReductionNames, r, "mean"); }

torch::Tensor doubly_stochastic_penalty(const torch::Tensor& alpha_sum, PenaltyReduction reduction) {
  auto sq = (1.0 - alpha_sum).pow(2);
  return reduction == PenaltyReduction::Sum ? sq.sum(1) : sq.mean(1);
}

namespace {

/// Per-caption log p(y|a) (B) from the packed per-token log-probabilities.
torch::Tensor caption_log_probs(const DecoderOutput& out, const torch::Tensor& token_lp) {
  return torch::zeros({out.lengths.size(0)}, token_lp.options()).index_add(0, out.sequence, token_lp);
}

/// Scalars read to the host in one transfer, in double.
std::vector<double> read_figures(const std::vector<torch::Tensor>& scalars) {
  const auto host = torch::stack(scalars).to(torch::kCPU, torch::kDouble).contiguous();
  return {host.data_ptr<double>(), host.data_ptr<double>() + host.numel()};
}

}  // namespace

ObjectiveTerms soft_objective(const DecoderOutput& out, const ObjectiveOptions& opt, const torch::Tensor& caption_weights) {
  ObjectiveTerms t;
  const auto& lp = out.token_log_probs;
  auto per_caption_nll = -caption_log_probs(out, lp);
  if (caption_weights.defined()) per_caption_nll = per_caption_nll * caption_weights.to(per_caption_nll.options());
  auto penalty = opt.lambda * doubly_stochastic_penalty(out.alpha_sum, opt.reduction);
  t.loss = (per_caption_nll + penalty).mean();
  t.tokens = lp.size(0);
  // The logged figures in one transfer: on a GPU each read waits for the device.
  const auto figures = read_figures({t.loss.detach(), -lp.detach().mean(), penalty.detach().mean(),
                                     out.entropy.detach().sum() / double(t.tokens)});
  t.objective = figures[0], t.nll = figures[1], t.penalty = figures[2], t.entropy = figures[3];
  return t;
}

ObjectiveTerms hard_objective(const DecoderOutput& out, const ObjectiveOptions& opt, double baseline,
                              const torch::Tensor& caption_weights) {
  ObjectiveTerms t;
  const auto& lp = out.token_log_probs;
  auto log_p_y = caption_log_probs(out, lp);  // (B), log p(y|s̃,a)
  t.rewards = log_p_y.detach();
  auto sampled = out.sampled.to(lp.scalar_type());
  auto advantage = (t.rewards - baseline) * sampled;
  auto reinforce = opt.lambda_r * advantage * out.log_p_glimpses;
  auto penalty = opt.lambda * doubly_stochastic_penalty(out.alpha_sum, opt.reduction);
  const auto caption_term = caption_weights.defined() ? log_p_y * caption_weights.to(log_p_y.options()) : log_p_y;
  t.loss = (-caption_term - reinforce - opt.lambda_e * out.entropy + penalty).mean();
  t.tokens = lp.size(0);
  const auto figures = read_figures({(-t.rewards + penalty.detach()).mean(), -lp.detach().mean(),
                                     penalty.detach().mean(), out.entropy.detach().sum() / double(t.tokens),
                                     sampled.sum()});
  t.objective = figures[0], t.nll = figures[1], t.penalty = figures[2], t.entropy = figures[3];
  t.sampled = std::int64_t(figures[4]);
  if (t.sampled > 0) {
    auto mask = out.sampled;
    auto r = t.rewards.masked_select(mask);
    t.reward = r.mean().item<double>();
    t.reward_var = t.sampled > 1 ? (r - baseline).var().item<double>() : 0.0;
  }
  return t;
}

void MovingBaseline::update(double mean_reward) {
  if (!initialised) {
    value = mean_reward;
    initialised = true;
  } else {
    value = decay * value + (1.0 - decay) * mean_reward;
  }
}

AttentionSupervisionSum attention_supervision_sum(const DecoderOutput& out, const torch::Tensor& word_boxes,
                                                  const torch::Tensor& word_has_box) {
  const auto T = word_boxes.size(1);
  // Packed rows whose step lies beyond the supervised length (e.g. <end>) carry no box.
  const auto in_range = out.step < T;
  const auto seq = out.sequence.masked_select(in_range);
  const auto step = out.step.masked_select(in_range);
  const auto alphas = out.alphas.index_select(0, in_range.nonzero().view(-1));
  const auto boxes = word_boxes.index({seq, step});  // (N', L)
  const auto has = word_has_box.index({seq, step});  // (N')
  AttentionSupervisionSum r;
  r.words = has.sum().item<std::int64_t>();
  if (r.words == 0) {
    r.sum = torch::zeros({}, alphas.options());
    return r;
  }
  // KL(target || α) with the target spread evenly over the box's cells: α covers the whole
  // object, not only its most telling part, so what α points at is what the word needs.
  const auto cells = boxes.sum(1, /*keepdim=*/true).clamp_min(1);
  const auto target = boxes / cells;
  const auto log_alpha = alphas.to(torch::kFloat).clamp_min(1e-8).log();
  const auto kl = cells.squeeze(1).log().neg() - (target * log_alpha).sum(1);
  r.sum = (kl * has.to(torch::kFloat)).sum().to(alphas.scalar_type());
  return r;
}

torch::Tensor attention_supervision_loss(const DecoderOutput& out, const torch::Tensor& word_boxes,
                                         const torch::Tensor& word_has_box) {
  const auto r = attention_supervision_sum(out, word_boxes, word_has_box);
  return r.words == 0 ? r.sum : r.sum / double(r.words);
}

std::pair<torch::Tensor, torch::Tensor> object_class_logits(torch::nn::Linear& class_head, const torch::Tensor& annotations,
                                                            const torch::Tensor& cell_class) {
  const auto classes = class_head->options.out_features();
  const auto dtype = annotations.scalar_type();
  const auto cells = torch::one_hot(cell_class, classes).slice(2, 1).to(dtype);  // (B, L, C-1): object c's cells
  const auto counts = cells.sum(1);                                                // (B, C-1)
  const auto present = counts > 0;
  if (!present.any().item<bool>()) return {};
  const auto pooled = torch::bmm(cells.transpose(1, 2), annotations) / counts.clamp_min(1).unsqueeze(2);  // (B, C-1, D)
  const auto logits = class_head(pooled.masked_select(present.unsqueeze(2)).view({-1, annotations.size(2)}));
  const auto target = (torch::arange(1, classes, cell_class.options()).expand_as(present)).masked_select(present);
  return {logits.to(torch::kFloat), target};
}

std::int64_t count_objects(const torch::Tensor& cell_class, std::int64_t classes) {
  return (torch::one_hot(cell_class, classes).slice(2, 1).sum(1) > 0).sum().item<std::int64_t>();
}

torch::Tensor object_class_loss(torch::nn::Linear& class_head, const torch::Tensor& annotations,
                                const torch::Tensor& cell_class) {
  const auto [logits, target] = object_class_logits(class_head, annotations, cell_class);
  if (!logits.defined()) return torch::zeros({}, annotations.options().dtype(torch::kFloat));
  return torch::nn::functional::cross_entropy(logits, target);
}

}  // namespace fovea
