#pragma once
/// Everything `fovea train` (and the GUI's New run dialog) can set, with the shipped recipe's
/// defaults. Each field is described once, in core/train/train_settings.cpp: its key, group, range and
/// help there generate the CLI options, the dialog's fields, the JSON and the validation.
/// Stored in every checkpoint so a run can be resumed and reproduced. Torch-free.
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/datasets/fashion_scenes.h"
#include "core/model/model_config.h"
#include "core/train/objective_options.h"

namespace fovea {

struct TrainConfig {
  ModelConfig model = [] {
    ModelConfig m;
    m.init_state = InitState::Learned;
    return m;
  }();
  /// fashion-scenes (built in), karpathy:PATH (a Karpathy split file) or coco:PATH (a COCO
  /// captions file); the last two read their images from images_dir through an image cache.
  std::string dataset = "fashion-scenes";
  std::string images_dir;
  /// Built-in scenes drawn afresh for every epoch; on disk: at most this many images (0: all).
  std::size_t train_scenes = 40000;
  std::size_t val_scenes = 500;
  /// The built-in scenes' generator (data seed 1; training scenes mirror items at random and are
  /// drawn afresh every epoch).
  FashionScenesOptions scenes;
  int min_count = 1;  ///< vocabulary: keep words seen at least this often in the training split

  double lr = 1e-3;
  double lr_decay = 0.55;  ///< the learning rate is lr * lr_decay^epoch
  std::int64_t batch_size = 64;
  std::int64_t epochs = 4;
  std::int64_t max_steps = 0;  ///< 0 = no limit besides epochs; bounds the whole run, pretraining included
  ObjectiveOptions objective;
  /// Weight of the auxiliary losses on the annotations (needs object boxes): each cell's class
  /// and colour, and each object's class from its pooled cells. 0 = off, the paper's setting.
  double aux_weight = 3.0;
  /// Weight of attention supervision (Liu et al. 2017): KL divergence of α from an even spread
  /// over the box of the object each colour word and noun names (needs object boxes); 0 = off,
  /// the paper's setting.
  double attention_supervision = 2.0;
  /// The encoder the run starts from: an encoder file (`fovea pretrain-encoder`: the built-in CNN
  /// pretrained, then fine-tuned with the decoder), a TorchScript CNN returning (B, D, H, W)
  /// (model.backbone_path, trained only with model.backbone_trainable), or empty: the built-in
  /// CNN, untrained. The shipped recipe starts from the shipped encoder file.
  std::string backbone;
  /// A built-in CNN that starts trained (an encoder file, the encoder pretraining, or init_from's
  /// model): how many of its top blocks train while captioning. The blocks below keep their
  /// weights and run without gradients, so a step skips their backward. An untrained CNN trains
  /// all its blocks; more than the CNN has means all.
  std::int64_t trainable_blocks = 5;
  /// Encoder pretraining: before captioning, this many steps on single Fashion-MNIST items named
  /// by the auxiliary class head (built-in scenes and the built-in CNN, untrained or from an
  /// encoder file); 0 = off.
  std::int64_t pretrain_steps = 0;
  /// Self-critical sequence training (Rennie et al. 2017; core/train/self_critical.h) from
  /// init_from's model: "off" (cross-entropy), "greedy" (CIDEr-D reward, the greedy caption's
  /// reward as baseline) or "samples" (the mean reward of the image's other samples as baseline,
  /// Luo 2020).
  std::string self_critical = "off";
  std::uint64_t seed = 1;
  std::string device = "auto";
  /// fp32, or bf16 (matrix products and convolutions in bfloat16 on a CPU with bf16 products);
  /// auto: the faster of the two on such a CPU, timed when the run starts, fp32 elsewhere.
  std::string precision = "auto";
  /// A step whose loss or gradient norm is not finite: "stop" the run (naming the step and the
  /// quantity), "skip" the batch, or "rollback" to the last checkpoint with the learning rate halved.
  std::string on_nonfinite = "stop";
  std::int64_t patience = 5;  ///< early stopping: epochs without a better validation BLEU-4
  std::string out_dir;
  /// Start from the weights of this checkpoint (same architecture and vocabulary; the attention
  /// kind may differ, e.g. a hard model warm-started from a soft one). Empty = from scratch.
  std::string init_from;

  /// Throws std::invalid_argument naming the setting that is out of range.
  void validate() const;
};

/// Fixed parts of the recipe: not settings, the same for every run.
/// Hard: the REINFORCE baseline's decay, b_k = 0.9 b_{k-1} + 0.1 reward (the paper's; not a setting).
inline constexpr double kBaselineDecay = 0.9;
inline constexpr double kGradClip = 5.0;                ///< gradient norm clipping (the paper's)
inline constexpr std::int64_t kLogEvery = 10;           ///< steps between metrics.jsonl records
inline constexpr std::int64_t kCheckpointEvery = 200;   ///< steps between checkpoints (and at every epoch's end)
inline constexpr std::int64_t kSampleEvery = 100;       ///< steps between caption + α snapshots
inline constexpr std::int64_t kSampleCount = 4;         ///< validation images in those snapshots
inline constexpr std::int64_t kPretrainBatch = 128;     ///< single items per pretraining step
inline constexpr std::int64_t kEncoderPretrainSteps = 14000;  ///< `fovea pretrain-encoder`'s steps (the shipped encoder's)
inline constexpr double kPretrainLr = 2e-3;             ///< peak learning rate of the pretraining

/// Whether a run of `c` pretrains its encoder: pretrain_steps > 0, built-in scenes, Fovea's own
/// CNN (not a TorchScript backbone), and not starting from another model's weights (whose encoder
/// is trained already).
bool pretrains_encoder(const TrainConfig& c);

/// How many of the built-in CNN's first blocks a run of `c` keeps frozen while captioning (see
/// trainable_blocks); 0 for a TorchScript backbone or an untrained CNN.
std::int64_t frozen_encoder_blocks(const TrainConfig& c);

/// The steps a run of `c` takes: its encoder pretraining, then its captioning steps. With
/// max_steps the two stay within it, the pretraining taking at most half; a resumed run passes
/// the steps it has taken (a pretraining that captioning followed is over).
struct RunPlan {
  std::int64_t pretrain_steps = 0, captioning_steps = 0;
  std::int64_t total() const { return pretrain_steps + captioning_steps; }
};
RunPlan plan_run(const TrainConfig& c, std::int64_t steps_per_epoch, std::int64_t steps_taken = 0,
                 std::int64_t pretrain_steps_taken = 0);

/// The learning rate of captioning epoch `epoch`: lr * lr_decay^epoch.
double captioning_lr(const TrainConfig& c, std::int64_t epoch);

/// The shipped recipe (what `fovea train` does without options): the defaults above, starting
/// from the shipped encoder file (default_encoder_path()).
TrainConfig recommended_train_config();

/// The paper's exact objective: no auxiliary loss, no encoder pretraining, no attention
/// supervision, h0/c0 from the mean annotation, penalty summed over cells (`fovea train --paper`).
void apply_paper_objective(TrainConfig& c);

/// Self-critical training's recipe from c.init_from's model (docs/training.md, chosen on the
/// validation split): the mean of the other samples as baseline (as good as the greedy caption's
/// there, and no greedy decoding), three epochs at a constant learning rate of 2e-4, the
/// encoder as it is (no auxiliary loss, no pretraining), attention supervision kept where it was
/// on. The model's architecture and data stay.
void apply_self_critical_recipe(TrainConfig& c);

/// {"version": N, key: value ...} with the keys of train_settings().
nlohmann::json to_json(const TrainConfig& c);
/// Reads any version written before (older ones through migrate_train_config()).
TrainConfig train_config_from_json(const nlohmann::json& j);

}  // namespace fovea
