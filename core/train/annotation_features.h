#pragma once
/// Training the decoder from annotations computed once (core/decode/split_annotations.h): when a
/// run's encoder does not train, each image's annotation grid is the same at every step, so it is
/// computed once, in batches, and read back from the cache instead of running the CNN again at
/// every step, at every validation and for the familiarity statistics. `fovea train` builds what
/// is missing before its first step; `fovea features` builds it ahead, for every split.
#include <memory>
#include <string>

#include "core/decode/split_annotations.h"
#include "core/train/train_config.h"
#include "core/train/trainer.h"

namespace fovea {

class ProcessGroup;

/// Whether the encoder of `model` (built for `config`) does not train: a TorchScript backbone
/// that is not fine-tuned, or the built-in CNN with every block frozen.
bool encoder_is_fixed(const TrainConfig& config, CaptionModel& model);

/// A run's training annotations: null when the run does not train from cached annotations (its
/// encoder trains, or its data are not on disk); else the cache, built where missing (in a group,
/// by the first process of each machine while the others wait). Progress goes to on_progress as
/// TrainProgress::features_*; `stopped` is set when the stop flag ended the build.
std::shared_ptr<AnnotationCache> open_run_annotations(const TrainConfig& config, CaptionModel& model,
                                                      std::shared_ptr<const SceneSource> train, ProcessGroup* group,
                                                      const TrainCallbacks& callbacks, bool& stopped);

}  // namespace fovea
