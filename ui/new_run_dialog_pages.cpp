// The New run dialog's pages: every `fovea train` setting, grouped as its --help groups them, with
// a one-line explanation each, and which settings apply to which attention. The rows' machinery
// (one editor per setting, read from and written to a TrainConfig) is in new_run_dialog.cpp.
#include "ui/new_run_dialog.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QPushButton>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace fovea::ui {

namespace {

/// The accessor lambdas below read better with a short name.
using Config = fovea::TrainConfig;

std::string widths_text(const std::vector<std::int64_t>& widths) {
  std::string s;
  for (auto w : widths) s += (s.empty() ? "" : " ") + std::to_string(w);
  return s;
}

/// Whole numbers separated by spaces, each positive; `what` names them in errors. Empty text is
/// an empty list.
std::vector<std::int64_t> parse_numbers(const std::string& text, const std::string& what) {
  std::istringstream in(text);
  std::vector<std::int64_t> numbers;
  std::string word;
  while (in >> word) {
    std::size_t used = 0;
    long long w = 0;
    try {
      w = std::stoll(word, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != word.size() || w <= 0) throw std::invalid_argument(what + ": '" + word + "' is not a positive whole number");
    numbers.push_back(w);
  }
  return numbers;
}

std::vector<std::int64_t> parse_widths(const std::string& text) {
  auto widths = parse_numbers(text, "encoder widths");
  if (widths.empty()) throw std::invalid_argument("encoder widths: give at least one width");
  return widths;
}

}  // namespace

void NewRunDialog::buildPages() {
  auto* run = addPage(tr("Run"));
  auto* browse_out = new QPushButton(tr("Browse…"));
  connect(browse_out, &QPushButton::clicked, this, [this] {
    const auto dir = QFileDialog::getExistingDirectory(this, tr("Folder to hold the new run"), runs_root_);
    if (!dir.isEmpty()) setValue("out", QDir(dir).filePath(QFileInfo(value("out").toString()).fileName()));
  });
  auto* browse_init = new QPushButton(tr("Browse…"));
  connect(browse_init, &QPushButton::clicked, this, [this] {
    const auto file = QFileDialog::getOpenFileName(this, tr("Checkpoint to start from"), runs_root_,
                                                   tr("Fovea checkpoints (*.ckpt);;All files (*)"));
    if (!file.isEmpty()) setValue("init-from", file);
  });
  pending_browse_ = browse_out;
  addText(run, "out", tr("Output folder"), tr("Run folder for metrics.jsonl, samples, checkpoints and the model card (must be new)"),
          [](const Config& c) { return c.out_dir; }, [](Config& c, const std::string& v) { c.out_dir = v; });
  addChoice(run, "attention", tr("Attention"), tr("soft: deterministic, trained by backprop; hard: stochastic glimpses, trained with REINFORCE"),
            {"soft", "hard"}, [](const Config& c) { return to_string(c.model.attention); },
            [](Config& c, const std::string& v) { c.model.attention = fovea::parse_attention(v); });
  auto* browse_data = new QPushButton(tr("Browse…"));
  connect(browse_data, &QPushButton::clicked, this, [this] {
    const auto file = QFileDialog::getOpenFileName(this, tr("Karpathy split file or COCO captions file"), runs_root_,
                                                   tr("Caption datasets (*.json);;All files (*)"));
    if (file.isEmpty()) return;
    // Karpathy's files are dataset_{flickr8k,flickr30k,coco}.json; COCO's are captions_*.json.
    const bool coco = QFileInfo(file).fileName().startsWith("captions");
    setValue("dataset", (coco ? "coco:" : "karpathy:") + file);
  });
  pending_browse_ = browse_data;
  addChoice(run, "dataset", tr("Dataset"),
            tr("fashion-scenes (built in, with object boxes: grounding is scored), karpathy:FILE (Flickr8k/30k, COCO "
               "Karpathy splits) or coco:FILE (a COCO captions file; its first validation-scenes images validate)"),
            {"fashion-scenes"}, [](const Config& c) { return c.dataset; }, [](Config& c, const std::string& v) { c.dataset = v; });
  auto* browse_images = new QPushButton(tr("Browse…"));
  connect(browse_images, &QPushButton::clicked, this, [this] {
    const auto dir = QFileDialog::getExistingDirectory(this, tr("Folder of the dataset's images"), runs_root_);
    if (!dir.isEmpty()) setValue("images", dir);
  });
  pending_browse_ = browse_images;
  addText(run, "images", tr("Images folder"), tr("karpathy: and coco: datasets: where their images are (decoded once into a cache)"),
          [](const Config& c) { return c.images_dir; }, [](Config& c, const std::string& v) { c.images_dir = v; });
  addFlag(run, "skip-bad-images", tr("Skip bad images"), tr("Leave missing or unreadable images out (and count them) instead of stopping"),
          [](const Config& c) { return c.skip_bad_images; }, [](Config& c, bool v) { c.skip_bad_images = v; });
  pending_browse_ = browse_init;
  addText(run, "init-from", tr("Initialise from"), tr("Start from this checkpoint's weights (e.g. a hard model from a soft one); empty: from scratch"),
          [](const Config& c) { return c.init_from; }, [](Config& c, const std::string& v) { c.init_from = v; });
  addChoice(run, "device", tr("Device"), tr("auto picks CUDA when LibTorch has it, else the CPU"), {"auto", "cpu", "cuda"},
            [](const Config& c) { return c.device; }, [](Config& c, const std::string& v) { c.device = v; });
  addInt(run, "threads", tr("CPU threads"), tr("0: one per core"), 0, 256, [](const Config& c) { return c.threads; },
         [](Config& c, std::int64_t v) { c.threads = int(v); });
  addInt(run, "decoder-parts", tr("Decoder parts"),
         tr("Parts of each batch decoded at once, one thread each; 0: one per thread with at least 16 captions each"), 0, 64,
         [](const Config& c) { return c.decoder_parts; }, [](Config& c, std::int64_t v) { c.decoder_parts = int(v); });
  addChoice(run, "precision", tr("Precision"),
            tr("fp32, or bf16: the forward's products and convolutions in bfloat16 with float accumulation "
               "(CPU only; much faster on CPUs with AVX-512 BF16; changes the numerics); auto: bf16 where "
               "the CPU has AVX-512 BF16 or AMX, else fp32"),
            {"auto", "fp32", "bf16"}, [](const Config& c) { return c.precision; }, [](Config& c, const std::string& v) { c.precision = v; });
  addInt(run, "seed", tr("Seed"), tr("Seed of weights, batch order and sampling"), 0, 1 << 30,
         [](const Config& c) { return std::int64_t(c.seed); }, [](Config& c, std::int64_t v) { c.seed = std::uint64_t(v); });
  addInt(run, "log-every", tr("Log every"), tr("Steps between metrics.jsonl records (dashboard points)"), 1, 100000,
         [](const Config& c) { return c.log_every; }, [](Config& c, std::int64_t v) { c.log_every = v; });
  addInt(run, "checkpoint-every", tr("Checkpoint every"), tr("Steps between checkpoints (a crash loses at most this many)"), 1, 1000000,
         [](const Config& c) { return c.checkpoint_every; }, [](Config& c, std::int64_t v) { c.checkpoint_every = v; });
  addInt(run, "sample-every", tr("Snapshot every"), tr("Steps between caption + α snapshots of fixed validation images (0: off)"), 0, 1000000,
         [](const Config& c) { return c.sample_every; }, [](Config& c, std::int64_t v) { c.sample_every = v; });
  addInt(run, "samples", tr("Snapshot images"), tr("Validation images in those snapshots"), 0, 16,
         [](const Config& c) { return c.sample_count; }, [](Config& c, std::int64_t v) { c.sample_count = v; });

  auto* model = addPage(tr("Model"));
  addInt(model, "image-size", tr("Image size"), tr("Input side in pixels (multiple of 8); the annotation grid is size/8"), 16, 1024,
         [](const Config& c) { return c.model.image_size; }, [](Config& c, std::int64_t v) { c.model.image_size = v; });
  addText(model, "encoder-widths", tr("Encoder widths"), tr("Channels of the built-in CNN's blocks"),
          [](const Config& c) { return widths_text(c.model.encoder_widths); },
          [](Config& c, const std::string& v) { c.model.encoder_widths = parse_widths(v); });
  addText(model, "encoder-strides", tr("Encoder strides"),
          tr("Each block's stride, 1 or 2, three 2s; empty: the first three blocks halve the resolution, as "
             "they do when the widths name another number of blocks and these were left as they were"),
          [](const Config& c) { return widths_text(c.model.encoder_strides); },
          [](Config& c, const std::string& v) {  // the widths are set first; c still holds the strides shown
            const bool typed = v != widths_text(c.model.encoder_strides);
            if (typed) c.model.encoder_strides = parse_numbers(v, "encoder strides");
            c.model.fit_strides_to_widths(typed);
          });
  addFlag(model, "centred-cells", tr("Centred cells"),
          tr("Built-in CNN: each annotation centred on the pixels of its grid cell (off: symmetric padding, "
             "3.5 px up-left, as models saved before the option)"),
          [](const Config& c) { return c.model.centred_cells; }, [](Config& c, bool v) { c.model.centred_cells = v; });
  addFlag(model, "residual-blocks", tr("Residual blocks"),
          tr("Built-in CNN: blocks that keep their input's width and resolution add that input before the ReLU "
             "(off: plain blocks, as models saved before the option)"),
          [](const Config& c) { return c.model.encoder_residual; }, [](Config& c, bool v) { c.model.encoder_residual = v; });
  addFlag(model, "item-classifier", tr("Item classifier"),
          tr("Keep a frozen copy of the pretrained encoder and class head: captions' class nouns also read each "
             "garment cut out alone (needs the encoder pretraining; off: as models saved before the option)"),
          [](const Config& c) { return c.model.item_classifier; }, [](Config& c, bool v) { c.model.item_classifier = v; });
  addInt(model, "embed-dim", tr("Embedding size m"), tr("Word embedding size"), 1, 4096,
         [](const Config& c) { return c.model.embed_dim; }, [](Config& c, std::int64_t v) { c.model.embed_dim = v; });
  addInt(model, "attention-dim", tr("Attention size"), tr("Hidden size of the attention MLP f_att"), 1, 4096,
         [](const Config& c) { return c.model.attention_dim; }, [](Config& c, std::int64_t v) { c.model.attention_dim = v; });
  addInt(model, "hidden-dim", tr("LSTM size n"), tr("LSTM hidden and cell size"), 1, 8192,
         [](const Config& c) { return c.model.hidden_dim; }, [](Config& c, std::int64_t v) { c.model.hidden_dim = v; });
  addReal(model, "dropout", tr("Dropout"), tr("Dropout before the output layer"), 0, 0.95, 2,
          [](const Config& c) { return c.model.dropout; }, [](Config& c, double v) { c.model.dropout = v; });
  addFlag(model, "beta", tr("Gating scalar β"), tr("Soft attention: gate the context with β = σ(f_β(h)) (paper §4.2.1)"),
          [](const Config& c) { return c.model.use_beta; }, [](Config& c, bool v) { c.model.use_beta = v; });
  addChoice(model, "init-state", tr("Initial state"), tr("h0/c0: mean (f_init MLPs on the mean annotation, the paper), zero, or learned"),
            {"mean", "zero", "learned"}, [](const Config& c) { return to_string(c.model.init_state); },
            [](Config& c, const std::string& v) { c.model.init_state = fovea::parse_init_state(v); });
  addInt(model, "max-caption-len", tr("Longest caption"), tr("Decoding limit in words"), 2, 200,
         [](const Config& c) { return c.model.max_caption_len; }, [](Config& c, std::int64_t v) { c.model.max_caption_len = v; });

  auto* objective = addPage(tr("Objective"));
  addReal(objective, "lambda", tr("λ penalty"), tr("Weight of the doubly stochastic penalty λ Σ_i (1 − Σ_t α_ti)²"), 0, 100, 3,
          [](const Config& c) { return c.objective.lambda; }, [](Config& c, double v) { c.objective.lambda = v; });
  addChoice(objective, "penalty-reduction", tr("Penalty over cells"), tr("sum over cells (paper) or mean"), {"sum", "mean"},
            [](const Config& c) { return to_string(c.objective.reduction); },
            [](Config& c, const std::string& v) { c.objective.reduction = fovea::parse_penalty_reduction(v); });
  addReal(objective, "aux-weight", tr("Auxiliary loss"), tr("Per-cell class + colour loss on the annotations (0: off, as in the paper)"), 0, 100, 3,
          [](const Config& c) { return c.aux_weight; }, [](Config& c, double v) { c.aux_weight = v; });
  addReal(objective, "object-class-weight", tr("Object class loss"),
          tr("Each object's annotations averaged over its cells, classified by the auxiliary class head (0: off)"), 0, 100, 3,
          [](const Config& c) { return c.object_class_weight; }, [](Config& c, double v) { c.object_class_weight = v; });
  addInt(objective, "pretrain-steps", tr("Encoder pretraining"),
         tr("Steps on single training items named by the auxiliary class head before captioning (0: off, as in the paper)"),
         0, 1000000, [](const Config& c) { return c.pretrain_steps; }, [](Config& c, std::int64_t v) { c.pretrain_steps = v; });
  addReal(objective, "pretrain-lr", tr("Pretraining learning rate"),
          tr("Peak learning rate of the encoder pretraining (short warm-up, then cosine)"), 1e-6, 1, 6,
          [](const Config& c) { return c.pretrain_lr; }, [](Config& c, double v) { c.pretrain_lr = v; });
  addReal(objective, "pretrain-weight-decay", tr("Pretraining weight decay"),
          tr("Weight decay on the pretraining's convolution and linear weights: decoupled (AdamW) with adam, L2 with sgd (0: none)"),
          0, 10, 4, [](const Config& c) { return c.pretrain_weight_decay; }, [](Config& c, double v) { c.pretrain_weight_decay = v; });
  addChoice(objective, "pretrain-optimizer", tr("Pretraining optimiser"),
            tr("adam, or sgd with Nesterov momentum 0.9 (give it a peak learning rate near 0.05)"), {"adam", "sgd"},
            [](const Config& c) { return c.pretrain_optimizer; },
            [](Config& c, const std::string& v) { c.pretrain_optimizer = v; });
  addReal(objective, "pretrain-label-smoothing", tr("Pretraining label smoothing"),
          tr("Label smoothing of the pretraining's class cross-entropies (0: none)"), 0, 0.99, 3,
          [](const Config& c) { return c.pretrain_label_smoothing; },
          [](Config& c, double v) { c.pretrain_label_smoothing = v; });
  addReal(objective, "item-weight", tr("Single items while captioning"),
          tr("Each captioning step also names a batch of single training items, their loss weighted by this (0: off)"),
          0, 100, 3, [](const Config& c) { return c.item_weight; }, [](Config& c, double v) { c.item_weight = v; });
  addInt(objective, "item-batch", tr("Single items per step"), tr("Single training items per captioning step (with the weight above)"),
         1, 4096, [](const Config& c) { return c.item_batch; }, [](Config& c, std::int64_t v) { c.item_batch = v; });
  addFlag(objective, "freeze-bn-stats", tr("Keep the encoder's statistics"),
          tr("While captioning, the encoder's batch norms normalise with the statistics of its pretraining (or of the "
             "model it starts from) instead of re-estimating them on scenes"),
          [](const Config& c) { return c.freeze_bn_stats; }, [](Config& c, bool v) { c.freeze_bn_stats = v; });
  addReal(objective, "encoder-lr-scale", tr("Encoder learning rate"),
          tr("The encoder's learning rate during captioning, as a multiple of the learning rate (1: the same; 0: frozen)"),
          0, 10, 3, [](const Config& c) { return c.encoder_lr_scale; }, [](Config& c, double v) { c.encoder_lr_scale = v; });
  addReal(objective, "attention-supervision", tr("Attention supervision"),
          tr("Weight of −log(α mass in the box of the object each colour/noun names) (0: off, as in the paper)"), 0, 100, 3,
          [](const Config& c) { return c.attention_supervision; }, [](Config& c, double v) { c.attention_supervision = v; });
  addReal(objective, "lambda-r", tr("λ_r REINFORCE"), tr("Hard: weight of the REINFORCE term"), 0, 100, 3,
          [](const Config& c) { return c.objective.lambda_r; }, [](Config& c, double v) { c.objective.lambda_r = v; });
  addReal(objective, "lambda-e", tr("λ_e entropy"), tr("Hard: weight of the entropy bonus on α"), 0, 10, 4,
          [](const Config& c) { return c.objective.lambda_e; }, [](Config& c, double v) { c.objective.lambda_e = v; });
  addReal(objective, "expected-prob", tr("Expected-context share"), tr("Hard: chance a sequence uses the expected context instead of a sampled glimpse"), 0, 1, 2,
          [](const Config& c) { return c.expected_context_prob; }, [](Config& c, double v) { c.expected_context_prob = v; });
  addReal(objective, "baseline-decay", tr("Baseline decay"), tr("Hard: moving-average baseline b ← decay·b + (1 − decay)·reward"), 0, 0.999, 3,
          [](const Config& c) { return c.baseline_decay; }, [](Config& c, double v) { c.baseline_decay = v; });

  auto* optimisation = addPage(tr("Optimisation"));
  addReal(optimisation, "lr", tr("Learning rate"), tr("Adam learning rate"), 1e-6, 1, 6,
          [](const Config& c) { return c.lr; }, [](Config& c, double v) { c.lr = v; });
  addInt(optimisation, "warmup-steps", tr("Warm-up steps"),
         tr("Captioning steps over which the learning rate rises linearly to its full value (0: none)"), 0, 1000000,
         [](const Config& c) { return c.warmup_steps; }, [](Config& c, std::int64_t v) { c.warmup_steps = v; });
  addReal(optimisation, "lr-decay", tr("Decay per epoch"), tr("The learning rate is multiplied by this after every epoch"), 0.01, 1, 3,
          [](const Config& c) { return c.lr_decay; }, [](Config& c, double v) { c.lr_decay = v; });
  addChoice(optimisation, "lr-schedule", tr("Schedule"),
            tr("epoch: the rate times the decay after every epoch; cosine: step by step from the rate to the last rate"),
            {"epoch", "cosine"}, [](const Config& c) { return c.lr_schedule; },
            [](Config& c, const std::string& v) { c.lr_schedule = v; });
  addReal(optimisation, "lr-min", tr("Last rate (cosine)"), tr("The cosine schedule's learning rate at the last step"), 0, 1,
          6, [](const Config& c) { return c.lr_min; }, [](Config& c, double v) { c.lr_min = v; });
  addReal(optimisation, "weight-averaging", tr("Weight averaging"),
          tr("Decay of a moving average of the weights over the captioning steps, validated and kept as the best "
             "model (0: off, the last step's weights)"),
          0, 0.99999, 5, [](const Config& c) { return c.weight_averaging; },
          [](Config& c, double v) { c.weight_averaging = v; });
  addInt(optimisation, "batch", tr("Batch size"), tr("Captions per step"), 1, 4096,
         [](const Config& c) { return c.batch_size; }, [](Config& c, std::int64_t v) { c.batch_size = v; });
  addInt(optimisation, "epochs", tr("Epochs"), tr("Passes over the training data"), 1, 10000,
         [](const Config& c) { return c.epochs; }, [](Config& c, std::int64_t v) { c.epochs = v; });
  addInt(optimisation, "max-steps", tr("Max steps"), tr("Stop after this many steps (0: no limit)"), 0, 100000000,
         [](const Config& c) { return c.max_steps; }, [](Config& c, std::int64_t v) { c.max_steps = v; });
  addReal(optimisation, "grad-clip", tr("Gradient clipping"), tr("Clip the gradient norm to this"), 0.01, 1000, 2,
          [](const Config& c) { return c.grad_clip; }, [](Config& c, double v) { c.grad_clip = v; });
  addInt(optimisation, "patience", tr("Patience"), tr("Early stopping: epochs without a better validation BLEU-4"), 1, 1000,
         [](const Config& c) { return c.patience; }, [](Config& c, std::int64_t v) { c.patience = v; });

  auto* data = addPage(tr("Data"));
  addInt(data, "train-scenes", tr("Training scenes"), tr("Scenes generated for training"), 1, 10000000,
         [](const Config& c) { return std::int64_t(c.train_scenes); }, [](Config& c, std::int64_t v) { c.train_scenes = std::size_t(v); });
  addFlag(data, "fresh-scenes", tr("New scenes every epoch"),
          tr("Built-in scenes: each epoch draws new training scenes instead of showing the same ones again"),
          [](const Config& c) { return c.fresh_scenes; }, [](Config& c, bool v) { c.fresh_scenes = v; });
  addFlag(data, "mirror-items", tr("Mirror training items"),
          tr("Built-in scenes: each training item is mirrored left-right with probability 1/2 (never in validation or test "
             "scenes); the model then also recognises class nouns in the mirror of an image when captioning"),
          [](const Config& c) { return c.scenes.mirror_items; }, [](Config& c, bool v) { c.scenes.mirror_items = v; });
  addFlag(data, "uniform-items", tr("Draw items uniformly"),
          tr("Built-in scenes: each training object's item is drawn uniformly among its class's items (validation and "
             "test scenes keep the fixed benchmark's draw)"),
          [](const Config& c) { return c.scenes.uniform_items; }, [](Config& c, bool v) { c.scenes.uniform_items = v; });
  addReal(data, "erase-items", tr("Erase from items"),
          tr("Built-in scenes: the probability that a training item loses a random rectangle (2-20% of its area) before "
             "it is drawn, in the scenes and the pretraining (0: off)"),
          0, 1, 2, [](const Config& c) { return c.scenes.erase_items; }, [](Config& c, double v) { c.scenes.erase_items = v; });
  addInt(data, "val-scenes", tr("Validation scenes"), tr("Scenes scored after every epoch"), 1, 1000000,
         [](const Config& c) { return std::int64_t(c.val_scenes); }, [](Config& c, std::int64_t v) { c.val_scenes = std::size_t(v); });
  addInt(data, "data-seed", tr("Data seed"), tr("Seed of the built-in scenes"), 0, 1 << 30,
         [](const Config& c) { return std::int64_t(c.scenes.seed); }, [](Config& c, std::int64_t v) { c.scenes.seed = std::uint64_t(v); });
  addInt(data, "min-objects", tr("Fewest objects"), tr("Fewest objects per scene"), 1, 4,
         [](const Config& c) { return c.scenes.min_objects; }, [](Config& c, std::int64_t v) { c.scenes.min_objects = int(v); });
  addInt(data, "max-objects", tr("Most objects"), tr("Most objects per scene"), 1, 4,
         [](const Config& c) { return c.scenes.max_objects; }, [](Config& c, std::int64_t v) { c.scenes.max_objects = int(v); });
  addInt(data, "min-count", tr("Vocabulary threshold"), tr("Keep words seen at least this often in the training captions"), 1, 1000,
         [](const Config& c) { return c.min_count; }, [](Config& c, std::int64_t v) { c.min_count = int(v); });

  for (auto* page : {run, model, objective, optimisation, data}) {
    auto* grid = static_cast<QGridLayout*>(page->layout());
    grid->setRowStretch(grid->rowCount(), 1);  // rows keep their height; the space goes below them
  }
  connect(findChild<QComboBox*>("attention"), &QComboBox::currentTextChanged, this, &NewRunDialog::updateHardOnly);
}

void NewRunDialog::updateHardOnly() {
  const bool hard = value("attention").toString() == "hard";
  for (const char* name : {"lambda-r", "lambda-e", "expected-prob", "baseline-decay"}) {
    if (auto* w = findChild<QWidget*>(name)) w->setEnabled(hard);
  }
  if (auto* w = findChild<QWidget*>("beta")) w->setEnabled(!hard);
}

}  // namespace fovea::ui
