#pragma once
/// The training settings, each described once (after FFmpeg's AVOption tables): key, group,
/// one line of help, range or choices, and where it lives in TrainConfig. The CLI's options,
/// the New run dialog's fields, the config's JSON and TrainConfig::validate() all walk this
/// table, so they cannot drift apart. Torch-free.
#include <cstdint>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "core/train/train_config.h"

namespace fovea {

/// A setting's value: a flag, a whole number, a real number, a text, or a list of whole numbers.
using SettingValue = std::variant<bool, std::int64_t, double, std::string, std::vector<std::int64_t>>;

struct TrainSetting {
  const char* key;    ///< JSON key; the CLI option is --key with '_' written '-'
  const char* group;  ///< Run, Data, Model, Objective, Optimisation or Runtime
  const char* help;   ///< one line
  SettingValue (*get)(const TrainConfig&);
  void (*set)(TrainConfig&, const SettingValue&);
  double min = -std::numeric_limits<double>::infinity();  ///< numbers: smallest allowed
  double max = std::numeric_limits<double>::infinity();   ///< numbers: largest allowed
  bool min_exclusive = false;                              ///< numbers: min itself not allowed
  std::vector<std::string> choices = {};                   ///< texts: the allowed values (empty: any)
  /// When the setting has an effect ("hard attention"; "" always), and the test of it on a config
  /// (null: always). The New run dialog greys out the fields that do not apply.
  const char* applies_when = "";
  bool (*applies_to)(const TrainConfig&) = nullptr;

  std::string cli_name() const;  ///< "--key-with-dashes"
  SettingValue default_value() const { return get(recommended_train_config()); }
  bool applies(const TrainConfig& c) const { return applies_to == nullptr || applies_to(c); }
  /// Throws std::invalid_argument naming the setting when `v` is out of range, not finite or not a choice.
  void check(const SettingValue& v) const;
};

/// Every training setting, grouped, in the order the CLI's help and the dialog show them.
const std::vector<TrainSetting>& train_settings();
/// The groups, in order.
const std::vector<std::string>& train_setting_groups();
/// The setting with this key; throws std::invalid_argument when there is none.
const TrainSetting& train_setting(const std::string& key);

/// The markdown table of the settings (the one in docs/training.md): option, group, meaning,
/// range or choices, default, and when it applies.
std::string train_settings_markdown();

/// The value as the CLI and the dialog write it: true/false, 12, 0.001, text, 16,32,64.
std::string format_setting(const SettingValue& v);
/// Parses `text` into the type of `s`'s values; throws std::invalid_argument naming the setting.
SettingValue parse_setting(const TrainSetting& s, const std::string& text);

/// The `fovea train` arguments that give `config`'s settings (--key value, --flag or --no-flag;
/// empty texts left out), for another process that joins the same run.
std::vector<std::string> train_arguments(const TrainConfig& config);

/// The version to_json(TrainConfig) writes. Version 1 (no "version" key) nested the model and
/// scene settings and had options since removed; version 2 had no trainable_blocks (every block
/// of the CNN trained). migrate_train_config() reads both.
inline constexpr int kTrainConfigVersion = 3;
/// A config JSON of any earlier version as the current version's flat {key: value}.
nlohmann::json migrate_train_config(const nlohmann::json& j);

}  // namespace fovea
