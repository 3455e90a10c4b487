#include "core/train/run_validation.h"

#include "core/decode/captioner.h"
#include "core/eval/faithfulness.h"

#include "core/data/batching.h"
#include "core/data/image_tensor.h"
#include "core/data/tokenizer.h"
#include "core/decode/decoding.h"
#include "core/eval/scene_evaluation.h"
#include "core/train/annotation_features.h"
#include "core/train/batch_norm_calibration.h"
#include "core/train/run_folder.h"

namespace fovea {

/// Training batches the encoder's batch-norm statistics are recomputed on before each validation
/// and caption snapshot: 10, 50 and 200 gave the same validation scores.
constexpr std::size_t kCalibrationBatches = 10;

/// Below this, BLEU-4 or CIDEr-D is too near 0 to choose best.ckpt by.
constexpr double kScoreThatMoves = 0.01;

/// How a best.ckpt chosen by `metric` ranks against one chosen by another.
int metric_rank(const std::string& metric) { return metric == "BLEU-4" ? 2 : metric == "CIDEr-D" ? 1 : 0; }

RunValidation::RunValidation(const TrainConfig& config, CaptionModel& model, std::shared_ptr<const SceneSource> train,
                             std::shared_ptr<const SceneSource> val, torch::Device device,
                             std::function<void(const std::string&)> message)
    : config_(config), model_(model), train_(std::move(train)), val_(std::move(val)), device_(device),
      message_(std::move(message)) {}

void RunValidation::add_nll(const std::vector<std::size_t>& indices, const torch::Tensor& annotations, NllSum& nll) {
  std::vector<std::int64_t> rows;
  std::vector<std::vector<std::int64_t>> captions;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const auto scene = val_->get_without_image(indices[k]);
    if (scene.captions.empty()) continue;
    rows.push_back(std::int64_t(k));
    captions.push_back(model_.vocab.encode(tokenize(scene.captions.front())));
  }
  if (rows.empty()) return;
  auto [tok, len] = pad_captions(captions);
  const auto chosen = annotations.index_select(0, torch::tensor(rows).to(annotations.device()));
  const auto out = model_.net->decoder->forward(chosen, tok.to(device_), len.to(device_));
  nll.sum -= out.token_log_probs.sum().item<double>();
  nll.tokens += out.token_log_probs.numel();
}

SplitAnnotations& RunValidation::val_annotations() {
  if (!val_annotations_) {
    FeatureOptions options;
    options.on_message = message_;
    val_annotations_ = std::make_unique<SplitAnnotations>(model_, val_, encoder_is_fixed(config_, model_), options);
  }
  return *val_annotations_;
}

std::size_t RunValidation::sample_count() const {
  return std::min<std::size_t>(std::size_t(kSampleCount), val_->size());
}

void RunValidation::calibrate_batch_norm() {
  // A backbone keeps its own statistics; an encoder that does not train keeps those its cached
  // annotations were computed with.
  if (model_.net->encoder->has_backbone() || encoder_is_fixed(config_, model_)) return;
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

std::vector<CaptionResult> RunValidation::caption_greedy(const std::vector<std::size_t>& indices, NllSum* nll) {
  DecodeOptions opts;
  opts.beam = 1;
  torch::NoGradGuard no_grad;
  const auto annotations = val_annotations().read(indices);
  const bool was_training = model_.net->is_training();
  model_.net->eval();  // no dropout while decoding
  std::vector<CaptionResult> out;
  for (const auto& d : decode_annotations(*model_.net, annotations, opts)) out.push_back(to_caption_result(d, model_));
  if (nll != nullptr) add_nll(indices, annotations, *nll);  // the same annotations, read once
  model_.net->train(was_training);
  return out;
}

SampleRecord RunValidation::snapshot(std::int64_t step, std::int64_t epoch) {
  calibrate_batch_norm();
  std::vector<std::size_t> indices;
  for (std::size_t k = 0; k < sample_count(); ++k) indices.push_back(k);
  SampleRecord record;
  record.step = step;
  record.epoch = step == 0 ? 0 : epoch + 1;  // counted from 1; 0 before the first step
  record.captions = caption_greedy(indices);
  for (std::size_t k = 0; k < record.captions.size(); ++k) record.image_paths.push_back(RunFolder::sample_image_name(k));
  return record;
}

ValidationRecord RunValidation::validate(std::int64_t epoch, RunState& state,
                                         const std::function<void(const std::string&)>& message) {
  calibrate_batch_norm();  // best.ckpt is saved with these statistics too
  auto& annotations = val_annotations();
  NllSum nll;
  const auto e = evaluate_scenes(
      [this, &nll](const std::vector<std::size_t>& indices, const std::vector<Scene>&) { return caption_greedy(indices, &nll); },
      *val_, 100, {}, !annotations.cached());
  ValidationRecord v;
  v.step = state.step;
  v.epoch = epoch + 1;  // counted from 1
  for (int i = 0; i < 4; ++i) v.bleu[i] = e.bleu[i];
  v.cider = e.cider;
  v.has_grounding = e.has_boxes;
  v.pointing = e.grounding.phrase.pointing();
  v.alpha_in_box = e.grounding.phrase.precision();
  v.absent_nouns = e.grounding.absent_noun_rate();
  v.nll = nll.tokens > 0 ? nll.sum / double(nll.tokens) : 0;
  // Captions tuned to a consensus metric may stop looking at what they name: a self-critical run
  // measures whether α still explains the nouns, every time it validates.
  if (config_.self_critical != "off" && e.has_boxes) add_faithfulness(v);
  // best.ckpt is chosen by a score that moves: BLEU-4 near 0 (a young model, a hard corpus) ranks
  // noise, so CIDEr-D then, and the validation NLL when both are near 0. A later validation whose
  // BLEU-4 moves ranks above any chosen by the others.
  // A self-critical run optimises CIDEr-D: it is chosen by it.
  const bool by_bleu = v.bleu[3] >= kScoreThatMoves && config_.self_critical == "off";
  const double score = by_bleu ? v.bleu[3] : e.cider >= kScoreThatMoves ? e.cider : v.nll;
  v.metric = by_bleu ? "BLEU-4" : e.cider >= kScoreThatMoves ? "CIDEr-D" : "validation NLL";
  const int rank = metric_rank(v.metric), best_rank = state.best_metric.empty() ? -1 : metric_rank(state.best_metric);
  v.improved = rank > best_rank || (rank == best_rank && (v.metric == "validation NLL" ? score < state.best_score
                                                                                        : score > state.best_score));
  if (v.improved) {
    state.best_bleu4 = e.bleu[3];
    state.best_metric = v.metric;
    state.best_score = score;
    state.best_step = state.step;
    state.bad_epochs = 0;
  } else if (++state.bad_epochs >= config_.patience) {
    state.stopped_early = true;
    if (message) {
      message("early stopping: validation " + state.best_metric + " has not improved for " +
              std::to_string(state.bad_epochs) + " epochs");
    }
  }
  v.best_bleu4 = state.best_bleu4;
  if (e.scenes > 0 && message) message("sample: " + e.captions.at(val_->get(0).id));
  return v;
}

void RunValidation::add_faithfulness(ValidationRecord& v) {
  Captioner captioner(model_, "the model in training");
  FaithfulnessReport report;
  CaptionOptions greedy;
  greedy.beam = 1;
  for (std::size_t i = 0; i < std::min(val_->size(), kFaithfulnessScenes); ++i) {
    const auto scene = val_->get(i);
    if (!scene.objects.empty()) {
      accumulate_faithfulness(captioner, scene, captioner.caption(scene.image, greedy), report, /*with_saliency=*/false);
    }
  }
  v.has_faithfulness = report.all.count > 0;
  v.faithful_rate = report.all.faithful_rate();
  v.attended_drop = report.all.mean_attended_drop();
  v.control_drop = report.all.mean_control_drop();
}

}  // namespace fovea
