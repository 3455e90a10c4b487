// Validation after each epoch and caption snapshots of fixed validation images.
#include <filesystem>

#include "core/data/image_tensor.h"
#include "core/decode/decoding.h"
#include "core/eval/scene_evaluation.h"
#include "core/io/atomic_file.h"
#include "core/render/png_encoder.h"
#include "core/train/batch_norm_calibration.h"
#include "core/train/training_session.h"

namespace fovea {

namespace fs = std::filesystem;

/// Training batches the encoder's batch-norm statistics are recomputed on before each validation
/// and caption snapshot: 10, 50 and 200 gave the same validation scores.
constexpr std::size_t kCalibrationBatches = 10;

std::size_t TrainingSession::sample_count() const {
  return std::min<std::size_t>(std::size_t(kSampleCount), data_.val->size());
}

std::string TrainingSession::sample_image_name(std::size_t k) const {
  return "samples/val_" + std::to_string(k) + ".png";
}

void TrainingSession::write_sample_images() {
  if (sample_count() == 0) return;
  fs::create_directories(fs::path(config_.out_dir) / "samples");
  for (std::size_t k = 0; k < sample_count(); ++k) {
    const auto path = (fs::path(config_.out_dir) / sample_image_name(k)).string();
    if (fs::exists(path)) continue;
    const auto png = encode_png(data_.val->get(k).image);
    write_file_atomically(path, std::string(png.begin(), png.end()));
  }
}

void TrainingSession::calibrate_batch_norm() {
  if (model_.net->encoder->has_backbone()) return;
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

std::vector<CaptionResult> TrainingSession::caption_greedy(const std::vector<RgbImage>& images) {
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

void TrainingSession::write_samples(std::int64_t epoch) {
  if (sample_count() == 0) return;
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

SceneEvaluation TrainingSession::score_validation() {
  calibrate_batch_norm();  // best.ckpt is saved with these statistics too
  return evaluate_scenes([this](const std::vector<RgbImage>& images) { return caption_greedy(images); }, *data_.val,
                         100);
}

void TrainingSession::validate(std::int64_t epoch) {
  ValidationRecord v;
  const auto e = score_validation();
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
    check_saveable(best_checkpoint_path(config_.out_dir));
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

}  // namespace fovea
