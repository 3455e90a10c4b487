#pragma once
/// How a training run is set up before its loop starts (core/train/training_session.h): its data,
/// its device, the model of a new run, and what it says about them.
#include <functional>
#include <string>

#include <torch/torch.h>

#include "core/data/scene_source.h"
#include "core/model/show_attend_tell.h"
#include "core/train/trainer.h"

namespace fovea {

/// The data a run trains on: `data` as given, or built from the config. With a dataset on disk
/// the first process of each machine fills the image cache (saying so through `message`), then
/// the others open it.
TrainData open_train_data(const TrainConfig& config, TrainData data, const std::function<void(const std::string&)>& message);

/// The device the config names; in a group on CUDA without an index, one GPU a process by LOCAL_RANK.
torch::Device training_device(const TrainConfig& config, const ProcessGroup* group);

/// A new run's model: the vocabulary from the training captions and the weights fresh or with the
/// encoder of config.backbone; or the weights and vocabulary of config.init_from (same architecture).
/// Sets config.model to the architecture built. Draws from LibTorch's generator (seed it first).
CaptionModel build_new_model(TrainConfig& config, const SceneSource& train, torch::Device device,
                             const std::function<void(const std::string&)>& message);

/// The number of weights the run trains.
std::int64_t parameter_count(CaptionModel& model);

/// "; N processes, M images each a step" for a group, else empty.
std::string describe_processes(const TrainConfig& config, const ProcessGroup* group);
/// The training data for the model card, with how the built-in scenes are drawn each epoch.
std::string describe_training_scenes(const TrainConfig& config, const SceneSource& train);

}  // namespace fovea
