#include "core/train/train_settings.h"

#include <algorithm>

#include <cmath>
#include <nlohmann/json.hpp>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "core/data/dataset_source.h"
#include "core/io/encoder_file_header.h"
#include "core/runtime/setting_table.h"

namespace fovea {

namespace {

// Conversions between a field and a SettingValue.
SettingValue value_of(bool v) { return v; }
SettingValue value_of(int v) { return std::int64_t(v); }
SettingValue value_of(std::int64_t v) { return v; }
SettingValue value_of(std::size_t v) { return std::int64_t(v); }
SettingValue value_of(double v) { return v; }
SettingValue value_of(const std::string& v) { return v; }
SettingValue value_of(AttentionKind v) { return to_string(v); }
SettingValue value_of(InitState v) { return to_string(v); }
SettingValue value_of(PenaltyReduction v) { return to_string(v); }

void assign(bool& f, const SettingValue& v) { f = std::get<bool>(v); }
void assign(int& f, const SettingValue& v) { f = int(std::get<std::int64_t>(v)); }
void assign(std::int64_t& f, const SettingValue& v) { f = std::get<std::int64_t>(v); }
void assign(std::size_t& f, const SettingValue& v) { f = std::size_t(std::get<std::int64_t>(v)); }
void assign(double& f, const SettingValue& v) { f = std::get<double>(v); }
void assign(std::string& f, const SettingValue& v) { f = std::get<std::string>(v); }
void assign(AttentionKind& f, const SettingValue& v) { f = parse_attention(std::get<std::string>(v)); }
void assign(InitState& f, const SettingValue& v) { f = parse_init_state(std::get<std::string>(v)); }
void assign(PenaltyReduction& f, const SettingValue& v) { f = parse_penalty_reduction(std::get<std::string>(v)); }

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

// A row's accessors for the TrainConfig field `path`.
#define FOVEA_FIELD(path)                                                      \
  [](const TrainConfig& c) -> SettingValue { return value_of(c.path); },       \
      [](TrainConfig& c, const SettingValue& v) { assign(c.path, v); }

namespace {

bool hard(const TrainConfig& c) { return c.model.attention == AttentionKind::Hard; }
bool untrained_cnn(const TrainConfig& c) { return c.backbone.empty() || c.backbone == "none"; }

/// When each setting that does not always apply has an effect.
std::vector<TrainSetting> with_applicability(std::vector<TrainSetting> table) {
  struct When {
    const char* key;
    const char* text;
    bool (*test)(const TrainConfig&);
  };
  static const When when[] = {
      {"images", "karpathy: and coco: datasets", [](const TrainConfig& c) { return !is_builtin_dataset(c.dataset); }},
      {"encoder_widths", "the built-in CNN, untrained (--backbone none)", untrained_cnn},
      {"finetune_backbone", "a TorchScript backbone",
       [](const TrainConfig& c) { return !untrained_cnn(c) && !is_encoder_file(c.backbone); }},
      {"trainable_blocks", "the built-in CNN starting trained (an encoder file, pretraining or --init-from)",
       [](const TrainConfig& c) {
         TrainConfig all = c;
         all.trainable_blocks = 0;
         return frozen_encoder_blocks(all) > 0;
       }},
      {"beta", "soft attention", [](const TrainConfig& c) { return !hard(c); }},
      {"lambda_r", "hard attention", hard},
      {"lambda_e", "hard attention", hard},
      {"self_critical", "a run starting from --init-from's model", [](const TrainConfig& c) { return !c.init_from.empty(); }},
      {"pretrain_steps", "the built-in scenes and CNN",
       [](const TrainConfig& c) {
         TrainConfig asked = c;
         asked.pretrain_steps = std::max<std::int64_t>(1, c.pretrain_steps);
         return pretrains_encoder(asked);
       }},
  };
  for (auto& s : table) {
    for (const auto& w : when) {
      if (std::string(w.key) == s.key) s.applies_when = w.text, s.applies_to = w.test;
    }
  }
  return table;
}

/// The run folder and where it starts from; the dataset and its vocabulary.
std::vector<TrainSetting> run_and_data_settings() {
  return {
    // Run
    {"out", "Run", "Run folder for metrics.jsonl, checkpoints, samples and the model card", FOVEA_FIELD(out_dir)},
    {"init_from", "Run", "Start from this checkpoint's weights (e.g. a hard model from a soft one)", FOVEA_FIELD(init_from)},
    // Data
    {"dataset", "Data",
     "fashion-scenes (built in), karpathy:PATH/dataset_flickr8k.json (Karpathy split file; also Flickr30k, COCO) "
     "or coco:PATH/captions.json (COCO captions file)",
     FOVEA_FIELD(dataset)},
    {"images", "Data", "Folder of the dataset's images (karpathy: and coco: datasets)", FOVEA_FIELD(images_dir)},
    {"train_scenes", "Data", "Built-in scenes drawn for every epoch; on disk: at most this many images (0: all)",
     FOVEA_FIELD(train_scenes), 0, kInf},
    {"val_scenes", "Data", "Validation scenes or images", FOVEA_FIELD(val_scenes), 1, kInf},
    {"min_count", "Data", "Vocabulary: the words seen at least this often in the training split", FOVEA_FIELD(min_count), 1, kInf},
  };
}

/// The encoder, the decoder and their sizes.
std::vector<TrainSetting> model_settings() {
  return {
    // Model
    {"attention", "Model", "soft (deterministic) or hard (stochastic, REINFORCE)", FOVEA_FIELD(model.attention), -kInf, kInf,
     false, {"soft", "hard"}},
    {"image_size", "Model", "Input side in pixels (multiple of 8)",
     [](const TrainConfig& c) -> SettingValue { return c.model.image_size; },
     [](TrainConfig& c, const SettingValue& v) {
       c.model.image_size = std::get<std::int64_t>(v);
       c.scenes.image_size = int(c.model.image_size);
     },
     16, 1024},
    {"encoder_widths", "Model", "Built-in CNN: channels of each 3x3 conv block (three of them halve the image)",
     [](const TrainConfig& c) -> SettingValue { return c.model.encoder_widths; },
     [](TrainConfig& c, const SettingValue& v) {
       c.model.encoder_widths = std::get<std::vector<std::int64_t>>(v);
       c.model.fit_strides_to_widths(false);
     }},
    {"backbone", "Model",
     "The encoder to start from: an encoder file (fovea pretrain-encoder: the built-in CNN, pretrained), a "
     "TorchScript CNN returning (B, D, H, W), or none: the built-in CNN, untrained",
     [](const TrainConfig& c) -> SettingValue { return c.backbone; },
     [](TrainConfig& c, const SettingValue& v) {
       const auto& path = std::get<std::string>(v);
       c.backbone = path == "none" ? std::string() : path;
     }},
    {"finetune_backbone", "Model", "Train a TorchScript backbone too (an encoder file's CNN trains its top trainable_blocks)",
     FOVEA_FIELD(model.backbone_trainable)},
    {"trainable_blocks", "Model",
     "Built-in CNN starting trained (encoder file, pretraining, init_from): its top blocks that train; the blocks "
     "below keep their weights and skip the backward (an untrained CNN trains all)",
     FOVEA_FIELD(trainable_blocks), 0, 64},
    {"embed_dim", "Model", "Word embedding size m", FOVEA_FIELD(model.embed_dim), 1, 8192},
    {"attention_dim", "Model", "Attention MLP size", FOVEA_FIELD(model.attention_dim), 1, 8192},
    {"hidden_dim", "Model", "LSTM size n", FOVEA_FIELD(model.hidden_dim), 1, 8192},
    {"dropout", "Model", "Dropout before the deep output layer", FOVEA_FIELD(model.dropout), 0, 0.99},
    {"beta", "Model", "Soft attention: the gating scalar beta on the context", FOVEA_FIELD(model.use_beta)},
    {"init_state", "Model", "h0/c0: mean (f_init MLPs on the mean annotation, the paper's), zero or learned",
     FOVEA_FIELD(model.init_state), -kInf, kInf, false, {"mean", "zero", "learned"}},
  };
}

/// The loss: penalties, REINFORCE, self-critical training, auxiliary losses, pretraining.
std::vector<TrainSetting> objective_settings() {
  return {
    // Objective
    {"lambda", "Objective", "Weight of the doubly stochastic penalty", FOVEA_FIELD(objective.lambda), 0, kInf},
    {"penalty_reduction", "Objective", "The penalty over cells: sum (the paper's) or mean", FOVEA_FIELD(objective.reduction),
     -kInf, kInf, false, {"sum", "mean"}},
    {"lambda_r", "Objective", "Hard: weight of the REINFORCE term", FOVEA_FIELD(objective.lambda_r), 0, kInf},
    {"lambda_e", "Objective", "Hard: weight of the entropy bonus on alpha", FOVEA_FIELD(objective.lambda_e), 0, kInf},
    {"self_critical", "Objective",
     "Self-critical training from --init-from's model: reward CIDEr-D of 5 sampled captions per image, baseline the "
     "greedy caption's reward (greedy) or the other samples' mean (samples); off: cross-entropy",
     FOVEA_FIELD(self_critical), -kInf, kInf, false, {"off", "greedy", "samples"}},
    {"aux_weight", "Objective",
     "Auxiliary losses on the annotations: each cell's class and colour, each object's class (needs object boxes; 0: off)",
     FOVEA_FIELD(aux_weight), 0, kInf},
    {"attention_supervision", "Objective",
     "Weight of KL(alpha from an even spread over the box of the object each colour word and noun names) (needs object "
     "boxes; 0: off)",
     FOVEA_FIELD(attention_supervision), 0, kInf},
    {"pretrain_steps", "Objective",
     "Encoder pretraining before captioning: steps on single Fashion-MNIST items (built-in CNN and scenes; 0: off)",
     FOVEA_FIELD(pretrain_steps), 0, kInf},
  };
}

/// The optimiser, the schedule, stopping; the device and the precision.
std::vector<TrainSetting> optimisation_and_runtime_settings() {
  return {
    // Optimisation
    {"lr", "Optimisation", "Adam learning rate", FOVEA_FIELD(lr), 0, kInf, true},
    {"lr_decay", "Optimisation", "The learning rate is multiplied by this after every epoch", FOVEA_FIELD(lr_decay), 0, 1, true},
    {"batch", "Optimisation", "Captions per step", FOVEA_FIELD(batch_size), 1, kInf},
    {"epochs", "Optimisation", "Epochs (with --resume: extend the run to this many)", FOVEA_FIELD(epochs), 1, kInf},
    {"max_steps", "Optimisation", "Stop after this many steps in all, pretraining included (0: no limit)",
     FOVEA_FIELD(max_steps), 0, kInf},
    {"patience", "Optimisation", "Early stopping: epochs without a better validation BLEU-4", FOVEA_FIELD(patience), 1, kInf},
    {"seed", "Optimisation", "Seed of the weights, the batch order and the sampling", FOVEA_FIELD(seed), 0, kInf},
    {"on_nonfinite", "Optimisation",
     "A NaN or infinite loss or gradient: stop (the default), skip the batch, or rollback to the last checkpoint "
     "with the learning rate halved",
     FOVEA_FIELD(on_nonfinite), -kInf, kInf, false, {"stop", "skip", "rollback"}},
    // Runtime
    {"device", "Runtime", "auto, cpu, cuda or cuda:N", FOVEA_FIELD(device)},
    {"precision", "Runtime",
     "fp32, or bf16 (products and convolutions in bfloat16, on a CPU with bf16 products: AVX-512 BF16 or "
     "AMX); auto: on a CPU with bf16 products the faster of the two for this run, timed before its first "
     "step; else fp32",
     FOVEA_FIELD(precision), -kInf, kInf, false, {"auto", "fp32", "bf16"}},
  };
}

}  // namespace

const std::vector<TrainSetting>& train_settings() {
  // In the order of train_setting_groups(), a section each.
  static const std::vector<TrainSetting> table = [] {
    std::vector<TrainSetting> all;
    for (auto section : {run_and_data_settings, model_settings, objective_settings, optimisation_and_runtime_settings}) {
      auto settings = section();
      all.insert(all.end(), settings.begin(), settings.end());
    }
    return with_applicability(std::move(all));
  }();
  return table;
}

#undef FOVEA_FIELD

const std::vector<std::string>& train_setting_groups() {
  static const std::vector<std::string> groups = {"Run", "Data", "Model", "Objective", "Optimisation", "Runtime"};
  return groups;
}

const TrainSetting& train_setting(const std::string& key) { return find_setting(train_settings(), key, "training"); }

std::string TrainSetting::cli_name() const { return setting_cli_name(key); }

void TrainSetting::check(const SettingValue& v) const {
  if (v.index() != default_value().index()) throw std::invalid_argument(std::string(key) + ": wrong type of value");
  auto out_of_range = [&] {
    std::ostringstream msg;
    msg << key << " must be " << (min_exclusive ? "> " : ">= ") << min;
    if (std::isfinite(max)) msg << " and <= " << max;
    msg << ", got " << format_setting(v);
    return std::invalid_argument(msg.str());
  };
  double x = 0;
  if (const auto* i = std::get_if<std::int64_t>(&v)) x = double(*i);
  else if (const auto* d = std::get_if<double>(&v)) x = *d;
  else if (const auto* t = std::get_if<std::string>(&v)) {
    if (choices.empty()) return;
    for (const auto& c : choices) {
      if (*t == c) return;
    }
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
    throw std::invalid_argument(std::string(key) + " must be one of " + list + ", got '" + *t + "'");
  } else {
    return;
  }
  if (!std::isfinite(x)) {
    throw std::invalid_argument(std::string(key) + " must be a finite number, got " + format_setting(v));
  }
  if (!(x >= min) || (min_exclusive && x == min) || !(x <= max)) throw out_of_range();
}

std::string train_settings_markdown() {
  std::string out = "| option | group | meaning | allowed | default | applies to |\n|---|---|---|---|---|---|\n";
  for (const auto& s : train_settings()) {
    const auto value = s.default_value();
    std::string name = s.cli_name(), allowed;
    if (std::holds_alternative<bool>(value)) {
      name += "`, `--no-" + name.substr(2);
      allowed = "flag";
    } else if (!s.choices.empty()) {
      for (const auto& c : s.choices) allowed += (allowed.empty() ? "" : ", ") + c;
    } else if (std::holds_alternative<std::int64_t>(value) || std::holds_alternative<double>(value)) {
      std::ostringstream range;
      range << (s.min_exclusive ? "> " : ">= ") << s.min;
      if (std::isfinite(s.max)) range << ", <= " << s.max;
      allowed = range.str();
    }
    std::string help = s.help;
    for (std::size_t at = 0; (at = help.find('|', at)) != std::string::npos; at += 2) help.replace(at, 1, "\\|");
    std::string shown = format_setting(value);
    if (shown.find('/') != std::string::npos) shown = "the shipped " + shown.substr(shown.rfind('/') + 1);  // not this machine's path
    out += "| `" + name + "` | " + s.group + " | " + help + " | " + allowed + " | " + shown + " | " +
           (*s.applies_when != '\0' ? s.applies_when : "every run") + " |\n";
  }
  return out;
}

std::string format_setting(const SettingValue& v) {
  struct {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      std::ostringstream s;
      s << d;
      return s.str();
    }
    std::string operator()(const std::string& t) const { return t; }
    std::string operator()(const std::vector<std::int64_t>& l) const {
      std::string s;
      for (auto x : l) s += (s.empty() ? "" : ",") + std::to_string(x);
      return s;
    }
  } format;
  return std::visit(format, v);
}

SettingValue parse_setting(const TrainSetting& s, const std::string& text) {
  const auto bad = [&](const char* what) {
    return std::invalid_argument(s.cli_name() + ": '" + text + "' is not " + what);
  };
  const auto whole = [&](const std::string& t) {
    std::size_t used = 0;
    long long x = 0;
    try {
      x = std::stoll(t, &used);
    } catch (const std::exception&) {
      throw bad("a whole number");
    }
    if (used != t.size()) throw bad("a whole number");
    return std::int64_t(x);
  };
  SettingValue v;
  switch (s.default_value().index()) {
    case 0:
      if (text == "true" || text == "1" || text == "on") v = true;
      else if (text == "false" || text == "0" || text == "off") v = false;
      else throw bad("true or false");
      break;
    case 1: v = whole(text); break;
    case 2: {
      std::size_t used = 0;
      double x = 0;
      try {
        x = std::stod(text, &used);
      } catch (const std::exception&) {
        throw bad("a number");
      }
      if (used != text.size()) throw bad("a number");
      v = x;
      break;
    }
    case 3: v = text; break;
    default: {
      std::vector<std::int64_t> list;
      std::stringstream in(text);
      for (std::string item; std::getline(in, item, ',');) list.push_back(whole(item));
      if (list.empty()) throw bad("a comma-separated list of whole numbers");
      v = list;
    }
  }
  s.check(v);
  return v;
}

nlohmann::json migrate_train_config(const nlohmann::json& j) {
  const int version = j.value("version", 1);
  if (version > kTrainConfigVersion) {
    throw std::invalid_argument("training config version " + std::to_string(version) + " is newer than this Fovea reads (" +
                                std::to_string(kTrainConfigVersion) + ")");
  }
  if (version == kTrainConfigVersion) return j;
  if (version == 2) {
    // Version 2 predates trainable_blocks: every block of the CNN trained.
    auto out = j;
    out["version"] = kTrainConfigVersion;
    out["trainable_blocks"] = j.at("encoder_widths").size();
    return out;
  }
  // Version 1: the model's and the scenes' settings nested, some keys named otherwise, and
  // settings since removed (ignored: a run resumes with the current recipe's fixed parts). Keys of
  // settings removed since (baseline_decay, now the paper's fixed 0.9) are ignored in any version.
  const auto& m = j.at("model");
  nlohmann::json out = {{"version", kTrainConfigVersion},
                        {"out", j.value("out_dir", std::string())},
                        {"trainable_blocks", m.at("encoder_widths").size()},
                        {"init_from", j.value("init_from", std::string())},
                        {"dataset", j.at("dataset")},
                        {"images", j.value("images_dir", std::string())},
                        {"train_scenes", j.at("train_scenes")},
                        {"val_scenes", j.at("val_scenes")},
                        {"min_count", j.value("min_count", 1)},
                        {"attention", m.at("attention")},
                        {"image_size", m.at("image_size")},
                        {"encoder_widths", m.at("encoder_widths")},
                        {"backbone", m.value("backbone_path", std::string())},
                        {"finetune_backbone", m.value("backbone_trainable", false)},
                        {"embed_dim", m.at("embed_dim")},
                        {"attention_dim", m.at("attention_dim")},
                        {"hidden_dim", m.at("hidden_dim")},
                        {"dropout", m.at("dropout")},
                        {"beta", m.value("use_beta", true)},
                        {"init_state", m.value("init_state", std::string("mean"))},
                        {"lambda", j.at("lambda")},
                        {"penalty_reduction", j.at("penalty_reduction")},
                        {"lambda_r", j.at("lambda_r")},
                        {"lambda_e", j.at("lambda_e")},
                        {"aux_weight", j.value("aux_weight", 0.0)},
                        {"attention_supervision", j.value("attention_supervision", 0.0)},
                        {"pretrain_steps", j.value("pretrain_steps", std::int64_t(0))},
                        {"lr", j.at("lr")},
                        {"lr_decay", j.value("lr_decay", 1.0)},
                        {"batch", j.at("batch_size")},
                        {"epochs", j.at("epochs")},
                        {"max_steps", j.at("max_steps")},
                        {"patience", j.at("patience")},
                        {"seed", j.at("seed")},
                        {"device", j.at("device")},
                        {"precision", j.value("precision", std::string("fp32"))}};
  return out;
}

std::vector<std::string> train_arguments(const TrainConfig& config) {
  std::vector<std::string> args;
  for (const auto& s : train_settings()) {
    const auto value = s.get(config);
    if (const bool* flag = std::get_if<bool>(&value)) {
      args.push_back(*flag ? s.cli_name() : "--no-" + s.cli_name().substr(2));
      continue;
    }
    std::string text = format_setting(value);
    if (const double* real = std::get_if<double>(&value)) {  // every digit: the same recipe in every process
      std::ostringstream exact;
      exact << std::setprecision(17) << *real;
      text = exact.str();
    }
    if (text.empty() && format_setting(s.default_value()).empty()) continue;  // no --init-from
    if (text.empty()) text = "none";  // --backbone none: not the shipped encoder
    args.push_back(s.cli_name());
    args.push_back(text);
  }
  return args;
}

}  // namespace fovea
