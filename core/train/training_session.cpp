#include "core/train/training_session.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <thread>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/datasets/fashion_scenes.h"
#include "core/model/encoder_file.h"
#include "core/model/module_state.h"
#include "core/runtime/runtime.h"
#include "core/train/annotation_features.h"
#include "core/train/data_parallel.h"
#include "core/train/familiarity_calibration.h"
#include "core/train/model_card.h"
#include "core/train/run_pretraining.h"
#include "core/train/run_setup.h"

namespace fovea {

namespace fs = std::filesystem;

TrainingSession::TrainingSession(TrainConfig config, const TrainCallbacks& cb, TrainData data)
    : config_(std::move(config)), cb_(cb), data_(std::move(data)) {
  group_ = data_.group.get();
  batch_shard(config_.batch_size, group_);  // throws when the batch does not divide among the processes
  data_ = open_train_data(config_, std::move(data_), cb_.on_message);
  device_ = training_device(config_, group_);
  // auto on a CPU with bf16 products: the step times both when the run starts. Elsewhere fp32:
  // emulated bf16 is slower, and oneDNN capped below its bf16 kernels refuses some outright.
  std::string precision;
  if (config_.precision != "auto" || !device_.is_cpu() || !cpu_has_native_bf16()) {
    precision = resolve_precision(config_.precision, device_);
  }
  configure_threads(0);
  steps_per_epoch_ = std::int64_t(data_.train->size()) / config_.batch_size;
  if (steps_per_epoch_ < 1) {
    throw std::invalid_argument("the training split has " + std::to_string(data_.train->size()) +
                                " images, fewer than one batch (" + std::to_string(config_.batch_size) + ")");
  }
  plan_steps();
  state_.baseline.decay = kBaselineDecay;
  if (group_ != nullptr) group_->on_stall(cb_.on_message);  // a peer stopped or stuck is said within a minute
  folder_ = std::make_unique<RunFolder>(config_.out_dir, writes_run(), cb_.on_message);
  step_ = std::make_unique<TrainingStep>(config_, model_, data_.train, group_, device_, precision, state_);
  validation_ = std::make_unique<RunValidation>(config_, model_, data_.train, data_.val, device_, cb_.on_message);
  guard_ = std::make_unique<NonFiniteGuard>(config_);
}

TrainingSession::~TrainingSession() {
  if (group_ != nullptr) group_->on_stall({});  // the callbacks may not outlive the run
}

void TrainingSession::plan_steps() {
  const auto plan = plan_run(config_, steps_per_epoch_, state_.step, state_.pretrain_step);
  total_steps_ = plan.captioning_steps;
  pretrain_steps_ = plan.pretrain_steps;
}

void TrainingSession::start_new() {
  torch::manual_seed(config_.seed);
  model_ = build_new_model(config_, *data_.train, device_, cb_.on_message);
  broadcast_weights(group_, *model_.net, model_.net->trainable_parameters());  // every replica starts from the first's
  step_->make_optimizer();
  folder_->create(config_);
  folder_->write_sample_images(*data_.val, validation_->sample_count());
  state_.object_boxes = has_object_boxes(*data_.train);
  message("model: " + std::to_string(model_.vocab.size()) + " words, " + std::to_string(parameter_count(model_)) +
          " parameters, grid " + std::to_string(model_.config.grid_h) + "x" + std::to_string(model_.config.grid_w) +
          "x" + std::to_string(model_.config.annotation_dim) + "; " + describe_runtime(device_) + ", " +
          step_->describe_precision() + describe_processes(config_, group_));
}

void TrainingSession::start_resumed(LoadedCheckpoint ckpt) {
  model_ = std::move(ckpt.model);
  config_.model = model_.config;  // the architecture the checkpoint was built with
  model_.device = device_;
  model_.net->to(device_);
  model_.net->encoder->to_device(device_);
  broadcast_weights(group_, *model_.net, model_.net->trainable_parameters());
  step_->make_optimizer();
  restore_training_state(ckpt, step_->optimizer(), device_);
  state_ = run_state_from_json(ckpt.training, kBaselineDecay);
  state_.object_boxes = has_object_boxes(*data_.train);
  plan_steps();  // with the steps already taken
  saved_step_ = state_.step;
  folder_->reopen(config_, state_.step, state_.pretrain_step);
  folder_->write_sample_images(*data_.val, validation_->sample_count());
  const bool pretraining = state_.step == 0 && pretrain_steps_ > 0;
  message("resuming " + (pretraining ? "the encoder pretraining at step " + std::to_string(state_.pretrain_step) + " of " +
                                           std::to_string(pretrain_steps_)
                                     : "at step " + std::to_string(state_.step) + " of " + std::to_string(total_steps_)) +
          "; " + describe_runtime(device_) + ", " + step_->describe_precision() + describe_processes(config_, group_));
}

void TrainingSession::begin_run() {
  folder_->open_logs();
  if (group_ != nullptr && group_->rank() > 0) {
    // Dropout masks and glimpses: each process draws its own, not the first's again.
    torch::manual_seed(config_.seed + 0x9E3779B97F4A7C15ULL * std::uint64_t(group_->rank()) + std::uint64_t(state_.step));
  }
  started_ = Clock::now();
  elapsed_before_ = state_.elapsed_s;
  paused_s_ = 0;
  meter_.restart_window();
}

void TrainingSession::fill_result(TrainResult& result) const {
  result.steps = state_.step;
  result.epochs_completed = state_.validated_epochs;
  result.best_bleu4 = std::max(0.0, state_.best_bleu4);
  result.best_metric = state_.best_metric;
  result.best_score = state_.best_score;
  result.object_boxes = state_.object_boxes;
  result.best_step = state_.best_step;
  result.stopped_early = state_.stopped_early;
  result.elapsed_s = state_.elapsed_s;
  result.pretrain_held_out_accuracy = state_.pretrain_held_out_accuracy;
  result.pretrain_steps = state_.pretrain_step;
  result.precision = state_.precision;
  result.precision_trial = state_.precision_trial;
  result.last_checkpoint = last_checkpoint_path(config_.out_dir);
  result.best_checkpoint = best_checkpoint_path(config_.out_dir);
}

TrainResult TrainingSession::run() {
  begin_run();
  TrainResult result;
  if (state_.step == 0 && state_.pretrain_step < pretrain_steps_) {
    step_->settle_precision(0, state_.step, cb_.on_message);  // with the whole encoder training, as the pretraining does
    result.interrupted = !pretrain();
  }
  broadcast_weights(group_, *model_.net, model_.net->trainable_parameters());
  if (const auto frozen = frozen_encoder_blocks(config_); frozen > 0 && !result.interrupted) {
    model_.net->encoder->freeze_blocks(frozen);
    message("encoder: its first " + std::to_string(frozen) + " blocks keep their weights, the top " +
            std::to_string(model_.net->encoder->blocks() - frozen) + " train");
  }
  if (!result.interrupted && !open_annotations()) result.interrupted = true;
  if (!result.interrupted) step_->settle_precision(state_.step / steps_per_epoch_, state_.step, cb_.on_message);
  meter_.restart_window();  // the first captioning window starts after the pretraining
  if (!result.interrupted && state_.step == 0) {
    write_snapshot(0);
    state_.elapsed_s = elapsed();
    save_last();  // a checkpoint before the first step: what a stop or a rollback at any step can go back to
  }
  while (!result.interrupted && !caption(result)) {
    // rolled back: state_ is the last checkpoint's, with the learning rate halved; go on from there
  }
  state_.elapsed_s = elapsed();
  fill_result(result);
  if (!writes_run()) return result;
  if (!result.interrupted && fs::exists(result.best_checkpoint)) {
    if (data_.train->size() < 2 || data_.val->size() < 2) {
      message("too few images to measure what the training images are like: captions of " + result.best_checkpoint +
              " will not say when an image is unlike them");
    } else {
      message("measuring the training images, so captions of unlike images say so");
      measure_familiarity_of_best(result.best_checkpoint);
    }
  }
  if (encoder_is_fixed(config_, model_)) {
    message("the encoder ran on " + std::to_string(model_.net->encoder->images_encoded()) +
            " images in this session (annotations cached once are read, not computed again)");
  }
  if (!result.interrupted) write_model_card(config_, model_, describe_training_scenes(config_, *data_.train), data_.val->describe(), result);
  return result;
}

void TrainingSession::measure_familiarity_of_best(const std::string& best) {
  if (!encoder_is_fixed(config_, model_)) {  // best.ckpt's encoder is not the run's last one
    store_familiarity(best, data_.train, data_.val);
    return;
  }
  // The encoder did not train: best.ckpt's annotations are the run's, read from the caches.
  FeatureOptions options;
  options.on_message = cb_.on_message;
  SplitAnnotations train(model_, data_.train, true, options), val(model_, data_.val, true, options);
  store_familiarity(best, measure_familiarity(train, val));
}

bool TrainingSession::open_annotations() {
  // A checkpoint before the annotations are computed (minutes on a large corpus): a run killed
  // while they are resumes from it, with what was computed kept, not only after Ctrl-C.
  if (saved_step_ < 0 && encoder_is_fixed(config_, model_)) save_last();
  bool stopped = false;
  if (auto cache = open_run_annotations(config_, model_, data_.train, group_, cb_, stopped)) step_->use_annotations(cache);
  if (!stopped) return true;
  state_.elapsed_s = elapsed();
  if (saved_step_ != state_.step) save_last();  // a resumed run goes on from here, its annotations where they stopped
  message("stopped while computing the annotations (those done are kept; the run can be resumed)");
  return false;
}

bool TrainingSession::pretrain() {
  pretraining_ = true;
  RunControl control{[this] { return poll(0) == Asked::Stop; }, [this] { save_last(); }, [this] { return elapsed(); },
                     [this](const NamedValue& bad) { nonfinite(bad, true); }};
  const bool done = RunPretraining(config_, model_, data_, device_, cb_)
                        .run(state_, pretrain_steps_, total_steps_, step_->precision(), *folder_, control);
  pretraining_ = false;
  return done;
}

bool TrainingSession::caption(TrainResult& result) {
  while (!result.interrupted) {
    const std::int64_t epoch = state_.step / steps_per_epoch_;
    if (state_.step > 0 && state_.step % steps_per_epoch_ == 0 && state_.validated_epochs < epoch) {
      state_.elapsed_s = elapsed();
      if (!validate(epoch - 1)) return false;  // the epoch that just ended
      state_.validated_epochs = epoch;
      if (!save_last()) return false;
      if (state_.stopped_early) break;
    }
    if (state_.step >= total_steps_ || state_.stopped_early) break;
    const auto asked = poll(epoch);
    if (asked == Asked::RolledBack) return false;
    if (asked == Asked::Stop) {
      state_.elapsed_s = elapsed();
      if (!save_last()) return false;
      result.interrupted = true;
      message("stopped at step " + std::to_string(state_.step) + " (last.ckpt written; the run can be resumed)");
      break;
    }
    if (!train_step(epoch)) return false;
    if (state_.step % kSampleEvery == 0) write_snapshot(epoch);
    // At an epoch's end the checkpoint follows its validation (top of the loop): one taken before
    // it would, resumed, validate that epoch again and log its val line twice.
    if (state_.step % kCheckpointEvery == 0 && state_.step % steps_per_epoch_ != 0) {
      state_.elapsed_s = elapsed();
      if (!save_last()) return false;
    }
  }
  // A run cut by max_steps mid-epoch still gets scored.
  if (!result.interrupted && state_.best_step != state_.step && state_.step % steps_per_epoch_ != 0) {
    state_.elapsed_s = elapsed();
    if (!validate(state_.step / steps_per_epoch_) || !save_last()) return false;
  }
  state_.elapsed_s = elapsed();
  return result.interrupted || save_last();
}

bool TrainingSession::train_step(std::int64_t epoch) {
  lr_ = captioning_lr(config_, epoch) * state_.lr_scale;
  const auto outcome = step_->optimize(step_->next_batch(epoch, state_.step), lr_);
  if (outcome.nonfinite) return nonfinite(*outcome.nonfinite, true);  // skipped, rolled back or throws
  guard_->step_was_finite();
  ++state_.step;
  if (const auto spike = guard_->watch_loss(outcome.terms.objective, state_.step, state_.lr_scale)) log_event(*spike, true);
  const double now = elapsed();
  meter_.count_step(outcome.terms.tokens, outcome.terms.objective, state_.step, total_steps_, now, paused_s_);
  report_progress(epoch, false);
  if (state_.step % kLogEvery != 0 && state_.step != 1) return true;
  const auto r = train_record(outcome, state_.step, epoch + 1, lr_, meter_.window_tokens_per_s(),
                              model_.config.attention == AttentionKind::Hard, now);
  folder_->append_metrics(to_json(r));
  if (cb_.on_record) cb_.on_record(r);
  meter_.restart_window();
  return true;
}

bool TrainingSession::validate(std::int64_t epoch) {
  if (writes_run()) {
    const auto v = validation_->validate(epoch, state_, cb_.on_message);
    if (v.improved) {
      if (!saveable(best_checkpoint_path(config_.out_dir))) return false;
      folder_->save_best(model_, to_json(state_, config_));
    }
    folder_->append_metrics(to_json(v));
    if (cb_.on_validation) cb_.on_validation(v);
  }
  share_first_process_state();
  return true;
}

void TrainingSession::write_snapshot(std::int64_t epoch) {
  if (writes_run() && validation_->sample_count() > 0) {
    auto record = validation_->snapshot(state_.step, epoch);
    folder_->append_samples(to_json(record));
    for (auto& p : record.image_paths) p = (fs::path(config_.out_dir) / p).string();
    if (cb_.on_samples) cb_.on_samples(record);
  }
  share_first_process_state();
}

TrainingSession::Asked TrainingSession::poll(std::int64_t epoch) {
  auto flags = [this] {
    std::pair<bool, bool> here{cb_.stop != nullptr && cb_.stop->load(), cb_.pause != nullptr && cb_.pause->load()};
    if (group_ == nullptr) return here;
    auto both = torch::tensor({here.first ? 1.0 : 0.0, here.second ? 1.0 : 0.0}, torch::kDouble);
    group_->all_reduce_sum(std::vector<torch::Tensor>{both});
    return std::pair<bool, bool>{both[0].item<double>() > 0.5, both[1].item<double>() > 0.5};
  };
  auto [stop, pause] = flags();
  while (pause && !stop) {
    state_.elapsed_s = elapsed();
    if (!save_last()) return Asked::RolledBack;
    message("paused at step " + std::to_string(state_.step) + " (checkpoint written)");
    report_progress(epoch, true);
    const auto paused_at = Clock::now();
    do {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      std::tie(stop, pause) = flags();
    } while (pause && !stop);
    paused_s_ += std::chrono::duration<double>(Clock::now() - paused_at).count();
    meter_.restart_window();
    if (!stop) message("resumed at step " + std::to_string(state_.step));
    std::tie(stop, pause) = flags();
  }
  return stop ? Asked::Stop : Asked::Go;
}

void TrainingSession::report_progress(std::int64_t epoch, bool paused) {
  if (!cb_.on_progress) return;
  TrainProgress p = meter_.last();
  p.step = state_.step;
  p.total_steps = total_steps_;
  p.epoch = epoch + 1;  // counted from 1, as every record and message counts them
  p.epochs = config_.epochs;
  p.paused = paused;
  cb_.on_progress(p);
}

void TrainingSession::share_first_process_state() {
  if (group_ == nullptr) return;
  const auto state = group_->broadcast(writes_run() ? to_json(state_, config_).dump() : std::string());
  if (!writes_run()) state_ = run_state_from_json(nlohmann::json::parse(state), kBaselineDecay);
  broadcast_buffers(group_, *model_.net);
}

bool TrainingSession::save_last() {
  // Checked in every process: their weights are the same, so all decide alike.
  if (!saveable(last_checkpoint_path(config_.out_dir))) return false;
  folder_->save_last(model_, step_->optimizer(), to_json(state_, config_));
  saved_step_ = state_.step;
  return true;
}

bool TrainingSession::saveable(const std::string& file) {
  const auto bad = nonfinite_training_state(*model_.net, step_->optimizer());
  return !bad || nonfinite({*bad, std::numeric_limits<double>::quiet_NaN()}, false, fs::path(file).filename().string());
}

bool TrainingSession::nonfinite(const NamedValue& bad, bool in_step, const std::string& unwritten) {
  NonFiniteContext at;
  at.in_step = in_step;
  at.unwritten = unwritten;
  at.pretraining = pretraining_;
  at.step = state_.step;
  at.pretrain_step = state_.pretrain_step;
  at.lr_scale = state_.lr_scale;
  at.rollbacks = state_.rollbacks;
  at.saved_step = saved_step_;
  at.checkpoint_on_disk = fs::exists(last_checkpoint_path(config_.out_dir));
  at.lr_at_saved_step = captioning_lr(config_, std::max<std::int64_t>(saved_step_, 0) / steps_per_epoch_);
  const auto d = guard_->decide(bad, at);
  switch (d.action) {
    case NonFiniteAction::Skip:
      ++state_.step;
      log_event(d.event, true);
      return true;
    case NonFiniteAction::RollBack: {
      const auto rollbacks = state_.rollbacks + 1;
      roll_back_to_last_checkpoint();
      state_.lr_scale = d.event.lr_scale;
      state_.rollbacks = rollbacks;
      log_event(d.event, true);
      save_last();  // the halved rate survives an interruption
      return false;
    }
    case NonFiniteAction::Stop:
      break;
  }
  log_event(d.event, false);  // the exception carries the message
  throw TrainingDiverged(d.event.message);
}

void TrainingSession::roll_back_to_last_checkpoint() {
  const auto ckpt = load_checkpoint(last_checkpoint_path(config_.out_dir), torch::kCPU);
  copy_matching_state(*model_.net, *ckpt.model.net);
  restore_training_state(ckpt, step_->optimizer(), device_);
  state_ = run_state_from_json(ckpt.training, kBaselineDecay);
  folder_->cut_logs_back(state_.step, state_.pretrain_step);
  step_->forget_epoch_order();  // the epoch's batch order is drawn again
  guard_->restart();
  meter_.restart_window();
}

void TrainingSession::log_event(const TrainEvent& e, bool say) {
  folder_->append_metrics(to_json(e));
  if (say) message(e.message);
  if (cb_.on_event) cb_.on_event(e);
}

TrainResult TrainingSession::run_pretraining_only(const std::string& encoder_out) {
  begin_run();
  TrainResult result;
  if (state_.pretrain_step < pretrain_steps_) {
    step_->settle_precision(0, state_.step, cb_.on_message);
    result.interrupted = !pretrain();
  }
  state_.elapsed_s = elapsed();
  fill_result(result);
  if (result.interrupted || !writes_run()) return result;
  const nlohmann::json pretraining = {
      {"steps", state_.pretrain_step},
      {"items", "single Fashion-MNIST training items"},
      {"batch", kPretrainBatch},
      {"peak_lr", kPretrainLr},
      {"held_out_accuracy", state_.pretrain_held_out_accuracy},
      {"seed", config_.seed},
      {"precision", state_.precision},
      {"elapsed_s", state_.elapsed_s}};
  save_encoder_file(encoder_out, model_, pretraining);
  message("encoder written to " + encoder_out + ": " + describe_backbone(encoder_out));
  return result;
}


}  // namespace fovea
