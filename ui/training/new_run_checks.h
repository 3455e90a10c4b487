#pragma once
/// What the New run dialog refuses before a run starts, said in the dialog's words: the config's
/// own validation, a learning rate no run survives, a folder that holds a run already, files that
/// are not there. Torch-free.
#include <QString>

#include "core/train/train_config.h"
#include "core/train/train_settings.h"

namespace fovea::ui {

/// The largest learning rate a run may start with: far above any that trains, far below one
/// that sends every weight to inf within a step.
inline constexpr double kMaxLearningRate = 1.0;

/// Throws std::invalid_argument saying what is wrong with starting `config`.
void check_new_run(const fovea::TrainConfig& config);

/// The setting's field label ("init_from" -> "Init from").
QString label_of(const fovea::TrainSetting& setting);
/// `text` with each `fovea train` option (--lr) named as the dialog labels its field (“Lr”).
QString in_field_names(QString text);

}  // namespace fovea::ui
