// The encoder's pretraining within a run, and single items while captioning.
#include <cmath>
#include <iomanip>
#include <sstream>

#include "core/training_session.h"

namespace fovea {

using Clock = TrainingSession::Clock;

/// Single validation items the pretrained class head is scored on: as many as the built-in
/// validation split has (half of Fashion-MNIST's 10000 test items), ±0.3 points near 95%.
constexpr std::size_t kHeldOutItems = 5000;

bool TrainingSession::pretrain_encoder(const std::function<double()>& elapsed) {
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
      if (last) {
        record.held_out_accuracy = state_.pretrain_held_out_accuracy = score_held_out_items(pretraining);
        keep_item_classifier();
      }
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

void TrainingSession::make_item_canvases() {
  const auto* scenes = dynamic_cast<const FashionScenes*>(data_.train.get());
  if (config_.item_weight <= 0 || scenes == nullptr) return;
  item_canvases_begin_ = std::size_t(config_.pretrain_steps * config_.pretrain_batch);
  item_canvases_ = std::make_unique<FashionScenes>(
      "train", item_canvases_begin_ + std::size_t(total_steps_ * config_.item_batch), scenes->items(),
      single_item_options(scenes->options()));
}

void TrainingSession::keep_item_classifier() {
  auto& net = *model_.net;
  if (net.item_classifier.is_empty()) return;
  net.item_classifier->copy_from(*net.encoder, *net.aux_class);
  message("item classifier: a frozen copy of the pretrained encoder and class head, to name cut-out objects");
}

double TrainingSession::score_held_out_items(EncoderPretraining& pretraining) {
  const auto* val = dynamic_cast<const FashionScenes*>(data_.val.get());
  if (val == nullptr) return -1;
  const auto score = pretraining.score_held_out(*val, kHeldOutItems);
  std::ostringstream line;
  line << "pretraining the encoder: held-out items named right " << std::fixed << std::setprecision(1)
       << 100 * score.accuracy << "% (" << score.items << " single validation items)";
  message(line.str());
  return score.accuracy;
}

}  // namespace fovea
