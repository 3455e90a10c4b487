// fovea features: the annotations of a corpus's train, val and test splits computed ahead of
// `fovea train` and `fovea eval`, for an encoder that does not train (a TorchScript --backbone not
// fine-tuned, or an encoder file with --trainable-blocks 0). The dataset options mean what they
// mean to `fovea train`; a run with the same ones then trains, validates and is evaluated without
// running the encoder (core/decode/split_annotations.h). Prints each split and its cache file.
// Ctrl-C stops it; the same command goes on where it stopped.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "app/cli/commands.h"
#include "app/cli/progress_bar.h"
#include "app/cli/stop_signal.h"
#include "core/data/dataset_source.h"
#include "core/runtime/runtime.h"
#include "core/train/annotation_features.h"
#include "core/train/run_setup.h"
#include "core/train/train_settings.h"

namespace fovea::cli {

namespace {

/// The keys of the training settings this command takes, with their meaning in `fovea train`.
constexpr const char* kSettings[] = {"dataset", "images", "backbone", "image_size", "train_scenes",
                                     "val_scenes", "trainable_blocks", "device", "min_count"};

}  // namespace

Runner add_features_command(CLI::App& app) {
  auto config = std::make_shared<TrainConfig>(recommended_train_config());
  for (const char* key : kSettings) {
    const auto& s = train_setting(key);
    auto* o = app.add_option_function<std::string>(
        s.cli_name(),
        [&s, config](const std::string& text) {
          try {
            s.set(*config, parse_setting(s, text));
          } catch (const std::invalid_argument& e) {
            throw CLI::ValidationError(s.cli_name(), e.what());
          }
        },
        s.help);
    const auto shown = format_setting(s.get(*config));
    if (!shown.empty()) o->default_str(shown);
    if (std::string(key) == "dataset") o->required();
  }
  auto batch = std::make_shared<std::int64_t>(32);
  app.add_option("--batch", *batch, "Images through the encoder at once")->check(CLI::PositiveNumber)->capture_default_str();
  auto split = std::make_shared<std::string>();
  app.add_option("--split", *split, "Only this split (default: train, val and, for a Karpathy file, test)")
      ->check(CLI::IsMember({"train", "val", "test"}));
  auto verify = std::make_shared<bool>(false);
  app.add_flag("--verify", *verify,
               "Also check every entry of the image and annotation caches against its CRC-32 and repair the damaged ones");
  return [config, batch, split, verify]() -> int {
    if (is_builtin_dataset(config->dataset)) {
      throw std::invalid_argument("--dataset: the built-in scenes are drawn afresh every epoch, so their annotations are not "
                                  "kept; give a karpathy: or coco: dataset");
    }
    config->out_dir = "(none)";  // no run folder: validate() checks the rest as `fovea train` would
    config->validate();
    ProgressBar bar;
    auto say = [&bar](const std::string& m) { bar.message(m); };
    auto data = make_train_data(*config, say);
    configure_threads(0);
    torch::manual_seed(config->seed);
    auto model = build_new_model(*config, *data.train, resolve_device(config->device), say);
    if (const auto frozen = frozen_encoder_blocks(*config); frozen > 0) model.net->encoder->freeze_blocks(frozen);
    if (!encoder_is_fixed(*config, model)) {
      throw std::invalid_argument(
          "--backbone: this encoder trains with the decoder (a built-in CNN with trainable blocks, or none), so its "
          "annotations change every step: give a TorchScript backbone, or an encoder file with --trainable-blocks 0");
    }
    std::vector<std::pair<std::string, std::shared_ptr<const SceneSource>>> splits;
    const bool karpathy = config->dataset.rfind("karpathy:", 0) == 0;
    if (split->empty() || *split == "train") splits.emplace_back("train", data.train);
    if (split->empty() || *split == "val") splits.emplace_back("val", data.val);
    if ((split->empty() && karpathy) || *split == "test") {
      ImageCacheOptions images;
      images.image_size = int(config->model.image_size);
      splits.emplace_back("test", open_dataset_split(config->dataset, config->images_dir, "test", images, 0,
                                                     std::size_t(config->val_scenes), say));
    }
    FeatureOptions options;
    options.batch = *batch;
    options.stop = stop_on_interrupt();
    options.on_message = say;
    for (const auto& [name, source] : splits) {
      options.on_progress = [&bar, name = name](const FeatureProgress& p) {
        bar.update_count(name + " annotations", p.done, p.total, "images", p.images_per_s, p.eta_s);
      };
      const auto cache = build_annotation_cache(model, source, annotation_cache_key(model, *source), options);
      bar.finish();
      if (!cache->complete()) {
        std::fprintf(stderr, "interrupted: the annotations computed so far are kept in %s; the same command goes on from there\n",
                     cache->path().c_str());
        return 130;
      }
      if (*verify) {
        const auto repaired = repair_annotation_cache(model, source, *cache, options);
        say(name + ": every entry checked, " + (repaired == 0 ? std::string("none damaged") : std::to_string(repaired) + " repaired"));
      }
      std::printf("%s %s\n", name.c_str(), cache->path().c_str());
    }
    if (model.net->encoder->images_encoded() == 0) say("every annotation was already computed: the encoder ran on no image");
    return 0;
  };
}

}  // namespace fovea::cli
