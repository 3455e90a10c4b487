// The encoder's pretraining within a run.
#include <cmath>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/io/encoder_file.h"
#include "core/train/training_session.h"

namespace fovea {

using Clock = TrainingSession::Clock;

/// Single validation items the pretrained class head is scored on: as many as the built-in
/// validation split has (half of Fashion-MNIST's 10000 test items), ±0.3 points near 95%.
constexpr std::size_t kHeldOutItems = 5000;

bool TrainingSession::pretrain_encoder(const std::function<double()>& elapsed) {
  const auto* scenes = dynamic_cast<const FashionScenes*>(data_.train.get());
  if (scenes == nullptr) {  // training data handed in by the caller, not the built-in scenes
    message("encoder pretraining skipped: it needs the built-in scenes");
    state_.pretrain_step = pretrain_steps_;
    return true;
  }
  PretrainingOptions options;
  options.steps = pretrain_steps_;
  options.batch = kPretrainBatch;
  options.lr = kPretrainLr;
  options.group = group_;
  pretraining_ = true;
  EncoderPretraining pretraining(model_.net, model_.vocab, *scenes, options, device_, precision_ == "bf16", config_.seed);
  message("pretraining the encoder: " + pretraining.describe());
  double loss = 0, accuracy = 0;
  std::int64_t window = 0;
  auto window_start = Clock::now();
  while (state_.pretrain_step < pretrain_steps_) {
    const auto asked = flags();
    if (asked.pause && !asked.stop) {
      state_.elapsed_s = elapsed();
      wait_while_paused(0);
      continue;
    }
    if (asked.stop) {
      state_.elapsed_s = elapsed();
      save_last();
      message("stopped while pretraining the encoder (last.ckpt written; the run can be resumed)");
      pretraining_ = false;
      return false;
    }
    const auto r = pretraining.step(state_.pretrain_step++);
    if (!std::isfinite(r.loss)) handle_nonfinite({"loss", r.loss}, true);  // stops the run
    loss += r.loss, accuracy += r.accuracy, ++window;
    const double per_step = std::chrono::duration<double>(Clock::now() - window_start).count() / double(window);
    if (cb_.on_progress) {
      TrainProgress p;
      p.total_steps = total_steps_;
      p.epochs = config_.epochs;
      p.pretrain_step = state_.pretrain_step;
      p.pretrain_steps = pretrain_steps_;
      p.loss = loss / double(window);
      p.item_accuracy = accuracy / double(window);
      p.elapsed_s = elapsed();
      p.eta_s = per_step * double(pretrain_steps_ - state_.pretrain_step);
      cb_.on_progress(p);
    }
    const bool last = state_.pretrain_step == pretrain_steps_;
    if (state_.pretrain_step % kLogEvery == 0 || last) {
      PretrainRecord record;
      record.pretrain_step = state_.pretrain_step;
      record.pretrain_steps = pretrain_steps_;
      record.loss = loss / double(window);
      record.item_accuracy = accuracy / double(window);
      record.lr = r.lr;
      record.elapsed_s = elapsed();
      if (last) {
        record.held_out_accuracy = state_.pretrain_held_out_accuracy = score_held_out_items(pretraining);
      }
      metrics_ << to_json(record).dump() << "\n" << std::flush;
      if (cb_.on_pretrain_record) cb_.on_pretrain_record(record);
      if (state_.pretrain_step % (10 * kLogEvery) == 0 || last) {
        message("pretraining the encoder: step " + std::to_string(state_.pretrain_step) + "/" +
                std::to_string(pretrain_steps_) + ", items named right " +
                std::to_string(int(std::lround(100 * accuracy / double(window)))) + "%");
      }
      loss = accuracy = 0, window = 0;
      window_start = Clock::now();
    }
    if (state_.pretrain_step % kCheckpointEvery == 0 || last) {
      state_.elapsed_s = elapsed();
      save_last();
    }
  }
  pretraining_ = false;
  return true;
}

TrainResult TrainingSession::run_pretraining_only(const std::string& encoder_out) {
  const auto elapsed = begin_run();
  TrainResult result;
  if (state_.pretrain_step < pretrain_steps_) {
    settle_precision();
    result.interrupted = !pretrain_encoder(elapsed);
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
