#pragma once
/// An encoder file: Fovea's built-in CNN with its weights, and the auxiliary class and colour heads
/// that name what its annotations show, as `fovea pretrain-encoder` writes it. `fovea train
/// --backbone FILE` starts from it and fine-tunes it, the way the paper starts from a VGG
/// pretrained on ImageNet. The checkpoint layout (core/model/checkpoint.h), header format
/// "fovea-encoder". Reading the header alone is torch-free: core/io/encoder_file_header.h.
#include <string>

#include <nlohmann/json.hpp>

#include "core/model/checkpoint.h"
#include "core/io/encoder_file_header.h"

namespace fovea {

/// Writes model's built-in CNN and auxiliary heads with `pretraining` (what trained them: steps,
/// held_out_accuracy, items, precision, elapsed_s, seed) to `path`, atomically.
void save_encoder_file(const std::string& path, CaptionModel& model, const nlohmann::json& pretraining);

/// Copies the encoder file's CNN (weights and batch-norm statistics) and auxiliary heads into
/// `model`, whose built-in CNN must have the same blocks. Throws CheckpointError naming the file
/// and what differs.
void load_encoder_file(const std::string& path, CaptionModel& model);

}  // namespace fovea
