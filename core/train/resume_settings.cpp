#include "core/train/resume_settings.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

namespace fovea {

namespace {

/// How long the run trains, when it stops early, what a non-finite step does, and where it runs.
const std::vector<std::string>& changeable() {
  static const std::vector<std::string> keys = {"epochs", "max_steps", "patience", "on_nonfinite", "device"};
  return keys;
}

std::string list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string shown(const SettingValue& v) {
  const auto text = format_setting(v);
  return text.empty() ? "\"\"" : text;
}

}  // namespace

bool may_change_on_resume(const std::string& key) {
  return std::find(changeable().begin(), changeable().end(), key) != changeable().end();
}

TrainConfig apply_resume_settings(const TrainConfig& stored, const std::map<std::string, SettingValue>& given,
                                  const std::string& run_dir, std::vector<std::string>* applied) {
  TrainConfig config = stored;
  std::vector<std::string> refused, changes;
  for (const auto& s : train_settings()) {
    const auto it = given.find(s.key);
    if (it == given.end()) continue;
    const SettingValue own = s.get(stored);
    if (it->second == own) continue;
    if (std::string(s.key) == "out") {
      std::error_code ec;
      const auto* text = std::get_if<std::string>(&it->second);
      if (text && std::filesystem::weakly_canonical(*text, ec) == std::filesystem::weakly_canonical(run_dir, ec)) continue;
      refused.push_back("--out " + shown(it->second) + " (a resumed run stays in its folder)");
      continue;
    }
    if (!may_change_on_resume(s.key)) {
      refused.push_back(s.cli_name() + " " + shown(it->second) + " (the run's: " + shown(own) + ")");
      continue;
    }
    s.check(it->second);
    s.set(config, it->second);
    changes.push_back(s.cli_name() + " " + shown(it->second) + " (was " + shown(own) + ")");
  }
  if (!refused.empty()) {
    std::vector<std::string> allowed;
    for (const auto& key : changeable()) allowed.push_back(train_setting(key).cli_name());
    throw ResumeRefused(run_dir + ": a resumed run keeps its own settings; cannot change " + list(refused) +
                                ". A resume may change " + list(allowed) +
                                "; to train with other settings, start a new run (--out NEW_DIR, --init-from " + run_dir +
                                "/last.ckpt to start from its weights)");
  }
  if (applied) *applied = changes;
  return config;
}

void check_steps_not_passed(const TrainConfig& config, std::int64_t steps, std::int64_t pretrain_steps,
                            const std::string& run_dir) {
  const std::int64_t reached = steps + pretrain_steps;
  if (config.max_steps <= 0 || config.max_steps >= reached) return;
  throw ResumeRefused(run_dir + ": the run has reached step " + std::to_string(reached) +
                      (pretrain_steps > 0 && steps > 0 ? " (" + std::to_string(pretrain_steps) + " of them pretraining the encoder)" : "") +
                      ", past --max-steps " + std::to_string(config.max_steps) + "; to train on, give a --max-steps above " +
                      std::to_string(reached));
}

void check_checkpoint_matches_run(const std::string& checkpoint, const TrainConfig& in_checkpoint,
                                  const TrainConfig& folder_config) {
  std::vector<std::string> differences;
  for (const auto& s : train_settings()) {
    if (std::string(s.group) != "Model") continue;
    const auto a = s.get(in_checkpoint), b = s.get(folder_config);
    if (a != b) differences.push_back(std::string(s.key) + " " + shown(a) + " in it, " + shown(b) + " in config.json");
  }
  if (differences.empty()) return;
  throw std::runtime_error(checkpoint + ": holds another model than the run's config.json (" + list(differences) +
                           "): not this run's checkpoint, so it is not resumed");
}

}  // namespace fovea
