#include "core/train/run_pretraining.h"

#include <chrono>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "core/datasets/fashion_scenes.h"
#include "core/train/encoder_pretraining.h"

namespace fovea {

using Clock = std::chrono::steady_clock;

/// Single validation items the pretrained class head is scored on: as many as the built-in
/// validation split has (half of Fashion-MNIST's 10000 test items), ±0.3 points near 95%.
constexpr std::size_t kHeldOutItems = 5000;

RunPretraining::RunPretraining(const TrainConfig& config, CaptionModel& model, const TrainData& data,
                               torch::Device device, const TrainCallbacks& callbacks)
    : config_(config), model_(model), data_(data), device_(device), cb_(callbacks) {}

void RunPretraining::message(const std::string& m) const {
  if (cb_.on_message) cb_.on_message(m);
}

bool RunPretraining::run(RunState& state, std::int64_t steps, std::int64_t total_steps,
                         const std::string& precision, RunFolder& folder, const RunControl& control) {
  const auto* scenes = dynamic_cast<const FashionScenes*>(data_.train.get());
  if (scenes == nullptr) {  // training data handed in by the caller, not the built-in scenes
    message("encoder pretraining skipped: it needs the built-in scenes");
    state.pretrain_step = steps;
    return true;
  }
  const auto& elapsed = control.elapsed;
  PretrainingOptions options;
  options.steps = steps;
  options.batch = kPretrainBatch;
  options.lr = kPretrainLr;
  options.group = data_.group.get();
  EncoderPretraining pretraining(model_.net, model_.vocab, *scenes, options, device_, precision == "bf16", config_.seed);
  message("pretraining the encoder: " + pretraining.describe());
  double loss = 0, accuracy = 0;
  std::int64_t window = 0;
  auto window_start = Clock::now();
  while (state.pretrain_step < steps) {
    if (control.stop()) {
      state.elapsed_s = elapsed();
      control.save_last();
      message("stopped while pretraining the encoder (last.ckpt written; the run can be resumed)");
      return false;
    }
    const auto r = pretraining.step(state.pretrain_step++);
    if (!std::isfinite(r.loss)) control.diverged({"loss", r.loss});  // stops the run
    loss += r.loss, accuracy += r.accuracy, ++window;
    const double per_step = std::chrono::duration<double>(Clock::now() - window_start).count() / double(window);
    if (cb_.on_progress) {
      TrainProgress p;
      p.total_steps = total_steps;
      p.epochs = config_.epochs;
      p.pretrain_step = state.pretrain_step;
      p.pretrain_steps = steps;
      p.loss = loss / double(window);
      p.item_accuracy = accuracy / double(window);
      p.elapsed_s = elapsed();
      p.eta_s = per_step * double(steps - state.pretrain_step);
      cb_.on_progress(p);
    }
    const bool last = state.pretrain_step == steps;
    if (state.pretrain_step % kLogEvery == 0 || last) {
      PretrainRecord record;
      record.pretrain_step = state.pretrain_step;
      record.pretrain_steps = steps;
      record.loss = loss / double(window);
      record.item_accuracy = accuracy / double(window);
      record.lr = r.lr;
      record.elapsed_s = elapsed();
      if (last) {
        record.held_out_accuracy = state.pretrain_held_out_accuracy = score_held_out(pretraining);
      }
      folder.append_metrics(to_json(record));
      if (cb_.on_pretrain_record) cb_.on_pretrain_record(record);
      if (state.pretrain_step % (10 * kLogEvery) == 0 || last) {
        message("pretraining the encoder: step " + std::to_string(state.pretrain_step) + "/" +
                std::to_string(steps) + ", items named right " +
                std::to_string(int(std::lround(100 * accuracy / double(window)))) + "%");
      }
      loss = accuracy = 0, window = 0;
      window_start = Clock::now();
    }
    if (state.pretrain_step % kCheckpointEvery == 0 || last) {
      state.elapsed_s = elapsed();
      control.save_last();
    }
  }
  return true;
}

double RunPretraining::score_held_out(EncoderPretraining& pretraining) {
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
