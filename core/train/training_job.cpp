#include "core/train/training_job.h"

#include <filesystem>
#include <stdexcept>

#include "core/runtime/error_text.h"
#include "core/train/resume_settings.h"
#include "core/train/run_lock.h"
#include "core/train/run_log.h"

namespace fovea {

std::string training_folder(const TrainingRequest& request) {
  return request.resume.empty() ? request.config.out_dir : request.resume;
}

TrainResult run_training_job(const TrainingRequest& request, const TrainCallbacks& callbacks, TrainData data) {
  const std::string folder = training_folder(request);
  // Resumed, or new in a folder that held no run: the folder is this run's to mark as failed.
  const bool owns_folder = request.records && (!request.resume.empty() || !std::filesystem::exists(metrics_path(folder)));
  // A new run's folder that this run creates: if the run fails before it logs anything, nothing
  // in it is a run (only the folder's lock), and it goes, so no empty folder stays behind.
  const bool creates_folder = request.records && request.resume.empty() && !std::filesystem::exists(folder);
  try {
    if (request.resume.empty() && request.processes > 1) {
      if (request.launcher == nullptr) throw std::invalid_argument("a run of several processes needs their launcher");
      return train_with_local_processes(request.config, callbacks, request.processes, *request.launcher);
    }
    if (request.resume.empty()) return train(request.config, callbacks, std::move(data));
    if (owns_folder) clear_run_failure(folder);
    return resume_training(request.resume, callbacks, std::move(data), request.given);
  } catch (const RunFolderBusy&) {
    throw;  // the folder is another run's: nothing of it is this run's to mark
  } catch (const ResumeRefused&) {
    throw;  // refused before anything was touched: the run stays as it was, resumable
  } catch (const std::exception& e) {
    std::error_code ec;
    if (creates_folder && !std::filesystem::exists(metrics_path(folder), ec)) {
      std::filesystem::remove_all(folder, ec);  // a folder that cannot be removed stays; the error goes on
      throw;
    }
    if (owns_folder) {
      try {
        record_run_failure(folder, error_text(e));
      } catch (const std::exception&) {
        // A folder that cannot be written to: the failure still reaches the caller.
      }
    }
    throw;
  }
}

}  // namespace fovea
