#pragma once
/// What a run measures of its model as it trains: the validation scores after each epoch (greedy
/// captions, expected α; BLEU, CIDEr-D and grounding), which keep best.ckpt and stop early, and
/// the caption snapshots of a few fixed validation images the dashboards show. Both first
/// recompute the encoder's batch-norm statistics with the current weights.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "core/data/scene_source.h"
#include "core/decode/caption_result.h"
#include "core/decode/split_annotations.h"
#include "core/model/show_attend_tell.h"
#include "core/train/run_state.h"
#include "core/train/train_config.h"
#include "core/train/train_records.h"

namespace fovea {

class RunValidation {
 public:
  /// `message` says where the validation annotations come from when they are cached.
  RunValidation(const TrainConfig& config, CaptionModel& model, std::shared_ptr<const SceneSource> train,
                std::shared_ptr<const SceneSource> val, torch::Device device,
                std::function<void(const std::string&)> message = {});

  /// The validation images the snapshots caption: the first kSampleCount (fewer when there are not).
  std::size_t sample_count() const;
  /// Captions the snapshot images with the current weights; image paths relative to the run folder.
  SampleRecord snapshot(std::int64_t step, std::int64_t epoch);
  /// Scores the validation split after `epoch` and updates `state`'s best score, its step and the
  /// epochs without improvement (setting stopped_early after config.patience of them; `message`
  /// says so). The record's `improved` says whether best.ckpt should now be written: the score is
  /// BLEU-4, or CIDEr-D when BLEU-4 is below 0.01, or the validation NLL when both are (record's
  /// `metric`).
  ValidationRecord validate(std::int64_t epoch, RunState& state, const std::function<void(const std::string&)>& message);

 private:
  /// Recomputes the encoder's batch-norm statistics on the first training scenes
  /// (core/train/batch_norm_calibration.h): the running averages lag behind the weights while
  /// the learning rate is high. A TorchScript backbone keeps its own statistics.
  void calibrate_batch_norm();
  /// The NLL of validation captions, summed, and their tokens.
  struct NllSum {
    double sum = 0;
    std::int64_t tokens = 0;
  };
  /// Greedy captions (expected α) of validation scenes `indices` with the current weights; with
  /// `nll`, also adds the teacher-forced NLL of each scene's first reference caption to it.
  std::vector<CaptionResult> caption_greedy(const std::vector<std::size_t>& indices, NllSum* nll = nullptr);
  /// Adds the teacher-forced NLL of the first reference caption of scenes `indices`, given their
  /// annotations (B, L, D), to `nll`.
  void add_nll(const std::vector<std::size_t>& indices, const torch::Tensor& annotations, NllSum& nll);
  /// Faithfulness (core/eval/faithfulness.h) of the greedy captions of the first
  /// kFaithfulnessScenes validation scenes with boxes, into `v`.
  void add_faithfulness(ValidationRecord& v);
  static constexpr std::size_t kFaithfulnessScenes = 100;
  /// The validation split's annotations: from its cache when the encoder does not train.
  SplitAnnotations& val_annotations();

  const TrainConfig& config_;
  CaptionModel& model_;
  std::shared_ptr<const SceneSource> train_, val_;
  torch::Device device_;
  std::function<void(const std::string&)> message_;
  std::unique_ptr<SplitAnnotations> val_annotations_;
};

}  // namespace fovea
