// fovea eval: decode a split of the built-in dataset, report BLEU and attention grounding.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "core/fashion_scenes.h"
#include "core/scene_evaluation.h"

namespace fovea::cli {

namespace {
struct EvalArgs {
  std::string model = "models/fashion-soft.ckpt", dataset = "fashion-scenes", split = "test", device = "cpu";
  std::size_t count = 1000;
  int beam = 3;
  bool greedy = false, json = false;
  FashionScenesOptions scenes;
};

void print_row(const char* name, const GroundingScore& g) {
  std::printf("  %-12s %6lld   %6.1f%%   %6.1f%%   %6.1f%%\n", name, (long long)g.count, 100 * g.pointing(),
              100 * g.precision(), 100 * g.chance_level());
}
}  // namespace

Runner add_eval_command(CLI::App& app) {
  auto a = std::make_shared<EvalArgs>();
  app.add_option("--model,-m", a->model, "Model file")->capture_default_str();
  app.add_option("--dataset", a->dataset, "fashion-scenes")->check(CLI::IsMember({"fashion-scenes"}))->capture_default_str();
  app.add_option("--split", a->split, "val or test")->check(CLI::IsMember({"val", "test"}))->capture_default_str();
  app.add_option("--count", a->count, "Scenes to evaluate")->capture_default_str();
  app.add_option("--beam,-k", a->beam, "Beam width")->check(CLI::Range(1, 50))->capture_default_str();
  app.add_flag("--greedy", a->greedy, "Greedy decoding");
  app.add_option("--data-seed", a->scenes.seed, "Seed of the built-in scenes")->capture_default_str();
  app.add_option("--mnist-dir", a->scenes.mnist_dir, "Folder with the Fashion-MNIST idx files")->capture_default_str();
  app.add_flag("--json", a->json, "Print one JSON object");
  app.add_option("--device", a->device, "auto, cpu or cuda")->capture_default_str();
  return [a]() -> int {
    Captioner captioner(a->model, a->device);
    a->scenes.image_size = int(captioner.config().image_size);
    FashionScenes scenes(a->split, a->count, a->scenes);
    CaptionOptions opts;
    opts.beam = a->greedy ? 1 : a->beam;
    const auto e = evaluate_scenes(captioner, scenes, opts);
    if (a->json) {
      auto j = to_json(e);
      j["model"] = a->model;
      j["split"] = a->split;
      j["beam"] = opts.beam;
      std::cout << j.dump(2) << "\n";
      return 0;
    }
    std::printf("%s on fashion-scenes/%s (%zu scenes, %s)\n", a->model.c_str(), a->split.c_str(), a->count,
                opts.beam > 1 ? ("beam " + std::to_string(opts.beam)).c_str() : "greedy");
    std::printf("  BLEU-1 %.4f  BLEU-2 %.4f  BLEU-3 %.4f  BLEU-4 %.4f  ROUGE-L %.4f  CIDEr-D %.4f\n", e.bleu[0], e.bleu[1],
                e.bleu[2], e.bleu[3], e.rouge_l, e.cider);
    std::printf("  grounding     count  pointing  alpha-in-box  chance\n");
    print_row("noun phrase", e.grounding.phrase);
    print_row("colour", e.grounding.colour);
    print_row("noun", e.grounding.noun);
    std::printf("  nouns naming a class absent from the scene: %.1f%% of %lld\n", 100 * e.grounding.absent_noun_rate(),
                (long long)e.grounding.nouns);
    return 0;
  };
}

}  // namespace fovea::cli
