#include "core/train/train_config.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/data/dataset_source.h"
#include "core/io/encoder_file_header.h"
#include "core/runtime/data_paths.h"
#include "core/train/train_settings.h"

namespace fovea {

void TrainConfig::validate() const {
  for (const auto& s : train_settings()) s.check(s.get(*this));
  model.validate();
  check_dataset_name(dataset);
  if (out_dir.empty()) throw std::invalid_argument("an output folder is required (out)");
  if (!is_builtin_dataset(dataset) && images_dir.empty()) {
    throw std::invalid_argument(dataset + " needs the folder of its images (images)");
  }
  if (!backbone.empty()) {
    if (!std::filesystem::exists(backbone)) {
      throw std::invalid_argument(backbone + ": file not found (backbone: an encoder file, a TorchScript CNN, or none)");
    }
    if (is_encoder_file(backbone)) {
      const auto error = encoder_file_mismatch(backbone, read_encoder_file_info(backbone), model.encoder_widths,
                                               model.block_strides(), model.centred_cells);
      if (!error.empty()) throw std::invalid_argument(error);
    }
  }
  if (self_critical != "off" && init_from.empty()) {
    throw std::invalid_argument("self_critical " + self_critical +
                                " needs a model to start from (init_from: one trained with cross-entropy); "
                                "sampled captions of an untrained model earn no reward to learn from");
  }
  if (is_builtin_dataset(dataset) && train_scenes < std::size_t(batch_size)) {
    throw std::invalid_argument("train_scenes (" + std::to_string(train_scenes) + ") must be at least the batch (" +
                                std::to_string(batch_size) + ")");
  }
}

RunPlan plan_run(const TrainConfig& c, std::int64_t steps_per_epoch, std::int64_t steps_taken,
                 std::int64_t pretrain_steps_taken) {
  RunPlan p;
  p.captioning_steps = steps_per_epoch * c.epochs;
  p.pretrain_steps = pretrains_encoder(c) ? c.pretrain_steps : 0;
  if (steps_taken > 0) p.pretrain_steps = std::min(p.pretrain_steps, pretrain_steps_taken);  // captioning began: it is over
  if (c.max_steps > 0) {
    if (steps_taken == 0) p.pretrain_steps = std::min(p.pretrain_steps, std::max(pretrain_steps_taken, c.max_steps / 2));
    p.captioning_steps = std::min(p.captioning_steps, std::max<std::int64_t>(0, c.max_steps - p.pretrain_steps));
  }
  return p;
}

double captioning_lr(const TrainConfig& c, std::int64_t epoch) { return c.lr * std::pow(c.lr_decay, double(epoch)); }

bool pretrains_encoder(const TrainConfig& c) {
  return c.pretrain_steps > 0 && c.init_from.empty() && is_builtin_dataset(c.dataset) &&
         (c.backbone.empty() || is_encoder_file(c.backbone));
}

std::int64_t frozen_encoder_blocks(const TrainConfig& c) {
  const bool builtin_cnn = c.backbone.empty() || is_encoder_file(c.backbone);
  const bool starts_trained = !c.backbone.empty() || pretrains_encoder(c) || !c.init_from.empty();
  if (!builtin_cnn || !starts_trained) return 0;
  return std::max<std::int64_t>(0, std::int64_t(c.model.encoder_widths.size()) - c.trainable_blocks);
}

TrainConfig recommended_train_config() {
  TrainConfig c;
  c.backbone = default_encoder_path();
  return c;
}

void apply_paper_objective(TrainConfig& c) {
  c.aux_weight = 0;
  c.pretrain_steps = 0;
  c.attention_supervision = 0;
  c.model.init_state = InitState::Mean;
  c.objective.reduction = PenaltyReduction::Sum;
}

void apply_self_critical_recipe(TrainConfig& c) {
  c.self_critical = "samples";
  c.lr = 2e-4;
  c.lr_decay = 1;
  c.epochs = 3;
  c.trainable_blocks = 0;
  c.aux_weight = 0;
  c.pretrain_steps = 0;
}

nlohmann::json to_json(const TrainConfig& c) {
  nlohmann::json j = {{"version", kTrainConfigVersion}};
  for (const auto& s : train_settings()) {
    std::visit([&](const auto& v) { j[s.key] = v; }, s.get(c));
  }
  return j;
}

TrainConfig train_config_from_json(const nlohmann::json& stored) {
  TrainConfig c;
  try {
    const auto j = migrate_train_config(stored);
    for (const auto& s : train_settings()) {
      if (!j.contains(s.key)) continue;  // a setting newer than the file: its default
      const auto& v = j.at(s.key);
      switch (s.default_value().index()) {
        case 0: s.set(c, v.get<bool>()); break;
        case 1: s.set(c, v.get<std::int64_t>()); break;
        case 2: s.set(c, v.get<double>()); break;
        case 3: s.set(c, v.get<std::string>()); break;
        default: s.set(c, v.get<std::vector<std::int64_t>>());
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("training config: ") + e.what());
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("training config: ") + e.what());
  }
  return c;
}

}  // namespace fovea
