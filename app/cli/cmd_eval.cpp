// fovea eval: decode a split of the built-in scenes or of a dataset on disk; report the caption metrics and,
// where objects have boxes, attention grounding.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/cli/caption_options.h"
#include "app/cli/commands.h"
#include "app/cli/video_commands.h"
#include "app/cli/option_checks.h"
#include "core/runtime/data_paths.h"
#include "core/data/coco_captions.h"
#include "core/eval/caption_scores.h"
#include "core/data/dataset_source.h"
#include "core/datasets/fashion_scenes.h"
#include "core/eval/scene_evaluation.h"

namespace fovea::cli {

namespace {
struct EvalArgs {
  CaptionChoices c{default_model_path()};
  std::string dataset = "fashion-scenes", split = "test";
  std::size_t count = 1000;
  std::string images, results, refs_out, video;
  bool json = false, faithfulness = false, probes = false;
  FashionScenesOptions scenes;
  StabiliserRule rule;
};

void print_row(const char* name, const GroundingScore& g) {
  std::printf("  %-12s %6lld   %6.1f%%   %6.1f%%   %6.1f%%\n", name, (long long)g.count, 100 * g.pointing(),
              100 * g.precision(), 100 * g.chance_level());
}

/// The most frequent absent nouns and the object each was said of ("shirt for a pullover").
void print_confusions(const GroundingReport& r) {
  const auto ranked = ranked_confusions(r);
  if (ranked.empty()) return;
  std::printf("  most frequent:");
  for (std::size_t i = 0; i < ranked.size() && i < 6; ++i) {
    const auto& c = ranked[i];
    std::printf("%s %s for %s (%lld)", i ? "," : "", c.said.c_str(), c.object.empty() ? "no object" : ("a " + c.object).c_str(),
                (long long)c.count);
  }
  std::printf("\n");
}
}  // namespace

void print_faithfulness(const FaithfulnessReport& r) {
  const auto& s = r.all;
  const double n = std::max<double>(1, double(s.count));
  std::printf("  faithfulness (%s), %lld nouns: removing the cells that hold 90%% of alpha (%.1f%% of the grid)\n",
              r.kind.c_str(), (long long)s.count, 100 * s.removed_fraction / n);
  std::printf("    p(noun) falls %.1f%% (as many cells elsewhere: %.1f%%); by half or more for %.1f%% of nouns\n",
              100 * s.mean_attended_drop(), 100 * s.mean_control_drop(), 100 * s.faithful_rate());
  std::printf("    gradient saliency: its peak is alpha's peak for %.1f%%, in the named object's box for %.1f%% (chance %.1f%%)\n",
              100 * double(s.saliency_peak_agrees) / n, 100 * double(s.saliency_in_box) / n, 100 * s.box_fraction / n);
  std::printf("    %-10s %6s %9s %9s %9s\n", "class", "nouns", "attended", "control", "faithful");
  for (const auto& [noun, c] : r.per_class)
    std::printf("    %-10s %6lld %8.1f%% %8.1f%% %8.1f%%\n", noun.c_str(), (long long)c.count, 100 * c.mean_attended_drop(),
                100 * c.mean_control_drop(), 100 * c.faithful_rate());
}

static void print_probes(const ProbeReport& r) {
  std::printf("  probe: alpha on an object's box after \"a <its colour>\" names it for %.1f%% of %lld objects; "
              "after another object's colour %.1f%% of %lld\n",
              100 * r.own_colour.rate(), (long long)r.own_colour.count, 100 * r.other_colour.rate(),
              (long long)r.other_colour.count);
  std::printf("    ");
  for (const auto& [noun, s] : r.per_class) std::printf(" %s %.0f%%", noun.c_str(), 100 * s.rate());
  std::printf("\n");
}

namespace {

/// The grounding table, the absent nouns, and faithfulness and probes when measured.
void print_grounding(const SceneEvaluation& e) {
  std::printf("  grounding     count  pointing  alpha-in-box  chance\n");
  print_row("noun phrase", e.grounding.phrase);
  print_row("colour", e.grounding.colour);
  print_row("noun", e.grounding.noun);
  if (e.grounding.glimpse.count > 0) {
    std::printf("  sampled glimpse in the named object's box: %.1f%% of %lld (chance %.1f%%)\n",
                100 * e.grounding.glimpse.pointing(), (long long)e.grounding.glimpse.count, 100 * e.grounding.glimpse.chance_level());
  }
  std::printf("  nouns naming a class absent from the scene: %.1f%% of %lld\n", 100 * e.grounding.absent_noun_rate(),
              (long long)e.grounding.nouns);
  print_confusions(e.grounding);
  if (e.has_faithfulness && e.faithfulness.all.count > 0) print_faithfulness(e.faithfulness);
  if (e.has_probes) print_probes(e.probes);
}

/// The split to evaluate: the built-in scenes drawn, or a dataset's split read from disk (all of
/// it unless --count was given: the split `fovea features` computed).
std::shared_ptr<const SceneSource> open_split(const EvalArgs& a, bool count_given, const std::function<void(const std::string&)>& say) {
  check_dataset_name(a.dataset);
  if (is_builtin_dataset(a.dataset)) {
    if (!a.images.empty()) {
      throw std::invalid_argument("--images " + a.images + ": the built-in scenes are drawn, not read; --images goes with "
                                  "--dataset karpathy:FILE or coco:FILE");
    }
    return std::make_shared<FashionScenes>(a.split, a.count, a.scenes);
  }
  ImageCacheOptions cache;
  cache.image_size = a.scenes.image_size;
  return open_dataset_split(a.dataset, a.images, a.split, cache, count_given ? a.count : 0, 0, say);
}

}  // namespace

Runner add_eval_command(CLI::App& app) {
  auto a = std::make_shared<EvalArgs>();
  app.add_option("--dataset", a->dataset, "fashion-scenes, karpathy:PATH/dataset_*.json or coco:PATH/captions_*.json")
      ->capture_default_str();
  app.add_option("--images", a->images, "Folder of the dataset's images (karpathy: and coco: datasets)");
  app.add_option("--split", a->split, "val, test, or train (the first COUNT scenes a model with the same --data-seed trained on: the train/test gap)")
      ->check(CLI::IsMember({"train", "val", "test"}))
      ->capture_default_str();
  auto* count = app.add_option("--count", a->count, "Scenes to evaluate (a dataset on disk: its whole split unless given)")
                    ->check(at_least(1))
                    ->capture_default_str();
  app.add_option("--data-seed", a->scenes.seed, "Seed of the built-in scenes")->check(at_least(0))->capture_default_str();
  app.add_flag("--json", a->json, "Print one JSON object");
  app.add_flag("--faithfulness", a->faithfulness,
               "Also remove what each noun's alpha points at and score the caption again: does p(noun) fall, "
               "more than when as many cells elsewhere go? (scenes with object boxes)");
  app.add_flag("--probe", a->probes,
               "Also force alpha onto every object's box after \"a <its colour>\" (and after another object's colour): "
               "is the next word the object's noun? (scenes with object boxes)");
  app.add_option("--results", a->results, "Write the generated captions as a COCO results file [{image_id, caption}]");
  app.add_option("--refs-out", a->refs_out, "Write the references as a COCO captions file (to score --results with fovea score)");
  add_caption_options(app, a->c, {"model", "beam", "greedy", "sample_glimpses", "seed", "device", "every"});
  app.add_option("--video", a->video, "Score live captioning on the clips in this folder (fovea data fashion-scenes --video): "
                                      "per-frame pointing and shown-caption changes a second");
  app.add_option("--margin", a->rule.margin, "--video: nats by which a new caption must be more probable to be shown")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  app.add_option("--hold", a->rule.frames, "--video: on this many consecutive captioned frames")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  return [a, count]() -> int {
    if (!a->video.empty()) return eval_video(a->video, a->c, a->rule, a->json);
    Captioner captioner(a->c.model, a->c.device);
    const auto say = [](const std::string& m) { std::fprintf(stderr, "%s\n", m.c_str()); };
    a->scenes.image_size = int(captioner.config().image_size);
    const auto source = open_split(*a, count->count() > 0, say);
    const auto& scenes = *source;
    const auto opts = a->c.options();
    if (a->c.sample_glimpses && captioner.config().attention != AttentionKind::Hard) {
      std::fprintf(stderr, "fovea: note: --sample-glimpses applies to hard models; "
                           "this soft model is scored with its expected alpha\n");
    }
    const auto e = evaluate_scenes(captioner, source, opts, 50, a->faithfulness, a->probes, say);
    if (!is_builtin_dataset(a->dataset)) {
      std::fprintf(stderr, "the encoder ran on %lld images%s\n", (long long)captioner.images_encoded(),
                   captioner.reads_cached_annotations(scenes) ? " (the split's annotations are cached)" : "");
    }
    if (e.has_faithfulness && e.faithfulness.all.count == 0) std::fprintf(stderr, "fovea: note: faithfulness %s\n", kFaithfulnessUnmeasured);
    if (!a->results.empty()) write_coco_results(a->results, e.captions);
    if (!a->refs_out.empty()) write_coco_references(a->refs_out, e.references);
    if (a->json) {
      auto j = to_json(e);
      j["model"] = a->c.model;
      j["split"] = a->split;
      j["dataset"] = scenes.describe();
      j["beam"] = opts.beam;
      std::cout << j.dump(2) << "\n";
      return 0;
    }
    std::printf("%s on %s (%s)\n", a->c.model.c_str(), scenes.describe().c_str(),
                opts.beam > 1 ? ("beam " + std::to_string(opts.beam)).c_str() : "greedy");
    std::printf("  BLEU-1 %.4f  BLEU-2 %.4f  BLEU-3 %.4f  BLEU-4 %.4f  ROUGE-L %.4f  CIDEr-D %.4f\n", e.bleu[0], e.bleu[1],
                e.bleu[2], e.bleu[3], e.rouge_l, e.cider);
    if (e.grounding.phrase.count == 0 && !is_builtin_dataset(a->dataset)) return 0;  // no object boxes to ground on
    print_grounding(e);
    return 0;
  };
}

}  // namespace fovea::cli
