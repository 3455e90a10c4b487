#pragma once
/// The model card `fovea train` writes beside its checkpoints (MODEL_CARD.md): data,
/// hyperparameters, training time and validation scores.
#include <string>

#include "core/model/show_attend_tell.h"
#include "core/train/train_config.h"

namespace fovea {

struct TrainResult;

/// Writes <config.out_dir>/MODEL_CARD.md (atomically) and returns its text.
std::string write_model_card(const TrainConfig& config, const CaptionModel& model, const std::string& train_data,
                             const std::string& val_data, const TrainResult& result);

}  // namespace fovea
