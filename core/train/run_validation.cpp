#include "core/train/run_validation.h"

#include "core/data/image_tensor.h"
#include "core/decode/decoding.h"
#include "core/eval/scene_evaluation.h"
#include "core/train/batch_norm_calibration.h"
#include "core/train/run_folder.h"

namespace fovea {

/// Training batches the encoder's batch-norm statistics are recomputed on before each validation
/// and caption snapshot: 10, 50 and 200 gave the same validation scores.
constexpr std::size_t kCalibrationBatches = 10;

RunValidation::RunValidation(const TrainConfig& config, CaptionModel& model, std::shared_ptr<const SceneSource> train,
                             std::shared_ptr<const SceneSource> val, torch::Device device)
    : config_(config), model_(model), train_(std::move(train)), val_(std::move(val)), device_(device) {}

std::size_t RunValidation::sample_count() const {
  return std::min<std::size_t>(std::size_t(kSampleCount), val_->size());
}

void RunValidation::calibrate_batch_norm() {
  if (model_.net->encoder->has_backbone()) return;
  const std::size_t per = std::size_t(config_.batch_size);
  const std::size_t n = std::min(train_->size(), kCalibrationBatches * per);
  recalibrate_batch_norm(*model_.net->encoder, int((n + per - 1) / per), [&](int b) {
    std::vector<Scene> scenes;
    for (std::size_t i = std::size_t(b) * per; i < std::min(n, std::size_t(b + 1) * per); ++i) {
      scenes.push_back(train_->get(i));
    }
    std::vector<const RgbImage*> images;
    for (const auto& sc : scenes) images.push_back(&sc.image);
    model_.net->encode(images_to_tensor(images, model_.config.image_size).to(device_));
  });
}

std::vector<CaptionResult> RunValidation::caption_greedy(const std::vector<RgbImage>& images) {
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

SampleRecord RunValidation::snapshot(std::int64_t step, std::int64_t epoch) {
  calibrate_batch_norm();
  std::vector<RgbImage> images;
  for (std::size_t k = 0; k < sample_count(); ++k) images.push_back(val_->get(k).image);
  SampleRecord record;
  record.step = step;
  record.epoch = epoch;
  record.captions = caption_greedy(images);
  for (std::size_t k = 0; k < record.captions.size(); ++k) record.image_paths.push_back(RunFolder::sample_image_name(k));
  return record;
}

ValidationRecord RunValidation::validate(std::int64_t epoch, RunState& state,
                                         const std::function<void(const std::string&)>& message) {
  calibrate_batch_norm();  // best.ckpt is saved with these statistics too
  const auto e = evaluate_scenes([this](const std::vector<RgbImage>& images) { return caption_greedy(images); }, *val_,
                                 100);
  ValidationRecord v;
  v.step = state.step;
  v.epoch = epoch;
  for (int i = 0; i < 4; ++i) v.bleu[i] = e.bleu[i];
  v.cider = e.cider;
  v.has_grounding = e.has_boxes;
  v.pointing = e.grounding.phrase.pointing();
  v.alpha_in_box = e.grounding.phrase.precision();
  v.absent_nouns = e.grounding.absent_noun_rate();
  v.improved = e.bleu[3] > state.best_bleu4;
  if (v.improved) {
    state.best_bleu4 = e.bleu[3];
    state.best_step = state.step;
    state.bad_epochs = 0;
  } else if (++state.bad_epochs >= config_.patience) {
    state.stopped_early = true;
    if (message) {
      message("early stopping: validation BLEU-4 has not improved for " + std::to_string(state.bad_epochs) + " epochs");
    }
  }
  v.best_bleu4 = state.best_bleu4;
  if (e.scenes > 0 && message) message("sample: " + e.captions.at(val_->get(0).id));
  return v;
}

}  // namespace fovea
