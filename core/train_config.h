#pragma once
/// Everything `fovea train` (and the GUI's training dialog) can set, with the shipped recipe's
/// defaults. Stored in every checkpoint so a run can be resumed and reproduced.
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/fashion_scenes.h"
#include "core/model_config.h"
#include "core/objective_options.h"

namespace fovea {

struct TrainConfig {
  /// With an item classifier (ModelConfig::item_classifier): kept from the encoder pretraining.
  ModelConfig model = [] {
    ModelConfig m;
    m.item_classifier = true;
    return m;
  }();
  /// fashion-scenes (built in), karpathy:PATH (a Karpathy split file) or coco:PATH (a COCO
  /// captions file); the last two read their images from images_dir through an image cache.
  std::string dataset = "fashion-scenes";
  std::string images_dir;
  bool skip_bad_images = false;  ///< leave unreadable images out instead of stopping
  std::string cache_dir;         ///< where decoded images are cached (empty: ~/.cache/fovea)
  /// Built-in scenes to generate; on disk: at most this many (0: all). 40000 scenes for 8 epochs
  /// grounds and recognises better than 20000 for 16 (docs/attention.md rows 10 and 11); 4 epochs
  /// of them and the encoder pretraining fit the 30-minute budget with bf16 products.
  std::size_t train_scenes = 40000;
  std::size_t val_scenes = 500;
  /// Built-in scenes only: every epoch draws train_scenes new scenes (epoch e's have data seed
  /// scenes.seed + e) instead of showing the same ones again; false: the paper's fixed training
  /// set. Six epochs of the same 40000 scenes name absent classes in 1.5% of the nouns of those
  /// scenes against 6.3% of test scenes' (docs/attention.md rows 39-40).
  bool fresh_scenes = true;
  /// scenes.mirror_items (`--mirror-items`) is on: alone it names absent classes as often as
  /// without (docs/attention.md row 42), but a model trained on mirrored items recognises the
  /// class nouns in the mirror of an image too, which captions then do (CaptionOptions::mirror_nouns).
  FashionScenesOptions scenes = [] {
    FashionScenesOptions o;
    o.mirror_items = true;
    return o;
  }();
  int min_count = 1;  ///< vocabulary: keep words seen at least this often in the training split

  /// Captioning steps over which the learning rate rises linearly to its epoch's value
  /// (captioning_lr()); 0 = from the first step, as before the option.
  std::int64_t warmup_steps = 0;
  /// While captioning, the encoder's batch norms normalise with the statistics the encoder
  /// arrived with (its pretraining's, or init_from's) instead of each batch's, and keep them:
  /// scenes have other statistics than single items, and re-estimating them undid most of the
  /// pretraining at once (docs/attention.md). Only for an encoder that arrives trained.
  bool freeze_bn_stats = false;
  double lr_decay = 0.55;  ///< the learning rate is lr * lr_decay^epoch: about 1.7e-4 in the last of 4 epochs
  /// How the captioning learning rate falls: "epoch" (lr * lr_decay^epoch, constant within an
  /// epoch) or "cosine" (step by step from lr at the first step to lr_min at the last step of
  /// `epochs`; lr_decay unused).
  std::string lr_schedule = "epoch";
  double lr_min = 1e-5;  ///< the cosine schedule's rate at the last step
  /// Decay of a moving average of the weights over the captioning steps (core/weight_average.h):
  /// validation, best.ckpt and so the shipped model use the average, last.ckpt keeps both.
  /// 0 = off: the last step's weights.
  double weight_averaging = 0;
  /// With weight averaging: each validation also scores the last step's weights (logged as
  /// unaveraged_*), to see what the average buys; costs a second validation.
  bool score_unaveraged = false;
  double lr = 1e-3;  // the paper used 4e-4 with 512-wide layers; the small default model learns faster at 1e-3
  std::int64_t batch_size = 64;
  /// 4, not 10, since encoder pretraining: with the pretrained encoder the absent nouns stop
  /// falling after two or three epochs, and the pretraining's minutes buy more than epochs do
  /// (docs/attention.md rows 25-33; 4 epochs after 14000 pretraining steps: rows 69-70).
  std::int64_t epochs = 4;
  std::int64_t max_steps = 0;  ///< 0 = no limit besides epochs
  double grad_clip = 5.0;
  ObjectiveOptions objective;
  /// Weight of the auxiliary per-cell class + colour loss on the annotations (needs object
  /// boxes, which fashion-scenes has); 0 = off, the paper's setting. 3 names fewer absent classes
  /// than 1 (docs/attention.md row 18).
  double aux_weight = 3.0;
  /// Weight of object_class_loss(): each object's annotations pooled over its cells and classified
  /// by the auxiliary class head (needs object boxes); 0 = off. 3 rather than 1: absent nouns 9.2%
  /// -> 8.3% at the same BLEU-4 (docs/attention.md row 23).
  double object_class_weight = 3.0;
  /// Weight of attention supervision (Liu et al. 2017, "Attention Correctness"): −log of the α
  /// mass inside the box of the object each colour word and noun names (needs object boxes);
  /// 0 = off, the paper's setting.
  double attention_supervision = 1.0;
  /// Encoder pretraining (core/encoder_pretraining.h): before the first captioning step, this many
  /// steps of `pretrain_batch` single training items, each named by the auxiliary class head;
  /// 0 = off, the paper's setting. Built-in scenes and Fovea's own encoder only; skipped when
  /// starting from init_from's weights. With no pretraining and 10 epochs the captions named an
  /// absent class for 8.9% of nouns, with 12000 steps and 6 epochs 6.1% (docs/attention.md rows
  /// 25-33). 14000 steps and 4 epochs (rows 69-70) name absent classes less often than 10000 and
  /// 6 (row 60) in about the same minutes: the item classifier is this pretraining's copy.
  std::int64_t pretrain_steps = 14000;
  std::int64_t pretrain_batch = 128;
  /// Peak learning rate of the pretraining: reached after a short linear warm-up, then a cosine
  /// down to a twentieth of it. The items are easy to fit and not overfitted (held-out items are
  /// named as often as training ones), so the pretraining gains from a faster start: 2e-3 names
  /// 92.0% of held-out test items after 6000 steps where lr 1e-3 decayed linearly named 91.2%.
  double pretrain_lr = 2e-3;
  /// Weight decay on the pretraining's convolution and linear weights: decoupled (AdamW) with
  /// adam, a coupled L2 term with sgd; 0 = none, as before the option.
  double pretrain_weight_decay = 0.0;
  /// The pretraining's optimiser: adam, or sgd (Nesterov momentum 0.9; wants a peak lr near 0.05).
  std::string pretrain_optimizer = "adam";
  /// Label smoothing of the pretraining's class cross-entropies (0 = none).
  double pretrain_label_smoothing = 0.0;
  /// Single items while captioning: each captioning step also names `item_batch` single training
  /// items drawn as the pretraining draws them (the items after the pretraining's), their loss
  /// (single_item_loss()) weighted by this and added to the step's; 0 = off. Built-in scenes only.
  /// Off by default: at 1, absent nouns on 4000 test scenes 5.24% and 5.68% with seeds 1 and 2
  /// against 5.51-5.56% without (seed 1), for a captioning step 12.5% longer (docs/attention.md
  /// rows 63-66): not outside the seed spread.
  double item_weight = 0.0;
  std::int64_t item_batch = 32;
  /// The encoder's learning rate during captioning, as a multiple of lr (1: the same as the
  /// decoder's). Below 1 keeps more of what the pretraining taught it.
  double encoder_lr_scale = 1.0;
  double expected_context_prob = 0.5;  ///< hard: chance a sequence uses the expected context
  double baseline_decay = 0.9;         ///< hard: b_k = decay b_{k-1} + (1 - decay) reward
  std::uint64_t seed = 1;
  std::string device = "auto";
  /// fp32, or bf16: the training forward's matrix products and convolutions run in bfloat16 with
  /// float accumulation (CPU autocast); weights, gradients, optimizer and decoding stay float.
  /// auto: bf16 on a CPU that multiplies bf16 in hardware, fp32 elsewhere (resolve_precision()).
  std::string precision = "auto";
  int threads = 0;  ///< 0 = one per core
  /// Parts of each batch whose decoder forward and backward run at once on their own threads
  /// (core/decoder_pass.h); 0: one per thread with at least 16 captions each (2 for the default
  /// recipe on 2 cores). The parts draw their own random numbers, so this changes the run's numbers.
  int decoder_parts = 0;
  std::int64_t log_every = 10;
  std::int64_t checkpoint_every = 200;
  std::int64_t sample_every = 100;  ///< steps between caption + α snapshots of fixed validation images (0 = off)
  std::int64_t sample_count = 4;    ///< how many validation images those snapshots show
  /// Early stopping: epochs without a better validation BLEU-4. 3 stopped a default run at epoch 6
  /// of 10 (BLEU-4 flat for three epochs while the lr decayed and absent nouns still fell;
  /// docs/attention.md row 22), keeping the epoch-3 model.
  std::int64_t patience = 5;
  std::string out_dir;
  /// Start from the weights of this checkpoint (same architecture and vocabulary; the attention
  /// kind may differ, e.g. a hard model warm-started from a soft one). Empty = from scratch.
  std::string init_from;

  /// Throws std::invalid_argument naming the field that is out of range.
  void validate() const;
};

/// Whether a run of `c` pretrains its encoder: pretrain_steps > 0, built-in scenes, Fovea's own
/// encoder, and not starting from another model's weights (whose encoder is trained already).
/// The trainer and the model card both ask this.
bool pretrains_encoder(const TrainConfig& c);

/// The learning rate of captioning step `step` (0-based, counted over the whole run) in `epoch`,
/// with `steps_per_epoch` steps an epoch: lr * lr_decay^epoch (lr_schedule "epoch") or the cosine
/// from lr to lr_min over all `epochs` (lr_schedule "cosine"), times (step + 1) / warmup_steps
/// during the first warmup_steps steps.
double captioning_lr(const TrainConfig& c, std::int64_t epoch, std::int64_t step, std::int64_t steps_per_epoch);

/// The shipped recipe (what `fovea train` does without options): TrainConfig's defaults with
/// h0/c0 learned.
TrainConfig recommended_train_config();

/// The paper's exact objective: no auxiliary loss, no attention supervision, h0/c0 from the
/// mean annotation, penalty summed over cells (`fovea train --paper`, the GUI's "Paper" button).
void apply_paper_objective(TrainConfig& c);

nlohmann::json to_json(const TrainConfig& c);
TrainConfig train_config_from_json(const nlohmann::json& j);

}  // namespace fovea
