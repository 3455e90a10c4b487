#include "core/train/trainer.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/data/dataset_source.h"
#include "core/data/tokenizer.h"
#include "core/datasets/fashion_scenes.h"
#include "core/io/atomic_file.h"
#include "core/io/checkpoint.h"
#include "core/io/encoder_file.h"
#include "core/model/module_state.h"
#include "core/runtime/runtime.h"
#include "core/train/data_parallel.h"
#include "core/train/familiarity_calibration.h"
#include "core/train/fused_adam.h"
#include "core/train/model_card.h"
#include "core/train/run_state.h"
#include "core/train/training_session.h"

namespace fovea {

namespace fs = std::filesystem;
using Clock = TrainingSession::Clock;

TrainData make_train_data(const TrainConfig& c, const std::function<void(const std::string&)>& message) {
  TrainData d;
  if (!is_builtin_dataset(c.dataset)) {
    ImageCacheOptions cache;
    cache.image_size = int(c.model.image_size);
    d.train = open_dataset_split(c.dataset, c.images_dir, "train", cache, c.train_scenes, c.val_scenes, message);
    d.val = open_dataset_split(c.dataset, c.images_dir, "val", cache, c.val_scenes, c.val_scenes, message);
    return d;
  }
  auto opts = c.scenes;
  opts.image_size = int(c.model.image_size);
  d.train = std::make_shared<FashionScenes>("train", c.train_scenes, opts);
  d.val = std::make_shared<FashionScenes>("val", c.val_scenes, opts);
  return d;
}

TrainingSession::TrainingSession(TrainConfig config, const TrainCallbacks& cb, TrainData data)
    : config_(std::move(config)), cb_(cb), data_(std::move(data)) {
  group_ = data_.group.get();
  batch_shard(config_.batch_size, group_);  // throws when the batch does not divide among the processes
  if (!data_.train || !data_.val) {
    // A dataset on disk: the first process of each machine fills the image cache, then the
    // others open it.
    const bool first_here = group_ == nullptr || group_->environment().local_rank == 0;
    auto group = data_.group;
    if (first_here) data_ = make_train_data(config_, cb_.on_message);
    if (group_ != nullptr) group_->barrier();
    if (!first_here) data_ = make_train_data(config_, {});
    data_.group = group;
  }
  device_ = resolve_device(config_.device);
  if (group_ != nullptr && device_.is_cuda() && !device_.has_index()) {  // one GPU a process, by LOCAL_RANK
    const auto gpus = std::max<std::int64_t>(1, std::int64_t(torch::cuda::device_count()));
    device_ = torch::Device(torch::kCUDA, torch::DeviceIndex(group_->environment().local_rank % gpus));
  }
  // auto on a CPU with bf16 products: settle_precision() times both when the run starts. Elsewhere
  // fp32: emulated bf16 is slower, and oneDNN capped below its bf16 kernels refuses some outright.
  if (config_.precision != "auto" || !device_.is_cpu() || !cpu_has_native_bf16()) {
    precision_ = resolve_precision(config_.precision, device_);
  }
  configure_threads(0);
  steps_per_epoch_ = std::int64_t(data_.train->size()) / config_.batch_size;
  if (steps_per_epoch_ < 1) {
    throw std::invalid_argument("the training split has " + std::to_string(data_.train->size()) +
                                " images, fewer than one batch (" + std::to_string(config_.batch_size) + ")");
  }
  plan_steps();
  state_.baseline.decay = config_.baseline_decay;
}

void TrainingSession::plan_steps() {
  const auto plan = plan_run(config_, steps_per_epoch_, state_.step, state_.pretrain_step);
  total_steps_ = plan.captioning_steps;
  pretrain_steps_ = plan.pretrain_steps;
}

void TrainingSession::start_new() {
  torch::manual_seed(config_.seed);
  message("building the vocabulary from " + data_.train->describe());
  std::vector<std::vector<std::string>> captions;
  for (std::size_t i = 0; i < data_.train->size(); ++i) {
    for (const auto& c : data_.train->get(i).captions) captions.push_back(tokenize(c));
  }
  auto vocab = Vocabulary::build(captions, config_.min_count);
  std::optional<LoadedCheckpoint> source;
  if (!config_.init_from.empty()) source = load_checkpoint(config_.init_from);
  const bool encoder_file = !config_.backbone.empty() && is_encoder_file(config_.backbone);
  config_.model.backbone_path = encoder_file ? std::string() : config_.backbone;
  model_ = CaptionModel::create(config_.model, std::move(vocab), device_);
  config_.model = model_.config;
  if (source) {
    initialise_from(*source);
  } else if (!config_.backbone.empty()) {
    if (encoder_file) load_encoder_file(config_.backbone, model_);
    message("encoder: " + describe_backbone(config_.backbone));
  }
  if (config_.pretrain_steps > 0 && !pretrains_encoder(config_)) {
    message("encoder pretraining skipped: it needs the built-in scenes and Fovea's own encoder");
  }
  broadcast_weights(group_, *model_.net, model_.net->trainable_parameters());  // every replica starts from the first's
  make_optimizer();
  if (writes_run()) {
    fs::create_directories(config_.out_dir);
    std::ofstream(metrics_path(config_.out_dir), std::ios::trunc);
    std::ofstream(samples_path(config_.out_dir), std::ios::trunc);
    write_file_atomically(config_path(config_.out_dir), fovea::to_json(config_).dump(2) + "\n");
    write_sample_images();
  }
  message("model: " + std::to_string(model_.vocab.size()) + " words, " + std::to_string(parameter_count()) +
          " parameters, grid " + std::to_string(model_.config.grid_h) + "x" + std::to_string(model_.config.grid_w) +
          "x" + std::to_string(model_.config.annotation_dim) + "; " + describe_runtime(device_) + ", " +
          describe_precision() + describe_processes());
}

void TrainingSession::start_resumed(LoadedCheckpoint ckpt) {
  model_ = std::move(ckpt.model);
  config_.model = model_.config;  // the architecture the checkpoint was built with
  model_.device = device_;
  model_.net->to(device_);
  model_.net->encoder->to_device(device_);
  broadcast_weights(group_, *model_.net, model_.net->trainable_parameters());
  make_optimizer();
  restore_training_state(ckpt, *optimizer_, device_);
  state_ = run_state_from_json(ckpt.training, config_.baseline_decay);
  plan_steps();  // with the steps already taken
  saved_step_ = state_.step;
  if (writes_run()) {
    for (const auto& name : remove_unfinished_writes(config_.out_dir)) {
      message("removed " + name + ", a file the interrupted run did not finish writing");
    }
    truncate_metrics(metrics_path(config_.out_dir), state_.step, state_.pretrain_step);
    truncate_metrics(samples_path(config_.out_dir), state_.step, state_.pretrain_step);
    write_file_atomically(config_path(config_.out_dir), fovea::to_json(config_).dump(2) + "\n");
    write_sample_images();
  }
  const bool pretraining = state_.step == 0 && pretrain_steps_ > 0;
  message("resuming " + (pretraining ? "the encoder pretraining at step " + std::to_string(state_.pretrain_step) + " of " +
                                           std::to_string(pretrain_steps_)
                                     : "at step " + std::to_string(state_.step) + " of " + std::to_string(total_steps_)) +
          "; " + describe_runtime(device_) + ", " + describe_precision() + describe_processes());
}

std::function<double()> TrainingSession::begin_run() {
  if (writes_run()) {  // the other processes of a group leave both closed
    metrics_.open(metrics_path(config_.out_dir), std::ios::app);
    samples_.open(samples_path(config_.out_dir), std::ios::app);
  }
  if (group_ != nullptr && group_->rank() > 0) {
    // Dropout masks and glimpses: each process draws its own, not the first's again.
    torch::manual_seed(config_.seed + 0x9E3779B97F4A7C15ULL * std::uint64_t(group_->rank()) + std::uint64_t(state_.step));
  }
  const auto started = Clock::now();
  const double elapsed_before = state_.elapsed_s;
  paused_s_ = 0;
  window_start_ = Clock::now();
  return [this, started, elapsed_before] {
    return elapsed_before + std::chrono::duration<double>(Clock::now() - started).count() - paused_s_;
  };
}

void TrainingSession::fill_result(TrainResult& result) const {
  result.steps = state_.step;
  result.epochs_completed = state_.validated_epochs;
  result.best_bleu4 = std::max(0.0, state_.best_bleu4);
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
  const auto elapsed = begin_run();
  TrainResult result;
  if (state_.step == 0 && state_.pretrain_step < pretrain_steps_) {
    settle_precision();  // with the whole encoder training, as the pretraining does
    result.interrupted = !pretrain_encoder(elapsed);
  }
  broadcast_weights(group_, *model_.net, model_.net->trainable_parameters());
  if (const auto frozen = frozen_encoder_blocks(config_); frozen > 0 && !result.interrupted) {
    model_.net->encoder->freeze_blocks(frozen);
    message("encoder: its first " + std::to_string(frozen) + " blocks keep their weights, the top " +
            std::to_string(model_.net->encoder->blocks() - frozen) + " train");
  }
  if (!result.interrupted) settle_precision();
  window_start_ = Clock::now();  // the first captioning window starts after the pretraining
  bool starting = state_.step == 0;
  while (!result.interrupted) {
    try {
      if (starting) {
        starting = false;
        if (writes_run()) write_samples(0);
        share_first_process_state();
        state_.elapsed_s = elapsed();
        save_last();  // a checkpoint before the first step: what a stop or a rollback at any step can go back to
      }
      caption(result, elapsed);
      break;
    } catch (const RolledBack&) {
      // state_ is the last checkpoint's, with the learning rate halved: go on from there
    }
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
      store_familiarity(result.best_checkpoint, *data_.train, *data_.val);
    }
  }
  if (!result.interrupted) write_model_card(config_, model_, describe_training_scenes(), data_.val->describe(), result);
  return result;
}

void TrainingSession::caption(TrainResult& result, const std::function<double()>& elapsed) {
  while (!result.interrupted) {
    const std::int64_t epoch = state_.step / steps_per_epoch_;
    if (state_.step > 0 && state_.step % steps_per_epoch_ == 0 && state_.validated_epochs < epoch) {
      state_.elapsed_s = elapsed();
      if (writes_run()) validate(epoch - 1);  // the epoch that just ended
      share_first_process_state();
      state_.validated_epochs = epoch;
      save_last();
      if (state_.stopped_early) break;
    }
    if (state_.step >= total_steps_ || state_.stopped_early) break;
    const auto asked = flags();
    if (asked.pause && !asked.stop) {
      state_.elapsed_s = elapsed();
      wait_while_paused(epoch);
      continue;
    }
    if (asked.stop) {
      state_.elapsed_s = elapsed();
      save_last();
      result.interrupted = true;
      message("stopped at step " + std::to_string(state_.step) + " (last.ckpt written; the run can be resumed)");
      break;
    }
    train_step(epoch, elapsed);
    if (state_.step % kSampleEvery == 0) {
      if (writes_run()) write_samples(epoch);
      share_first_process_state();
    }
    if (state_.step % kCheckpointEvery == 0) {
      state_.elapsed_s = elapsed();
      save_last();
    }
  }
  // A run cut by max_steps mid-epoch still gets scored.
  if (!result.interrupted && state_.best_step != state_.step && state_.step % steps_per_epoch_ != 0) {
    state_.elapsed_s = elapsed();
    if (writes_run()) validate(state_.step / steps_per_epoch_);
    share_first_process_state();
    save_last();
  }
  state_.elapsed_s = elapsed();
  if (!result.interrupted) save_last();
}

void TrainingSession::message(const std::string& m) const {
  if (cb_.on_message) cb_.on_message(m);
}

TrainingSession::Flags TrainingSession::flags() {
  Flags here{cb_.stop != nullptr && cb_.stop->load(), cb_.pause != nullptr && cb_.pause->load()};
  if (group_ == nullptr) return here;
  auto both = torch::tensor({here.stop ? 1.0 : 0.0, here.pause ? 1.0 : 0.0}, torch::kDouble);
  group_->all_reduce_sum(std::vector<torch::Tensor>{both});
  return {both[0].item<double>() > 0.5, both[1].item<double>() > 0.5};
}

void TrainingSession::share_first_process_state() {
  if (group_ == nullptr) return;
  const auto state = group_->broadcast(writes_run() ? to_json(state_, config_).dump() : std::string());
  if (!writes_run()) state_ = run_state_from_json(nlohmann::json::parse(state), config_.baseline_decay);
  broadcast_buffers(group_, *model_.net);
}

std::string TrainingSession::describe_processes() const {
  if (group_ == nullptr) return "";
  return "; " + std::to_string(group_->size()) + " processes, " + std::to_string(batch_shard(config_.batch_size, group_).size) +
         " images each a step";
}

void TrainingSession::initialise_from(const LoadedCheckpoint& source) {
  const auto& path = source.path;
  if (source.model.vocab.words() != model_.vocab.words()) {
    throw std::runtime_error(path + ": its vocabulary differs from the one built from this run's training data");
  }
  auto a = to_json(source.model.config), b = to_json(model_.config);
  a.erase("attention"), b.erase("attention");
  if (a != b) {
    throw std::runtime_error(path + ": its architecture differs from this run's (" + a.dump() + " vs " + b.dump() + ")");
  }
  copy_matching_state(*model_.net, *source.model.net);
  message("initialised from " + path);
}

void TrainingSession::wait_while_paused(std::int64_t epoch) {
  save_last();
  message("paused at step " + std::to_string(state_.step) + " (checkpoint written)");
  report_progress(epoch, true);
  const auto paused_at = Clock::now();
  Flags asked = flags();
  while (asked.pause && !asked.stop) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    asked = flags();
  }
  paused_s_ += std::chrono::duration<double>(Clock::now() - paused_at).count();
  window_start_ = Clock::now();
  window_tokens_ = 0;
  window_loss_ = 0;
  window_steps_ = 0;
  if (!asked.stop) message("resumed at step " + std::to_string(state_.step));
}

void TrainingSession::report_progress(std::int64_t epoch, bool paused) {
  if (!cb_.on_progress) return;
  TrainProgress p = progress_;
  p.step = state_.step;
  p.total_steps = total_steps_;
  p.epoch = epoch;
  p.epochs = config_.epochs;
  p.paused = paused;
  cb_.on_progress(p);
}

std::string TrainingSession::describe_precision() const {
  if (config_.precision != "auto") return "precision " + precision_;
  if (!device_.is_cpu()) return "precision fp32 (auto)";
  if (!cpu_has_native_bf16()) return "precision fp32 (auto: this CPU has no bf16 products)";
  const auto& chosen = precision_.empty() ? state_.precision : precision_;
  if (!chosen.empty()) return "precision " + chosen + " (auto, as chosen when the run started)";
  return "precision auto (the faster of fp32 and bf16 here, timed before the first step)";
}

std::string TrainingSession::describe_training_scenes() const {
  const auto* scenes = dynamic_cast<const FashionScenes*>(data_.train.get());
  const bool fresh = scenes != nullptr && scenes->options().fresh_every_epoch;
  return data_.train->describe() +
         (fresh ? "; new scenes every epoch (epoch e: seed " + std::to_string(config_.scenes.seed) + " + e)" : "");
}

std::int64_t TrainingSession::parameter_count() {
  std::int64_t n = 0;
  for (auto& p : model_.net->trainable_parameters()) n += p.numel();
  return n;
}

void TrainingSession::make_optimizer() {
  optimizer_ = std::make_unique<FusedAdam>(model_.net->trainable_parameters(), torch::optim::AdamOptions(config_.lr));
}

void TrainingSession::save_last() {
  check_saveable(last_checkpoint_path(config_.out_dir));  // in every process: their weights are the same
  if (writes_run()) {
    SaveOptions full;
    full.optimizer = optimizer_.get();
    full.training = to_json(state_, config_);
    save_checkpoint(last_checkpoint_path(config_.out_dir), model_, full);
  }
  saved_step_ = state_.step;
}

TrainResult train(const TrainConfig& config, const TrainCallbacks& callbacks, TrainData data) {
  config.validate();
  if (fs::exists(last_checkpoint_path(config.out_dir))) {
    throw std::runtime_error(config.out_dir + ": already holds a run (last.ckpt); resume it (fovea train --resume " +
                             config.out_dir + ", or Resume in fovea-studio's run list) or choose another folder");
  }
  // Every process has looked before the first one writes its first checkpoint.
  if (data.group) data.group->barrier();
  TrainingSession session(config, callbacks, std::move(data));
  session.start_new();
  return session.run();
}

TrainResult pretrain_encoder_to_file(const TrainConfig& config, const std::string& encoder_out,
                                     const TrainCallbacks& callbacks, TrainData data) {
  if (!pretrains_encoder(config)) {
    throw std::invalid_argument("pretraining an encoder needs the built-in scenes, Fovea's own CNN and steps > 0");
  }
  config.validate();
  const auto path = last_checkpoint_path(config.out_dir);
  if (!fs::exists(path)) {
    TrainingSession session(config, callbacks, std::move(data));
    session.start_new();
    return session.run_pretraining_only(encoder_out);
  }
  // Goes on with the run folder's pretraining, to the steps asked for now.
  TrainConfig stored;
  std::int64_t captioning_steps = 0;
  try {
    const auto training = read_checkpoint_header(path).at("training");
    stored = train_config_from_json(training.at("config"));
    captioning_steps = training.value("step", std::int64_t(0));
  } catch (const std::exception& e) {
    throw CheckpointError(path + ": bad training state: " + e.what());
  }
  if (captioning_steps > 0) {
    throw std::invalid_argument(config.out_dir + ": holds a captioning run (step " + std::to_string(captioning_steps) +
                                "), not an encoder pretraining: choose another run folder");
  }
  stored.out_dir = config.out_dir;
  stored.pretrain_steps = config.pretrain_steps;
  stored.max_steps = 0;
  TrainingSession session(stored, callbacks, std::move(data));
  session.start_resumed(load_checkpoint(path, torch::kCPU));
  return session.run_pretraining_only(encoder_out);
}

TrainResult resume_training(const std::string& run_dir, const TrainCallbacks& callbacks, TrainData data,
                            std::int64_t epochs, std::int64_t max_steps) {
  const auto path = last_checkpoint_path(run_dir);
  if (!fs::exists(path)) throw std::runtime_error(run_dir + ": no last.ckpt to resume from (is this a run folder?)");
  auto header = read_checkpoint_header(path);
  if (!header.contains("training") || header["training"].is_null()) {
    throw CheckpointError(path + ": holds weights only, no training state to resume from");
  }
  TrainConfig config;
  try {
    config = train_config_from_json(header["training"].at("config"));
  } catch (const std::exception& e) {
    throw CheckpointError(path + ": bad training state: " + e.what());
  }
  config.out_dir = run_dir;
  if (epochs > 0) config.epochs = epochs;
  if (max_steps > 0) config.max_steps = max_steps;
  TrainingSession session(config, callbacks, std::move(data));
  session.start_resumed(load_checkpoint(path, torch::kCPU));
  return session.run();
}

}  // namespace fovea
