#pragma once
/// Reading a training run folder back: its config, metrics.jsonl, samples.jsonl and checkpoints.
/// The same files feed the dashboards of a live run (which also get the records directly) and of
/// past runs. A line cut short by a crash is skipped, never fatal. Torch-free.
#include <cstdint>
#include <string>
#include <vector>

#include "core/train/train_config.h"
#include "core/train/train_records.h"

namespace fovea {

struct RunLog {
  std::string dir;
  bool has_config = false;  ///< from config.json, or the last checkpoint's header for older runs
  TrainConfig config;
  std::vector<TrainRecord> train;
  std::vector<ValidationRecord> val;
  std::vector<PretrainRecord> pretrain;  ///< encoder pretraining, before the first step
  std::vector<SampleRecord> samples;
  std::vector<TrainEvent> events;  ///< non-finite steps and loss spikes, in the order met
  std::int64_t skipped_lines = 0;  ///< lines that did not parse (e.g. the last one after a crash)
  bool has_last_checkpoint = false, has_best_checkpoint = false, finished = false;
  /// The run ended with an error (failed.json, written by record_run_failure): resuming it would
  /// meet the same error; `failure` says what it was.
  bool failed = false;
  std::string failure;
  std::int64_t checkpoint_step = -1;  ///< the step last.ckpt holds (-1: none, or unreadable)

  std::string name() const;  ///< the folder's name
  bool hard() const;         ///< hard attention (from the config, else from the records)
  std::int64_t last_step() const;  ///< the furthest step logged or checkpointed
  double best_bleu4() const;
  BestValidation best() const;  ///< best.ckpt's validation (metric empty: none yet)
};

/// Throws std::runtime_error naming the folder when it holds no metrics.jsonl. Without
/// `with_samples`, samples.jsonl (the largest file: α per word) is not read.
RunLog read_run_log(const std::string& dir, bool with_samples = true);

/// Run folders under `root` (root itself and its direct subfolders holding metrics.jsonl),
/// sorted by name.
std::vector<std::string> find_runs(const std::string& root);

/// Paths inside a run folder.
std::string last_checkpoint_path(const std::string& run_dir);
std::string best_checkpoint_path(const std::string& run_dir);
std::string metrics_path(const std::string& run_dir);
std::string samples_path(const std::string& run_dir);
std::string config_path(const std::string& run_dir);
std::string model_card_path(const std::string& run_dir);
std::string failure_path(const std::string& run_dir);

/// Records in a run folder (one holding metrics.jsonl; otherwise nothing is written) that its
/// run ended with `error`: its first line, without a library's backtrace. For whoever calls
/// train()/resume_training() and catches what they throw.
void record_run_failure(const std::string& run_dir, const std::string& error);
/// Forgets a recorded failure (before the run is resumed).
void clear_run_failure(const std::string& run_dir);

}  // namespace fovea
