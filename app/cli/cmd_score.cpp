// fovea score: coco-caption metrics of a results file against a references file.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "core/data/coco_captions.h"
#include "core/eval/caption_scores.h"
#include "core/io/atomic_file.h"

namespace fovea::cli {

namespace {
struct ScoreArgs {
  std::string refs, results, per_image;
  bool json = false;
};
}  // namespace

Runner add_score_command(CLI::App& app) {
  auto a = std::make_shared<ScoreArgs>();
  app.add_option("--refs", a->refs, "COCO captions annotation file (references)")->required();
  app.add_option("--results", a->results, "COCO results file [{image_id, caption}]")->required();
  app.add_option("--per-image", a->per_image, "Write per-image scores to this JSON file");
  app.add_flag("--json", a->json, "Print one JSON object with the toolkit's key names");
  return [a]() -> int {
    const auto s = score_captions(read_coco_references(a->refs), read_coco_results(a->results));
    if (!a->per_image.empty()) write_file_atomically(a->per_image, per_image_json(s).dump(1) + "\n");
    if (a->json) {
      std::cout << to_json(s).dump(2) << "\n";
    } else {
      std::printf("%zu images\n  Bleu_1  %.6f\n  Bleu_2  %.6f\n  Bleu_3  %.6f\n  Bleu_4  %.6f\n  ROUGE_L %.6f\n  CIDEr   %.6f\n",
                  s.per_image.size(), s.bleu[0], s.bleu[1], s.bleu[2], s.bleu[3], s.rouge_l, s.cider);
    }
    return 0;
  };
}

}  // namespace fovea::cli
