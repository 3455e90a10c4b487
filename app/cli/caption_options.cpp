#include "app/cli/caption_options.h"

#include "app/cli/option_checks.h"

namespace fovea::cli {

void add_caption_options(CLI::App& app, CaptionChoices& c, std::initializer_list<const char*> keys) {
  for (const std::string key : keys) {
    const auto& s = caption_setting(key);
    const std::string names = s.cli_name() + (*s.short_name != '\0' ? std::string(",-") + s.short_name : "");
    CLI::Option* o = nullptr;
    switch (s.kind) {
      case CaptionSetting::Kind::Text:
        o = app.add_option(names, c.text(key), s.help);
        break;
      case CaptionSetting::Kind::Flag:
        o = app.add_flag(names, c.flag(key), s.help);
        break;
      case CaptionSetting::Kind::Whole:
        o = app.add_option(names, c.whole(key), s.help);
        o->check(s.max == INT64_MAX ? at_least(s.min) : CLI::Range(s.min, s.max));
        break;
    }
    if (o == nullptr) throw std::logic_error("caption setting '" + key + "' has no option");
    if (*s.default_text != '\0') o->capture_default_str();
  }
  // Settings that contradict or need another are refused before anything loads, in CLI11's words
  // ("--greedy excludes --beam", "--seed requires --sample-glimpses"), rather than one silently winning.
  const auto option = [&](const char* key) { return app.get_option_no_throw(caption_setting(key).cli_name()); };
  if (auto *greedy = option("greedy"), *beam = option("beam"); greedy && beam) greedy->excludes(beam);
  if (auto *seed = option("seed"), *sampled = option("sample_glimpses"); seed && sampled) seed->needs(sampled);
}

}  // namespace fovea::cli
