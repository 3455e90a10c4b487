// One captioning step of a training run (TrainingSession::train_step).
#include "core/batching.h"
#include "core/batch_norm_calibration.h"
#include "core/decoder_pass.h"
#include "core/objectives.h"
#include "core/runtime.h"
#include "core/training_session.h"

namespace fovea {

using Clock = TrainingSession::Clock;

namespace {

/// The scenes epoch `epoch` trains on: with fresh_scenes on the built-in dataset as many new
/// ones as `train` has, drawn from the same items with data seed + epoch; else `train` itself.
std::shared_ptr<const SceneSource> scenes_of_epoch(const TrainConfig& c, const std::shared_ptr<const SceneSource>& train,
                                                   std::int64_t epoch) {
  const auto* scenes = dynamic_cast<const FashionScenes*>(train.get());
  if (!c.fresh_scenes || scenes == nullptr || epoch == 0) return train;
  auto opts = scenes->options();
  opts.seed += std::uint64_t(epoch);
  return std::make_shared<FashionScenes>("train", scenes->size(), scenes->items(), opts);
}

}  // namespace

void TrainingSession::train_step(std::int64_t epoch, const std::function<double()>& elapsed) {
  const auto in_epoch = state_.step % steps_per_epoch_;
  if (in_epoch == 0 || order_epoch_ != epoch) {
    order_ = epoch_order(data_.train->size(), config_.seed, epoch);
    order_epoch_ = epoch;
    epoch_scenes_ = scenes_of_epoch(config_, data_.train, epoch);
  }
  lr_ = captioning_lr(config_, epoch);
  for (auto& group : optimizer_->param_groups()) group.options().set_lr(lr_);
  std::vector<std::size_t> idx(order_.begin() + in_epoch * config_.batch_size,
                               order_.begin() + (in_epoch + 1) * config_.batch_size);
  const bool aux = config_.aux_weight > 0;
  const bool supervise = config_.attention_supervision > 0;
  const bool grid = aux || supervise;
  auto batch = make_batch(*epoch_scenes_, idx, model_.vocab, model_.config.image_size, config_.seed, epoch,
                          model_.config.max_caption_len, grid ? model_.config.grid_h : 0, grid ? model_.config.grid_w : 0,
                          supervise);
  model_.net->train();
  const bool hard = model_.config.attention == AttentionKind::Hard;
  torch::Tensor sample;
  if (hard) {
    sample = torch::bernoulli(torch::full({config_.batch_size}, 1.0 - config_.expected_context_prob)).to(torch::kBool);
  }
  compat::CpuBf16Autocast bf16(precision_ == "bf16");  // the forward only: backward and Adam stay float
  auto annotations = model_.net->encode(batch.images.to(device_));
  // The label terms read the annotations directly; the decoder's terms run in parts
  // (core/decoder_pass.h) and hand back their gradient with respect to the annotations.
  torch::Tensor label_loss;
  double aux_loss = 0;
  if (aux && batch.has_cell_labels) {
    auto [cls, col] = model_.net->auxiliary_logits(annotations);
    auto aux_term = torch::nn::functional::cross_entropy(cls.flatten(0, 1), batch.cell_class.view({-1}).to(device_)) +
                    torch::nn::functional::cross_entropy(col.flatten(0, 1), batch.cell_colour.view({-1}).to(device_));
    // Each object's class from its pooled cells, beside each cell's class and colour.
    aux_term = aux_term + object_class_loss(model_.net->aux_class, annotations, batch.cell_class.to(device_));
    aux_loss = aux_term.item<double>();
    label_loss = config_.aux_weight * aux_term;
  }
  bf16.end();
  optimizer_->zero_grad();
  DecoderPassInput input;
  input.annotations = annotations.detach().requires_grad_(annotations.requires_grad());
  input.tokens = batch.tokens.to(device_);
  input.lengths = batch.lengths.to(device_);
  input.sample = sample.defined() ? sample.to(device_) : sample;
  DecoderPassOptions pass_options;
  pass_options.objective = config_.objective;
  pass_options.hard = hard;
  pass_options.bf16 = precision_ == "bf16";
  if (supervise && batch.word_has_box.defined()) {
    input.word_boxes = batch.word_boxes.to(device_);
    input.word_has_box = batch.word_has_box.to(device_);
    pass_options.supervision_weight = config_.attention_supervision;
  }
  const auto pass = decoder_pass(model_.net->decoder, input, pass_options, &state_.baseline);
  const ObjectiveTerms& terms = pass.terms;
  const double attention_loss = pass.supervision;
  std::vector<torch::Tensor> roots, grads;
  if (pass.annotations_grad.defined()) {
    roots.push_back(annotations);
    grads.push_back(pass.annotations_grad);
  }
  if (label_loss.defined()) {
    roots.push_back(label_loss);
    grads.push_back(torch::ones_like(label_loss));
  }
  if (!roots.empty()) torch::autograd::backward(roots, grads);
  const double grad_norm = torch::nn::utils::clip_grad_norm_(model_.net->trainable_parameters(), kGradClip);
  optimizer_->step();
  const double baseline_used = state_.baseline.value;
  if (hard && terms.sampled > 0) state_.baseline.update(terms.reward);
  ++state_.step;
  window_tokens_ += terms.tokens;
  window_loss_ += terms.objective;
  ++window_steps_;

  const double now = elapsed();
  const double window_s = std::chrono::duration<double>(Clock::now() - window_start_).count();
  const double tps = window_s > 0 ? double(window_tokens_) / window_s : 0;
  progress_.step = state_.step;
  progress_.total_steps = total_steps_;
  progress_.epoch = epoch;
  progress_.epochs = config_.epochs;
  progress_.loss = window_loss_ / double(window_steps_);
  progress_.tokens_per_s = tps;
  const double steps_per_s = window_s > 0 ? double(window_steps_) / window_s : 0;
  progress_.eta_s = steps_per_s > 0 ? double(total_steps_ - state_.step) / steps_per_s : 0;
  progress_.elapsed_s = now;
  report_progress(epoch, false);
  if (state_.step % kLogEvery == 0 || state_.step == 1) {
    TrainRecord r;
    r.step = state_.step;
    r.epoch = epoch;
    r.loss = terms.objective;
    r.nll = terms.nll;
    r.penalty = terms.penalty;
    r.lr = lr_;
    r.grad_norm = grad_norm;
    r.tokens_per_s = tps;
    r.entropy = terms.entropy;
    r.hard = hard;
    r.baseline = baseline_used;
    r.reward = terms.reward;
    r.reward_var = terms.reward_var;
    r.aux_loss = aux_loss;
    r.attention_loss = attention_loss;
    r.elapsed_s = now;
    metrics_ << to_json(r).dump() << "\n" << std::flush;
    if (cb_.on_record) cb_.on_record(r);
    window_start_ = Clock::now();
    window_tokens_ = 0;
    window_loss_ = 0;
    window_steps_ = 0;
  }
}

}  // namespace fovea
