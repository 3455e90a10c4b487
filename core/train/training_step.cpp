#include "core/train/training_step.h"

#include "core/runtime/error_text.h"

#include <algorithm>
#include <chrono>

#include "core/datasets/fashion_scenes.h"
#include "core/runtime/runtime.h"
#include "core/runtime/torch_compat.h"
#include "core/train/batch_norm_calibration.h"
#include "core/train/data_parallel.h"
#include "core/train/decoder_pass.h"
#include "core/train/fused_adam.h"
#include "core/train/gradient_clipping.h"
#include "core/train/self_critical.h"

namespace fovea {

using Clock = std::chrono::steady_clock;

namespace {

/// Whether the step adds the label terms (the auxiliary heads' losses), which read the annotations in float.
bool has_label_terms(const TrainConfig& config, const Batch& batch) {
  return config.aux_weight > 0 && batch.has_cell_labels;
}

/// The scenes epoch `epoch` trains on: for built-in scenes drawn afresh every epoch as many new
/// ones as `train` has, from the same items with data seed + epoch; else `train` itself.
std::shared_ptr<const SceneSource> scenes_of_epoch(const std::shared_ptr<const SceneSource>& train, std::int64_t epoch) {
  const auto* scenes = dynamic_cast<const FashionScenes*>(train.get());
  if (scenes == nullptr || !scenes->options().fresh_every_epoch || epoch == 0) return train;
  auto opts = scenes->options();
  opts.seed += std::uint64_t(epoch);
  return std::make_shared<FashionScenes>("train", scenes->size(), scenes->items(), opts);
}



/// Timed steps in each precision, interleaved, after one untimed one each (oneDNN creates its
/// primitives and the allocator its blocks on the first): the median of five takes out two steps
/// a busy host slowed.
constexpr int kTimedSteps = 5;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

TrainingStep::TrainingStep(const TrainConfig& config, CaptionModel& model, std::shared_ptr<const SceneSource> train,
                           ProcessGroup* group, torch::Device device, std::string precision, RunState& state)
    : config_(config), model_(model), train_(std::move(train)), group_(group), device_(device),
      precision_(std::move(precision)), state_(state),
      reward_(config.self_critical != "off" ? std::make_unique<SelfCriticalReward>(*train_) : nullptr),
      prefetch_([this](std::int64_t epoch, std::int64_t step) { return make_batch_at(epoch, step); },
                prefetch_has_a_core(device, group ? local_processes() : 1)) {}

TrainRecord train_record(const StepOutcome& outcome, std::int64_t step, std::int64_t epoch, double lr,
                         double tokens_per_s, bool hard, double elapsed_s) {
  TrainRecord r;
  r.step = step;
  r.epoch = epoch;
  r.loss = outcome.terms.objective;
  r.nll = outcome.terms.nll;
  r.penalty = outcome.terms.penalty;
  r.lr = lr;
  r.grad_norm = outcome.grad_norm;
  r.tokens_per_s = tokens_per_s;
  r.entropy = outcome.terms.entropy;
  r.hard = hard;
  r.baseline = outcome.baseline_used;
  r.reward = outcome.terms.reward;
  r.reward_var = outcome.terms.reward_var;
  r.aux_loss = outcome.aux_loss;
  r.attention_loss = outcome.attention_loss;
  r.elapsed_s = elapsed_s;
  if (outcome.self_critical.captions > 0) {
    r.self_critical = true;
    r.sample_reward = outcome.self_critical.mean_reward();
    r.baseline_reward = outcome.self_critical.mean_baseline();
    r.advantage = outcome.self_critical.mean_advantage();
    r.advantage_rms = outcome.self_critical.rms_advantage();
    r.sample_length = outcome.self_critical.mean_length();
    r.end_rate = outcome.self_critical.end_rate();
  }
  return r;
}

std::string TrainingStep::describe_precision() const {
  if (config_.precision != "auto") return "precision " + precision_;
  if (!device_.is_cpu()) return "precision fp32 (auto)";
  if (!cpu_has_native_bf16()) return "precision fp32 (auto: this CPU has no bf16 products)";
  const auto& chosen = precision_.empty() ? state_.precision : precision_;
  if (!chosen.empty()) return "precision " + chosen + " (auto, as chosen when the run started)";
  return "precision auto (the faster of fp32 and bf16 here, timed before the first step)";
}

void TrainingStep::make_optimizer() {
  optimizer_ = std::make_unique<FusedAdam>(model_.net->trainable_parameters(), torch::optim::AdamOptions(config_.lr));
}

Batch TrainingStep::next_batch(std::int64_t epoch, std::int64_t step) {
  const auto steps_per_epoch = std::int64_t(train_->size()) / config_.batch_size;
  const auto next_epoch = (step + 1) % steps_per_epoch == 0 ? epoch + 1 : epoch;
  return prefetch_.take(epoch, step, next_epoch, step + 1);
}

Batch TrainingStep::make_batch_at(std::int64_t epoch, std::int64_t step) {
  const auto steps_per_epoch = std::int64_t(train_->size()) / config_.batch_size;
  const auto in_epoch = step % steps_per_epoch;
  if (in_epoch == 0 || order_epoch_ != epoch) {
    order_ = epoch_order(train_->size(), config_.seed, epoch);
    order_epoch_ = epoch;
    epoch_scenes_ = scenes_of_epoch(train_, epoch);
  }
  const auto shard = batch_shard(config_.batch_size, group_);  // this process's rows of the batch
  const auto first = order_.begin() + in_epoch * config_.batch_size + shard.begin;
  std::vector<std::size_t> idx(first, first + shard.size);
  const bool grid = config_.aux_weight > 0 || config_.attention_supervision > 0;
  auto batch = make_batch(annotations_ ? *captions_ : *epoch_scenes_, idx, model_.vocab,
                          annotations_ ? 0 : model_.config.image_size, config_.seed, epoch, model_.config.max_caption_len,
                          grid ? model_.config.grid_h : 0, grid ? model_.config.grid_w : 0, config_.attention_supervision > 0,
                          /*keep_scenes=*/reward_ != nullptr);  // the rewards' references and named objects
  if (annotations_) {
    // As stored, in bf16, for a bf16 step's decoder on the CPU (core/train/decoder_pass.h), which
    // takes them so; widened here, off the step's thread, for the rest.
    const bool stored = annotations_as_stored_ && !has_label_terms(config_, batch);
    batch.annotations = stored ? annotations_->read_stored(idx) : annotations_->read(idx);
  }
  return batch;
}

void TrainingStep::use_annotations(std::shared_ptr<const AnnotationCache> cache) {
  prefetch_.cancel();  // a batch in the making would carry images
  annotations_ = std::move(cache);
  captions_ = captions_only(train_);
}

StepOutcome TrainingStep::optimize(const Batch& batch, double lr) {
  for (auto& group : optimizer_->param_groups()) group.options().set_lr(lr);
  model_.net->train();
  const auto before = snapshot();  // a non-finite step leaves the model as it was
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

TrainingStep::Snapshot TrainingStep::snapshot() {
  Snapshot s;
  for (const auto& b : model_.net->buffers()) s.buffers.push_back(b.clone());
  s.baseline = state_.baseline;
  return s;
}

void TrainingStep::undo_gradients(const Snapshot& before) {
  clear_gradients(*optimizer_);
  state_.baseline = before.baseline;
  torch::NoGradGuard no_grad;
  auto buffers = model_.net->buffers();
  for (std::size_t i = 0; i < buffers.size(); ++i) buffers[i].copy_(before.buffers[i]);
}

StepOutcome TrainingStep::compute_gradients(const Batch& batch) {
  const bool hard = model_.config.attention == AttentionKind::Hard;
  StepOutcome out;
  compat::CpuBf16Autocast bf16(precision_ == "bf16");  // the forward only: backward and Adam stay float
  // A cache's annotations in bf16 (make_batch_at) go to a bf16 step's decoder as they are.
  const bool as_stored = precision_ == "bf16" && device_.is_cpu() && !has_label_terms(config_, batch);
  auto annotations = !batch.annotations.defined() ? model_.net->encode(batch.images.to(device_))
                     : as_stored                  ? batch.annotations
                                                  : batch.annotations.to(device_).to(torch::kFloat);
  // The label terms read the annotations directly; the decoder's terms run in parts
  // (core/train/decoder_pass.h) and hand back their gradient with respect to the annotations.
  const auto label_loss = auxiliary_loss(batch, annotations, out);
  bf16.end();
  clear_gradients(*optimizer_);
  DecoderPassInput input;
  DecoderPassOptions pass_options;
  // What the decoder reads: the annotations, or for self-critical training each image's once per sample.
  auto decoded = annotations;
  if (reward_) {
    decoded = annotations.repeat_interleave(kSelfCriticalSamples, 0);
    add_self_critical_rows(batch, annotations, input, out);
  } else {
    input.tokens = batch.tokens.to(device_);
    input.lengths = batch.lengths.to(device_);
    if (batch.word_has_box.defined()) input.word_boxes = batch.word_boxes.to(device_), input.word_has_box = batch.word_has_box.to(device_);
  }
  input.annotations = decoded.detach().requires_grad_(decoded.requires_grad());
  if (hard) {
    const auto rows = input.tokens.size(0);
    input.sample = torch::bernoulli(torch::full({rows}, 1.0 - kExpectedContextProb)).to(torch::kBool).to(device_);
  }
  pass_options.objective = config_.objective;
  pass_options.hard = hard;
  pass_options.bf16 = precision_ == "bf16";
  // One process: the clipping and FusedAdam below take the word embedding's gradient as rows (the
  // processes' gradients are summed dense).
  pass_options.word_gradient_rows = group_ == nullptr;
  if (config_.attention_supervision > 0 && input.word_has_box.defined()) pass_options.supervision_weight = config_.attention_supervision;
  if (group_ != nullptr) {
    pass_options.sum_over_processes = [this](std::vector<double>& values) {
      auto t = torch::tensor(values, torch::kDouble);
      group_->all_reduce_sum(std::vector<torch::Tensor>{t});
      for (std::size_t i = 0; i < values.size(); ++i) values[i] = t[std::int64_t(i)].item<double>();
    };
  }
  // Self-critical rewards are credited to the distribution the captions were sampled from: no dropout.
  if (reward_) model_.net->decoder->eval();
  const auto pass = decoder_pass(model_.net->decoder, input, pass_options, &state_.baseline);
  if (reward_) model_.net->decoder->train();
  out.terms = pass.terms;
  out.attention_loss = pass.supervision;
  std::vector<torch::Tensor> roots, grads;
  if (pass.annotations_grad.defined()) {
    roots.push_back(decoded);
    grads.push_back(pass.annotations_grad);
  }
  if (label_loss.defined()) {
    roots.push_back(label_loss);
    grads.push_back(torch::ones_like(label_loss));
  }
  if (!roots.empty()) torch::autograd::backward(roots, grads);
  // Each process's loss is its share of the whole batch's mean: the sum is the batch's gradient.
  all_reduce_gradients(group_, model_.net->trainable_parameters());
  out.grad_norm = clip_gradient_norm(model_.net->trainable_parameters(), kGradClip);
  out.nonfinite = first_nonfinite({{"NLL", out.terms.nll},
                                   {"penalty", out.terms.penalty},
                                   {"REINFORCE reward", out.terms.reward},
                                   {"self-critical reward", out.self_critical.mean_reward()},
                                   {"auxiliary loss", out.aux_loss},
                                   {"attention supervision loss", out.attention_loss},
                                   {"gradient norm", out.grad_norm}});
  return out;
}

torch::Tensor TrainingStep::auxiliary_loss(const Batch& batch, const torch::Tensor& annotations, StepOutcome& out) {
  if (!has_label_terms(config_, batch)) return {};
  const auto rows = batch.cell_class.size(0);
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
  return config_.aux_weight * aux_term;
}

void TrainingStep::add_self_critical_rows(const Batch& batch, const torch::Tensor& annotations, DecoderPassInput& input,
                                          StepOutcome& out) {
  const bool supervise = config_.attention_supervision > 0 && has_object_boxes(*train_);
  const auto seed = std::uint64_t(torch::randint(std::int64_t(1) << 62, {1}, torch::kLong).item<std::int64_t>());
  // Sampled by the float decoding paths: a bf16 step's encoder (CPU autocast) gives bf16 annotations.
  const auto sampled_from = annotations.detach().to(torch::kFloat);
  auto rows = self_critical_rows(*model_.net, model_.vocab, sampled_from, batch.scenes, *reward_,
                                 config_.self_critical, seed, supervise ? model_.config.grid_h : 0,
                                 supervise ? model_.config.grid_w : 0);
  input.tokens = rows.tokens.to(device_);
  input.lengths = rows.lengths.to(device_);
  input.caption_weights = rows.advantages.to(device_);
  if (rows.word_has_box.defined()) input.word_boxes = rows.word_boxes.to(device_), input.word_has_box = rows.word_has_box.to(device_);
  out.self_critical = rows.figures;
  if (group_ != nullptr) {  // the whole batch's figures, every process's samples
    auto& f = out.self_critical;
    std::vector<double> v{f.captions, f.reward, f.baseline, f.advantage_sq, f.words, f.ended};
    auto t = torch::tensor(v, torch::kDouble);
    group_->all_reduce_sum(std::vector<torch::Tensor>{t});
    const auto* x = t.data_ptr<double>();
    f.captions = x[0], f.reward = x[1], f.baseline = x[2], f.advantage_sq = x[3], f.words = x[4], f.ended = x[5];
  }
}

void TrainingStep::settle_precision(std::int64_t epoch, std::int64_t step,
                                    const std::function<void(const std::string&)>& message) {
  if (precision_.empty()) precision_ = state_.precision;  // a resumed run goes on as it started
  if (precision_.empty()) {
    if (message) message("precision auto: timing a step in fp32 and in bf16 on this machine");
    std::string bf16_failed;
    state_.precision_trial = time_precisions(next_batch(epoch, step), bf16_failed);
    precision_ = faster_precision(state_.precision_trial);
    if (message) message("precision " + precision_ + " (auto: " +
            (bf16_failed.empty() ? describe(state_.precision_trial) : "bf16 products failed here: " + bf16_failed) + ")");
  }
  state_.precision = precision_;
  annotations_as_stored_ = precision_ == "bf16" && device_.is_cpu();
}

PrecisionTrial TrainingStep::time_precisions(const Batch& batch, std::string& bf16_failed) {
  // Whatever a step changes besides the gradients goes back as it was after each timed one: the
  // batch-norm statistics, the baseline, and the random numbers (dropout masks, glimpses), so the
  // run that follows is the one an explicit --precision would have trained.
  model_.net->train();
  const auto before = snapshot();
  const auto random_state = compat::cpu_rng_state();
  std::vector<double> times[2];
  const std::string precisions[2] = {"fp32", "bf16"};
  for (int round = 0; round <= kTimedSteps && bf16_failed.empty(); ++round) {
    for (int p = 0; p < 2 && bf16_failed.empty(); ++p) {
      precision_ = precisions[p];
      try {
        const auto start = Clock::now();
        compute_gradients(batch);
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        if (round > 0) times[p].push_back(seconds);
      } catch (const std::exception& e) {  // fp32 is the run's own step: its errors are the run's
        if (p == 0) throw;
        bf16_failed = error_text(e);
      }
      undo_gradients(before);
      compat::set_cpu_rng_state(random_state);
    }
  }
  precision_.clear();
  PrecisionTrial trial;
  double failed = bf16_failed.empty() ? 0 : 1;
  if (failed == 0) {
    trial.fp32_step_s = median(times[0]);
    trial.bf16_step_s = median(times[1]);
  }
  if (group_ != nullptr) {  // every process sees the same sums and chooses alike
    failed = group_->all_reduce_sum(failed);
    trial.fp32_step_s = group_->all_reduce_sum(trial.fp32_step_s) / double(group_->size());
    trial.bf16_step_s = group_->all_reduce_sum(trial.bf16_step_s) / double(group_->size());
    if (failed > 0 && bf16_failed.empty()) bf16_failed = "in another process of the group";
  }
  return failed > 0 ? PrecisionTrial{} : trial;
}

}  // namespace fovea
