#include "core/train/model_card.h"

#include <filesystem>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/io/atomic_file.h"
#include "core/io/encoder_file_header.h"
#include "core/runtime/runtime.h"
#include "core/train/trainer.h"

namespace fovea {

std::string write_model_card(const TrainConfig& config, const CaptionModel& model, const std::string& train_data,
                             const std::string& val_data, const TrainResult& result) {
  std::ostringstream md;
  md << std::fixed << std::setprecision(4);
  md << "# Model card: " << to_string(model.config.attention) << "-attention Show-Attend-Tell\n\n";
  md << "Produced by `fovea train` (" << describe_runtime(model.device) << ").\n\n";
  md << "## Data\n\n- Training: " << train_data << "\n- Validation: " << val_data << "\n- Vocabulary: "
     << model.vocab.size()
     << (config.init_from.empty() ? " tokens: the words seen at least " + std::to_string(config.min_count) + " time(s) in training"
                                  : std::string(" tokens: those of the model it started from"))
     << ", and 4 special tokens\n\n";
  md << "## Architecture\n\n";
  md << "- Encoder: ";
  if (model.config.backbone_path.empty()) {
    md << "built-in CNN (3x3 blocks of width";
    for (auto w : model.config.encoder_widths) md << " " << w;
    md << ", strides";
    for (auto st : model.config.block_strides()) md << " " << st;
    md << "; " << (model.config.centred_cells ? "cells centred on their pixels" : "symmetric padding, cells 3.5 px up-left");
    md << ")";
  } else {
    md << "TorchScript backbone " << model.config.backbone_path;
  }
  md << ", " << model.config.image_size << "px input -> " << model.config.grid_h << "x" << model.config.grid_w << "x"
     << model.config.annotation_dim << " annotation grid\n";
  md << "- Decoder: embedding " << model.config.embed_dim << ", attention " << model.config.attention_dim << ", LSTM "
     << model.config.hidden_dim << ", dropout " << model.config.dropout << ", beta gate "
     << (model.config.beta_gated() ? "on" : model.config.use_beta ? "off (it gates soft attention only)" : "off")
     << ", initial state " << to_string(model.config.init_state) << "\n";
  md << "\n";
  md << "## Training\n\n";
  if (!config.init_from.empty()) {
    md << "- Started from the weights of " << config.init_from << "\n";
  } else {
    md << "- Encoder at the start: " << describe_backbone(config.backbone) << "\n";
  }
  if (pretrains_encoder(config) && result.pretrain_steps > 0) {
    md << "- Encoder pretraining: " << result.pretrain_steps << " steps of " << kPretrainBatch
       << " single training items, named by the auxiliary class head (peak learning rate " << kPretrainLr << ", cosine)";
    if (result.pretrain_held_out_accuracy >= 0) {
      md << "; held-out single items named right " << std::setprecision(1)
         << 100 * result.pretrain_held_out_accuracy << "%" << std::setprecision(4);
    }
    md << "\n";
  }
  if (const auto frozen = frozen_encoder_blocks(config); frozen > 0) {
    md << "- Encoder while captioning: the first " << frozen << " blocks kept their weights, the top "
       << std::int64_t(model.config.encoder_widths.size()) - frozen << " trained\n";
  }
  md << "- Captioning learning rate: " << config.lr << ", times " << config.lr_decay << " after every epoch\n";
  md << "- Steps: " << result.steps << " (" << result.epochs_completed << " validated epochs"
     << (result.stopped_early ? ", stopped early" : "") << ")\n";
  md << "- Precision: " << result.precision
     << (result.precision == "bf16" ? " products in the forward (CPU autocast)" : "");
  if (config.precision == "auto") {
    md << " (auto" << (result.precision_trial.timed() ? ": " + describe(result.precision_trial) : std::string()) << ")";
  }
  md << "\n";
  md << "- Training time: " << std::setprecision(1) << result.elapsed_s / 60.0 << " min\n" << std::setprecision(4);
  md << "- Attention: " << (result.object_boxes && config.attention_supervision > 0
                                ? "supervised by the object boxes (weight " + std::to_string(config.attention_supervision) + ")"
                                : std::string("learned from the captions alone (no object boxes supervised it)"))
     << "; auxiliary heads " << (result.object_boxes && config.aux_weight > 0 ? "trained" : "not trained") << "\n";
  if (result.best_metric.empty() || result.best_metric == "BLEU-4") {
    md << "- Best validation BLEU-4 (greedy decoding): " << result.best_bleu4 << " at step " << result.best_step << "\n\n";
  } else {
    const bool self_critical = config.self_critical != "off" && result.best_metric == "CIDEr-D";
    md << "- Best validation " << result.best_metric << " (greedy decoding; "
       << (self_critical ? "the metric self-critical training optimises" : "BLEU-4 stayed below 0.01") << "): " << result.best_score
       << " at step " << result.best_step << "\n\n";
  }
  md << "## Hyperparameters (the full training config)\n\n```json\n" << to_json(config).dump(2) << "\n```\n";
  const auto text = md.str();
  write_file_atomically((std::filesystem::path(config.out_dir) / "MODEL_CARD.md").string(), text);
  return text;
}

}  // namespace fovea
