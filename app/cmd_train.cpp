// fovea train: the CLI face of core/trainer.h.
#include <CLI/CLI.hpp>

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <memory>

#include "app/commands.h"
#include "app/progress_bar.h"
#include "core/trainer.h"

namespace fovea::cli {

namespace {

std::atomic<bool> g_stop{false};
extern "C" void on_signal(int) { g_stop.store(true); }

struct TrainArgs {
  TrainConfig config;
  std::string attention = "soft", init_state = "learned", penalty_reduction = "mean", resume;
  bool paper = false;
  bool no_beta = false;
  std::int64_t epochs_override = 0, max_steps_override = 0;
};

}  // namespace

Runner add_train_command(CLI::App& app) {
  auto a = std::make_shared<TrainArgs>();
  auto& c = a->config;
  app.add_option("--dataset", c.dataset,
                 "fashion-scenes (built in), karpathy:PATH/dataset_flickr8k.json (Karpathy split file, also Flickr30k and "
                 "COCO) or coco:PATH/captions.json (COCO captions file; its first --val-scenes images validate)")
      ->capture_default_str();
  app.add_option("--images", c.images_dir, "Folder of the dataset's images (karpathy: and coco: datasets)");
  app.add_flag("--skip-bad-images", c.skip_bad_images, "Leave missing or unreadable images out (and say how many) instead of stopping");
  app.add_option("--cache-dir", c.cache_dir, "Where decoded, resized images are cached (default ~/.cache/fovea)");
  app.add_option("--out", c.out_dir, "Run folder for metrics.jsonl, checkpoints and the model card");
  app.add_option("--init-from", c.init_from, "Start from this checkpoint's weights (e.g. a hard model from a soft one)");
  app.add_option("--resume", a->resume, "Continue the interrupted run in this folder from its last checkpoint");
  app.add_option("--attention", a->attention, "soft (deterministic) or hard (stochastic, REINFORCE)")
      ->check(CLI::IsMember({"soft", "hard"}))->capture_default_str();
  auto* model = "Model";
  app.add_option("--image-size", c.model.image_size, "Input side in pixels (multiple of 8)")->group(model)->capture_default_str();
  app.add_option("--encoder-widths", c.model.encoder_widths, "Built-in CNN channel widths")->group(model)->delimiter(',')->capture_default_str();
  app.add_option("--encoder-strides", c.model.encoder_strides,
                 "Built-in CNN: each block's stride, 1 or 2, three 2s (with --encoder-widths for another number of blocks "
                 "and no strides: the first three blocks 2)")
      ->group(model)
      ->delimiter(',')
      ->capture_default_str();
  app.add_flag("--uncentred-cells{false}", c.model.centred_cells,
               "Built-in CNN: pad every strided block on both sides (annotations centred 3.5 px up-left of their "
               "cell, as models saved before centred cells)")
      ->group(model);
  app.add_flag("--item-classifier,!--no-item-classifier", c.model.item_classifier,
               "Keep a frozen copy of the pretrained encoder and class head that names each object of a scene cut "
               "out alone, for captions' class nouns (needs the encoder pretraining)")
      ->capture_default_str()
      ->group(model);
  app.add_flag("--residual-blocks,!--plain-blocks", c.model.encoder_residual,
               "Built-in CNN: blocks that keep their input's width and resolution add that input before the ReLU "
               "(--plain-blocks: as models saved before the option)")
      ->group(model);
  app.add_option("--backbone", c.model.backbone_path, "TorchScript encoder file returning (B, D, H, W)")->group(model);
  app.add_flag("--finetune-backbone", c.model.backbone_trainable, "Train the TorchScript backbone too")->group(model);
  app.add_option("--embed-dim", c.model.embed_dim, "Word embedding size m")->group(model)->capture_default_str();
  app.add_option("--attention-dim", c.model.attention_dim, "Attention MLP size")->group(model)->capture_default_str();
  app.add_option("--hidden-dim", c.model.hidden_dim, "LSTM size n")->group(model)->capture_default_str();
  app.add_option("--dropout", c.model.dropout, "Dropout before the output layer")->group(model)->capture_default_str();
  app.add_flag("--no-beta", a->no_beta, "Disable the soft-attention gating scalar beta")->group(model);
  app.add_option("--init-state", a->init_state, "h0/c0: mean (f_init MLPs on the mean annotation), zero, learned")
      ->group(model)->check(CLI::IsMember({"mean", "zero", "learned"}))->capture_default_str();
  app.add_option("--max-caption-len", c.model.max_caption_len, "Longest caption in words")->group(model)->capture_default_str();
  auto* obj = "Objective";
  app.add_option("--lambda", c.objective.lambda, "Weight of the doubly stochastic penalty")->group(obj)->capture_default_str();
  app.add_option("--penalty-reduction", a->penalty_reduction, "sum over cells (paper) or mean")
      ->group(obj)->check(CLI::IsMember({"sum", "mean"}))->capture_default_str();
  app.add_option("--aux-weight", c.aux_weight, "Auxiliary per-cell class+colour loss on the annotations (0: off, as in the paper)")
      ->group(obj)->capture_default_str();
  app.add_option("--object-class-weight", c.object_class_weight,
                 "Each object's annotations averaged over its cells and classified by the auxiliary class head (0: off)")
      ->group(obj)->capture_default_str();
  app.add_option("--pretrain-steps", c.pretrain_steps,
                 "Encoder pretraining before captioning: steps on single training items named by the auxiliary class head (0: off, as in the paper)")
      ->group(obj)->capture_default_str();
  app.add_option("--pretrain-batch", c.pretrain_batch, "Single items per encoder pretraining step")->group(obj)->capture_default_str();
  app.add_option("--pretrain-lr", c.pretrain_lr, "Peak learning rate of the encoder pretraining (short warm-up, then cosine)")
      ->group(obj)->capture_default_str();
  app.add_flag("--freeze-bn-stats,!--adapt-bn-stats", c.freeze_bn_stats,
               "While captioning, the encoder's batch norms keep the statistics of its pretraining (or --init-from) instead of re-estimating them on scenes")
      ->group(obj);
  app.add_option("--pretrain-weight-decay", c.pretrain_weight_decay,
                 "Weight decay on the encoder pretraining's convolution and linear weights: decoupled (AdamW) with adam, L2 with sgd (0: none)")
      ->group(obj)->capture_default_str();
  app.add_option("--pretrain-optimizer", c.pretrain_optimizer,
                 "The encoder pretraining's optimiser: adam, or sgd (Nesterov momentum 0.9; give it a peak --pretrain-lr near 0.05)")
      ->group(obj)->check(CLI::IsMember({"adam", "sgd"}))->capture_default_str();
  app.add_option("--pretrain-label-smoothing", c.pretrain_label_smoothing,
                 "Label smoothing of the encoder pretraining's class cross-entropies (0: none)")
      ->group(obj)->check(CLI::Range(0.0, 0.99))->capture_default_str();
  app.add_option("--item-weight", c.item_weight,
                 "Single items while captioning: each step also names --item-batch single training items, their loss weighted by this (0: off)")
      ->group(obj)->capture_default_str();
  app.add_option("--item-batch", c.item_batch, "Single items per captioning step with --item-weight")->group(obj)->capture_default_str();
  app.add_option("--encoder-lr-scale", c.encoder_lr_scale,
                 "The encoder's learning rate during captioning, as a multiple of --lr (1: the same; 0: frozen)")
      ->group(obj)->capture_default_str();
  app.add_option("--attention-supervision", c.attention_supervision,
                 "Weight of -log(alpha mass in the box of the object each colour/noun names) (0: off, as in the paper)")
      ->group(obj)->capture_default_str();
  app.add_option("--lambda-r", c.objective.lambda_r, "Hard: weight of the REINFORCE term")->group(obj)->capture_default_str();
  app.add_option("--lambda-e", c.objective.lambda_e, "Hard: weight of the entropy bonus")->group(obj)->capture_default_str();
  app.add_option("--expected-prob", c.expected_context_prob, "Hard: probability a sequence uses the expected context")
      ->group(obj)->capture_default_str();
  app.add_option("--baseline-decay", c.baseline_decay, "Hard: moving-average baseline decay")->group(obj)->capture_default_str();
  auto* opt = "Optimisation";
  app.add_option("--lr", c.lr, "Adam learning rate")->group(opt)->capture_default_str();
  app.add_option("--lr-decay", c.lr_decay, "Learning rate multiplied by this after every epoch (--lr-schedule epoch)")
      ->group(opt)->capture_default_str();
  app.add_option("--lr-schedule", c.lr_schedule,
                 "Captioning learning rate: epoch (times --lr-decay after every epoch) or cosine (step by step from --lr to --lr-min)")
      ->check(CLI::IsMember({"epoch", "cosine"}))->group(opt)->capture_default_str();
  app.add_option("--lr-min", c.lr_min, "The cosine schedule's learning rate at the last step")->group(opt)->capture_default_str();
  app.add_option("--weight-averaging", c.weight_averaging,
                 "Decay of a moving average of the weights over the captioning steps, validated and kept as best.ckpt "
                 "(e.g. 0.999; 0: off, the last step's weights)")
      ->group(opt)->capture_default_str();
  app.add_flag("--score-unaveraged", c.score_unaveraged,
               "With --weight-averaging: also validate the last step's weights (logged as unaveraged_*)")
      ->group(opt);
  app.add_option("--warmup-steps", c.warmup_steps,
                 "Captioning steps over which the learning rate rises linearly from lr/N to lr (0: none)")
      ->group(opt)->capture_default_str();
  app.add_option("--batch", c.batch_size, "Batch size")->group(opt)->capture_default_str();
  app.add_option("--epochs", c.epochs, "Epochs (with --resume: extend the run to this many)")->group(opt)->capture_default_str();
  app.add_option("--max-steps", c.max_steps, "Stop after this many steps (0: no limit)")->group(opt)->capture_default_str();
  app.add_option("--grad-clip", c.grad_clip, "Gradient norm clipping")->group(opt)->capture_default_str();
  app.add_option("--patience", c.patience, "Early stopping: epochs without a better validation BLEU-4")->group(opt)->capture_default_str();
  app.add_option("--seed", c.seed, "Seed of weights, batch order and sampling")->group(opt)->capture_default_str();
  auto* data = "Data";
  app.add_option("--train-scenes", c.train_scenes, "Training scenes")->group(data)->capture_default_str();
  app.add_flag("--fresh-scenes,!--fixed-scenes", c.fresh_scenes,
               "Built-in scenes: every epoch draws new training scenes (epoch e: data seed + e) instead of the same ones again")
      ->group(data);
  app.add_flag("--mirror-items,!--no-mirror-items", c.scenes.mirror_items,
               "Built-in scenes: mirror each training item left-right with probability 1/2 (scenes and pretraining; "
               "validation and test scenes never are); such models also recognise class nouns in the mirror when captioning "
               "(--no-mirror-items: the paper's data)")
      ->group(data);
  app.add_flag("--uniform-items,!--probed-items", c.scenes.uniform_items,
               "Built-in scenes: draw each training object's item uniformly among its class's items (scenes and pretraining); "
               "--probed-items: the next item of the class after a random index, as validation and test scenes are drawn")
      ->group(data);
  app.add_option("--erase-items", c.scenes.erase_items,
                 "Built-in scenes: the probability that a training item loses a random rectangle (2-20% of its area) "
                 "before it is drawn (random erasing; scenes and pretraining; 0: off)")
      ->group(data)->capture_default_str();
  app.add_option("--val-scenes", c.val_scenes, "Validation scenes")->group(data)->capture_default_str();
  app.add_option("--data-seed", c.scenes.seed, "Seed of the built-in scenes")->group(data)->capture_default_str();
  app.add_option("--max-objects", c.scenes.max_objects, "Most objects per scene (1-4)")->group(data)->capture_default_str();
  app.add_option("--min-count", c.min_count, "Vocabulary: minimum word count")->group(data)->capture_default_str();
  app.add_option("--mnist-dir", c.scenes.mnist_dir, "Folder with the Fashion-MNIST idx files")->group(data)->capture_default_str();
  auto* run = "Run";
  app.add_option("--device", c.device, "auto, cpu or cuda")->group(run)->capture_default_str();
  app.add_option("--threads", c.threads, "CPU threads (0: one per core)")->group(run)->capture_default_str();
  app.add_option("--decoder-parts", c.decoder_parts,
                 "Parts of each batch decoded at once, one thread each (0: one per thread, >= 16 captions each)")
      ->group(run)
      ->capture_default_str();
  app.add_option("--precision", c.precision,
                 "fp32, or bf16: the forward's matrix products and convolutions in bfloat16 with float "
                 "accumulation (CPU only; weights, optimizer and decoding stay float); auto: bf16 on CPUs "
                 "with AVX-512 BF16 or AMX, else fp32")
      ->group(run)->check(CLI::IsMember({"auto", "fp32", "bf16"}))->capture_default_str();
  app.add_option("--log-every", c.log_every, "Steps between metrics.jsonl records")->group(run)->capture_default_str();
  app.add_option("--checkpoint-every", c.checkpoint_every, "Steps between checkpoints")->group(run)->capture_default_str();
  app.add_option("--sample-every", c.sample_every, "Steps between caption + alpha snapshots of fixed validation images (samples.jsonl; 0: off)")->group(run)->capture_default_str();
  app.add_option("--samples", c.sample_count, "Validation images in those snapshots")->group(run)->capture_default_str();

  app.add_flag("--paper", a->paper,
               "The paper's exact objective: no auxiliary loss, no encoder pretraining or single items, no attention "
               "supervision, h0/c0 from the mean annotation, penalty summed over cells (overrides those options)")
      ->group(obj);

  return [a, &app]() -> int {
    if (app.count("--encoder-widths")) a->config.model.fit_strides_to_widths(app.count("--encoder-strides") > 0);
    if (a->paper) {  // the whole of it, the encoder pretraining and single items included
      apply_paper_objective(a->config);
      a->init_state = to_string(a->config.model.init_state);  // these two are parsed into the config below
      a->penalty_reduction = to_string(a->config.objective.reduction);
    }
    ProgressBar bar;
    TrainCallbacks cb;
    cb.on_progress = [&](const TrainProgress& p) {
      if (p.pretrain_step < p.pretrain_steps) return;  // encoder pretraining reports itself in messages
      bar.update(p.step, p.total_steps, p.epoch, p.loss, p.tokens_per_s, p.eta_s);
    };
    cb.on_message = [&](const std::string& m) { bar.message(m); };
    cb.on_validation = [&](const ValidationRecord& v) {
      char line[256];
      std::snprintf(line, sizeof line, "validation after epoch %lld: BLEU-1 %.3f BLEU-4 %.3f CIDEr-D %.3f", (long long)v.epoch + 1,
                    v.bleu[0], v.bleu[3], v.cider);
      std::string text = line;
      if (v.has_grounding) {
        std::snprintf(line, sizeof line, ", phrase pointing %.1f%%, alpha in box %.1f%%, absent nouns %.2f%%",
                      100 * v.pointing, 100 * v.alpha_in_box, 100 * v.absent_nouns);
        text += line;
      }
      if (v.averaged) text += " (weight average)";
      if (!std::isnan(v.unaveraged_bleu4)) {
        std::snprintf(line, sizeof line, "; last step's weights: BLEU-4 %.3f CIDEr-D %.3f", v.unaveraged_bleu4, v.unaveraged_cider);
        text += line;
        if (v.has_grounding) {
          std::snprintf(line, sizeof line, ", phrase pointing %.1f%%, absent nouns %.2f%%", 100 * v.unaveraged_pointing,
                        100 * v.unaveraged_absent_nouns);
          text += line;
        }
      }
      if (v.improved) text += " (best so far, saved best.ckpt)";
      bar.message(text);
    };
    cb.stop = &g_stop;
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);

    TrainResult r;
    if (!a->resume.empty()) {
      const std::int64_t epochs = app.count("--epochs") ? a->config.epochs : 0;
      r = resume_training(a->resume, cb, {}, epochs, a->config.max_steps);
    } else {
      if (a->config.out_dir.empty()) throw std::invalid_argument("--out DIR is required (or --resume DIR)");
      auto& c = a->config;
      c.model.attention = parse_attention(a->attention);
      c.model.init_state = parse_init_state(a->init_state);
      c.model.use_beta = !a->no_beta;
      c.objective.reduction = parse_penalty_reduction(a->penalty_reduction);
      c.scenes.image_size = int(c.model.image_size);
      r = train(c, cb);
    }
    bar.finish();
    std::fprintf(stderr, "%s after %lld steps in %s; best validation BLEU-4 %.4f (step %lld)\n",
                 r.interrupted ? "interrupted" : (r.stopped_early ? "stopped early" : "finished"), (long long)r.steps,
                 format_duration(r.elapsed_s).c_str(), r.best_bleu4, (long long)r.best_step);
    std::fprintf(stderr, "checkpoints: %s, %s\n", r.last_checkpoint.c_str(), r.best_checkpoint.c_str());
    return r.interrupted ? 130 : 0;
  };
}

}  // namespace fovea::cli
