// One captioning step of a training run (TrainingSession::train_step).
#include "core/data/batching.h"
#include "core/runtime/runtime.h"
#include "core/train/batch_norm_calibration.h"
#include "core/train/data_parallel.h"
#include "core/train/decoder_pass.h"
#include "core/train/fused_adam.h"
#include "core/train/objectives.h"
#include "core/train/training_session.h"

namespace fovea {

using Clock = TrainingSession::Clock;

namespace {

/// The scenes epoch `epoch` trains on: for built-in scenes drawn afresh every epoch as many new
/// ones as `train` has, from the same items with data seed + epoch; else `train` itself.
std::shared_ptr<const SceneSource> scenes_of_epoch(const std::shared_ptr<const SceneSource>& train, std::int64_t epoch) {
  const auto* scenes = dynamic_cast<const FashionScenes*>(train.get());
  if (scenes == nullptr || !scenes->options().fresh_every_epoch || epoch == 0) return train;
  auto opts = scenes->options();
  opts.seed += std::uint64_t(epoch);
  return std::make_shared<FashionScenes>("train", scenes->size(), scenes->items(), opts);
}

}  // namespace

void TrainingSession::train_step(std::int64_t epoch, const std::function<double()>& elapsed) {
  lr_ = captioning_lr(config_, epoch) * state_.lr_scale;
  for (auto& group : optimizer_->param_groups()) group.options().set_lr(lr_);
  const auto outcome = optimize(next_batch(epoch));
  if (outcome.nonfinite) return handle_nonfinite(*outcome.nonfinite, true);  // skipped, or throws
  skips_in_a_row_ = 0;
  ++state_.step;
  watch_loss(outcome.terms.objective);
  log_step(epoch, outcome, elapsed());
}

Batch TrainingSession::next_batch(std::int64_t epoch) {
  const auto in_epoch = state_.step % steps_per_epoch_;
  if (in_epoch == 0 || order_epoch_ != epoch) {
    order_ = epoch_order(data_.train->size(), config_.seed, epoch);
    order_epoch_ = epoch;
    epoch_scenes_ = scenes_of_epoch(data_.train, epoch);
  }
  const auto shard = batch_shard(config_.batch_size, group_);  // this process's rows of the batch
  const auto first = order_.begin() + in_epoch * config_.batch_size + shard.begin;
  std::vector<std::size_t> idx(first, first + shard.size);
  const bool grid = config_.aux_weight > 0 || config_.attention_supervision > 0;
  return make_batch(*epoch_scenes_, idx, model_.vocab, model_.config.image_size, config_.seed, epoch,
                    model_.config.max_caption_len, grid ? model_.config.grid_h : 0, grid ? model_.config.grid_w : 0,
                    config_.attention_supervision > 0);
}

TrainingSession::StepOutcome TrainingSession::optimize(const Batch& batch) {
  model_.net->train();
  const auto before = snapshot_step();  // a non-finite step leaves the model as it was
  auto out = compute_gradients(batch);
  if (out.nonfinite) {
    undo_gradients(before);
    return out;
  }
  optimizer_->step();
  broadcast_buffers(group_, *model_.net);  // the first process's batch-norm statistics everywhere
  out.baseline_used = state_.baseline.value;
  if (model_.config.attention == AttentionKind::Hard && out.terms.sampled > 0) state_.baseline.update(out.terms.reward);
  return out;
}

TrainingSession::StepSnapshot TrainingSession::snapshot_step() {
  StepSnapshot s;
  for (const auto& b : model_.net->buffers()) s.buffers.push_back(b.clone());
  s.baseline = state_.baseline;
  return s;
}

void TrainingSession::undo_gradients(const StepSnapshot& before) {
  clear_gradients(*optimizer_);
  state_.baseline = before.baseline;
  torch::NoGradGuard no_grad;
  auto buffers = model_.net->buffers();
  for (std::size_t i = 0; i < buffers.size(); ++i) buffers[i].copy_(before.buffers[i]);
}

TrainingSession::StepOutcome TrainingSession::compute_gradients(const Batch& batch) {
  const bool hard = model_.config.attention == AttentionKind::Hard;
  const auto rows = batch.tokens.size(0);
  torch::Tensor sample;
  if (hard) sample = torch::bernoulli(torch::full({rows}, 1.0 - config_.expected_context_prob)).to(torch::kBool);
  StepOutcome out;
  compat::CpuBf16Autocast bf16(precision_ == "bf16");  // the forward only: backward and Adam stay float
  auto annotations = model_.net->encode(batch.images.to(device_));
  // The label terms read the annotations directly; the decoder's terms run in parts
  // (core/train/decoder_pass.h) and hand back their gradient with respect to the annotations.
  torch::Tensor label_loss;
  if (config_.aux_weight > 0 && batch.has_cell_labels) {
    auto [cls, col] = model_.net->auxiliary_logits(annotations);
    auto aux_term = torch::nn::functional::cross_entropy(cls.flatten(0, 1), batch.cell_class.view({-1}).to(device_)) +
                    torch::nn::functional::cross_entropy(col.flatten(0, 1), batch.cell_colour.view({-1}).to(device_));
    // Each object's class from its pooled cells, beside each cell's class and colour.
    auto object_term = object_class_loss(model_.net->aux_class, annotations, batch.cell_class.to(device_));
    if (group_ != nullptr) {
      // Means over the whole batch of every process: cells by this share's rows, objects by count.
      const double objects = double(count_objects(batch.cell_class, model_.net->aux_class->options.out_features()));
      const double all_objects = group_->all_reduce_sum(objects);
      aux_term = aux_term * (double(rows) / double(config_.batch_size)) +
                 object_term * (all_objects > 0 ? objects / all_objects : 0.0);
      out.aux_loss = group_->all_reduce_sum(aux_term.item<double>());
    } else {
      aux_term = aux_term + object_term;
      out.aux_loss = aux_term.item<double>();
    }
    label_loss = config_.aux_weight * aux_term;
  }
  bf16.end();
  clear_gradients(*optimizer_);
  DecoderPassInput input;
  input.annotations = annotations.detach().requires_grad_(annotations.requires_grad());
  input.tokens = batch.tokens.to(device_);
  input.lengths = batch.lengths.to(device_);
  input.sample = sample.defined() ? sample.to(device_) : sample;
  DecoderPassOptions pass_options;
  pass_options.objective = config_.objective;
  pass_options.hard = hard;
  pass_options.bf16 = precision_ == "bf16";
  if (config_.attention_supervision > 0 && batch.word_has_box.defined()) {
    input.word_boxes = batch.word_boxes.to(device_);
    input.word_has_box = batch.word_has_box.to(device_);
    pass_options.supervision_weight = config_.attention_supervision;
  }
  if (group_ != nullptr) {
    pass_options.sum_over_processes = [this](std::vector<double>& values) {
      auto t = torch::tensor(values, torch::kDouble);
      group_->all_reduce_sum(std::vector<torch::Tensor>{t});
      for (std::size_t i = 0; i < values.size(); ++i) values[i] = t[std::int64_t(i)].item<double>();
    };
  }
  const auto pass = decoder_pass(model_.net->decoder, input, pass_options, &state_.baseline);
  out.terms = pass.terms;
  out.attention_loss = pass.supervision;
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
  // Each process's loss is its share of the whole batch's mean: the sum is the batch's gradient.
  all_reduce_gradients(group_, model_.net->trainable_parameters());
  out.grad_norm = torch::nn::utils::clip_grad_norm_(model_.net->trainable_parameters(), kGradClip);
  out.nonfinite = first_nonfinite({{"NLL", out.terms.nll},
                                   {"penalty", out.terms.penalty},
                                   {"REINFORCE reward", out.terms.reward},
                                   {"auxiliary loss", out.aux_loss},
                                   {"attention supervision loss", out.attention_loss},
                                   {"gradient norm", out.grad_norm}});
  return out;
}

void TrainingSession::log_step(std::int64_t epoch, const StepOutcome& o, double now) {
  window_tokens_ += o.terms.tokens;
  window_loss_ += o.terms.objective;
  ++window_steps_;
  const double window_s = std::chrono::duration<double>(Clock::now() - window_start_).count();
  const double tps = window_s > 0 ? double(window_tokens_) / window_s : 0;
  progress_.step = state_.step;
  progress_.total_steps = total_steps_;
  progress_.epoch = epoch;
  progress_.epochs = config_.epochs;
  progress_.loss = window_loss_ / double(window_steps_);
  if (rate_start_step_ < 0) {  // the first step measures from its own end
    rate_start_ = Clock::now();
    rate_start_step_ = state_.step;
    rate_paused_s_ = paused_s_;
    rate_tokens_ = 0;
    progress_.tokens_per_s = tps;
    progress_.eta_s = window_s * double(total_steps_ - state_.step);
  } else {
    rate_tokens_ += o.terms.tokens;
    const double run_s = std::chrono::duration<double>(Clock::now() - rate_start_).count() - (paused_s_ - rate_paused_s_);
    const auto steps = double(state_.step - rate_start_step_);
    progress_.tokens_per_s = run_s > 0 ? double(rate_tokens_) / run_s : 0;
    progress_.eta_s = run_s > 0 ? double(total_steps_ - state_.step) * run_s / steps : 0;
  }
  progress_.elapsed_s = now;
  report_progress(epoch, false);
  if (state_.step % kLogEvery != 0 && state_.step != 1) return;
  TrainRecord r;
  r.step = state_.step;
  r.epoch = epoch;
  r.loss = o.terms.objective;
  r.nll = o.terms.nll;
  r.penalty = o.terms.penalty;
  r.lr = lr_;
  r.grad_norm = o.grad_norm;
  r.tokens_per_s = tps;
  r.entropy = o.terms.entropy;
  r.hard = model_.config.attention == AttentionKind::Hard;
  r.baseline = o.baseline_used;
  r.reward = o.terms.reward;
  r.reward_var = o.terms.reward_var;
  r.aux_loss = o.aux_loss;
  r.attention_loss = o.attention_loss;
  r.elapsed_s = now;
  metrics_ << to_json(r).dump() << "\n" << std::flush;
  if (cb_.on_record) cb_.on_record(r);
  window_start_ = Clock::now();
  window_tokens_ = 0;
  window_loss_ = 0;
  window_steps_ = 0;
}

}  // namespace fovea
