#pragma once
/// The training loop shared by `fovea train` and the GUI: progress through callbacks, stop on an
/// atomic flag, metrics.jsonl, checkpoints (last, best) and exact resumption.
///
/// Thread-safety: train()/resume_training() run on the caller's thread; callbacks are invoked
/// on that thread. The stop flag may be set from any thread.
#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "core/scene_source.h"
#include "core/train_config.h"

namespace fovea {

/// One logged training step (one line of metrics.jsonl with kind "train").
struct TrainRecord {
  std::int64_t step = 0, epoch = 0;
  double loss = 0, nll = 0, penalty = 0, lr = 0, grad_norm = 0, tokens_per_s = 0;
  bool hard = false;
  double baseline = 0, reward = 0, reward_var = 0;
  double entropy = 0;  ///< mean H[α_t] per step (both attention kinds)
  double aux_loss = 0; ///< auxiliary per-cell class + colour cross-entropy (0 when off)
  double attention_loss = 0; ///< attention supervision term (0 when off)
  double elapsed_s = 0;
};

/// One validation pass (kind "val"): BLEU from free-running greedy decoding.
struct ValidationRecord {
  std::int64_t step = 0, epoch = 0;
  double bleu[4] = {0, 0, 0, 0};
  bool improved = false;
  double best_bleu4 = 0;
};

struct TrainProgress {
  std::int64_t step = 0, total_steps = 0, epoch = 0, epochs = 0;
  double loss = 0, tokens_per_s = 0, eta_s = 0, elapsed_s = 0;
};

struct TrainCallbacks {
  std::function<void(const TrainRecord&)> on_record;
  std::function<void(const ValidationRecord&)> on_validation;
  std::function<void(const TrainProgress&)> on_progress;  ///< after every step
  std::function<void(const std::string&)> on_message;
  const std::atomic<bool>* stop = nullptr;  ///< set to stop at the next step (a checkpoint is written)
};

/// Where the scenes come from; built from the config when not given.
struct TrainData {
  std::shared_ptr<const SceneSource> train, val;
};

struct TrainResult {
  std::int64_t steps = 0, epochs_completed = 0;
  double best_bleu4 = 0;
  std::int64_t best_step = 0;
  bool stopped_early = false;  ///< early stopping on validation BLEU-4
  bool interrupted = false;    ///< the stop flag was set
  double elapsed_s = 0;
  std::string last_checkpoint, best_checkpoint;
};

TrainData make_train_data(const TrainConfig& config);

/// Starts a new run in config.out_dir (which must not hold a run already).
TrainResult train(const TrainConfig& config, const TrainCallbacks& callbacks = {}, TrainData data = {});

/// Continues the run in `run_dir` from its last checkpoint. `more_epochs`/`max_steps` > 0
/// replace the stored limits.
TrainResult resume_training(const std::string& run_dir, const TrainCallbacks& callbacks = {}, TrainData data = {},
                            std::int64_t epochs = 0, std::int64_t max_steps = 0);

/// Paths inside a run folder.
std::string last_checkpoint_path(const std::string& run_dir);
std::string best_checkpoint_path(const std::string& run_dir);
std::string metrics_path(const std::string& run_dir);

}  // namespace fovea
