#pragma once
/// What a training run reports: one struct per kind of line in metrics.jsonl ("train", "val")
/// and per line of samples.jsonl, plus per-step progress. Torch-free value types, so the GUI's
/// dashboards receive them through queued signals and read them back from past runs.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/decode/caption_result.h"

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
  // Self-critical training only (core/train/self_critical.h), means over the sampled captions:
  bool self_critical = false;
  double sample_reward = 0;    ///< CIDEr-D of the samples
  double baseline_reward = 0;  ///< the baseline they were compared with (greedy caption's, or the other samples')
  double advantage = 0;        ///< reward − baseline
  /// √mean (reward − baseline)²: how far the samples are pushed up or down. The mean above is 0
  /// by construction with the samples baseline; this is not. NaN when read from an older run.
  double advantage_rms = 0;
  double sample_length = 0;    ///< words
  double end_rate = 0;         ///< share that drew <end> within the length limit
};

/// One validation pass (kind "val"): caption metrics from free-running greedy decoding and, on
/// data with object boxes, attention grounding.
struct ValidationRecord {
  std::int64_t step = 0, epoch = 0;
  double bleu[4] = {0, 0, 0, 0};
  double cider = 0;             ///< CIDEr-D (NaN when read from a run logged before it was scored)
  bool has_grounding = false;   ///< the validation data has object boxes
  double pointing = 0;          ///< noun-phrase pointing accuracy
  double alpha_in_box = 0;      ///< mean α mass inside the named object's box
  double absent_nouns = 0;      ///< share of generated nouns naming an object not in the scene
  double nll = 0;               ///< mean NLL per token of the first reference caption (teacher-forced)
  /// Self-critical runs on data with boxes (core/eval/faithfulness.h, on the first validation
  /// scenes): whether measured, the share of nouns whose p fell by half with their attended cells
  /// removed, and the mean relative drops with those and with as many control cells removed.
  bool has_faithfulness = false;
  double faithful_rate = 0, attended_drop = 0, control_drop = 0;
  /// What best.ckpt is chosen by at this validation (core/train/run_validation.h): "BLEU-4",
  /// "CIDEr-D" (BLEU-4 below 0.01) or "validation NLL" (both below 0.01).
  std::string metric = "BLEU-4";
  bool improved = false;
  double best_bleu4 = 0;
};

/// What a validation line adds about best.ckpt: empty when the score did not improve; else "best
/// so far", and the metric it was chosen by when that is not BLEU-4 ("best so far by CIDEr-D,
/// BLEU-4 being below 0.01").
std::string improvement_note(const ValidationRecord& v);

/// best.ckpt's validation as a run's validations say, added in order: each one that improved
/// replaces it, with its score in the metric it was chosen by (BLEU-4; CIDEr-D for self-critical
/// runs, or while BLEU-4 is below 0.01; validation NLL while both are). Runs logged before
/// validations named their metric: the best BLEU-4.
struct BestValidation {
  std::string metric;  ///< empty: no validation yet
  double score = 0;
  void add(const ValidationRecord& v);

 private:
  bool named_ = false;  ///< a validation that improved was seen
};

/// A window of encoder pretraining steps (kind "pretrain"): before the first captioning step, so
/// indexed by its own step count.
struct PretrainRecord {
  std::int64_t pretrain_step = 0, pretrain_steps = 0;
  double loss = 0;           ///< mean over the window: per-cell class + colour + pooled class cross-entropy
  double item_accuracy = 0;  ///< share of the window's items the pooled class head named right
  double lr = 0;
  double elapsed_s = 0;
  /// The last record only: share of held-out single items named right (eval mode); -1 = not scored.
  double held_out_accuracy = -1;
};

/// Something a run met besides its steps (kind "event"): a non-finite value and what the run did
/// about it, or a loss growing by orders of magnitude. The dashboards mark it on the charts.
struct TrainEvent {
  /// The step it happened at; for a rollback the checkpoint's step the run went back to (so
  /// resuming keeps the line exactly when it keeps the halved learning rate).
  std::int64_t step = 0;
  std::string what;      ///< "nonfinite" or "loss_spike"
  std::string quantity;  ///< "NLL", "penalty", "REINFORCE reward", "auxiliary loss", "attention loss", "gradient norm", "loss"
  double value = 0;      ///< the value met (NaN or ±inf for "nonfinite")
  std::string action;    ///< "stop", "skip", "rollback" or "warn"
  std::int64_t failed_step = 0;  ///< the step whose value it was
  double lr_scale = 1;   ///< the learning rate's factor from then on
  std::string message;   ///< what the user was told
};

/// After every step (not logged).
struct TrainProgress {
  std::int64_t step = 0, total_steps = 0, epoch = 0, epochs = 0;
  double loss = 0, tokens_per_s = 0, eta_s = 0, elapsed_s = 0;
  bool paused = false;
  /// Encoder pretraining before step 1 (pretrain_step < pretrain_steps while it runs); `loss`
  /// is then the pretraining loss and item_accuracy the share of items named right.
  std::int64_t pretrain_step = 0, pretrain_steps = 0;
  double item_accuracy = 0;
  /// Computing the training images' annotations before step 1, for a run whose encoder does not
  /// train (core/train/annotation_features.h): features_done < features_total while it runs;
  /// eta_s is then that of the annotations.
  std::int64_t features_done = 0, features_total = 0;
};

/// The current captions and α of a few fixed validation images (one line of samples.jsonl);
/// image_paths are PNG files inside the run folder, written once when the run starts.
struct SampleRecord {
  std::int64_t step = 0, epoch = 0;
  std::vector<std::string> image_paths;
  std::vector<CaptionResult> captions;
};

nlohmann::json to_json(const TrainRecord& r);
nlohmann::json to_json(const ValidationRecord& v);
nlohmann::json to_json(const PretrainRecord& p);
nlohmann::json to_json(const SampleRecord& s);
nlohmann::json to_json(const TrainEvent& e);
/// Missing fields keep their defaults (older runs logged fewer); throws nlohmann::json::exception
/// on wrong types.
TrainRecord train_record_from_json(const nlohmann::json& j);
ValidationRecord validation_record_from_json(const nlohmann::json& j);
PretrainRecord pretrain_record_from_json(const nlohmann::json& j);
SampleRecord sample_record_from_json(const nlohmann::json& j);
TrainEvent train_event_from_json(const nlohmann::json& j);

}  // namespace fovea
