#pragma once
/// The one way every front end (`fovea train`, fovea-studio's training window, Python's
/// `fovea.train`/`fovea.resume`) starts or resumes a training run: the run itself
/// (core/train/trainer.h) and the bookkeeping of its folder around it, so a run that fails says
/// so in its folder (failed.json: the run list offers no Resume for it), a new run that fails
/// before it logs anything leaves no folder it created behind, a resumed run clears an
/// earlier failure, and a run refused because another process writes the folder leaves that
/// folder alone. Front ends supply callbacks and nothing else.
#include <map>
#include <string>

#include "core/train/local_group.h"
#include "core/train/train_settings.h"
#include "core/train/trainer.h"

namespace fovea {

struct TrainingRequest {
  TrainConfig config;  ///< a new run's settings (config.out_dir: its folder)
  /// Non-empty: resume the run in this folder instead, with `given` (key -> value,
  /// core/train/resume_settings.h) changing what a resume may change.
  std::string resume;
  std::map<std::string, SettingValue> given;
  /// This process keeps the folder's failure record: one process alone, or a group's first.
  bool records = true;
  /// A new run trained by this many processes on this machine, the others started by `launcher`
  /// (core/train/local_group.h); 1: this process alone (or the group `data` joins).
  int processes = 1;
  GroupLauncher* launcher = nullptr;
};

/// The folder a request trains in.
std::string training_folder(const TrainingRequest& request);

/// Starts or resumes the run as asked. A run that fails (an exception, a divergence) is recorded in
/// its folder when the folder is the run's (resumed, or new in a folder that held no run) and
/// `records`; then the exception goes on to the caller. RunFolderBusy (another process writes
/// the folder) and ResumeRefused (a resume refused before it touched anything) leave it alone.
TrainResult run_training_job(const TrainingRequest& request, const TrainCallbacks& callbacks, TrainData data = {});

}  // namespace fovea
