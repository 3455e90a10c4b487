#include "core/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <thread>

#include "core/atomic_file.h"
#include "core/batch_norm_calibration.h"
#include "core/decoder_pass.h"
#include "core/batching.h"
#include "core/bleu.h"
#include "core/caption_metrics.h"
#include "core/checkpoint.h"
#include "core/dataset_source.h"
#include "core/decoding.h"
#include "core/encoder_pretraining.h"
#include "core/fashion_scenes.h"
#include "core/grounding.h"
#include "core/image_tensor.h"
#include "core/model_card.h"
#include "core/objectives.h"
#include "core/png_encoder.h"
#include "core/run_state.h"
#include "core/runtime.h"
#include "core/scene_evaluation.h"
#include "core/tokenizer.h"

namespace fovea {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

/// Training batches the encoder's batch-norm statistics are recomputed on before each validation
/// and caption snapshot: 10, 50 and 200 gave the same validation scores.
constexpr std::size_t kCalibrationBatches = 10;
/// Single validation items the pretrained class head is scored on: as many as the built-in
/// validation split has (half of Fashion-MNIST's 10000 test items), ±0.3 points near 95%.
constexpr std::size_t kHeldOutItems = 5000;

TrainData make_train_data(const TrainConfig& c, const std::function<void(const std::string&)>& message) {
  TrainData d;
  if (!is_builtin_dataset(c.dataset)) {
    ImageCacheOptions cache;
    cache.image_size = int(c.model.image_size);
    cache.skip_bad_images = c.skip_bad_images;
    cache.cache_dir = c.cache_dir;
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

namespace {

/// The scenes epoch `epoch` trains on: `train` itself, or with fresh_scenes on the built-in
/// dataset as many new ones, drawn from the same items with data seed + epoch.
std::shared_ptr<const SceneSource> scenes_of_epoch(const TrainConfig& c, const std::shared_ptr<const SceneSource>& train,
                                                   std::int64_t epoch) {
  const auto* scenes = dynamic_cast<const FashionScenes*>(train.get());
  if (!c.fresh_scenes || scenes == nullptr || epoch == 0) return train;
  auto opts = scenes->options();
  opts.seed += std::uint64_t(epoch);
  return std::make_shared<FashionScenes>("train", scenes->size(), scenes->items(), opts);
}

class TrainingSession {
 public:
  TrainingSession(TrainConfig config, const TrainCallbacks& cb, TrainData data)
      : config_(std::move(config)), cb_(cb), data_(std::move(data)) {
    if (!data_.train || !data_.val) data_ = make_train_data(config_, cb_.on_message);
    device_ = resolve_device(config_.device);
    precision_ = resolve_precision(config_.precision, device_);
    configure_threads(config_.threads);
    steps_per_epoch_ = std::int64_t(data_.train->size()) / config_.batch_size;
    total_steps_ = steps_per_epoch_ * config_.epochs;
    if (config_.max_steps > 0) total_steps_ = std::min(total_steps_, config_.max_steps);
    state_.baseline.decay = config_.baseline_decay;
    make_item_canvases();
    freezes_bn_stats_ = config_.freeze_bn_stats && config_.model.backbone_path.empty() &&
                        (pretrains_encoder(config_) || !config_.init_from.empty());
  }

  void start_new() {
    torch::manual_seed(config_.seed);
    message("building the vocabulary from " + data_.train->describe());
    std::vector<std::vector<std::string>> captions;
    for (std::size_t i = 0; i < data_.train->size(); ++i) {
      for (const auto& c : data_.train->get(i).captions) captions.push_back(tokenize(c));
    }
    auto vocab = Vocabulary::build(captions, config_.min_count);
    model_ = CaptionModel::create(config_.model, std::move(vocab), device_);
    config_.model = model_.config;
    if (!config_.init_from.empty()) initialise_from(config_.init_from);
    if (config_.pretrain_steps > 0 && !pretrains_encoder(config_)) {
      message("encoder pretraining skipped: it needs the built-in scenes and Fovea's own encoder, untrained");
      state_.pretrain_step = config_.pretrain_steps;
    }
    if (config_.freeze_bn_stats && !freezes_bn_stats_) {
      message("batch-norm statistics not frozen: the encoder is neither pretrained nor initialised from a model");
    }
    make_optimizer();
    fs::create_directories(config_.out_dir);
    std::ofstream(metrics_path(config_.out_dir), std::ios::trunc);
    std::ofstream(samples_path(config_.out_dir), std::ios::trunc);
    write_file_atomically(config_path(config_.out_dir), fovea::to_json(config_).dump(2) + "\n");
    write_sample_images();
    message("model: " + std::to_string(model_.vocab.size()) + " words, " + std::to_string(parameter_count()) +
            " parameters, grid " + std::to_string(model_.config.grid_h) + "x" + std::to_string(model_.config.grid_w) +
            "x" + std::to_string(model_.config.annotation_dim) + "; " + describe_runtime(device_) + ", " +
            describe_precision());
  }

  void start_resumed(LoadedCheckpoint ckpt) {
    model_ = std::move(ckpt.model);
    model_.device = device_;
    model_.net->to(device_);
    model_.net->encoder->to_device(device_);
    make_optimizer();
    restore_training_state(ckpt, *optimizer_, device_);
    state_ = run_state_from_json(ckpt.training, config_.baseline_decay);
    truncate_metrics(metrics_path(config_.out_dir), state_.step, state_.pretrain_step);
    truncate_metrics(samples_path(config_.out_dir), state_.step, state_.pretrain_step);
    write_file_atomically(config_path(config_.out_dir), fovea::to_json(config_).dump(2) + "\n");
    write_sample_images();
    message("resuming at step " + std::to_string(state_.step) + " of " + std::to_string(total_steps_) + "; " +
            describe_runtime(device_) + ", " + describe_precision());
  }

  TrainResult run() {
    metrics_.open(metrics_path(config_.out_dir), std::ios::app);
    samples_.open(samples_path(config_.out_dir), std::ios::app);
    const auto started = Clock::now();
    const double elapsed_before = state_.elapsed_s;
    paused_s_ = 0;
    auto elapsed = [&] {
      return elapsed_before + std::chrono::duration<double>(Clock::now() - started).count() - paused_s_;
    };
    TrainResult result;
    window_start_ = Clock::now();
    if (state_.step == 0 && state_.pretrain_step < config_.pretrain_steps && !pretrain_encoder(elapsed)) {
      result.interrupted = true;
    }
    if (state_.step == 0 && !result.interrupted) write_samples(0);
    while (!result.interrupted) {
      const std::int64_t epoch = state_.step / steps_per_epoch_;
      if (state_.step > 0 && state_.step % steps_per_epoch_ == 0 && state_.validated_epochs < epoch) {
        state_.elapsed_s = elapsed();
        validate(epoch - 1);  // the epoch that just ended
        state_.validated_epochs = epoch;
        save_last();
        if (state_.stopped_early) break;
      }
      if (state_.step >= total_steps_ || state_.stopped_early) break;
      if (cb_.pause && cb_.pause->load()) {
        state_.elapsed_s = elapsed();
        wait_while_paused(epoch);
        continue;
      }
      if (cb_.stop && cb_.stop->load()) {
        state_.elapsed_s = elapsed();
        save_last();
        result.interrupted = true;
        message("stopped at step " + std::to_string(state_.step) + "; resume with --resume " + config_.out_dir);
        break;
      }
      train_step(epoch, elapsed);
      if (config_.sample_every > 0 && state_.step % config_.sample_every == 0) write_samples(epoch);
      if (state_.step % config_.checkpoint_every == 0) {
        state_.elapsed_s = elapsed();
        save_last();
      }
    }
    // A run cut by max_steps mid-epoch still gets scored.
    if (!result.interrupted && state_.best_step != state_.step && state_.step % steps_per_epoch_ != 0) {
      state_.elapsed_s = elapsed();
      validate(state_.step / steps_per_epoch_);
      save_last();
    }
    state_.elapsed_s = elapsed();
    if (!result.interrupted) save_last();
    result.steps = state_.step;
    result.epochs_completed = state_.validated_epochs;
    result.best_bleu4 = std::max(0.0, state_.best_bleu4);
    result.best_step = state_.best_step;
    result.stopped_early = state_.stopped_early;
    result.elapsed_s = state_.elapsed_s;
    result.pretrain_held_out_accuracy = state_.pretrain_held_out_accuracy;
    result.last_checkpoint = last_checkpoint_path(config_.out_dir);
    result.best_checkpoint = best_checkpoint_path(config_.out_dir);
    if (!result.interrupted) write_model_card(config_, model_, describe_training_scenes(), data_.val->describe(), result);
    return result;
  }

 private:
  void message(const std::string& m) const {
    if (cb_.on_message) cb_.on_message(m);
  }

  /// Copies the weights of another checkpoint with the same architecture and vocabulary.
  void initialise_from(const std::string& path) {
    auto source = load_checkpoint(path);
    if (source.model.vocab.words() != model_.vocab.words()) {
      throw std::runtime_error(path + ": its vocabulary differs from the one built from this run's training data");
    }
    auto a = to_json(source.model.config), b = to_json(model_.config);
    a.erase("attention"), b.erase("attention");
    if (a != b) {
      throw std::runtime_error(path + ": its architecture differs from this run's (" + a.dump() + " vs " + b.dump() + ")");
    }
    torch::NoGradGuard no_grad;
    auto src_params = source.model.net->named_parameters();
    auto src_buffers = source.model.net->named_buffers();
    for (auto& p : model_.net->named_parameters()) p.value().copy_(src_params[p.key()]);
    for (auto& b2 : model_.net->named_buffers()) b2.value().copy_(src_buffers[b2.key()]);
    message("initialised from " + path);
  }

  /// Writes a checkpoint, then waits until the pause flag clears or stop is set.
  void wait_while_paused(std::int64_t epoch) {
    save_last();
    message("paused at step " + std::to_string(state_.step) + " (checkpoint written)");
    report_progress(epoch, true);
    const auto paused_at = Clock::now();
    while (cb_.pause->load() && !(cb_.stop && cb_.stop->load())) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    paused_s_ += std::chrono::duration<double>(Clock::now() - paused_at).count();
    window_start_ = Clock::now();
    window_tokens_ = 0;
    window_loss_ = 0;
    window_steps_ = 0;
    if (!(cb_.stop && cb_.stop->load())) message("resumed at step " + std::to_string(state_.step));
  }

  void report_progress(std::int64_t epoch, bool paused) {
    if (!cb_.on_progress) return;
    TrainProgress p = progress_;
    p.step = state_.step;
    p.total_steps = total_steps_;
    p.epoch = epoch;
    p.epochs = config_.epochs;
    p.paused = paused;
    cb_.on_progress(p);
  }

  std::size_t sample_count() const { return std::min<std::size_t>(std::size_t(config_.sample_count), data_.val->size()); }

  std::string sample_image_name(std::size_t k) const { return "samples/val_" + std::to_string(k) + ".png"; }

  /// The fixed validation images the snapshots caption, as PNG files in the run folder.
  void write_sample_images() {
    if (config_.sample_every <= 0 || sample_count() == 0) return;
    fs::create_directories(fs::path(config_.out_dir) / "samples");
    for (std::size_t k = 0; k < sample_count(); ++k) {
      const auto path = (fs::path(config_.out_dir) / sample_image_name(k)).string();
      if (fs::exists(path)) continue;
      const auto png = encode_png(data_.val->get(k).image);
      write_file_atomically(path, std::string(png.begin(), png.end()));
    }
  }

  std::string describe_precision() const {
    return "precision " + precision_ + (config_.precision == "auto" ? " (auto)" : "");
  }

  /// Recomputes the encoder's batch-norm statistics with the current weights on the first
  /// training scenes (core/batch_norm_calibration.h): the running averages lag behind the weights
  /// while the learning rate is high. A TorchScript backbone keeps its own statistics.
  void calibrate_batch_norm() {
    if (model_.net->encoder->has_backbone() || freezes_bn_stats_) return;
    const std::size_t per = std::size_t(config_.batch_size);
    const std::size_t n = std::min(data_.train->size(), kCalibrationBatches * per);
    recalibrate_batch_norm(*model_.net->encoder, int((n + per - 1) / per), [&](int b) {
      std::vector<Scene> scenes;
      for (std::size_t i = std::size_t(b) * per; i < std::min(n, std::size_t(b + 1) * per); ++i) {
        scenes.push_back(data_.train->get(i));
      }
      std::vector<const RgbImage*> images;
      for (const auto& sc : scenes) images.push_back(&sc.image);
      model_.net->encode(images_to_tensor(images, model_.config.image_size).to(device_));
    });
  }

  /// Greedy captions (expected α) of `images` with the current weights: validation and snapshots.
  std::vector<CaptionResult> caption_greedy(const std::vector<RgbImage>& images) {
    std::vector<const RgbImage*> ptrs;
    for (const auto& im : images) ptrs.push_back(&im);
    DecodeOptions opts;
    opts.beam = 1;
    std::vector<CaptionResult> out;
    for (const auto& d : decode_images(*model_.net, images_to_tensor(ptrs, model_.config.image_size).to(device_), opts)) {
      out.push_back(to_caption_result(d, model_));
    }
    return out;
  }

  /// Captions the fixed validation images with the current weights (greedy, expected α).
  void write_samples(std::int64_t epoch) {
    if (config_.sample_every <= 0 || sample_count() == 0) return;
    calibrate_batch_norm();
    std::vector<RgbImage> images;
    for (std::size_t k = 0; k < sample_count(); ++k) images.push_back(data_.val->get(k).image);
    SampleRecord record;
    record.step = state_.step;
    record.epoch = epoch;
    record.captions = caption_greedy(images);
    for (std::size_t k = 0; k < record.captions.size(); ++k) record.image_paths.push_back(sample_image_name(k));
    samples_ << fovea::to_json(record).dump() << "\n" << std::flush;
    for (auto& p : record.image_paths) p = (fs::path(config_.out_dir) / p).string();
    if (cb_.on_samples) cb_.on_samples(record);
  }

  std::int64_t parameter_count() {
    std::int64_t n = 0;
    for (auto& p : model_.net->trainable_parameters()) n += p.numel();
    return n;
  }

  /// make_optimizer()'s param group of the encoder when --encoder-lr-scale is not 1 (one group otherwise).
  static constexpr std::size_t kEncoderGroup = 1;

  void make_optimizer() {
    if (config_.encoder_lr_scale == 1.0) {
      optimizer_ = std::make_unique<torch::optim::Adam>(model_.net->trainable_parameters(),
                                                        torch::optim::AdamOptions(config_.lr));
      return;
    }
    // Two groups: everything but the encoder, then (kEncoderGroup) the encoder at its scaled rate.
    std::vector<torch::Tensor> rest, encoder;
    for (auto& p : model_.net->encoder->parameters()) {
      if (p.requires_grad()) encoder.push_back(p);
    }
    for (auto& [name, p] : model_.net->encoder->backbone_parameters()) {
      if (p.requires_grad()) encoder.push_back(p);
    }
    for (auto& p : model_.net->trainable_parameters()) {
      if (std::none_of(encoder.begin(), encoder.end(), [&](const torch::Tensor& e) { return e.is_same(p); })) {
        rest.push_back(p);
      }
    }
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(rest);
    groups.emplace_back(encoder, std::make_unique<torch::optim::AdamOptions>(config_.lr * config_.encoder_lr_scale));
    optimizer_ = std::make_unique<torch::optim::Adam>(std::move(groups), torch::optim::AdamOptions(config_.lr));
  }

  /// Encoder pretraining on single items (core/encoder_pretraining.h), resumable at any
  /// checkpoint. Returns false when stopped.
  bool pretrain_encoder(const std::function<double()>& elapsed) {
    const auto* scenes = dynamic_cast<const FashionScenes*>(data_.train.get());
    if (scenes == nullptr) {  // training data handed in by the caller, not the built-in scenes
      message("encoder pretraining skipped: it needs the built-in scenes");
      state_.pretrain_step = config_.pretrain_steps;
      return true;
    }
    PretrainingOptions options;
    options.steps = config_.pretrain_steps;
    options.batch = config_.pretrain_batch;
    options.lr = config_.pretrain_lr;
    options.weight_decay = config_.pretrain_weight_decay;
    options.optimizer = config_.pretrain_optimizer;
    options.label_smoothing = config_.pretrain_label_smoothing;
    EncoderPretraining pretraining(model_.net, model_.vocab, *scenes, options, device_, precision_ == "bf16", config_.seed);
    message("pretraining the encoder: " + pretraining.describe());
    double loss = 0, accuracy = 0;
    std::int64_t window = 0;
    auto window_start = Clock::now();
    while (state_.pretrain_step < config_.pretrain_steps) {
      if (cb_.pause && cb_.pause->load()) {
        state_.elapsed_s = elapsed();
        wait_while_paused(0);
        continue;
      }
      if (cb_.stop && cb_.stop->load()) {
        state_.elapsed_s = elapsed();
        save_last();
        message("stopped while pretraining the encoder; resume with --resume " + config_.out_dir);
        return false;
      }
      const auto r = pretraining.step(state_.pretrain_step++);
      loss += r.loss, accuracy += r.accuracy, ++window;
      const double per_step = std::chrono::duration<double>(Clock::now() - window_start).count() / double(window);
      if (cb_.on_progress) {
        TrainProgress p;
        p.total_steps = total_steps_;
        p.epochs = config_.epochs;
        p.pretrain_step = state_.pretrain_step;
        p.pretrain_steps = config_.pretrain_steps;
        p.loss = loss / double(window);
        p.item_accuracy = accuracy / double(window);
        p.elapsed_s = elapsed();
        p.eta_s = per_step * double(config_.pretrain_steps - state_.pretrain_step);
        cb_.on_progress(p);
      }
      const bool last = state_.pretrain_step == config_.pretrain_steps;
      if (state_.pretrain_step % config_.log_every == 0 || last) {
        PretrainRecord record;
        record.pretrain_step = state_.pretrain_step;
        record.pretrain_steps = config_.pretrain_steps;
        record.loss = loss / double(window);
        record.item_accuracy = accuracy / double(window);
        record.lr = r.lr;
        record.elapsed_s = elapsed();
        if (last) record.held_out_accuracy = state_.pretrain_held_out_accuracy = score_held_out_items(pretraining);
        metrics_ << to_json(record).dump() << "\n" << std::flush;
        if (cb_.on_pretrain_record) cb_.on_pretrain_record(record);
        if (state_.pretrain_step % (10 * config_.log_every) == 0 || last) {
          message("pretraining the encoder: step " + std::to_string(state_.pretrain_step) + "/" +
                  std::to_string(config_.pretrain_steps) + ", items named right " +
                  std::to_string(int(std::lround(100 * accuracy / double(window)))) + "%");
        }
        loss = accuracy = 0, window = 0;
        window_start = Clock::now();
      }
      if (state_.pretrain_step % config_.checkpoint_every == 0 || last) {
        state_.elapsed_s = elapsed();
        save_last();
      }
    }
    return true;
  }

  /// TrainConfig::item_weight: the single-item canvases the captioning steps name, the items after
  /// the pretraining's (step k names item_batch of them from item_canvases_begin_ + k item_batch).
  void make_item_canvases() {
    const auto* scenes = dynamic_cast<const FashionScenes*>(data_.train.get());
    if (config_.item_weight <= 0 || scenes == nullptr) return;
    item_canvases_begin_ = std::size_t(config_.pretrain_steps * config_.pretrain_batch);
    item_canvases_ = std::make_unique<FashionScenes>(
        "train", item_canvases_begin_ + std::size_t(total_steps_ * config_.item_batch), scenes->items(),
        single_item_options(scenes->options()));
  }

  /// After the pretraining: how its class head names single items it never saw (the validation
  /// split's items), said and returned; -1 when the validation data are not the built-in scenes.
  double score_held_out_items(EncoderPretraining& pretraining) {
    const auto* val = dynamic_cast<const FashionScenes*>(data_.val.get());
    if (val == nullptr) return -1;
    const auto score = pretraining.score_held_out(*val, kHeldOutItems);
    std::ostringstream line;
    line << "pretraining the encoder: held-out items named right " << std::fixed << std::setprecision(1)
         << 100 * score.accuracy << "% (" << score.items << " single validation items)";
    message(line.str());
    return score.accuracy;
  }

  std::string describe_training_scenes() const {
    const bool fresh = config_.fresh_scenes && dynamic_cast<const FashionScenes*>(data_.train.get()) != nullptr;
    return data_.train->describe() +
           (fresh ? "; new scenes every epoch (epoch e: seed " + std::to_string(config_.scenes.seed) + " + e)" : "");
  }

  void train_step(std::int64_t epoch, const std::function<double()>& elapsed) {
    const auto in_epoch = state_.step % steps_per_epoch_;
    if (in_epoch == 0 || order_epoch_ != epoch) {
      order_ = epoch_order(data_.train->size(), config_.seed, epoch);
      order_epoch_ = epoch;
      epoch_scenes_ = scenes_of_epoch(config_, data_.train, epoch);
    }
    // The epoch's rate, ramped up over the first warmup_steps captioning steps: Adam's first
    // updates move every weight by about the full rate, and with the encoder's batch-norm
    // statistics kept (freeze_bn_stats) one such step at 1e-3 left the pretrained class head
    // naming 7% of scene objects instead of 90% (docs/attention.md row 50).
    lr_ = captioning_lr(config_, epoch, state_.step, steps_per_epoch_);
    auto& groups = optimizer_->param_groups();
    for (std::size_t g = 0; g < groups.size(); ++g) {
      groups[g].options().set_lr(g == kEncoderGroup ? lr_ * config_.encoder_lr_scale : lr_);
    }
    std::vector<std::size_t> idx(order_.begin() + in_epoch * config_.batch_size,
                                 order_.begin() + (in_epoch + 1) * config_.batch_size);
    const bool aux = config_.aux_weight > 0;
    const bool supervise = config_.attention_supervision > 0;
    const bool objects = config_.object_class_weight > 0;
    const bool grid = aux || supervise || objects;
    auto batch = make_batch(*epoch_scenes_, idx, model_.vocab, model_.config.image_size, config_.seed, epoch,
                            model_.config.max_caption_len, grid ? model_.config.grid_h : 0, grid ? model_.config.grid_w : 0,
                            supervise);
    model_.net->train();
    if (freezes_bn_stats_) freeze_batch_norm_statistics(*model_.net->encoder);
    const bool hard = model_.config.attention == AttentionKind::Hard;
    torch::Tensor sample;
    if (hard) {
      sample = torch::bernoulli(torch::full({config_.batch_size}, 1.0 - config_.expected_context_prob)).to(torch::kBool);
    }
    compat::CpuBf16Autocast bf16(precision_ == "bf16");  // the forward only: backward and Adam stay float
    auto annotations = encode_for_step(batch.images.to(device_));
    // The label terms read the annotations directly; the decoder's terms run in parts
    // (core/decoder_pass.h) and hand back their gradient with respect to the annotations.
    torch::Tensor label_loss;
    double aux_loss = 0;
    if (aux && batch.has_cell_labels) {
      auto [cls, col] = model_.net->auxiliary_logits(annotations);
      auto aux_term = torch::nn::functional::cross_entropy(cls.flatten(0, 1), batch.cell_class.view({-1}).to(device_)) +
                      torch::nn::functional::cross_entropy(col.flatten(0, 1), batch.cell_colour.view({-1}).to(device_));
      aux_loss = aux_term.item<double>();
      label_loss = config_.aux_weight * aux_term;
    }
    if (item_canvases_) {
      std::vector<std::size_t> items(static_cast<std::size_t>(config_.item_batch));
      std::iota(items.begin(), items.end(), item_canvases_begin_ + std::size_t(state_.step * config_.item_batch));
      auto term = single_item_loss(model_.net, model_.vocab, *item_canvases_, items, config_.seed, device_).loss;
      aux_loss += term.item<double>();
      label_loss = label_loss.defined() ? label_loss + config_.item_weight * term : config_.item_weight * term;
    }
    if (objects && batch.has_cell_labels) {
      auto term = object_class_loss(model_.net->aux_class, annotations, batch.cell_class.to(device_));
      aux_loss += term.item<double>();  // the dashboards' "auxiliary" curve: both label terms
      label_loss = label_loss.defined() ? label_loss + config_.object_class_weight * term : config_.object_class_weight * term;
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
    pass_options.parts = config_.decoder_parts;
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
    const double grad_norm = torch::nn::utils::clip_grad_norm_(model_.net->trainable_parameters(), config_.grad_clip);
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
    if (state_.step % config_.log_every == 0 || state_.step == 1) {
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

  /// The step's annotations; without gradients when the encoder does not learn while captioning
  /// (encoder_lr_scale 0): the backward then stops at the annotations, and only the heads and the
  /// decoder learn from them.
  torch::Tensor encode_for_step(const torch::Tensor& images) {
    if (config_.encoder_lr_scale > 0) return model_.net->encode(images);
    torch::NoGradGuard frozen;
    return model_.net->encode(images);
  }

  void validate(std::int64_t epoch) {
    calibrate_batch_norm();  // best.ckpt is saved with these statistics too
    const auto e = evaluate_scenes([this](const std::vector<RgbImage>& images) { return caption_greedy(images); },
                                   *data_.val, 100);
    ValidationRecord v;
    v.step = state_.step;
    v.epoch = epoch;
    for (int i = 0; i < 4; ++i) v.bleu[i] = e.bleu[i];
    v.cider = e.cider;
    v.has_grounding = e.has_boxes;
    v.pointing = e.grounding.phrase.pointing();
    v.alpha_in_box = e.grounding.phrase.precision();
    v.absent_nouns = e.grounding.absent_noun_rate();
    v.improved = e.bleu[3] > state_.best_bleu4;
    if (v.improved) {
      state_.best_bleu4 = e.bleu[3];
      state_.best_step = state_.step;
      state_.bad_epochs = 0;
      SaveOptions weights_only;
      weights_only.rng_state = false;
      weights_only.training = to_json(state_, config_);
      save_checkpoint(best_checkpoint_path(config_.out_dir), model_, weights_only);
    } else if (++state_.bad_epochs >= config_.patience) {
      state_.stopped_early = true;
      message("early stopping: validation BLEU-4 has not improved for " + std::to_string(state_.bad_epochs) + " epochs");
    }
    v.best_bleu4 = state_.best_bleu4;
    metrics_ << to_json(v).dump() << "\n" << std::flush;
    if (cb_.on_validation) cb_.on_validation(v);
    if (e.scenes > 0) message("sample: " + e.captions.at(data_.val->get(0).id));
  }

  void save_last() {
    SaveOptions full;
    full.optimizer = optimizer_.get();
    full.training = to_json(state_, config_);
    save_checkpoint(last_checkpoint_path(config_.out_dir), model_, full);
  }

  TrainConfig config_;
  TrainCallbacks cb_;
  TrainData data_;
  torch::Device device_{torch::kCPU};
  CaptionModel model_;
  std::unique_ptr<torch::optim::Adam> optimizer_;
  RunState state_;
  std::int64_t steps_per_epoch_ = 1, total_steps_ = 0;
  std::string precision_;  ///< "fp32" or "bf16": config_.precision resolved for this machine
  std::vector<std::size_t> order_;
  std::int64_t order_epoch_ = -1;
  std::shared_ptr<const SceneSource> epoch_scenes_;  ///< the training scenes of order_epoch_
  double lr_ = 0;
  std::unique_ptr<FashionScenes> item_canvases_;  ///< item_weight > 0 on the built-in scenes
  std::size_t item_canvases_begin_ = 0;
  /// config_.freeze_bn_stats, for an encoder that arrives trained (pretrained here or init_from).
  bool freezes_bn_stats_ = false;
  std::ofstream metrics_, samples_;
  double paused_s_ = 0;
  TrainProgress progress_;
  Clock::time_point window_start_;
  std::int64_t window_tokens_ = 0, window_steps_ = 0;
  double window_loss_ = 0;
};

}  // namespace

TrainResult train(const TrainConfig& config, const TrainCallbacks& callbacks, TrainData data) {
  config.validate();
  if (fs::exists(last_checkpoint_path(config.out_dir))) {
    throw std::runtime_error(config.out_dir + ": already holds a run (last.ckpt); use --resume " + config.out_dir +
                             " to continue it, or choose another folder");
  }
  TrainingSession session(config, callbacks, std::move(data));
  session.start_new();
  return session.run();
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
