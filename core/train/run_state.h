#pragma once
/// What a training run's checkpoint carries besides the weights, and how a resumed run trims the
/// logs its crashed predecessor wrote past that checkpoint.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/train/objectives.h"
#include "core/train/precision_trial.h"
#include "core/train/train_config.h"

namespace fovea {

/// Progress that a checkpoint carries besides the weights.
struct RunState {
  std::int64_t step = 0;
  std::int64_t validated_epochs = 0;
  MovingBaseline baseline;
  double best_bleu4 = -1;
  /// The score best.ckpt was chosen by (core/train/run_validation.h): its metric ("BLEU-4",
  /// "CIDEr-D" or "validation NLL"; empty before the first validation) and value.
  std::string best_metric;
  double best_score = 0;
  std::int64_t best_step = 0;
  std::int64_t bad_epochs = 0;
  double elapsed_s = 0;
  bool stopped_early = false;
  std::int64_t pretrain_step = 0;  ///< encoder pretraining steps done
  /// Share of held-out single items the pretrained encoder's class head named right, scored when
  /// the pretraining ended; -1 before that, or when it was not scored.
  double pretrain_held_out_accuracy = -1;
  /// The learning rate's factor: 1, halved by each rollback after a non-finite step.
  double lr_scale = 1;
  std::int64_t rollbacks = 0;  ///< rollbacks after non-finite steps so far
  /// The precision the run trains in ("fp32" or "bf16"; "" until chosen), and for
  /// `--precision auto` on the CPU the times it was chosen by (core/train/precision_trial.h).
  std::string precision;
  PrecisionTrial precision_trial;
  /// The training scenes came with object boxes, so attention supervision and the auxiliary
  /// heads (when their weights are on) trained; without boxes both terms are 0.
  bool object_boxes = false;
};

/// The checkpoint's "training" entry: the state and the run's full config.
nlohmann::json to_json(const RunState& s, const TrainConfig& c);
/// Throws nlohmann::json::exception on a missing or mistyped field (the fields added since the
/// first version, pretrain_step onwards, may be absent).
RunState run_state_from_json(const nlohmann::json& j, double baseline_decay);

/// Keeps the lines of a run's JSON-lines log (metrics.jsonl, samples.jsonl) up to `step` and
/// `pretrain_step`: drops what a crashed run logged after its last checkpoint, and a truncated
/// last line.
void truncate_metrics(const std::string& path, std::int64_t step, std::int64_t pretrain_step);

}  // namespace fovea
