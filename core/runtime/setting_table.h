#pragma once
/// What the settings tables (core/decode/caption_settings.h, core/train/train_settings.h) share:
/// a setting's command-line option, and finding a setting by its key.
#include <stdexcept>
#include <string>

namespace fovea {

/// The command-line option of setting `key`: "--key-with-dashes" ('_' written '-').
inline std::string setting_cli_name(const char* key) {
  std::string name = std::string("--") + key;
  for (auto& c : name) c = c == '_' ? '-' : c;
  return name;
}

/// The setting of `table` with this key; throws std::invalid_argument, naming the table `what`
/// ("caption", "training"), when there is none.
template <class Table>
const auto& find_setting(const Table& table, const std::string& key, const char* what) {
  for (const auto& s : table) {
    if (key == s.key) return s;
  }
  throw std::invalid_argument(std::string("no ") + what + " setting '" + key + "'");
}

}  // namespace fovea
