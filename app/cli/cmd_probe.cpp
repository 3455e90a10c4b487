// fovea probe: the next word with the model's attention forced onto a region of the image, after
// the words so far; beside it what the model says with its own attention.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/cli/caption_options.h"
#include "app/cli/commands.h"
#include "core/data/image_io.h"
#include "core/data/tokenizer.h"
#include "core/decode/captioner.h"
#include "core/runtime/data_paths.h"

namespace fovea::cli {

namespace {
struct ProbeArgs {
  CaptionChoices c{default_model_path()};
  std::string image, region, prefix;
  int top = 5;
  bool json = false;
};

void print_words(const std::vector<ProbeWord>& words) {
  for (const auto& w : words) std::printf("  %-14s %.3f\n", w.word.c_str(), w.p);
}
}  // namespace

Runner add_probe_command(CLI::App& app) {
  auto a = std::make_shared<ProbeArgs>();
  app.add_option("image", a->image, "Image file")->required();
  app.add_option("--region,-r", a->region,
                 "Where to look, in the image's pixels: x0,y0,x1,y1 (a rectangle) or x,y (a point)")
      ->required();
  app.add_option("--prefix,-p", a->prefix, "The words before (default: none, the first word)");
  app.add_option("--top,-k", a->top, "How many words to list")->check(CLI::Range(1, 100))->capture_default_str();
  app.add_flag("--json", a->json, "One JSON object: prefix, words [{word, p}], alpha, own {words, alpha}, beta");
  add_caption_options(app, a->c, {"model", "device"});
  return [a]() -> int {
    const ProbeRegion region = parse_probe_region(a->region);
    const RgbImage image = read_image(a->image);
    Captioner captioner(a->c.model, a->c.device);
    const ProbeResult r = captioner.probe(image, region, a->prefix, a->top);
    // A misspelt prefix word still probes, as <unk>: say so, or the answer looks like the model's fault.
    const auto typed = tokenize(a->prefix);
    for (std::size_t i = 0; i < typed.size() && i < r.prefix.size(); ++i) {
      if (r.prefix[i] == "<unk>" && typed[i] != "<unk>") {
        std::fprintf(stderr, "fovea probe: --prefix: \"%s\" is not a word of this model (read as <unk>; fovea info %s "
                     "lists its words)\n", typed[i].c_str(), a->c.model.c_str());
      }
    }
    if (a->json) {
      std::cout << to_json(r).dump() << "\n";
      return 0;
    }
    std::string prefix;
    for (const auto& w : r.prefix) prefix += (prefix.empty() ? "" : " ") + w;
    if (prefix.empty()) std::printf("first word, looking at %s:\n", a->region.c_str());
    else std::printf("after \"%s\", looking at %s:\n", prefix.c_str(), a->region.c_str());
    print_words(r.words);
    std::printf("with its own attention:\n");
    print_words(r.own_words);
    return 0;
  };
}

}  // namespace fovea::cli
