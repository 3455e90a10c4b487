#pragma once
/// The training loop shared by `fovea train` and the GUI: progress through callbacks, stop on an
/// atomic flag, metrics.jsonl, checkpoints (last, best) and exact resumption.
///
/// Thread-safety: train()/resume_training() run on the caller's thread; callbacks are invoked
/// on that thread. The stop flag may be set from any thread.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "core/data/scene_source.h"
#include "core/train/precision_trial.h"
#include "core/train/run_log.h"
#include "core/train/train_config.h"
#include "core/train/train_records.h"
#include "core/train/train_settings.h"

namespace fovea {

struct TrainCallbacks {
  std::function<void(const TrainRecord&)> on_record;
  std::function<void(const ValidationRecord&)> on_validation;
  std::function<void(const PretrainRecord&)> on_pretrain_record;  ///< each logged window of encoder pretraining
  std::function<void(const TrainProgress&)> on_progress;  ///< after every step
  std::function<void(const std::string&)> on_message;
  /// A non-finite step skipped or rolled back, or a loss spike (also said through on_message;
  /// a run that stops for a non-finite value throws TrainingDiverged instead).
  std::function<void(const TrainEvent&)> on_event;
  /// Captions and α of a few fixed validation images, at the start and every kSampleEvery steps.
  std::function<void(const SampleRecord&)> on_samples;
  const std::atomic<bool>* stop = nullptr;  ///< set to stop at the next step (a checkpoint is written)
  /// While set, training waits between steps (a checkpoint is written when it pauses); the paused
  /// time does not count in elapsed_s or the ETA. Setting `stop` ends the wait.
  const std::atomic<bool>* pause = nullptr;
};

class ProcessGroup;

/// Where the scenes come from (built from the config when not given), and who trains on them.
struct TrainData {
  std::shared_ptr<const SceneSource> train, val;
  /// Data-parallel training (core/train/data_parallel.h): the group of processes this one trains
  /// with, each on its share of every batch; only the first writes the run folder. Null: one process.
  std::shared_ptr<ProcessGroup> group;
};

struct TrainResult {
  std::int64_t steps = 0, epochs_completed = 0;
  double best_bleu4 = 0;  ///< of best.ckpt
  /// What best.ckpt was chosen by ("BLEU-4", "CIDEr-D" or "validation NLL"; empty: not validated)
  /// and its value there.
  std::string best_metric;
  double best_score = 0;
  bool object_boxes = false;  ///< the training scenes had object boxes (attention supervision applied)
  std::int64_t best_step = 0;
  bool stopped_early = false;  ///< early stopping on validation BLEU-4
  bool interrupted = false;    ///< the stop flag was set
  double elapsed_s = 0;
  /// The pretrained encoder's held-out single items named right (RunState); -1: not scored.
  double pretrain_held_out_accuracy = -1;
  std::int64_t pretrain_steps = 0;  ///< encoder pretraining steps the run took
  std::string precision;            ///< "fp32" or "bf16", as the run trained ("" before it chose)
  PrecisionTrial precision_trial;   ///< for auto on the CPU, the times it chose by
  std::string last_checkpoint, best_checkpoint;
};

/// The built-in scenes, or the train and val splits of a dataset on disk (cached on first use;
/// `message` hears about the caching).
TrainData make_train_data(const TrainConfig& config, const std::function<void(const std::string&)>& message = {});

/// Starts a new run in config.out_dir (which must not hold a run already).
TrainResult train(const TrainConfig& config, const TrainCallbacks& callbacks = {}, TrainData data = {});

/// Pretrains Fovea's built-in CNN on single items of the built-in scenes (config.pretrain_steps
/// steps; a run folder config.out_dir that holds a run is resumed, to that many steps), then
/// writes it to `encoder_out` as an encoder file (core/model/encoder_file.h) for `--backbone`.
TrainResult pretrain_encoder_to_file(const TrainConfig& config, const std::string& encoder_out,
                                     const TrainCallbacks& callbacks = {}, TrainData data = {});
/// Continues the run in `run_dir` from its last checkpoint. `epochs`/`max_steps` > 0 replace the
/// stored limits.
TrainResult resume_training(const std::string& run_dir, const TrainCallbacks& callbacks = {}, TrainData data = {},
                            std::int64_t epochs = 0, std::int64_t max_steps = 0);
/// The same, with the settings given for it (key -> value, core/train/resume_settings.h): those a
/// resume may change are applied, said through on_message and recorded in config.json; a
/// different value for any other is refused. A last.ckpt of another model than the folder's
/// config.json is refused too.
TrainResult resume_training(const std::string& run_dir, const TrainCallbacks& callbacks, TrainData data,
                            const std::map<std::string, SettingValue>& given);


}  // namespace fovea
