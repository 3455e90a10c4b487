// fovea take-away: remove what one word's α points at, and as much elsewhere as a control, then
// ask the model again: does the word go?
#include <CLI/CLI.hpp>

#include <cstdlib>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "app/cli/caption_options.h"
#include "app/cli/commands.h"
#include "core/data/image_io.h"
#include "core/decode/captioner.h"
#include "core/eval/removal.h"
#include "core/runtime/data_paths.h"

namespace fovea::cli {

namespace {
struct TakeAwayArgs {
  CaptionChoices c{default_model_path()};
  std::string image, word, caption, save;
  bool json = false;
};

/// --word: a 1-based position in the caption, or a word of it (its first occurrence).
std::size_t word_index(const CaptionResult& caption, const std::string& word) {
  const std::string digits = !word.empty() && (word[0] == '-' || word[0] == '+') ? word.substr(1) : word;
  const bool number = !digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos;
  if (number) {  // a position; one too long for a number is past the caption's end all the same
    const std::size_t n = caption.words.size();
    const long long i = digits.size() > 9 ? -1 : std::atoll(digits.c_str()) * (word[0] == '-' ? -1 : 1);
    if (i < 1 || i > (long long)n)
      throw std::runtime_error("--word " + (word.size() > 24 ? word.substr(0, 20) + "..." : word) + ": the caption \"" +
                               caption.text() + "\" has " + std::to_string(n) + " words; give a position from 1 to " +
                               std::to_string(n) + " or one of its words");
    return std::size_t(i - 1);
  }
  // A word the model does not know is shown as "zebra <unk>": --word zebra names it too.
  for (std::size_t i = 0; i < caption.words.size(); ++i)
    if (caption.words[i].word == word || caption.words[i].word == word + " <unk>") return i;
  throw std::runtime_error("--word " + word + ": not in the caption \"" + caption.text() + "\"");
}

/// One removal's line; the relative drop only where p(word) was large enough to show one (a p of
/// 0.000 that moves from 1e-7 to 2e-7 is no "drop of -100%").
void print_removal(const char* what, const Removal& r, double drop, const std::string& word, double p_before) {
  char change[64] = "no drop to measure: p was 0.000";
  if (p_before >= 0.0005) std::snprintf(change, sizeof change, "drop %.0f%%", 100 * drop);
  std::printf("%s (%zu cells): p(%s) %.3f (%s)\n  caption: %s%s\n", what, r.cells.size(), word.c_str(), r.p_word, change,
              r.caption.text().c_str(), r.word_still_said ? "" : "   [the new caption does not say it]");
}
}  // namespace

Runner add_take_away_command(CLI::App& app) {
  auto a = std::make_shared<TakeAwayArgs>();
  app.add_option("image", a->image, "Image file")->required();
  app.add_option("--word,-w", a->word, "The word: its position in the caption (1 = first) or the word itself")->required();
  app.add_option("--caption,-c", a->caption, "Test this caption's word (teacher forcing) instead of the model's caption");
  add_caption_options(app, a->c, {"model", "beam", "greedy", "device"});
  app.add_option("--save", a->save, "Write the two altered images as SAVE-attended.png and SAVE-control.png");
  app.add_flag("--json", a->json, "One JSON object: word, p, attended {cells, p, drop, caption}, control {..., source}");
  return [a, &app]() -> int {
    if (app.count("--caption") > 0 && a->caption.find_first_not_of(" \t") == std::string::npos) {
      throw std::invalid_argument("--caption: empty; give the caption whose word to take away, or leave the option out "
                                  "for the model's own");
    }
    const RgbImage image = read_image(a->image);
    Captioner captioner(a->c.model, a->c.device);
    CaptionOptions options;
    options.beam = a->c.options().beam;
    const CaptionResult caption = a->caption.empty() ? captioner.caption(image, options) : captioner.score(image, a->caption);
    const TakeAway t = take_away(captioner, image, caption, word_index(caption, a->word), options);
    if (!a->save.empty()) {
      write_png(a->save + "-attended.png", t.attended.image);
      write_png(a->save + "-control.png", t.control.image);
      std::fprintf(stderr, "wrote %s-attended.png and %s-control.png\n", a->save.c_str(), a->save.c_str());
    }
    if (a->json) {
      nlohmann::json j = to_json(t);
      j["caption"] = caption.text();
      std::cout << j.dump() << "\n";
      return 0;
    }
    std::printf("caption: %s\nword %zu \"%s\": p %.3f\n", caption.text().c_str(), t.word + 1, t.text.c_str(), t.p_word);
    print_removal("without what its alpha points at", t.attended, t.attended_drop(), t.text, t.p_word);
    const std::string where = t.control_source >= 0 ? "where \"" + t.control_word + "\" looks" : "far from it";
    // The control removes as many cells as the word's α did, unless fewer lie outside those.
    const std::string control = t.control.cells.size() < t.attended.cells.size()
                                    ? "control " + where + ", fewer than the word's " + std::to_string(t.attended.cells.size()) +
                                          " cells: all that lie outside them"
                                    : "control, as much removed " + where;
    print_removal(control.c_str(), t.control, t.control_drop(), t.text, t.p_word);
    if (t.spread) std::printf("note: %s\n", t.spread_note().c_str());
    return 0;
  };
}

}  // namespace fovea::cli
