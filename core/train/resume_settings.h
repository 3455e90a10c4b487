#pragma once
/// The settings given to a resumed run (`fovea train --resume DIR --epochs 30 ...`), held against
/// the run's own. Some may change when a run goes on (how long it trains, when it stops early,
/// what a non-finite step does, where it runs); the rest define the run (its model, data,
/// objective and schedule) and a different value is refused, naming each, rather than dropped
/// without a word. Torch-free.
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/train/train_config.h"
#include "core/train/train_settings.h"

namespace fovea {

/// A resume refused before anything of the run was touched (a setting it may not change, a step
/// limit it has passed): the run stays as it was, resumable with other settings.
struct ResumeRefused : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// Whether the setting `key` may take another value when a run resumes.
bool may_change_on_resume(const std::string& key);

/// `stored` with the changes `given` (setting key -> value) applied. Throws ResumeRefused naming
/// `run_dir`, every given setting that differs from the run's own but may not change, and
/// what may. `applied`, when not null, receives "--key NEW (was OLD)" for each change made.
TrainConfig apply_resume_settings(const TrainConfig& stored, const std::map<std::string, SettingValue>& given,
                                  const std::string& run_dir, std::vector<std::string>* applied = nullptr);

/// Throws ResumeRefused naming `run_dir` and the step the run has reached when `config`'s
/// max_steps (which bounds the whole run, its encoder pretraining included) is below it: `steps`
/// captioning and `pretrain_steps` pretraining steps taken.
void check_steps_not_passed(const TrainConfig& config, std::int64_t steps, std::int64_t pretrain_steps,
                            const std::string& run_dir);

/// Throws std::runtime_error naming `checkpoint` when its model settings differ from those of
/// the run's config.json (`folder_config`): a checkpoint of another model, not this run's.
void check_checkpoint_matches_run(const std::string& checkpoint, const TrainConfig& in_checkpoint,
                                  const TrainConfig& folder_config);

}  // namespace fovea
