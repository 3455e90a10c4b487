#pragma once
/// The training run behind train() and resume_training() (core/train/trainer.h), one object per run.
/// Private to the trainer's files: trainer.cpp (the run loop, checkpoints, pausing),
/// training_pretraining.cpp (the encoder's pretraining), training_nonfinite.cpp (non-finite steps
/// and loss spikes),
/// training_step.cpp (one captioning step), training_precision.cpp (what `--precision auto`
/// chooses) and training_validation.cpp (validation and caption snapshots).
#include <chrono>
#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "core/data/batching.h"
#include "core/datasets/fashion_scenes.h"
#include "core/decode/captioner.h"
#include "core/eval/scene_evaluation.h"
#include "core/io/checkpoint.h"
#include "core/train/encoder_pretraining.h"
#include "core/train/nonfinite.h"
#include "core/train/objectives.h"
#include "core/train/process_group.h"
#include "core/train/run_state.h"
#include "core/train/trainer.h"

namespace fovea {

class TrainingSession {
 public:
  using Clock = std::chrono::steady_clock;

  TrainingSession(TrainConfig config, const TrainCallbacks& cb, TrainData data);
  /// A new run: the vocabulary from the training captions, a fresh (or init_from) model, an empty run folder.
  void start_new();
  /// Goes on from a run's last checkpoint: weights, optimiser, counters and logs up to it.
  void start_resumed(LoadedCheckpoint ckpt);
  /// Pretrains (if asked and not done), then captions until the last step, an early stop or the stop flag.
  TrainResult run();
  /// Pretrains the encoder (the steps left of the plan) and writes it to `encoder_out` as an
  /// encoder file (core/io/encoder_file.h); no captioning. Stops on the stop flag, resumable.
  TrainResult run_pretraining_only(const std::string& encoder_out);

 private:
  void message(const std::string& m) const;
  /// Opens the logs (first process) and starts the run's clock: the returned function gives the
  /// run's training time so far, paused time excluded, resumed runs' earlier time included.
  std::function<double()> begin_run();
  /// The result's counters from state_.
  void fill_result(TrainResult& result) const;
  /// Whether this process writes the run folder (logs, checkpoints, samples): the first process
  /// of a group, or the only one.
  bool writes_run() const { return group_ == nullptr || group_->rank() == 0; }
  /// The stop and pause flags: set here, or in a group set in any process (every process asks at
  /// the same step, so all stop or pause together).
  struct Flags {
    bool stop = false, pause = false;
  };
  Flags flags();
  /// After the first process validated or wrote snapshots alone: its run state and batch-norm
  /// statistics in every process.
  void share_first_process_state();
  /// Copies the weights of another checkpoint with the same architecture and vocabulary.
  void initialise_from(const LoadedCheckpoint& source);
  /// Writes a checkpoint, then waits until the pause flag clears or stop is set.
  void wait_while_paused(std::int64_t epoch);
  void report_progress(std::int64_t epoch, bool paused);
  std::size_t sample_count() const;
  std::string sample_image_name(std::size_t k) const;
  /// The fixed validation images the snapshots caption, as PNG files in the run folder.
  void write_sample_images();
  std::string describe_precision() const;
  /// "; N processes, M images each a step" for a group, else empty.
  std::string describe_processes() const;
  /// Recomputes the encoder's batch-norm statistics with the current weights on the first
  /// training scenes (core/train/batch_norm_calibration.h): the running averages lag behind the weights
  /// while the learning rate is high. A TorchScript backbone keeps its own statistics.
  void calibrate_batch_norm();
  /// Greedy captions (expected α) of `images` with the current weights: validation and snapshots.
  std::vector<CaptionResult> caption_greedy(const std::vector<RgbImage>& images);
  /// Captions the fixed validation images with the current weights (greedy, expected α).
  void write_samples(std::int64_t epoch);
  std::int64_t parameter_count();
  void make_optimizer();
  /// Encoder pretraining on single items (core/train/encoder_pretraining.h), resumable at any
  /// checkpoint. Returns false when stopped.
  bool pretrain_encoder(const std::function<double()>& elapsed);
  /// After the pretraining: how its class head names single items it never saw (the validation
  /// split's items), said and returned; -1 when the validation data are not the built-in scenes.
  double score_held_out_items(EncoderPretraining& pretraining);
  std::string describe_training_scenes() const;
  /// One captioning step: the next batch of the epoch's order, its loss terms, Adam, the logs.
  /// Sets total_steps_ and pretrain_steps_ from the config and the steps state_ has taken.
  void plan_steps();
  void train_step(std::int64_t epoch, const std::function<double()>& elapsed);
  /// The captioning steps, validations and checkpoints up to the run's end (or a stop).
  void caption(TrainResult& result, const std::function<double()>& elapsed);
  /// What one optimiser step measured, for the logs.
  struct StepOutcome {
    ObjectiveTerms terms;
    double grad_norm = 0, aux_loss = 0, attention_loss = 0;
    double baseline_used = 0;  ///< the REINFORCE baseline the step's rewards were compared with
    /// The first loss term or gradient norm that was NaN or infinite; the weights were then left as they were.
    std::optional<NamedValue> nonfinite;
  };
  /// The epoch's next batch (its order and, for fresh scenes, its scenes drawn at the epoch's start).
  Batch next_batch(std::int64_t epoch);
  /// Forward (bf16 autocast if asked), the objective's terms, backward, clipping, Adam.
  StepOutcome optimize(const Batch& batch);
  /// optimize() up to Adam: the forward, the objective's terms, the gradients (summed over the
  /// group's processes) and their clipping. Updates the batch-norm statistics and, for hard
  /// attention, draws glimpses and initialises the REINFORCE baseline on its first batch.
  StepOutcome compute_gradients(const Batch& batch);
  /// What compute_gradients() changes besides the gradients: the batch-norm statistics and the
  /// REINFORCE baseline. undo_gradients() puts them back as taken and clears the gradients.
  struct StepSnapshot {
    std::vector<torch::Tensor> buffers;
    MovingBaseline baseline;
  };
  StepSnapshot snapshot_step();
  void undo_gradients(const StepSnapshot& before);
  /// Sets precision_ where the constructor left it open (`--precision auto` on a CPU with bf16
  /// products): the precision a resumed run recorded, else the faster for this run's step on this
  /// machine (core/train/precision_trial.h), timed on the next batch and leaving no trace in the run.
  void settle_precision();
  /// The median time of compute_gradients(batch) in each precision, interleaved; every process
  /// of a group the same (their means), so all choose alike. Where bf16 throws (in any process),
  /// says why in `bf16_failed` and returns an untimed trial.
  PrecisionTrial time_precisions(const Batch& batch, std::string& bf16_failed);
  /// The progress report, and every kLogEvery steps a metrics.jsonl record.
  void log_step(std::int64_t epoch, const StepOutcome& outcome, double now);
  /// Scores the validation scenes after `epoch` (greedy), keeps best.ckpt, stops early.
  void validate(std::int64_t epoch);
  /// Writes last.ckpt: weights, optimiser and counters, to resume from.
  void save_last();
  /// Before writing `file`: when the weights, batch-norm statistics or optimiser state are no
  /// longer finite, handle_nonfinite() (the file is then never written).
  void check_saveable(const std::string& file);
  /// A non-finite value: `bad` a loss term or gradient norm of the step being taken (in_step), or
  /// a part of the training state found before writing the checkpoint `unwritten`. As config_.on_nonfinite says: stop (throws
  /// TrainingDiverged), skip the batch (in a step only), or go back to last.ckpt with the learning
  /// rate halved (throws RolledBack). Logged as an event.
  void handle_nonfinite(const NamedValue& bad, bool in_step, const std::string& unwritten = "");
  /// Thrown after a rollback, from wherever it was decided, to run()'s loop, which goes on from
  /// the restored state.
  struct RolledBack {};
  /// Reloads last.ckpt's weights, optimiser and counters into this run, the logs cut back to its step.
  void roll_back_to_last_checkpoint();
  /// Warns (message and event) when `loss` is orders of magnitude over its running average.
  void watch_loss(double loss);
  /// Writes the event to metrics.jsonl and hands it to on_event; `say`: also as a message.
  void log_event(const TrainEvent& e, bool say);
  /// " last.ckpt (step N) keeps the last finite weights. Try a lower --lr (...)": for stop messages.
  std::string what_to_try() const;
  /// " last.ckpt (step N) keeps the last finite weights." (empty before the first checkpoint)
  std::string last_finite_checkpoint() const;
  /// Validation scores of the model's weights as they are now (batch-norm statistics recalibrated).
  SceneEvaluation score_validation();

  TrainConfig config_;
  TrainCallbacks cb_;
  TrainData data_;
  ProcessGroup* group_ = nullptr;  ///< data_.group: null for one process
  torch::Device device_{torch::kCPU};
  CaptionModel model_;
  std::unique_ptr<torch::optim::Adam> optimizer_;
  RunState state_;
  std::int64_t steps_per_epoch_ = 1;
  /// This run's captioning steps, and its pretraining steps (0 when it does not pretrain): with
  /// max_steps the two together stay within it, the pretraining taking at most half.
  std::int64_t total_steps_ = 0, pretrain_steps_ = 0;
  /// "fp32" or "bf16": config_.precision for this machine; "" until settle_precision() chose.
  std::string precision_;
  std::vector<std::size_t> order_;
  std::int64_t order_epoch_ = -1;
  std::shared_ptr<const SceneSource> epoch_scenes_;  ///< the training scenes of order_epoch_
  double lr_ = 0;
  std::ofstream metrics_, samples_;
  double paused_s_ = 0;
  TrainProgress progress_;
  Clock::time_point window_start_;  ///< the metrics' window: since the last logged step
  std::int64_t window_tokens_ = 0, window_steps_ = 0;
  double window_loss_ = 0;
  /// The progress bar's rate: tokens and steps since this process's first captioning step, over
  /// the time since (validations and snapshots included, pauses not), so the ETA is steady.
  Clock::time_point rate_start_;
  std::int64_t rate_start_step_ = -1, rate_tokens_ = 0;
  double rate_paused_s_ = 0;
  LossSpikeDetector loss_spikes_;
  std::int64_t skips_in_a_row_ = 0;
  std::int64_t saved_step_ = -1;  ///< the step of the last.ckpt on disk (-1: none yet)
  bool pretraining_ = false;      ///< inside pretrain_encoder(): non-finite values stop the run
};

}  // namespace fovea
