#include "core/train/run_setup.h"

#include <optional>

#include "core/data/tokenizer.h"
#include "core/datasets/fashion_scenes.h"
#include "core/model/checkpoint.h"
#include "core/model/encoder_file.h"
#include "core/model/module_state.h"
#include "core/runtime/runtime.h"
#include "core/train/data_parallel.h"
#include "core/train/process_group.h"

namespace fovea {

TrainData open_train_data(const TrainConfig& config, TrainData data, const std::function<void(const std::string&)>& message) {
  if (data.train && data.val) return data;
  const auto* group = data.group.get();
  const bool first_here = group == nullptr || group->environment().local_rank == 0;
  auto kept = data.group;
  if (first_here) data = make_train_data(config, message);
  if (group != nullptr) kept->barrier();
  if (!first_here) data = make_train_data(config, {});
  data.group = kept;
  return data;
}

torch::Device training_device(const TrainConfig& config, const ProcessGroup* group) {
  auto device = resolve_device(config.device);
  if (group != nullptr && device.is_cuda() && !device.has_index()) {
    const auto gpus = std::max<std::int64_t>(1, std::int64_t(torch::cuda::device_count()));
    device = torch::Device(torch::kCUDA, torch::DeviceIndex(group->environment().local_rank % gpus));
  }
  return device;
}

namespace {

/// Copies the weights of another checkpoint with the same architecture and vocabulary.
void initialise_from(CaptionModel& model, const LoadedCheckpoint& source) {
  const auto& path = source.path;
  auto a = to_json(source.model.config), b = to_json(model.config);
  a.erase("attention"), b.erase("attention");
  if (a != b) {
    throw std::runtime_error(path + ": its architecture differs from this run's (" + a.dump() + " vs " + b.dump() + ")");
  }
  copy_matching_state(*model.net, *source.model.net);
}

/// A new run's vocabulary: the words of the training captions seen at least `min_count` times, or
/// those of the model the run starts from (`start`), which its weights go with: the training
/// words it lacks read as <unk>, and the run says how many.
Vocabulary training_vocabulary(const SceneSource& train, int min_count, const Vocabulary* start,
                               const std::function<void(const std::string&)>& say) {
  say("building the vocabulary from " + train.describe());
  std::vector<std::vector<std::string>> captions;
  for (std::size_t i = 0; i < train.size(); ++i) {
    for (const auto& c : train.get(i).captions) captions.push_back(tokenize(c));
  }
  auto vocab = Vocabulary::build(captions, min_count);
  if (start != nullptr) {
    std::int64_t missing = 0;
    for (const auto& w : vocab.words()) missing += start->index(w) == Vocabulary::kUnk ? 1 : 0;
    say("vocabulary: the " + std::to_string(start->size() - 4) + " words of the model it starts from" +
        (missing == 1   ? std::string("; 1 word of these captions is not among them and reads as <unk>")
         : missing > 1 ? "; " + std::to_string(missing) + " words of these captions are not among them and read as <unk>"
                       : std::string()));
    return *start;
  }
  if (vocab.size() <= 4) {  // only the special tokens: the decoder would have no word to say
    throw std::invalid_argument(train.describe() + ": its " + std::to_string(captions.size()) +
                                " training captions give no word seen at least " + std::to_string(min_count) +
                                " time(s) (min_count): are its sentences empty? Captions need words to learn from");
  }
  return vocab;
}

}  // namespace

CaptionModel build_new_model(TrainConfig& config, const SceneSource& train, torch::Device device,
                             const std::function<void(const std::string&)>& message) {
  auto say = [&](const std::string& m) {
    if (message) message(m);
  };
  std::optional<LoadedCheckpoint> source;
  if (!config.init_from.empty()) source = load_checkpoint(config.init_from);
  auto vocab = training_vocabulary(train, config.min_count, source ? &source->model.vocab : nullptr, say);
  const bool encoder_file = !config.backbone.empty() && is_encoder_file(config.backbone);
  config.model.backbone_path = encoder_file ? std::string() : config.backbone;
  auto model = CaptionModel::create(config.model, std::move(vocab), device);
  config.model = model.config;
  if (source) {
    initialise_from(model, *source);
    say("initialised from " + source->path);
  } else if (!config.backbone.empty()) {
    if (encoder_file) load_encoder_file(config.backbone, model);
    say("encoder: " + describe_backbone(config.backbone));
  }
  if (config.pretrain_steps > 0 && !pretrains_encoder(config)) {
    say("encoder pretraining skipped: it needs the built-in scenes and Fovea's own encoder");
  }
  return model;
}

std::int64_t parameter_count(CaptionModel& model) {
  std::int64_t n = 0;
  for (auto& p : model.net->trainable_parameters()) n += p.numel();
  return n;
}

std::string describe_processes(const TrainConfig& config, const ProcessGroup* group) {
  if (group == nullptr) return "";
  return "; " + std::to_string(group->size()) + " processes, " + std::to_string(batch_shard(config.batch_size, group).size) +
         " images each a step";
}

std::string describe_training_scenes(const TrainConfig& config, const SceneSource& train) {
  const auto* scenes = dynamic_cast<const FashionScenes*>(&train);
  const bool fresh = scenes != nullptr && scenes->options().fresh_every_epoch;
  return train.describe() +
         (fresh ? "; new scenes every epoch (epoch e: seed " + std::to_string(config.scenes.seed) + " + e)" : "");
}

}  // namespace fovea
