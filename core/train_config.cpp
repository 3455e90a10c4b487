#include "core/train_config.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/dataset_source.h"

namespace fovea {

void TrainConfig::validate() const {
  model.validate();
  check_dataset_name(dataset);
  if (!is_builtin_dataset(dataset) && images_dir.empty()) {
    throw std::invalid_argument(dataset + " needs the folder of its images (--images DIR)");
  }
  if (train_scenes < std::size_t(batch_size)) throw std::invalid_argument("train_scenes must be at least the batch size");
  if (val_scenes == 0) throw std::invalid_argument("val_scenes must be positive");
  if (lr <= 0) throw std::invalid_argument("lr must be positive");
  if (precision != "auto" && precision != "fp32" && precision != "bf16") {
    throw std::invalid_argument("precision must be auto, fp32 or bf16, got '" + precision + "'");
  }
  if (lr_decay <= 0 || lr_decay > 1) throw std::invalid_argument("lr_decay must be in (0, 1]");
  if (lr_schedule != "epoch" && lr_schedule != "cosine") {
    throw std::invalid_argument("lr_schedule must be epoch or cosine, not '" + lr_schedule + "'");
  }
  if (!(lr_min >= 0)) throw std::invalid_argument("lr_min must be >= 0, got " + std::to_string(lr_min));
  if (lr_schedule == "cosine" && lr_min > lr) {
    throw std::invalid_argument("the cosine schedule falls from lr to lr_min: lr_min " + std::to_string(lr_min) +
                                " is above lr " + std::to_string(lr));
  }
  if (!(weight_averaging == 0 || (weight_averaging > 0 && weight_averaging < 1))) {
    throw std::invalid_argument("weight_averaging must be 0 (off) or a decay in (0, 1), got " +
                                std::to_string(weight_averaging));
  }
  if (batch_size <= 0) throw std::invalid_argument("batch size must be positive");
  if (epochs <= 0) throw std::invalid_argument("epochs must be positive");
  if (max_steps < 0) throw std::invalid_argument("max_steps must be >= 0");
  if (grad_clip <= 0) throw std::invalid_argument("grad_clip must be positive");
  if (objective.lambda < 0 || objective.lambda_e < 0 || objective.lambda_r < 0) {
    throw std::invalid_argument("lambda, lambda_e and lambda_r must be >= 0");
  }
  if (!(scenes.erase_items >= 0 && scenes.erase_items <= 1)) {
    throw std::invalid_argument("erase_items must be in [0, 1], got " + std::to_string(scenes.erase_items));
  }
  if (aux_weight < 0) throw std::invalid_argument("aux_weight must be >= 0");
  if (object_class_weight < 0) throw std::invalid_argument("object_class_weight must be >= 0");
  if (decoder_parts < 0) throw std::invalid_argument("decoder_parts must be >= 0, got " + std::to_string(decoder_parts));
  if (pretrain_steps < 0 || pretrain_batch <= 0 || !(pretrain_lr > 0)) {
    throw std::invalid_argument("pretrain_steps must be >= 0, pretrain_batch and pretrain_lr positive");
  }
  if (!(pretrain_weight_decay >= 0)) throw std::invalid_argument("pretrain_weight_decay must be >= 0");
  if (pretrain_optimizer != "adam" && pretrain_optimizer != "sgd") {
    throw std::invalid_argument("pretrain_optimizer must be adam or sgd, not '" + pretrain_optimizer + "'");
  }
  if (!(pretrain_label_smoothing >= 0 && pretrain_label_smoothing < 1)) {
    throw std::invalid_argument("pretrain_label_smoothing must be in [0, 1), got " + std::to_string(pretrain_label_smoothing));
  }
  if (!(item_weight >= 0) || item_batch <= 0) {
    throw std::invalid_argument("item_weight must be >= 0 and item_batch positive");
  }
  if (warmup_steps < 0) throw std::invalid_argument("warmup_steps must be >= 0, got " + std::to_string(warmup_steps));
  if (!(encoder_lr_scale >= 0)) {
    throw std::invalid_argument("encoder_lr_scale must be >= 0");
  }
  if (attention_supervision < 0) throw std::invalid_argument("attention_supervision must be >= 0");
  if (expected_context_prob < 0 || expected_context_prob > 1) throw std::invalid_argument("expected_context_prob must be in [0, 1]");
  if (baseline_decay < 0 || baseline_decay >= 1) throw std::invalid_argument("baseline_decay must be in [0, 1)");
  if (log_every <= 0 || checkpoint_every <= 0) throw std::invalid_argument("log_every and checkpoint_every must be positive");
  if (patience <= 0) throw std::invalid_argument("patience must be positive");
  if (sample_every < 0 || sample_count < 0) throw std::invalid_argument("sample_every and sample_count must not be negative");
  if (out_dir.empty()) throw std::invalid_argument("an output folder is required");
}

double captioning_lr(const TrainConfig& c, std::int64_t epoch, std::int64_t step, std::int64_t steps_per_epoch) {
  double lr = c.lr * std::pow(c.lr_decay, double(epoch));
  if (c.lr_schedule == "cosine") {
    const auto last = std::max<std::int64_t>(1, steps_per_epoch * c.epochs - 1);
    const double f = std::min(1.0, double(step) / double(last));
    lr = c.lr_min + (c.lr - c.lr_min) * 0.5 * (1.0 + std::cos(M_PI * f));
  }
  if (step >= c.warmup_steps) return lr;
  return lr * double(step + 1) / double(c.warmup_steps);
}

bool pretrains_encoder(const TrainConfig& c) {
  return c.pretrain_steps > 0 && c.init_from.empty() && is_builtin_dataset(c.dataset) && c.model.backbone_path.empty();
}

TrainConfig recommended_train_config() {
  TrainConfig c;
  c.model.init_state = InitState::Learned;
  return c;
}

void apply_paper_objective(TrainConfig& c) {
  c.aux_weight = 0;
  c.pretrain_steps = 0;
  c.item_weight = 0;
  c.object_class_weight = 0;
  c.attention_supervision = 0;
  c.model.init_state = InitState::Mean;
  c.objective.reduction = PenaltyReduction::Sum;
}

nlohmann::json to_json(const TrainConfig& c) {
  return {{"model", to_json(c.model)},
          {"dataset", c.dataset},
          {"images_dir", c.images_dir},
          {"skip_bad_images", c.skip_bad_images},
          {"cache_dir", c.cache_dir},
          {"train_scenes", c.train_scenes},
          {"val_scenes", c.val_scenes},
          {"fresh_scenes", c.fresh_scenes},
          {"scenes",
           {{"image_size", c.scenes.image_size},
            {"min_objects", c.scenes.min_objects},
            {"max_objects", c.scenes.max_objects},
            {"min_item_size", c.scenes.min_item_size},
            {"max_item_size", c.scenes.max_item_size},
            {"seed", c.scenes.seed},
            {"mirror_items", c.scenes.mirror_items},
            {"uniform_items", c.scenes.uniform_items},
            {"erase_items", c.scenes.erase_items},
            {"mnist_dir", c.scenes.mnist_dir}}},
          {"min_count", c.min_count},
          {"lr", c.lr},
          {"lr_decay", c.lr_decay},
          {"lr_schedule", c.lr_schedule},
          {"lr_min", c.lr_min},
          {"weight_averaging", c.weight_averaging},
          {"score_unaveraged", c.score_unaveraged},
          {"batch_size", c.batch_size},
          {"epochs", c.epochs},
          {"max_steps", c.max_steps},
          {"grad_clip", c.grad_clip},
          {"lambda", c.objective.lambda},
          {"penalty_reduction", to_string(c.objective.reduction)},
          {"lambda_r", c.objective.lambda_r},
          {"lambda_e", c.objective.lambda_e},
          {"aux_weight", c.aux_weight},
          {"object_class_weight", c.object_class_weight},
          {"attention_supervision", c.attention_supervision},
          {"pretrain_steps", c.pretrain_steps},
          {"pretrain_batch", c.pretrain_batch},
          {"pretrain_lr", c.pretrain_lr},
          {"pretrain_weight_decay", c.pretrain_weight_decay},
          {"pretrain_optimizer", c.pretrain_optimizer},
          {"pretrain_label_smoothing", c.pretrain_label_smoothing},
          {"item_weight", c.item_weight},
          {"item_batch", c.item_batch},
          {"warmup_steps", c.warmup_steps},
          {"freeze_bn_stats", c.freeze_bn_stats},
          {"encoder_lr_scale", c.encoder_lr_scale},
          {"expected_context_prob", c.expected_context_prob},
          {"baseline_decay", c.baseline_decay},
          {"seed", c.seed},
          {"device", c.device},
          {"precision", c.precision},
          {"threads", c.threads},
          {"decoder_parts", c.decoder_parts},
          {"log_every", c.log_every},
          {"checkpoint_every", c.checkpoint_every},
          {"sample_every", c.sample_every},
          {"sample_count", c.sample_count},
          {"patience", c.patience},
          {"out_dir", c.out_dir},
          {"init_from", c.init_from}};
}

TrainConfig train_config_from_json(const nlohmann::json& j) {
  TrainConfig c;
  try {
    c.model = model_config_from_json(j.at("model"));
    c.dataset = j.at("dataset").get<std::string>();
    c.images_dir = j.value("images_dir", std::string());
    c.skip_bad_images = j.value("skip_bad_images", false);
    c.cache_dir = j.value("cache_dir", std::string());
    c.train_scenes = j.at("train_scenes").get<std::size_t>();
    c.val_scenes = j.at("val_scenes").get<std::size_t>();
    c.fresh_scenes = j.value("fresh_scenes", false);  // absent: saved before the option
    const auto& s = j.at("scenes");
    c.scenes.image_size = s.at("image_size").get<int>();
    c.scenes.min_objects = s.at("min_objects").get<int>();
    c.scenes.max_objects = s.at("max_objects").get<int>();
    c.scenes.min_item_size = s.at("min_item_size").get<int>();
    c.scenes.max_item_size = s.at("max_item_size").get<int>();
    c.scenes.seed = s.at("seed").get<std::uint64_t>();
    c.scenes.mirror_items = s.value("mirror_items", false);  // absent: saved before the option
    c.scenes.uniform_items = s.value("uniform_items", false);  // absent: saved before the option
    c.scenes.erase_items = s.value("erase_items", 0.0);
    c.scenes.mnist_dir = s.at("mnist_dir").get<std::string>();
    c.min_count = j.at("min_count").get<int>();
    c.lr = j.at("lr").get<double>();
    c.lr_decay = j.value("lr_decay", 1.0);
    c.lr_schedule = j.value("lr_schedule", std::string("epoch"));  // runs from before it: per epoch
    c.lr_min = j.value("lr_min", TrainConfig{}.lr_min);
    c.weight_averaging = j.value("weight_averaging", 0.0);  // runs from before it: the last step's weights
    c.score_unaveraged = j.value("score_unaveraged", false);
    c.batch_size = j.at("batch_size").get<std::int64_t>();
    c.epochs = j.at("epochs").get<std::int64_t>();
    c.max_steps = j.at("max_steps").get<std::int64_t>();
    c.grad_clip = j.at("grad_clip").get<double>();
    c.objective.lambda = j.at("lambda").get<double>();
    c.objective.reduction = parse_penalty_reduction(j.at("penalty_reduction").get<std::string>());
    c.objective.lambda_r = j.at("lambda_r").get<double>();
    c.objective.lambda_e = j.at("lambda_e").get<double>();
    c.aux_weight = j.value("aux_weight", 0.0);
    c.object_class_weight = j.value("object_class_weight", 0.0);
    c.attention_supervision = j.value("attention_supervision", 0.0);
    c.pretrain_steps = j.value("pretrain_steps", std::int64_t(0));  // runs from before it: none
    c.pretrain_batch = j.value("pretrain_batch", TrainConfig{}.pretrain_batch);
    c.pretrain_lr = j.value("pretrain_lr", TrainConfig{}.pretrain_lr);
    c.pretrain_weight_decay = j.value("pretrain_weight_decay", 0.0);
    c.pretrain_optimizer = j.value("pretrain_optimizer", std::string("adam"));  // runs from before them: Adam,
    c.pretrain_label_smoothing = j.value("pretrain_label_smoothing", 0.0);      // no smoothing
    c.item_weight = j.value("item_weight", 0.0);  // runs from before it: none
    c.item_batch = j.value("item_batch", TrainConfig{}.item_batch);
    c.warmup_steps = j.value("warmup_steps", std::int64_t(0));  // runs from before it: none
    c.freeze_bn_stats = j.value("freeze_bn_stats", false);
    c.encoder_lr_scale = j.value("encoder_lr_scale", 1.0);  // runs from before it: one rate
    c.expected_context_prob = j.at("expected_context_prob").get<double>();
    c.baseline_decay = j.at("baseline_decay").get<double>();
    c.seed = j.at("seed").get<std::uint64_t>();
    c.device = j.at("device").get<std::string>();
    c.precision = j.value("precision", std::string("fp32"));
    c.threads = j.at("threads").get<int>();
    c.decoder_parts = j.value("decoder_parts", 0);
    c.log_every = j.at("log_every").get<std::int64_t>();
    c.checkpoint_every = j.at("checkpoint_every").get<std::int64_t>();
    c.sample_every = j.value("sample_every", std::int64_t(0));
    c.sample_count = j.value("sample_count", std::int64_t(4));
    c.patience = j.at("patience").get<std::int64_t>();
    c.out_dir = j.at("out_dir").get<std::string>();
    c.init_from = j.value("init_from", std::string());
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("training config: ") + e.what());
  }
  return c;
}

}  // namespace fovea
