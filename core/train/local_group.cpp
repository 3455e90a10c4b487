#include "core/train/local_group.h"

#include "core/runtime/error_text.h"

#include <stdexcept>

#include "core/train/data_parallel.h"
#include "core/train/process_group.h"

namespace fovea {

TrainResult train_with_local_processes(const TrainConfig& config, const TrainCallbacks& callbacks, int processes,
                                       GroupLauncher& launcher) {
  if (processes <= 1) return train(config, callbacks);
  config.validate();
  const int port = find_free_port();
  launcher.start(config, processes, port);
  ProcessGroupEnvironment env;
  env.world_size = processes;
  env.master_port = port;
  TrainData data;
  // When joining fails, the launcher (the application's) stops the others as it goes.
  data.group = std::make_shared<ProcessGroup>(env, kTrainingCollectiveTimeout, kTrainingJoinTimeout);
  TrainResult result;
  try {
    result = train(config, callbacks, data);
  } catch (const std::exception& e) {
    // Another process's failure shows here as a failed collective: name it when it is known.
    data.group.reset();
    const auto done = launcher.wait();
    throw std::runtime_error(error_text(e) + (done.failure.empty() ? "" : "; " + done.failure));
  }
  data.group.reset();
  const auto done = launcher.wait();
  if (!done.ok && !(result.interrupted && done.stopped_when_asked)) throw std::runtime_error(done.failure);
  return result;
}

}  // namespace fovea
