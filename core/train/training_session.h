#pragma once
/// The run loop behind train(), resume_training() and pretrain_encoder_to_file()
/// (core/train/trainer.h), one object per run. Private to core/train.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <torch/torch.h>

#include "core/model/checkpoint.h"
#include "core/train/nonfinite_guard.h"
#include "core/train/progress_meter.h"
#include "core/train/run_folder.h"
#include "core/train/run_state.h"
#include "core/train/run_validation.h"
#include "core/train/trainer.h"
#include "core/train/training_step.h"

namespace fovea {

/// One training run behind train(), resume_training() and pretrain_encoder_to_file(): the run
/// loop. The work is its collaborators': the run folder (logs, checkpoints, snapshot images), the
/// step (batch, precision, gradients, Adam), the validation, the non-finite guard, the progress
/// meter and the encoder's pretraining.
class TrainingSession {
 public:
  using Clock = std::chrono::steady_clock;

  TrainingSession(TrainConfig config, const TrainCallbacks& cb, TrainData data);
  ~TrainingSession();
  /// A new run: the vocabulary from the training captions, a fresh (or init_from) model, an empty run folder.
  void start_new();
  /// Goes on from a run's last checkpoint: weights, optimiser, counters and logs up to it.
  void start_resumed(LoadedCheckpoint ckpt);
  /// Pretrains (if asked and not done), then captions until the last step, an early stop or the stop flag.
  TrainResult run();
  /// Pretrains the encoder (the steps left of the plan) and writes it to `encoder_out` as an
  /// encoder file (core/model/encoder_file.h); no captioning. Stops on the stop flag, resumable.
  TrainResult run_pretraining_only(const std::string& encoder_out);

 private:
  /// What the user asked between steps; RolledBack: pausing found the state not finite and the
  /// run went back to its last checkpoint.
  enum class Asked { Go, Stop, RolledBack };

  void message(const std::string& m) const {
    if (cb_.on_message) cb_.on_message(m);
  }
  bool writes_run() const { return group_ == nullptr || group_->rank() == 0; }
  /// Opens the logs and starts the run's clock (paused time excluded, earlier sessions' included).
  void begin_run();
  void fill_result(TrainResult& result) const;
  /// Stop and pause as asked here, or in a group in any process (all ask at the same step). A
  /// pause writes a checkpoint and waits until the pause flag clears or stop is set.
  Asked poll(std::int64_t epoch);
  void report_progress(std::int64_t epoch, bool paused);
  /// After the first process validated or wrote snapshots alone: its run state and batch-norm
  /// statistics in every process.
  void share_first_process_state();
  void plan_steps();
  /// For an encoder that does not train: the training images' annotations, computed where missing
  /// (core/train/annotation_features.h), for the step to train from; false when stopped meanwhile.
  bool open_annotations();
  /// Stores the familiarity statistics of the training and validation images in `best`.
  void measure_familiarity_of_best(const std::string& best);
  /// The encoder's pretraining, the steps left of it; false when stopped.
  bool pretrain();
  /// The captioning steps, validations and checkpoints up to the run's end (or a stop); false when
  /// a non-finite value sent the run back to its last checkpoint, to go on from there.
  bool caption(TrainResult& result);
  /// One captioning step; false when it rolled back.
  bool train_step(std::int64_t epoch);
  /// Validation after `epoch`, best.ckpt when it improved; false when it rolled back.
  bool validate(std::int64_t epoch);
  void write_snapshot(std::int64_t epoch);
  /// Writes last.ckpt (checked first in every process); false when it rolled back instead.
  bool save_last();
  /// Whether the weights, statistics and optimiser state may be written to `file`; else what
  /// the guard decided is done (false: rolled back; a stop throws).
  bool saveable(const std::string& file);
  /// Carries out the guard's decision about `bad`: skip (the step counts), roll back (returns
  /// false) or stop (throws TrainingDiverged).
  bool nonfinite(const NamedValue& bad, bool in_step, const std::string& unwritten = "");
  void roll_back_to_last_checkpoint();
  /// Writes the event to metrics.jsonl and hands it to on_event; `say`: also as a message.
  void log_event(const TrainEvent& e, bool say);

  TrainConfig config_;
  TrainCallbacks cb_;
  TrainData data_;
  ProcessGroup* group_ = nullptr;  ///< data_.group: null for one process
  torch::Device device_{torch::kCPU};
  CaptionModel model_;
  RunState state_;
  std::int64_t steps_per_epoch_ = 1;
  /// This run's captioning steps, and its pretraining steps (0 when it does not pretrain): with
  /// max_steps the two together stay within it, the pretraining taking at most half.
  std::int64_t total_steps_ = 0, pretrain_steps_ = 0;
  std::unique_ptr<RunFolder> folder_;
  std::unique_ptr<TrainingStep> step_;
  std::unique_ptr<RunValidation> validation_;
  std::unique_ptr<NonFiniteGuard> guard_;
  ProgressMeter meter_;
  double lr_ = 0;
  Clock::time_point started_;
  double elapsed_before_ = 0, paused_s_ = 0;
  std::int64_t saved_step_ = -1;  ///< the step of the last.ckpt on disk (-1: none yet)
  bool pretraining_ = false;      ///< in the encoder's pretraining: non-finite values stop the run
  double elapsed() const {
    return elapsed_before_ + std::chrono::duration<double>(Clock::now() - started_).count() - paused_s_;
  }
};

}  // namespace fovea
