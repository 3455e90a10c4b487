#pragma once
/// The caption settings, each described once: key, short name, one line of help, range and default.
/// Every command that captions (caption, eval, probe, take-away, export) takes its options from
/// this table, fovea-studio its command line and its controls' ranges, and docs/cli.md its
/// table (tests check they agree). Torch-free.
#include <cstdint>
#include <string>
#include <vector>

#include "core/decode/caption_result.h"

namespace fovea {

struct CaptionSetting {
  enum class Kind { Text, Whole, Flag };
  const char* key;         ///< the CLI option is --key with '_' written '-'
  const char* short_name;  ///< one letter ("k" for -k), or ""
  Kind kind;
  const char* help;  ///< one line
  std::int64_t min = 0, max = 0;  ///< whole numbers: the range allowed
  const char* default_text = "";  ///< the default as help shows it ("" for none)

  std::string cli_name() const;  ///< "--key-with-dashes"
};

/// Every caption setting, in the order the commands' help shows them.
const std::vector<CaptionSetting>& caption_settings();
/// The setting with this key; throws std::invalid_argument when there is none.
const CaptionSetting& caption_setting(const std::string& key);

/// What a user asks a caption of, as the commands read it: the model, its device, and the
/// decoding options.
struct CaptionChoices {
  std::string model;  ///< the model file ("": the default model)
  std::string device = "cpu";
  std::int64_t beam = 3;
  bool greedy = false;
  std::int64_t max_len = 0;
  bool sample_glimpses = false;
  std::int64_t seed = -1;  ///< -1: a fresh draw
  std::int64_t every = 1;  ///< videos: caption every Nth frame

  /// The decoding options these choices make (greedy: beam 1).
  CaptionOptions options() const;

  /// The field of the setting `key`, by its kind in the table (Text, Whole, Flag): the one place a
  /// key meets its field, for every front end that sets choices by key. Throws
  /// std::invalid_argument for a key that is not a setting of that kind.
  std::string& text(const std::string& key);
  std::int64_t& whole(const std::string& key);
  bool& flag(const std::string& key);
};

/// The markdown table of the settings (the one in docs/cli.md), one row each.
std::string caption_settings_markdown();

}  // namespace fovea
