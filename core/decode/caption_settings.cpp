#include "core/decode/caption_settings.h"

#include <stdexcept>

#include "core/runtime/setting_table.h"

namespace fovea {

const std::vector<CaptionSetting>& caption_settings() {
  using K = CaptionSetting::Kind;
  static const std::vector<CaptionSetting> table = {
      {"model", "m", K::Text, "Model file (default: $FOVEA_MODEL, else the shipped soft model)"},
      {"beam", "k", K::Whole, "Beam width (1: greedy)", 1, 50, "3"},
      {"greedy", "", K::Flag, "Greedy decoding (beam 1)"},
      {"max_len", "", K::Whole, "Longest caption in words (0: the model's limit)", 0, 1000, "0"},
      {"sample_glimpses", "", K::Flag, "Hard models: sampled glimpses instead of the expected alpha"},
      {"seed", "", K::Whole,
       "With --sample-glimpses: seed of the draw (the same seed gives the same glimpses; default: a fresh draw)", 0,
       INT64_MAX},
      {"device", "", K::Text, "auto, cpu or cuda", 0, 0, "cpu"},
      {"every", "", K::Whole, "Videos: caption every Nth frame, skipping the others", 1, 1000, "1"},
  };
  return table;
}

const CaptionSetting& caption_setting(const std::string& key) { return find_setting(caption_settings(), key, "caption"); }

std::string CaptionSetting::cli_name() const { return setting_cli_name(key); }

CaptionOptions CaptionChoices::options() const {
  CaptionOptions o;
  o.beam = greedy ? 1 : int(beam);
  o.max_len = int(max_len);
  o.sample_glimpses = sample_glimpses;
  if (seed >= 0) o.seed = std::uint64_t(seed);
  return o;
}

namespace {

[[noreturn]] void not_of_kind(const std::string& key, const char* kind) {
  throw std::invalid_argument("no " + std::string(kind) + " caption setting '" + key + "'");
}

}  // namespace

std::string& CaptionChoices::text(const std::string& key) {
  if (key == "model") return model;
  if (key == "device") return device;
  not_of_kind(key, "text");
}

std::int64_t& CaptionChoices::whole(const std::string& key) {
  if (key == "beam") return beam;
  if (key == "max_len") return max_len;
  if (key == "seed") return seed;
  if (key == "every") return every;
  not_of_kind(key, "whole-number");
}

bool& CaptionChoices::flag(const std::string& key) {
  if (key == "greedy") return greedy;
  if (key == "sample_glimpses") return sample_glimpses;
  not_of_kind(key, "flag");
}

std::string caption_settings_markdown() {
  std::string out = "| option | meaning | range | default |\n|---|---|---|---|\n";
  for (const auto& s : caption_settings()) {
    std::string names = "`" + s.cli_name() + "`";
    if (*s.short_name != '\0') names += ", `-" + std::string(s.short_name) + "`";
    std::string range;
    if (s.kind == CaptionSetting::Kind::Whole) {
      range = std::to_string(s.min) + (s.max == INT64_MAX ? " or more" : ".." + std::to_string(s.max));
    } else if (s.kind == CaptionSetting::Kind::Flag) {
      range = "flag";
    }
    out += "| " + names + " | " + s.help + " | " + range + " | " + s.default_text + " |\n";
  }
  return out;
}

}  // namespace fovea
