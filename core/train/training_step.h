#pragma once
/// One captioning step of a training run: the epoch's next batch, the forward pass in the run's
/// precision, the objective's terms, the gradients (summed over a group's processes), clipping
/// and Adam. Also chooses the precision for `--precision auto` on a CPU with bf16 products (the
/// faster for this run's step on this machine, core/train/precision_trial.h). The step owns the
/// optimiser.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "core/data/annotation_cache.h"
#include "core/data/batching.h"
#include "core/data/scene_source.h"
#include "core/model/show_attend_tell.h"
#include "core/train/batch_prefetch.h"
#include "core/train/decoder_pass.h"
#include "core/train/nonfinite.h"
#include "core/train/objectives.h"
#include "core/train/process_group.h"
#include "core/train/run_state.h"
#include "core/train/self_critical.h"
#include "core/train/train_config.h"
#include "core/train/train_records.h"

namespace fovea {

/// What one optimiser step measured, for the logs.
struct StepOutcome {
  ObjectiveTerms terms;
  double grad_norm = 0, aux_loss = 0, attention_loss = 0;
  double baseline_used = 0;  ///< the REINFORCE baseline the step's rewards were compared with
  SelfCriticalFigures self_critical;  ///< a self-critical step's rewards (captions 0 otherwise)
  /// The first loss term or gradient norm that was NaN or infinite; the model, the baseline and
  /// the optimiser were then left as they were.
  std::optional<NamedValue> nonfinite;
};

/// The metrics.jsonl record of captioning step `step`.
TrainRecord train_record(const StepOutcome& outcome, std::int64_t step, std::int64_t epoch, double lr,
                         double tokens_per_s, bool hard, double elapsed_s);

class TrainingStep {
 public:
  /// `precision`: "fp32" or "bf16", or "" for settle_precision() to choose. `state` is the run's:
  /// its REINFORCE baseline moves with the steps.
  TrainingStep(const TrainConfig& config, CaptionModel& model, std::shared_ptr<const SceneSource> train,
               ProcessGroup* group, torch::Device device, std::string precision, RunState& state);

  /// A fresh Adam over the trainable parameters at the config's learning rate.
  void make_optimizer();
  torch::optim::Optimizer& optimizer() { return *optimizer_; }
  const std::string& precision() const { return precision_; }
  /// "precision bf16 (auto, as chosen when the run started)" and the like, for the run's first line.
  std::string describe_precision() const;

  /// The batch of captioning step `step` of `epoch` (this process's rows of it); the next one is
  /// made meanwhile where a core is free for it (core/train/batch_prefetch.h).
  Batch next_batch(std::int64_t epoch, std::int64_t step);
  /// From now on the batches carry the training images' annotations from `cache` (entry i: scene
  /// i of the training data) instead of their images: for an encoder that does not train
  /// (core/train/annotation_features.h).
  void use_annotations(std::shared_ptr<const AnnotationCache> cache);
  /// The epoch's batch order is drawn again at the next batch (after a rollback).
  void forget_epoch_order() {
    prefetch_.cancel();
    order_epoch_ = -1;
  }
  /// Forward, terms, backward, clipping and Adam at learning rate `lr`; a non-finite value leaves
  /// everything as it was and says which.
  StepOutcome optimize(const Batch& batch, double lr);

  /// Sets the precision where the constructor left it open: the one a resumed run recorded in
  /// `state`, else the faster here, timed on the next batch and leaving no trace in the run.
  /// Records the choice in `state`.
  void settle_precision(std::int64_t epoch, std::int64_t step, const std::function<void(const std::string&)>& message);

 private:
  /// optimize() up to Adam. Updates the batch-norm statistics and, for hard attention, draws
  /// glimpses and initialises the REINFORCE baseline on its first batch.
  StepOutcome compute_gradients(const Batch& batch);
  /// The auxiliary losses on the annotations (undefined when off or the batch has no boxes), their
  /// value in out.aux_loss.
  torch::Tensor auxiliary_loss(const Batch& batch, const torch::Tensor& annotations, StepOutcome& out);
  /// A self-critical step's captions: kSelfCriticalSamples sampled per image of the batch, with
  /// their advantages (core/train/self_critical.h), into `input`; their figures into `out`.
  void add_self_critical_rows(const Batch& batch, const torch::Tensor& annotations, DecoderPassInput& input,
                              StepOutcome& out);
  /// What compute_gradients() changes besides the gradients: the batch-norm statistics and the
  /// REINFORCE baseline; undo_gradients() puts them back and clears the gradients.
  struct Snapshot {
    std::vector<torch::Tensor> buffers;
    MovingBaseline baseline;
  };
  Snapshot snapshot();
  void undo_gradients(const Snapshot& before);
  /// The batch of (epoch, step), made now; the prefetch's maker, never run twice at once.
  Batch make_batch_at(std::int64_t epoch, std::int64_t step);
  /// The median time of compute_gradients(batch) in each precision, interleaved; every process
  /// of a group the same (their means). Where bf16 throws (in any process), says why in
  /// `bf16_failed` and returns an untimed trial.
  PrecisionTrial time_precisions(const Batch& batch, std::string& bf16_failed);

  const TrainConfig& config_;
  CaptionModel& model_;
  std::shared_ptr<const SceneSource> train_;
  ProcessGroup* group_;
  torch::Device device_;
  std::string precision_;
  /// bf16 on the CPU settled: batches carry a cache's annotations as stored (read by the prefetch's thread).
  std::atomic<bool> annotations_as_stored_{false};
  RunState& state_;
  std::unique_ptr<SelfCriticalReward> reward_;  ///< self-critical training's reward; null for cross-entropy
  std::unique_ptr<torch::optim::Adam> optimizer_;
  std::vector<std::size_t> order_;
  std::int64_t order_epoch_ = -1;
  std::shared_ptr<const SceneSource> epoch_scenes_;  ///< the training scenes of order_epoch_
  std::shared_ptr<const AnnotationCache> annotations_;  ///< see use_annotations()
  std::shared_ptr<const SceneSource> captions_;         ///< the training scenes without their images
  BatchPrefetch prefetch_;  ///< last: destroyed first, while what it reads is still there
};

}  // namespace fovea
